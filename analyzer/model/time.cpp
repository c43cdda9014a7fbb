#include "model/time.hpp"

#include <cstddef>

namespace dtriage::model {
namespace {

// The number of `n` digits at `s[at]`, or nullopt.
std::optional<int> digits_at(std::string_view s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return std::nullopt;
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

}  // namespace

std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}


Time Time::parse(std::string text, bool year_inferred) {
  Time t;
  t.year_inferred = year_inferred;
  const std::string_view s = text;
  // YYYY-MM-DDTHH:MM:SS. A year before 1970 is no clock a job ran by (year 0000 from a zeroed
  // stamp): kept as text, so it neither comes first nor stretches a timeline over two millennia.
  auto y = digits_at(s, 0, 4), mo = digits_at(s, 5, 2), d = digits_at(s, 8, 2);
  auto h = digits_at(s, 11, 2), mi = digits_at(s, 14, 2), se = digits_at(s, 17, 2);
  if (y && mo && d && h && mi && se && s[4] == '-' && s[7] == '-' && (s[10] == 'T' || s[10] == ' ') && s[13] == ':' &&
      s[16] == ':' && *y >= 1970 && *mo >= 1 && *mo <= 12 && *d >= 1 && *d <= 31 && *h <= 24 && *mi <= 59 && *se <= 60) {
    std::int64_t us = (days_from_civil(*y, static_cast<unsigned>(*mo), static_cast<unsigned>(*d)) * 86400 +
                       std::int64_t{*h} * 3600 + std::int64_t{*mi} * 60 + *se) *
                      1'000'000;
    std::size_t i = 19;
    if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
      ++i;
      std::int64_t scale = 100'000;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        us += (s[i] - '0') * scale;
        scale /= 10;
        ++t.digits;
        ++i;
      }
    }
    if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
      t.zone_known = true;
      ++i;
    } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
      const int sign = s[i] == '-' ? -1 : 1;
      auto zh = digits_at(s, i + 1, 2);
      std::size_t at = i + 3;
      if (at < s.size() && s[at] == ':') ++at;
      auto zm = digits_at(s, at, 2);
      if (zh) {
        t.zone_known = true;
        t.zone_minutes = static_cast<std::int16_t>(sign * (*zh * 60 + (zm ? *zm : 0)));
      }
    }
    t.micros = us;
    t.valid = true;
  }
  t.text = std::move(text);
  return t;
}

std::optional<std::int64_t> Time::second() const {
  if (!valid) return std::nullopt;
  return micros >= 0 ? micros / 1'000'000 : (micros - 999'999) / 1'000'000;
}

std::optional<double> Time::seconds() const {
  if (!valid) return std::nullopt;
  return static_cast<double>(micros) / 1e6;
}

std::strong_ordering compare(const Time& a, const Time& b) {
  if (a.valid != b.valid) return a.valid ? std::strong_ordering::less : std::strong_ordering::greater;
  if (a.valid && a.micros != b.micros) return a.micros <=> b.micros;
  return a.text <=> b.text;
}

std::string time_with_year(std::string_view year, std::string month_day, std::string_view clock) {
  if (month_day.size() == 4) month_day = "0" + month_day;  // "3-21" -> "03-21"
  std::string t(year);
  t += '-';
  t += month_day;
  t += 'T';
  t += clock;
  return t;
}

}  // namespace dtriage::model
