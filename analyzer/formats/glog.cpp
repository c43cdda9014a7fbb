// glog-style headers of c10d / ProcessGroupNCCL and torchrun.
#include "formats/families.hpp"
#include "formats/parse_util.hpp"

namespace dtriage::formats {

namespace {

// "HH:MM:SS" with an optional ".fraction" at the start of `s`; returns its length or 0.
std::size_t clock_len(std::string_view s) {
  if (s.size() < 8 || !digits(s.substr(0, 2)) || s[2] != ':' || !digits(s.substr(3, 2)) || s[5] != ':' ||
      !digits(s.substr(6, 2)))
    return 0;
  std::size_t n = 8;
  if (n < s.size() && s[n] == '.') {
    std::size_t k = n + 1;
    while (k < s.size() && s[k] >= '0' && s[k] <= '9') ++k;
    if (k > n + 1) n = k;
  }
  return n;
}

// "file.cc:123]" at the start of `s`: sets file and line, returns the length through ']' or 0.
std::size_t src_len(std::string_view s, std::string_view& file, std::string_view& line) {
  const std::size_t close = s.find(']');
  if (close == std::string_view::npos || close == 0) return 0;
  const std::string_view inside = s.substr(0, close);
  const std::size_t colon = inside.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || !digits(inside.substr(colon + 1)) ||
      inside.find(' ') != std::string_view::npos)
    return 0;
  file = inside.substr(0, colon);
  line = inside.substr(colon + 1);
  return close + 1;
}

bool glog_level(char c) { return c == 'E' || c == 'W' || c == 'I' || c == 'F'; }

void fill_glog(model::Event& e, char level, std::string_view mmdd, std::string_view clock, std::string_view file,
               std::string_view line, std::string_view msg) {
  e.level = level_word(std::string_view(&level, 1));
  if (!mmdd.empty()) {
    e.set("month_day", std::string(mmdd.substr(0, mmdd.size() - 2)) + "-" + std::string(mmdd.substr(mmdd.size() - 2)));
    e.set("clock", std::string(clock));
  }
  std::string src(file);
  src.push_back(':');
  src.append(line);
  e.set("src", std::move(src));
  if (!msg.empty() && msg.front() == ' ') msg.remove_prefix(1);
  e.message = std::string(msg);
  scan_message(e.message, e);
}

}  // namespace

// glog-style headers, split by hand (they start most lines of c10d and torchrun output):
//   [E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] msg     (PyTorch 2.4+, month without zero)
//   [E ProcessGroupNCCL.cpp:1537] msg                          (older)
//   E0217 08:19:12.297000 140475426195264 torch/.../api.py:826] msg   (torchrun; 3rd field: thread or pid)
bool parse_glog(std::string_view s, model::Event& e) {
  if (s.size() > 6 && s[0] == '[' && glog_level(s[1])) {
    std::size_t i = 2;
    std::string_view mmdd, clock;
    if (s[i] != ' ') {
      std::size_t d = i;
      while (d < s.size() && s[d] >= '0' && s[d] <= '9') ++d;
      if (d - i < 3 || d - i > 4 || d >= s.size() || s[d] != ' ') return false;
      mmdd = s.substr(i, d - i);
      const std::size_t c = clock_len(s.substr(d + 1));
      if (c == 0 || d + 1 + c >= s.size() || s[d + 1 + c] != ' ') return false;
      clock = s.substr(d + 1, c);
      i = d + 1 + c;
    }
    std::string_view file, line;
    const std::size_t n = src_len(s.substr(i + 1), file, line);
    if (n == 0) return false;
    e.kind = model::Kind::Torch;
    fill_glog(e, s[1], mmdd, clock, file, line, s.substr(i + 1 + n));
    return true;
  }
  if (s.size() > 20 && glog_level(s[0]) && digits(s.substr(1, 4)) && s[5] == ' ') {
    const std::size_t c = clock_len(s.substr(6));
    if (c == 0) return false;
    std::size_t i = 6 + c;
    if (i >= s.size() || s[i] != ' ') return false;
    while (i < s.size() && s[i] == ' ') ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
    if (j == i || j >= s.size() || s[j] != ' ') return false;
    std::string_view file, line;
    const std::size_t n = src_len(s.substr(j + 1), file, line);
    if (n == 0) return false;
    e.kind = contains(file, "torch/distributed") ? model::Kind::Torchrun : model::Kind::Torch;
    fill_glog(e, s[0], s.substr(1, 4), s.substr(6, c), file, line, s.substr(j + 1 + n));
    return true;
  }
  return false;
}

}  // namespace dtriage::formats
