#include "formats/tables.hpp"

#include <array>
#include <cctype>

#include "formats/util.hpp"

namespace dtriage::formats {
namespace {

constexpr std::array<std::string_view, 32> kSignals = {
    "",        "SIGHUP",  "SIGINT",    "SIGQUIT", "SIGILL",  "SIGTRAP", "SIGABRT",  "SIGBUS",
    "SIGFPE",  "SIGKILL", "SIGUSR1",   "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM",  "SIGTERM",
    "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU",  "SIGURG",
    "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO",  "SIGPWR",   "SIGSYS"};

constexpr VersionKey kVersionKeys[] = {
    {"nccl", "nccl_version"},     {"driver", "driver_version"},   {"cuda", "cuda_version"},
    {"cann", "cann_version"},     {"torch", "torch_version"},     {"pytorch", "torch_version"},
    {"torch_npu", "torch_npu_version"}, {"firmware", "firmware_version"}, {"hccl", "hccl_version"},
    {"npu-smi", "npu_smi_version"}, {"nvidia-smi", "nvidia_smi_version"},
};

}  // namespace

std::string signal_name(std::int64_t number) {
  if (number <= 0) return "";
  if (number < static_cast<std::int64_t>(kSignals.size())) return std::string(kSignals[static_cast<std::size_t>(number)]);
  return "SIG" + std::to_string(number);
}

std::string normalize_signal(std::string_view text) {
  text = trim(text);
  if (starts_with(text, "Signals.")) text.remove_prefix(8);
  if (auto n = to_int(text)) return signal_name(*n);
  if (starts_with(text, "SIG")) return std::string(text);
  for (std::size_t i = 1; i < kSignals.size(); ++i)
    if (kSignals[i].substr(3) == text) return std::string(kSignals[i]);
  return std::string(text);
}

const VersionKey* version_keys(std::size_t& count) {
  count = std::size(kVersionKeys);
  return kVersionKeys;
}

std::string_view version_field(std::string_view word) {
  for (const VersionKey& k : kVersionKeys) {
    if (k.word.size() != word.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < word.size() && same; ++i)
      same = std::tolower(static_cast<unsigned char>(word[i])) == k.word[i];
    if (same) return k.field;
  }
  return {};
}

}  // namespace dtriage::formats
