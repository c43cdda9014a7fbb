#include "formats/progress.hpp"

#include <array>
#include <cstring>
#include <span>

#include "base/bytes.hpp"

namespace dtriage::formats {
namespace {

bool alnum(char c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_'; }
bool digit(char c) { return c >= '0' && c <= '9'; }
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c | 0x20) : c; }

// `s` starts with `word` (lower case), any case.
bool starts_ci(std::string_view s, std::string_view word) {
  if (s.size() < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i)
    if (lower(s[i]) != word[i]) return false;
  return true;
}

// Reads an integer of up to 12 digits at s[i], which must not run on into a letter or a fraction
// ("0.5", "12ms"): those are measures, not counts.
std::optional<std::int64_t> count_at(std::string_view s, std::size_t& i) {
  const std::size_t start = i;
  std::int64_t v = 0;
  while (i < s.size() && digit(s[i]) && i - start < 12) v = v * 10 + (s[i++] - '0');
  if (i == start || (i < s.size() && digit(s[i]))) return std::nullopt;
  if (i < s.size() && (alnum(s[i]) || (s[i] == '.' && i + 1 < s.size() && digit(s[i + 1])))) return std::nullopt;
  return v;
}

// After a count: "/ 500000", " of 5000".
std::optional<std::int64_t> total_at(std::string_view s, std::size_t i) {
  while (i < s.size() && s[i] == ' ') ++i;
  if (i < s.size() && s[i] == '/') {
    ++i;
  } else if (starts_ci(s.substr(i), "of ")) {
    i += 3;
  } else {
    return std::nullopt;
  }
  while (i < s.size() && s[i] == ' ') ++i;
  return count_at(s, i);
}

// The words that name a step, at a word's start; the length matched, 0 for none. A word that runs
// on ("stepped", "iterator", "steps_per_epoch") is not one.
std::size_t step_word(std::string_view s) {
  // By first letter, each list in the order the longer words must be tried.
  static constexpr std::string_view kG[] = {"global_step", "global step"}, kN[] = {"num_updates"},
                                    kI[] = {"iteration", "iter"}, kS[] = {"steps", "step"};
  std::span<const std::string_view> words;
  switch (lower(s[0])) {
    case 'g': words = kG; break;
    case 'n': words = kN; break;
    case 'i': words = kI; break;
    case 's': words = kS; break;
    default: return 0;
  }
  for (std::string_view w : words) {
    if (!starts_ci(s, w)) continue;
    if (w.size() < s.size() && alnum(s[w.size()])) continue;
    return w.size();
  }
  return 0;
}

// What may stand between the word and its count: spaces, ':', '=', '#', '[', and a short
// parenthesised tag ("Iter(train) [ 1200/80000]").
std::optional<std::size_t> skip_separators(std::string_view s, std::size_t i) {
  const std::size_t start = i;
  if (i < s.size() && s[i] == '(') {
    const std::size_t close = s.find(')', i);
    if (close == std::string_view::npos || close - i > 12) return std::nullopt;
    i = close + 1;
  }
  while (i < s.size() && i - start < 16 && (s[i] == ' ' || s[i] == ':' || s[i] == '=' || s[i] == '#' || s[i] == '[' || s[i] == '\t'))
    ++i;
  return i;
}

// A tqdm bar: "45%|####5     | 450/1000 [01:23<01:42, 5.37it/s]".
std::optional<Progress> tqdm_bar(std::string_view s) {
  std::size_t at = 0;
  while (true) {
    const void* p = std::memchr(s.data() + at, '%', s.size() - at);
    if (p == nullptr) return std::nullopt;
    at = static_cast<std::size_t>(static_cast<const char*>(p) - s.data()) + 1;
    if (at >= s.size() || s[at] != '|' || at < 2 || !digit(s[at - 2])) continue;
    const std::size_t bar_end = s.find('|', at + 1);
    if (bar_end == std::string_view::npos) return std::nullopt;
    std::size_t i = bar_end + 1;
    while (i < s.size() && s[i] == ' ') ++i;
    auto step = count_at(s, i);
    if (!step || i >= s.size() || s[i] != '/') continue;
    ++i;
    auto total = count_at(s, i);
    if (!total) continue;
    return Progress{*step, total};
  }
}

// False when `s` surely states no step: every step word holds "te" in some case ("step",
// "iter", "num_updates"), a tqdm bar "%|". Sixteen byte pairs at a time; most lines of a table, a
// metric dict or a log message have neither.
bool may_state_step(std::string_view s) {
  std::size_t i = 0;
  for (; i + 17 <= s.size(); i += 16) {
    const base::Bytes16 a = base::load16(s.data() + i), b = base::load16(s.data() + i + 1);  // each byte, the one after
    if (base::any_set((((a | 0x20) == 't') & ((b | 0x20) == 'e')) | ((a == '%') & (b == '|')))) return true;
  }
  for (; i + 1 < s.size(); ++i)
    if (((s[i] | 0x20) == 't' && (s[i + 1] | 0x20) == 'e') || (s[i] == '%' && s[i + 1] == '|')) return true;
  return false;
}

}  // namespace

std::optional<Progress> read_progress(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n' || line.back() == ' ')) line.remove_suffix(1);
  if (std::memchr(line.data(), '\r', line.size()) != nullptr) line.remove_prefix(line.rfind('\r') + 1);  // memchr: rarely any
  if (!may_state_step(line)) return std::nullopt;
  static constexpr auto kFirst = [] {  // the first letters of the step words, in either case
    std::array<bool, 256> t{};
    for (const unsigned char c : {'s', 'S', 'i', 'I', 'g', 'G', 'n', 'N'}) t[c] = true;
    return t;
  }();
  for (std::size_t i = 0; i + 4 <= line.size(); ++i) {
    if (!kFirst[static_cast<unsigned char>(line[i])] || (i > 0 && alnum(line[i - 1]))) continue;
    const std::size_t n = step_word(line.substr(i));
    if (n == 0) continue;
    const auto after = skip_separators(line, i + n);
    if (!after || *after == i + n) continue;  // "step5": a name, not a count
    std::size_t j = *after;
    if (j >= line.size() || !digit(line[j])) continue;
    const auto step = count_at(line, j);
    if (!step) continue;
    return Progress{*step, total_at(line, j)};
  }
  return tqdm_bar(line);
}

}  // namespace dtriage::formats
