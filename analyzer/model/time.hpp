// A line's time, read once from the ISO 8601 text the parsers write ("2025-03-21T10:17:31.123",
// "2024-05-01T02:00:00.123456789Z", "2024-05-01T10:00:00+08:00") and compared as an instant.
//
// The clock is taken as printed: a zone, when the text gives one, is kept beside it but not
// applied. The zone-less lines of a job are their host's local clock, and the zoned ones (a
// container runtime's UTC stamp) cannot be put on that clock without knowing the host's zone;
// comparing what was printed keeps lines of one source in order and never moves a line by hours.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dtriage::model {

struct Time {
  std::string text;               // as the log gave it, to its precision; "" = the line had no time
  std::int64_t micros = 0;        // the clock as printed, in microseconds since 1970-01-01 (valid only)
  std::int16_t zone_minutes = 0;  // the zone's offset from UTC when zone_known
  std::uint8_t digits = 0;        // fraction digits printed: 0 = whole seconds, 3 = ms, 6 = us, 9 = ns
  bool valid = false;             // the text read as a date and a clock
  bool zone_known = false;        // "Z" or "+08:00" followed the clock
  bool year_inferred = false;     // the year (or date) came from elsewhere (an earlier line, the job)

  // Reads `text`; a text that is not an ISO date and clock stays as text (valid = false).
  static Time parse(std::string text, bool year_inferred = false);

  bool empty() const { return text.empty(); }
  // Whole seconds of the clock (for "the same second"), when valid.
  std::optional<std::int64_t> second() const;
  // Seconds as a real number (timelines), when valid.
  std::optional<double> seconds() const;
};

// The order of two times: instants (the text breaks a tie: "…31" before "…31.000"), times that
// did not read as a date and clock after them, by text. Empty times are not special here:
// callers put undated events last.
std::strong_ordering compare(const Time& a, const Time& b);
// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d);
inline bool operator<(const Time& a, const Time& b) { return compare(a, b) < 0; }
inline bool operator==(const Time& a, const Time& b) { return a.text == b.text; }

// The time of a line that printed no year ("3-21" or "03-21", "10:17:31.123"), dated with `year`
// ("2025"): "2025-03-21T10:17:31.123". The one place undated lines get their year, whether from
// an earlier line of their file (formats) or from the rest of the job (correlate).
std::string time_with_year(std::string_view year, std::string month_day, std::string_view clock);

}  // namespace dtriage::model
