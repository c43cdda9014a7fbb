// The first line of a CANN error-code block ("EE8888: [PID: 1] 2025-... msg" and its variants, among
// them "[PID: 1] 2025-... Execution Error ROCE CQE(EI0013): msg", the error's title before its code).
#include "formats/families.hpp"
#include "formats/parse_util.hpp"

namespace dtriage::formats {
namespace {

DT_RE(re_cann_start,
      R"(^(?:\[PID: (\d+)\] (\d{4}-\d{2}-\d{2})-(\d{2}:\d{2}:\d{2})\.(\d{3})\.(\d{3}) )?(?:[A-Za-z_][A-Za-z_ ]{0,80}\()?([EW][A-Z0-9]\d{4})\)?:\s*(?:\[PID: (\d+)\]\s*)?(?:(\d{4}-\d{2}-\d{2})-(\d{2}:\d{2}:\d{2})\.(\d{3})\.(\d{3})\s*)?(.*)$)")
DT_RE(re_cann_start2,
      R"(^([EW][A-Z0-9]\d{4})\[PID: (\d+)\] (\d{4}-\d{2}-\d{2})-(\d{2}:\d{2}:\d{2})\.(\d{3})\.(\d{3}) \([EW][A-Z0-9]\d{4}\):\s*(.*)$)")

// True when the first 160 bytes hold something shaped like an error code (EE8888, EI0006, W11001):
// after a pid, a time and an error title of a few words at most.
bool has_code_shape(std::string_view s) {
  const std::size_t n = std::min<std::size_t>(s.size(), 160);
  for (std::size_t i = 0; i + 6 <= n; ++i) {
    if ((s[i] == 'E' || s[i] == 'W') && ascii_alnum(s[i + 1]) && digits(s.substr(i + 2, 4)))
      return true;
  }
  return false;
}

}  // namespace

bool parse_cann_start(std::string_view s, model::Event& e) {
  if (s.size() < 7) return false;
  const char c0 = s[0];
  if (c0 != 'E' && c0 != 'W' && c0 != '[' && !(c0 >= 'A' && c0 <= 'Z')) return false;
  if (!has_code_shape(s)) return false;
  M m;
  if (rx(re_cann_start2(), s, m)) {
    e.code = std::string(m[1]);
    e.pid = int_of(m[2]);
    set_time_full(e, m[3], m[4], std::string(m[5]) + std::string(m[6]));
    e.message = std::string(m[7]);
  } else if (rx(re_cann_start(), s, m)) {
    e.code = std::string(m[6]);
    if (!m[1].empty()) {
      e.pid = int_of(m[1]);
      set_time_full(e, m[2], m[3], std::string(m[4]) + std::string(m[5]));
    }
    if (!m[7].empty()) e.pid = int_of(m[7]);
    if (!m[8].empty()) set_time_full(e, m[8], m[9], std::string(m[10]) + std::string(m[11]));
    e.message = std::string(m[12]);
  } else {
    return false;
  }
  e.kind = model::Kind::Cann;
  e.level = e.code[0] == 'W' ? model::Level::Warning : model::Level::Error;
  if (auto d = find_device(e.message)) e.device = d;
  scan_message(e.message, e);
  return true;
}

}  // namespace dtriage::formats
