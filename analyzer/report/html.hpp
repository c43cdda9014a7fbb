// Pieces the HTML report and its timeline share.
#pragma once

#include <string>

#include "report/report.hpp"

namespace dtriage::report {

// Escapes text for HTML element content and attribute values (control bytes become U+FFFD).
std::string esc(const std::string& s);
// What the timeline drew, for its legend. `undated`: marks with no time that could not be drawn;
// `placed`: marks drawn at a neighbour's time in their file (no time of their own); `related`:
// marks of findings listed under "Other findings".
struct TimelineCounts {
  std::size_t undated = 0, placed = 0, related = 0;
};
// The SVG timeline: a lane per node; the first error of each node, the root cause, the consequences
// it explains and the related findings (each linked).
std::string timeline_svg(const Report& r, TimelineCounts& counts);

}  // namespace dtriage::report
