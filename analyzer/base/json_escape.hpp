// Appends a string as a JSON string literal. Control bytes become \u00XX and bytes that are not
// valid UTF-8 become U+FFFD, so any log text (NUL bytes, Latin-1, cut sequences) yields valid JSON.
#pragma once

#include <string>
#include <string_view>

namespace dtriage::base {

void append_json_string(std::string& out, std::string_view s);

// The invisible controls that can make text read other than it is (bidirectional overrides and
// isolates U+202A-202E, U+2066-2069, marks U+200E, U+200F, U+061C, line and paragraph separators
// U+2028, U+2029): the length of the one at s[i] and its code point, else 0.
std::size_t spoofing_control_at(std::string_view s, std::size_t i, char32_t* code_point = nullptr);
// `s` with each of them written as <U+202E>, for HTML and Markdown (which show it, not act on it).
std::string spoofing_controls_shown(std::string_view s);
// A JSON text with each of them written as \u202e: the same value, no longer active when the text
// is looked at (the controls can only be inside strings there).
void escape_spoofing_controls_in_json(std::string& json);

// Returns `s` with invalid UTF-8 replaced by U+FFFD (for libraries that insist on UTF-8).
std::string sanitize_utf8(std::string_view s);

}  // namespace dtriage::base
