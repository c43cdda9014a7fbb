// Fuzz target: the whole analyze path on a small tree. The input is cut into up to four files at
// "\n@@@\n"; they are packed as one tar (so paths, nodes and archives are walked for real), then
// ingested, parsed, correlated, judged by the real rule pack and rendered in every format, with and
// without --redact.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/analysis.hpp"
#include "report/report.hpp"

namespace {

std::string octal(std::uint64_t v, int width) {
  std::string s(static_cast<std::size_t>(width), '\0');
  for (int i = width - 2; i >= 0; --i) {
    s[static_cast<std::size_t>(i)] = static_cast<char>('0' + (v & 7));
    v >>= 3;
  }
  return s;
}

std::string tar_member(const std::string& name, const std::string& data) {
  std::string h(512, '\0');
  h.replace(0, std::min<std::size_t>(name.size(), 99), name.substr(0, 99));
  h.replace(100, 8, octal(0644, 8));
  h.replace(124, 12, octal(data.size(), 12));
  h[156] = '0';
  h.replace(257, 6, std::string("ustar\0", 6));
  h.replace(263, 2, "00");
  std::fill(h.begin() + 148, h.begin() + 156, ' ');
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  h.replace(148, 8, octal(sum, 7) + " ");
  return h + data + std::string((512 - data.size() % 512) % 512, '\0');
}

const dtriage::analysis::RuleBook& book() {
  static const dtriage::analysis::RuleBook b = dtriage::analysis::RuleBook::load({DTRIAGE_FUZZ_RULES}).value();
  return b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dtriage;
  const std::string input(reinterpret_cast<const char*>(data), size);
  static const char* names[] = {"gpu-a01/train.log", "gpu-a02/train.log", "npu-b01/ascend/log/debug/plog/plog-51302_20250604101405123.log",
                                "gpu-a01/npu-smi-info.txt"};
  std::string tar;
  std::size_t start = 0;
  for (int k = 0; k < 4; ++k) {
    std::size_t cut = input.find("\n@@@\n", start);
    if (k == 3 || cut == std::string::npos) cut = input.size();
    tar += tar_member(names[k], input.substr(start, cut - start));
    if (cut >= input.size()) break;
    start = cut + 5;
  }
  tar += std::string(1024, '\0');
  analysis::Options opt;
  opt.limits.max_total_bytes = 64u << 20;
  opt.max_line = 1 << 16;
  const auto a = analysis::analyze(analysis::Inputs{{}, {{"job.tar", tar}}, {}}, book(), opt);
  const std::vector<rules::LoadProblem> problems;
  const report::Report rep{a->events, a->facts, a->outcome, a->inventory, problems, 0, "fuzz", "", ""};
  std::size_t total = report::render_json(rep).size() + report::render_text(rep, true).size() + report::render_markdown(rep).size() +
                      report::render_html(rep).size();
  const report::RedactedReport masked = report::redact(rep);
  total += report::render_markdown(masked.view()).size() + report::render_json(masked.view()).size();
  return total == 0 ? 1 : 0;
}
