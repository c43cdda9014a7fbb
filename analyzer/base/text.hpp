// Text that arrives in other encodings, and text on its way to a terminal or a file people read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dtriage::base {

// True when `s` is well-formed UTF-8 (ASCII included; checked eight bytes at a time while ASCII).
bool is_utf8(std::string_view s);

// `s` (not UTF-8) as UTF-8: decoded as GB18030 (GBK, GB2312: Chinese-locale logs) when it is valid
// GB18030, else as Latin-1 (every byte a character). So a log written in a Chinese locale reads, and
// matches, as its UTF-8 twin.
std::string legacy_to_utf8(std::string_view s);
// Appends one Unicode code point (at most U+10FFFF) to `out` as UTF-8.
void append_utf8(std::string& out, std::uint32_t code_point);
// `s` cut to at most `max` bytes at a UTF-8 character boundary, with "..." added when cut.
std::string clip_utf8(std::string_view s, std::size_t max);

// `s` with every control character shown instead of sent: C0 bytes as ^X (ESC as ^[, newline as
// ^J), DEL as ^?, C1 characters as <U+0085>, invalid UTF-8 bytes as \xNN; tabs stay. What a log
// line or a file name holds can then no more move the cursor, set a window title, ask the terminal
// to answer, or start a new report line.
std::string visible(std::string_view s);
// True when visible(s) would change `s`.
bool needs_visible(std::string_view s);

// Markdown, for tickets: `s` made visible, with every character Markdown or HTML could read as
// markup backslash-escaped (CommonMark), so that it cannot close a <details>, add an element or a
// link; and `s` as a code span that no backtick inside it can close.
std::string markdown_inline(std::string_view s);
std::string markdown_code(std::string_view s);
// The longest run of `c` in `s` (a fence must be longer than any inside).
std::size_t longest_run(std::string_view s, char c);

// Columns a terminal gives the UTF-8 text: two for East Asian wide characters (CJK, Hangul, full-width
// forms), one for others, none for combining marks.
std::size_t display_width(std::string_view s);
// The text padded with spaces to `width` columns (left-aligned, or right-aligned); as it is when wider.
std::string pad_columns(std::string_view s, std::size_t width, bool right = false);

// A dotted name's last label that makes it a file's name, not a domain's ("log" of gpu-a01.log,
// "json", "gz", "ckpt", ...): lower case, as compared.
bool file_extension(std::string_view label);

}  // namespace dtriage::base
