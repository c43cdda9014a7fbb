#include "base/json_escape.hpp"

#include <cstdio>

namespace dtriage::base {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid.
std::size_t utf8_len(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t n;
  unsigned min;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) { n = 2; min = 0x80; }
  else if ((c & 0xF0) == 0xE0) { n = 3; min = 0x800; }
  else if ((c & 0xF8) == 0xF0) { n = 4; min = 0x10000; }
  else return 0;
  if (i + n > s.size()) return 0;
  unsigned cp = c & (0x7F >> n);
  for (std::size_t k = 1; k < n; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

}  // namespace

std::size_t spoofing_control_at(std::string_view s, std::size_t i, char32_t* code_point) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  char32_t cp = 0;
  std::size_t n = 0;
  if (i + 1 < s.size() && b(0) == 0xD8 && b(1) == 0x9C) {
    cp = 0x061C, n = 2;
  } else if (i + 2 < s.size() && b(0) == 0xE2 && (b(1) == 0x80 || b(1) == 0x81)) {
    cp = 0x2000 + ((b(1) & 0x3F) << 6) + (b(2) & 0x3F);
    n = 3;
    const bool bad = cp == 0x200E || cp == 0x200F || (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
    if (!bad) return 0;
  } else {
    return 0;
  }
  if (code_point != nullptr) *code_point = cp;
  return n;
}

namespace {

// `s` with each spoofing control written by `format` (printf, one %X / %x of its code point).
std::string spoofing_controls_written(std::string_view s, const char* format) {
  std::string out;
  out.reserve(s.size() + 16);
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    if (const std::size_t n = static_cast<unsigned char>(s[i]) >= 0xD8 ? spoofing_control_at(s, i, &cp) : 0; n != 0) {
      char buf[16];
      std::snprintf(buf, sizeof buf, format, static_cast<unsigned>(cp));
      out += buf;
      i += n;
    } else {
      out.push_back(s[i++]);
    }
  }
  return out;
}

}  // namespace

std::string spoofing_controls_shown(std::string_view s) { return spoofing_controls_written(s, "<U+%04X>"); }

void escape_spoofing_controls_in_json(std::string& json) {
  if (json.find("\xE2\x80") == std::string::npos && json.find("\xE2\x81") == std::string::npos && json.find("\xD8\x9C") == std::string::npos) return;
  json = spoofing_controls_written(json, "\\u%04x");
}

void append_json_string(std::string& out, std::string_view s) {
  static const char* hex = "0123456789abcdef";
  out.push_back('"');
  std::size_t i = 0;
  while (i < s.size()) {
    // Fast path: a run of plain ASCII that needs no escaping.
    std::size_t j = i;
    while (j < s.size()) {
      const auto c = static_cast<unsigned char>(s[j]);
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
      ++j;
    }
    out.append(s.data() + i, j - i);
    i = j;
    if (i >= s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"') { out += "\\\""; ++i; }
    else if (c == '\\') { out += "\\\\"; ++i; }
    else if (c == '\n') { out += "\\n"; ++i; }
    else if (c == '\r') { out += "\\r"; ++i; }
    else if (c == '\t') { out += "\\t"; ++i; }
    else if (c < 0x20) {
      out += "\\u00";
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 0xF]);
      ++i;
    } else {
      const std::size_t n = utf8_len(s, i);
      char32_t cp = 0;
      if (n == 0) { out += kReplacement; ++i; }
      else if (spoofing_control_at(s, i, &cp) == n) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
        out += buf;
        i += n;
      }
      else { out.append(s.data() + i, n); i += n; }
    }
  }
  out.push_back('"');
}

std::string sanitize_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t n = utf8_len(s, i);
    if (n == 0) { out += kReplacement; ++i; }
    else { out.append(s.data() + i, n); i += n; }
  }
  return out;
}

}  // namespace dtriage::base
