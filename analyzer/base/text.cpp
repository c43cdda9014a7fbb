#include "base/text.hpp"

#include <cstdio>

#include "base/json_escape.hpp"

#include <iconv.h>

#include <cstdint>
#include <cstring>
#include <set>

namespace dtriage::base {
namespace {

// Length of the well-formed UTF-8 sequence at s[i], 0 when there is none.
std::size_t seq_len(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  const std::size_t left = s.size() - i;
  auto cont = [&](std::size_t k) { return (b(i + k) & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return left >= 2 && cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (left < 3 || !cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && b(i + 1) < 0xA0) return 0;  // overlong
    if (c == 0xED && b(i + 1) > 0x9F) return 0;  // surrogates
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (left < 4 || !cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && b(i + 1) < 0x90) return 0;
    if (c == 0xF4 && b(i + 1) > 0x8F) return 0;
    return 4;
  }
  return 0;
}

}  // namespace

bool is_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    if (i + 8 <= s.size()) {
      std::uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if ((w & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    const std::size_t n = seq_len(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

namespace {

// One GB18030 decoder per thread, closed when the thread ends.
struct Gb18030 {
  iconv_t cd = iconv_open("UTF-8", "GB18030");
  Gb18030() = default;
  Gb18030(const Gb18030&) = delete;
  Gb18030& operator=(const Gb18030&) = delete;
  ~Gb18030() {
    if (cd != reinterpret_cast<iconv_t>(-1)) iconv_close(cd);
  }
};

}  // namespace

std::string legacy_to_utf8(std::string_view s) {
  thread_local Gb18030 decoder;
  iconv_t cd = decoder.cd;
  if (cd != reinterpret_cast<iconv_t>(-1)) {
    iconv(cd, nullptr, nullptr, nullptr, nullptr);  // reset the state
    std::string out(s.size() * 2 + 16, '\0');
    char* in = const_cast<char*>(s.data());
    std::size_t in_left = s.size();
    char* o = out.data();
    std::size_t out_left = out.size();
    if (iconv(cd, &in, &in_left, &o, &out_left) != static_cast<std::size_t>(-1) && in_left == 0) {
      out.resize(out.size() - out_left);
      return out;
    }
  }
  std::string out;
  out.reserve(s.size() * 2);
  for (unsigned char c : s) append_utf8(out, c);  // Latin-1: each byte its code point
  return out;
}

std::string clip_utf8(std::string_view s, std::size_t max) {
  if (s.size() <= max) return std::string(s);
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
  return std::string(s.substr(0, cut)) + "...";
}

void append_utf8(std::string& out, std::uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xc0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3f));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xe0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (c & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (c & 0x3f));
  }
}

bool needs_visible(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t') || c == 0x7f) return true;
      ++i;
      continue;
    }
    const std::size_t n = seq_len(s, i);
    if (n == 0) return true;
    if (n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) return true;  // C1
    if (spoofing_control_at(s, i) != 0) return true;  // bidi overrides, line separators
    i += n;
  }
  return false;
}

std::string visible(std::string_view s) {
  if (!needs_visible(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 16);
  static const char* kHex = "0123456789ABCDEF";
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c == 0x7f) {
        out += "^?";
      } else if (c < 0x20 && c != '\t') {
        out.push_back('^');
        out.push_back(static_cast<char>(c + 0x40));
      } else {
        out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    const std::size_t n = seq_len(s, i);
    if (n == 0) {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
      ++i;
      continue;
    }
    char32_t cp = 0;
    if (spoofing_control_at(s, i, &cp) == n) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "<U+%04X>", static_cast<unsigned>(cp));
      out += buf;
    } else if (n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) {
      const unsigned char d = static_cast<unsigned char>(s[i + 1]);
      out += "<U+00";
      out.push_back(kHex[d >> 4]);
      out.push_back(kHex[d & 15]);
      out.push_back('>');
    } else {
      out.append(s.data() + i, n);
    }
    i += n;
  }
  return out;
}

std::size_t longest_run(std::string_view s, char c) {
  std::size_t best = 0, run = 0;
  for (char x : s) {
    run = x == c ? run + 1 : 0;
    if (run > best) best = run;
  }
  return best;
}

std::string markdown_inline(std::string_view s) {
  std::string o;
  for (char c : visible(s)) {
    if (std::string_view("\\`*_[]<>|#!~&").find(c) != std::string_view::npos) o.push_back('\\');
    o.push_back(c);
  }
  return o;
}

std::string markdown_code(std::string_view s) {
  const std::string v = visible(s);
  const std::size_t run = longest_run(v, '`');
  const std::string ticks(run + 1, '`');
  return ticks + (run > 0 ? " " + v + " " : v) + ticks;
}

bool file_extension(std::string_view label) {
  static const std::set<std::string_view> kExt = {"log",  "txt", "out", "err",  "json", "jsonl", "gz",  "tar", "tgz", "zip",
                                                  "bz2",  "xz",  "zst", "py",   "yaml", "yml",   "csv", "md",  "html", "pt",
                                                  "pth",  "ckpt", "so", "cc",   "cpp",  "h",     "hpp", "sh",  "conf", "cfg",
                                                  "info", "ini",  "bin", "snapshot", "bak", "old", "tmp"};
  return kExt.count(label) != 0;
}

std::size_t display_width(std::string_view s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::uint32_t cp = c;
    std::size_t n = 1;
    if (c >= 0xF0) n = 4, cp = c & 0x07u;
    else if (c >= 0xE0) n = 3, cp = c & 0x0Fu;
    else if (c >= 0xC0) n = 2, cp = c & 0x1Fu;
    if (n > 1) {
      if (i + n > s.size()) n = s.size() - i;
      for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
    }
    i += n;
    if (cp >= 0x300 && cp < 0x370) continue;  // combining marks
    const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
                      (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                      (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD);
    w += wide ? 2 : 1;
  }
  return w;
}

std::string pad_columns(std::string_view s, std::size_t width, bool right) {
  const std::size_t w = display_width(s);
  if (w >= width) return std::string(s);
  const std::string fill(width - w, ' ');
  return right ? fill + std::string(s) : std::string(s) + fill;
}

}  // namespace dtriage::base
