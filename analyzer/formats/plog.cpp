// CANN plog lines: "[LEVEL] MODULE(PID,PNAME):YYYY-MM-DD-HH:MM:SS.mmm.uuu [file.cc:123] message".
#include <cstdint>
#include <cstring>

#include "formats/families.hpp"
#include "formats/parse_util.hpp"

namespace dtriage::formats {

namespace {

// "YYYY-MM-DD-HH:MM:SS.mmm.uuu" (27 bytes) checked eight bytes at a time, without a branch per
// byte: the separators must be equal to the shape's, every other byte a digit. The masks are built
// from byte arrays, so the check holds whatever the byte order.
struct TimeShape {
  static constexpr char kShape[] = "0000-00-00-00:00:00.000.000";  // '0': a digit
  static constexpr std::size_t kAt[4] = {0, 8, 16, 19};
  std::uint64_t sep_mask[4], sep_val[4], zeros, sixes, highs;
  TimeShape() {
    unsigned char m[8], v[8], z[8], x[8], f[8];
    for (int w = 0; w < 4; ++w) {
      for (int b = 0; b < 8; ++b) {
        const char c = kShape[kAt[w] + static_cast<std::size_t>(b)];
        m[b] = c == '0' ? 0 : 0xff;
        v[b] = c == '0' ? 0 : static_cast<unsigned char>(c);
      }
      std::memcpy(&sep_mask[w], m, 8);
      std::memcpy(&sep_val[w], v, 8);
    }
    std::memset(z, '0', 8);
    std::memset(x, 0x06, 8);
    std::memset(f, 0xf0, 8);
    std::memcpy(&zeros, z, 8);
    std::memcpy(&sixes, x, 8);
    std::memcpy(&highs, f, 8);
  }
  bool operator()(const char* t) const {
    for (int w = 0; w < 4; ++w) {
      std::uint64_t x;
      std::memcpy(&x, t + kAt[w], 8);
      if ((x & sep_mask[w]) != sep_val[w]) return false;
      const std::uint64_t d = (x & ~sep_mask[w]) | (zeros & sep_mask[w]);  // separators read as '0'
      // Every byte in '0'..'9': its high nibble is 3, and adding 6 keeps it 3.
      if ((d & highs) != (zeros & highs) || ((d + sixes) & highs) != (zeros & highs)) return false;
    }
    return true;
  }
};

}  // namespace

bool plog_time_shaped(const char* t) {
  static const TimeShape shape;
  return shape(t);
}

bool split_plog(std::string_view s, PlogHeader& h) {
  const std::size_t close = s.find(']');
  if (close == std::string_view::npos || close < 4 || close > 10 || close + 2 >= s.size() || s[close + 1] != ' ')
    return false;
  h.level = s.substr(1, close - 1);
  static constexpr std::string_view kLevels[] = {"ERROR", "WARNING", "WARN", "INFO", "DEBUG",
                                                 "EVENT", "TRACE", "CRITICAL", "EXCEPTION"};
  if (std::find(std::begin(kLevels), std::end(kLevels), h.level) == std::end(kLevels)) return false;
  std::size_t i = close + 2;
  const std::size_t paren = s.find('(', i);
  if (paren == std::string_view::npos || paren == i || paren - i > 40) return false;
  h.module = s.substr(i, paren - i);
  for (char c : h.module)
    if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_')) return false;
  const std::size_t comma = s.find(',', paren);
  const std::size_t rparen = s.find("):", paren);
  if (comma == std::string_view::npos || rparen == std::string_view::npos || comma > rparen) return false;
  h.pid = s.substr(paren + 1, comma - paren - 1);
  const std::string_view pid_digits = !h.pid.empty() && h.pid[0] == '-' ? h.pid.substr(1) : h.pid;
  if (!digits(pid_digits)) return false;
  h.pname = s.substr(comma + 1, rparen - comma - 1);
  i = rparen + 2;
  // YYYY-MM-DD-HH:MM:SS.mmm.uuu = 27 bytes
  if (s.size() < i + 27) return false;
  const std::string_view t = s.substr(i, 27);
  if (!plog_time_shaped(t.data())) return false;
  h.date = t.substr(0, 10);
  h.time = t.substr(11, 8);
  h.ms = t.substr(20, 3);
  h.us = t.substr(24, 3);
  i += 27;
  if (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  h.rest = s.substr(i);
  return true;
}

bool parse_plog(std::string_view s, model::Event& e) {
  if (s.size() < 30 || s.front() != '[') return false;
  PlogHeader h;
  if (!split_plog(s, h)) return false;
  e.kind = model::Kind::Plog;
  e.level = level_word(h.level);
  e.set("module", std::string(h.module));
  e.pid = int_of(h.pid);
  if (e.pid && *e.pid < 0) e.pid.reset();
  if (!h.pname.empty()) {
    const std::size_t c = h.pname.rfind(',');
    e.set("process", std::string(c == std::string_view::npos ? h.pname : h.pname.substr(c + 1)));
  }
  std::string frac(h.ms);
  frac.append(h.us);
  set_time_full(e, h.date, h.time, frac);
  std::string_view msg = h.rest;
  // "[file.cc:123]" before the message
  if (!msg.empty() && msg.front() == '[') {
    const std::size_t end = msg.find(']');
    if (end != std::string_view::npos) {
      const std::string_view inside = msg.substr(1, end - 1);
      const std::size_t colon = inside.rfind(':');
      if (colon != std::string_view::npos && digits(inside.substr(colon + 1)) &&
          inside.find(' ') == std::string_view::npos) {
        e.set("src", std::string(inside));
        msg.remove_prefix(end + 1);
        if (!msg.empty() && msg.front() == ' ') msg.remove_prefix(1);
      }
    }
  }
  e.message = std::string(msg);
  if (auto d = find_device(msg)) e.device = d;
  scan_message(msg, e);
  return true;
}

}  // namespace dtriage::formats
