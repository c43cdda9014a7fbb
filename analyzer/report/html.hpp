// Pieces the HTML report and its timeline share.
#pragma once

#include <string>

#include "report/report.hpp"

namespace dtriage::report {

// Escapes text for HTML element content and attribute values (control bytes become U+FFFD).
std::string esc(const std::string& s);
// The SVG timeline: a lane per node; the first error of each node, the root cause and the
// consequences it explains (linked). `undated` counts marks that have no time.
// `undated`: marks with no time that could not be drawn; `placed`: marks drawn at a neighbour's time
// in their file (no time of their own).
std::string timeline_svg(const Report& r, std::size_t& undated, std::size_t& placed);

}  // namespace dtriage::report
