// Pieces the HTML report and its timeline share.
#pragma once

#include <string>

#include "report/report.hpp"

namespace dtriage::report {

// Escapes text for HTML element content and attribute values (control bytes become U+FFFD).
std::string esc(const std::string& s);
// The SVG timeline: a lane per node; the first error of each node, the root cause and the
// consequences it explains (linked). `undated` counts marks that have no time.
std::string timeline_svg(const Report& r, std::size_t& undated);

}  // namespace dtriage::report
