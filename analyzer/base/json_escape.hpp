// Appends a string as a JSON string literal. Control bytes become \u00XX and bytes that are not
// valid UTF-8 become U+FFFD, so any log text (NUL bytes, Latin-1, cut sequences) yields valid JSON.
#pragma once

#include <string>
#include <string_view>

namespace dtriage::base {

void append_json_string(std::string& out, std::string_view s);

// Returns `s` with invalid UTF-8 replaced by U+FFFD (for libraries that insist on UTF-8).
std::string sanitize_utf8(std::string_view s);

}  // namespace dtriage::base
