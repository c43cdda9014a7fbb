// Helpers shared by the parsers of every log family (not part of the stage's interface).
#pragma once

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "formats/util.hpp"
#include "model/event.hpp"

namespace dtriage::formats {

using re2::RE2;

// Captures of one match; g[0] is the whole match, unmatched groups are empty.
struct M {
  static constexpr int kMax = 16;
  std::array<std::string_view, kMax> g{};
  std::string_view operator[](int i) const { return g[static_cast<std::size_t>(i)]; }
};

inline bool rx(const RE2& re, std::string_view s, M& m, RE2::Anchor anchor = RE2::ANCHOR_START) {
  const int n = std::min(re.NumberOfCapturingGroups() + 1, M::kMax);
  std::array<re2::StringPiece, M::kMax> sp;
  if (!re.Match(re2::StringPiece(s.data(), s.size()), 0, s.size(), anchor, sp.data(), n)) return false;
  for (int i = 0; i < n; ++i)
    m.g[static_cast<std::size_t>(i)] =
        std::string_view(sp[static_cast<std::size_t>(i)].data(), sp[static_cast<std::size_t>(i)].size());
  return true;
}

// A lazily compiled regex with a name, one per pattern.
#define DT_RE(name, pattern)                  \
  const RE2& name() {                         \
    static const RE2 re(pattern, RE2::Quiet); \
    return re;                                \
  }

inline std::optional<std::int64_t> int_of(std::string_view s) { return to_int(s); }

// Checked integer captures: the field is set only when the text is a number that fits
// (a capture of 20 digits leaves the field unset instead of storing garbage).
inline bool set_int(model::Event& e, std::string key, std::string_view text) {
  if (auto v = to_int(text)) {
    e.set(std::move(key), *v);
    return true;
  }
  return false;
}

// ASCII classes, inline: std::isalnum is a call into the C library per byte, on paths that look at
// every byte of a line's prefix; dtriage never sets a locale, so the two agree.
inline bool ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool ascii_alnum(char c) { return ascii_alpha(c) || (c >= '0' && c <= '9'); }

inline bool digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

inline void set_time_full(model::Event& e, std::string_view date, std::string_view time, std::string_view frac) {
  e.set_time(iso(date, time, frac));
}

// "E" / "ERROR" / "WARN" ... -> error, warning, info, debug, trace, event.
inline model::Level level_word(std::string_view l) { return model::level_from_word(l); }

}  // namespace dtriage::formats
