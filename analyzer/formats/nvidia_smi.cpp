// nvidia-smi: -L lines, the header with driver / CUDA versions, GPU and process rows.
#include "formats/families.hpp"
#include "formats/parse_util.hpp"

namespace dtriage::formats {
namespace {

DT_RE(re_nvsmi_header, R"(NVIDIA-SMI ([\d.]+)\s+Driver Version: ([\d.]+)(?:\s+CUDA Version: ([\d.]+))?)")
DT_RE(re_nvsmi_list, R"(^GPU (\d+): (.+?) \(UUID: (GPU-[\w-]+)\))")
// nvidia-smi's own failures, as NVML's error string follows them: a GPU it cannot get a handle for
// ("Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error", newer drivers
// "for gpu 0000:3b:00.0: GPU is lost.  Reboot the system to recover this GPU"), and NVML that does
// not start ("Failed to initialize NVML: Driver/library version mismatch").
DT_RE(re_nvsmi_handle, R"((?i)Unable to determine the device handle for (?:gpu)? ?([0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]): *(.+?)\s*$)")
DT_RE(re_nvml_init, R"(Failed to initialize NVML: *(.+?)\s*$)")
// GPU and process rows are read by hand, token by token (a token: bytes between blanks), as
//   GPU      ^\|\s+(\d+)\s+(.+?)\s+(?:On|Off)\s+\|\s+(BUS)\s+(?:On|Off)\s+\|      BUS: hex{4,8}:hex{2}:hex{2}.hex
//   process  ^\|\s+(\d+)\s+(?:N/A|\d+)\s+(?:N/A|\d+)\s+(\d+)\s+(C|G|C\+G)\s+(\S+)\s+(\d+)MiB\s+\|
// would read them: a table row is most of a monitor's output, and a regex with captures (the
// name's lazy group) costs several times this.
bool blank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\n'; }

// The tokens of a row, up to kMax; each a view into the row.
struct Tokens {
  static constexpr std::size_t kMax = 48;
  std::array<std::string_view, kMax> t;
  std::size_t n = 0;
};
void tokens(std::string_view s, Tokens& out) {
  out.n = 0;
  std::size_t i = 0;
  while (out.n < Tokens::kMax) {
    while (i < s.size() && blank(s[i])) ++i;
    if (i == s.size()) return;
    const std::size_t b = i;
    while (i < s.size() && !blank(s[i])) ++i;
    out.t[out.n++] = s.substr(b, i - b);
  }
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
bool hex_run(std::string_view s, std::size_t from, std::size_t n) {
  if (from + n > s.size()) return false;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(from), s.begin() + static_cast<std::ptrdiff_t>(from + n),
                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}
bool bus_id(std::string_view s) {  // 00000000:0F:00.0, 0000:0F:00.0
  const std::size_t colon = s.find(':');
  if (colon < 4 || colon > 8 || !hex_run(s, 0, colon)) return false;
  return s.size() == colon + 8 && hex_run(s, colon + 1, 2) && s[colon + 3] == ':' && hex_run(s, colon + 4, 2) &&
         s[colon + 6] == '.' && hex_run(s, colon + 7, 1);
}
bool on_off(std::string_view s) { return s == "On" || s == "Off"; }

// The row's GPU index, name (first to last byte of its tokens) and bus id.
bool gpu_row(const Tokens& k, std::string_view& index, std::string_view& name, std::string_view& bus) {
  if (k.n < 7 || k.t[0] != "|" || !all_digits(k.t[1])) return false;
  for (std::size_t j = 3; j + 4 < k.n; ++j) {  // the first On / Off that the rest follows: the name is lazy
    if (!on_off(k.t[j]) || k.t[j + 1] != "|" || !bus_id(k.t[j + 2]) || !on_off(k.t[j + 3]) || k.t[j + 4].front() != '|')
      continue;
    index = k.t[1];
    const char* first = k.t[2].data();
    const char* last = k.t[j - 1].data() + k.t[j - 1].size();
    name = std::string_view(first, static_cast<std::size_t>(last - first));
    bus = k.t[j + 2];
    return true;
  }
  return false;
}

// The row's GPU index, pid, process name and memory in MiB.
bool process_row(const Tokens& k, std::string_view& index, std::string_view& pid, std::string_view& process,
                 std::string_view& mib) {
  if (k.n < 9 || k.t[0] != "|" || !all_digits(k.t[1])) return false;
  auto na_or_number = [](std::string_view t) { return t == "N/A" || all_digits(t); };
  if (!na_or_number(k.t[2]) || !na_or_number(k.t[3]) || !all_digits(k.t[4])) return false;
  if (k.t[5] != "C" && k.t[5] != "G" && k.t[5] != "C+G") return false;
  const std::string_view m = k.t[7];
  if (m.size() < 4 || m.substr(m.size() - 3) != "MiB" || !all_digits(m.substr(0, m.size() - 3)) || k.t[8].front() != '|')
    return false;
  index = k.t[1];
  pid = k.t[4];
  process = k.t[6];
  mib = m.substr(0, m.size() - 3);
  return true;
}

// Where a row's first word starts: after its bar and blanks (0: no bar or no blank).
std::size_t after_bar(std::string_view s) {
  if (s.empty() || s.front() != '|') return 0;
  std::size_t i = 1;
  while (i < s.size() && blank(s[i])) ++i;
  return i > 1 && i < s.size() ? i : 0;
}
bool digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool smi_bar_line(std::string_view s) {
  const std::size_t i = after_bar(s);
  return i != 0 && (digit(s[i]) || s.compare(i, 10, "NVIDIA-SMI") == 0);
}

bool parse_nvidia_smi(std::string_view s, model::Event& e) {
  M m;
  if (starts_with(s, "GPU ") && rx(re_nvsmi_list(), s, m)) {
    e.kind = model::Kind::NvidiaSmi;
    e.level = model::Level::Info;
    e.code = "gpu";
    e.device = int_of(m[1]);
    e.set("gpu_name", std::string(m[2]));
    e.set("uuid", std::string(m[3]));
    return true;
  }
  if (s.empty()) return false;
  if (s.front() != '|') {  // a table row starts with its bar; nvidia-smi's failures do not
    auto failure = [&](const char* code, std::string_view nvml_error) {
      e.kind = model::Kind::NvidiaSmi;
      e.level = model::Level::Error;
      e.code = code;
      e.set("nvml_error", std::string(nvml_error));
      return true;
    };
    if (contains(s, "Unable to determine the device handle") && rx(re_nvsmi_handle(), s, m, RE2::UNANCHORED)) {
      e.set("bus_id", std::string(m[1]));
      return failure("gpu-unreachable", m[2]);
    }
    if (contains(s, "Failed to initialize NVML") && rx(re_nvml_init(), s, m, RE2::UNANCHORED))
      return failure("nvml-init-failed", m[1]);
    return false;
  }
  if (!smi_bar_line(s)) return false;
  // Both rows: "|", blanks, then the GPU index; most rows of a table have none (borders, headers,
  // the usage line) and are not split into tokens. The header: "|", blanks, "NVIDIA-SMI".
  if (!digit(s[after_bar(s)])) {
    if (!rx(re_nvsmi_header(), s, m, RE2::UNANCHORED)) return false;
    e.kind = model::Kind::NvidiaSmi;
    e.level = model::Level::Info;
    e.code = "versions";
    e.set("nvidia_smi_version", std::string(m[1]));
    e.set("driver_version", std::string(m[2]));
    if (!m[3].empty()) e.set("cuda_version", std::string(m[3]));
    return true;
  }
  Tokens k;
  tokens(s, k);
  std::string_view index, name, bus, pid, process, mib;
  if (gpu_row(k, index, name, bus)) {
    e.kind = model::Kind::NvidiaSmi;
    e.level = model::Level::Info;
    e.code = "gpu";
    e.device = int_of(index);
    e.set("gpu_name", std::string(trim(name)));
    e.set("bus_id", std::string(bus));
    return true;
  }
  if (process_row(k, index, pid, process, mib)) {
    e.kind = model::Kind::NvidiaSmi;
    e.level = model::Level::Info;
    e.code = "gpu-process";
    e.device = int_of(index);
    e.pid = int_of(pid);
    e.set("process", std::string(process));
    set_int(e, "memory_mib", mib);
    return true;
  }
  return false;
}

}  // namespace dtriage::formats
