// Records glued onto one physical line, split back into the lines they were:
//  - text whose newlines are written as "\n" escapes (a JSON value or a repr printed raw, a log
//    shipper's export), split where a piece starts a record of its own;
//  - a traceback pasted with its newlines lost ("Traceback (most recent call last):   File "a.py",
//    line 3, in f     g() RuntimeError: boom"): header, frames, source lines and exception line;
//  - records of two streams run together without a newline ("...loss 2.31[rank1]: Traceback ...",
//    two NCCL or plog records on one line).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "base/bytes.hpp"
#include "formats/families.hpp"
#include "formats/parse_util.hpp"

namespace dtriage::formats {
namespace {

constexpr std::string_view kHeader = "Traceback (most recent call last):";
constexpr std::string_view kCause = "The above exception was the direct cause of the following exception:";
constexpr std::string_view kDuring = "During handling of the above exception, another exception occurred:";

// Where a record of its own may start inside a line: a traceback's header or a chained exception's
// sentence, torchrun's "[rank3]:" / "[default3]:", NCCL's "host:pid:tid [dev] NCCL LEVEL", CANN's
// plog header "[ERROR] MODULE(pid,".
DT_RE(re_record_inside,
      R"((Traceback \(most recent call last\):|The above exception was the direct cause of the following exception:|During handling of the above exception, another exception occurred:|\[(?:rank|default)\d{1,6}\]:|[A-Za-z0-9][\w.-]*:\d+:\d+ \[\d+\] (?:[\w./-]+:\d+ )?NCCL (?:INFO|WARN|ERROR|TRACE|ABORT) |\[(?:ERROR|WARNING|INFO|DEBUG|EVENT|TRACE)\] [A-Z][A-Z0-9_]*\(\d+,))")
DT_RE(re_role_prefix, R"(^\[(?:rank|default)\d{1,6}\]: ?)")
DT_RE(re_frame, R"(File "[^"\n]*", line \d+(?:, in [^\s]+)?)")
DT_RE(re_stamp_start, R"(^\d{4}-\d{2}-\d{2}[ T_-]\d{2}:\d{2})")
DT_RE(re_nccl_start, R"(^[A-Za-z0-9][\w.-]*:\d+:\d+ \[\d+\] NCCL )")

bool word_char(char c) { return ascii_alnum(c) || c == '_'; }

// The length of the exception type at the start of `s` when `s` reads as an exception line (the type,
// then ':' or the end), else 0.
std::size_t exception_at(std::string_view s) {
  std::size_t end = 0;
  while (end < s.size() && (word_char(s[end]) || s[end] == '.')) ++end;
  if (end == 0 || !error_type_name(s.substr(0, end))) return 0;
  if (end == s.size() || s[end] == ':') return end;
  return 0;
}

// Whether a piece cut at an escaped newline starts a record of its own.
bool record_start(std::string_view piece) {
  const std::string_view t = trim(piece);
  if (t.empty()) return false;
  if (starts_with(t, kHeader) || starts_with(t, kCause) || starts_with(t, kDuring)) return true;
  if (starts_with(t, "File \"") && contains(t, "\", line ")) return true;
  if (exception_at(t) != 0) return true;
  M m;
  return rx(re_role_prefix(), t, m) || rx(re_stamp_start(), t, m) || rx(re_nccl_start(), t, m);
}

// Text with its escapes read, cut at each escaped newline ("\n", "\r\n"). Empty when the line has
// no escaped newline that starts a record.
std::vector<std::string> split_escaped(std::string_view s) {
  std::vector<std::string> pieces(1);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c != '\\' || i + 1 == s.size()) {
      pieces.back() += c;
      continue;
    }
    const char n = s[++i];
    switch (n) {
      case 'n': pieces.emplace_back(); break;
      case 'r': break;
      case 't': pieces.back() += '\t'; break;
      case '"': case '\'': case '\\': pieces.back() += n; break;
      default: pieces.back() += c; pieces.back() += n;
    }
  }
  bool split = false;
  for (std::size_t k = 1; k < pieces.size() && !split; ++k) split = record_start(pieces[k]);
  if (!split) return {};
  std::erase_if(pieces, [](const std::string& p) { return trim(p).empty(); });
  return pieces;
}

// A traceback with its newlines lost: `s` starts with the header (after a "[rank3]: " prefix, given
// again to every piece). Frames are re-indented as Python prints them; after the last frame, its
// source line and the exception line are told apart by the exception's type ("... loss.backward()
// RuntimeError: CUDA error").
void split_traceback(std::string_view s, std::vector<std::string>& out) {
  M m;
  std::string role;
  if (rx(re_role_prefix(), s, m)) {
    role = std::string(m[0]);
    s.remove_prefix(m[0].size());
  }
  const std::size_t head = s.find(kHeader);
  if (head != 0 || s.find("File \"", kHeader.size()) == std::string_view::npos) {
    out.push_back(role + std::string(s));
    return;
  }
  out.push_back(role + std::string(kHeader));
  std::string_view rest = s.substr(kHeader.size());
  std::string_view tail;  // after the last frame
  while (true) {
    re2::StringPiece sp[1];
    const re2::StringPiece in(rest.data(), rest.size());
    if (!re_frame().Match(in, 0, rest.size(), RE2::UNANCHORED, sp, 1)) {
      tail = rest;
      break;
    }
    const std::string_view between = trim(rest.substr(0, static_cast<std::size_t>(sp[0].data() - rest.data())));
    if (!between.empty()) out.push_back(role + "    " + std::string(between));
    out.push_back(role + "  " + std::string(sp[0].data(), sp[0].size()));
    rest = rest.substr(static_cast<std::size_t>(sp[0].data() - rest.data()) + sp[0].size());
  }
  // The exception starts where a word follows a space, a closing bracket or quote (or the frame's
  // end) and reads as an exception line; what comes before it is the frame's source line.
  std::size_t ex = std::string_view::npos;
  for (std::size_t i = 0; i < tail.size(); ++i) {
    if (i > 0 && word_char(tail[i - 1])) continue;
    if (i > 0 && tail[i - 1] == '.') continue;
    if (exception_at(tail.substr(i)) != 0) {
      ex = i;
      break;
    }
  }
  const std::string_view code = trim(tail.substr(0, std::min(ex, tail.size())));
  if (!code.empty()) out.push_back(role + "    " + std::string(code));
  if (ex != std::string_view::npos) out.push_back(role + std::string(trim(tail.substr(ex))));
}

// Cut before each record that starts inside the line (not at its start). A header announced by a
// label ("traceback : Traceback ...", torchrun's failure table; "ERROR:root:Traceback") stays.
std::vector<std::string_view> split_records(std::string_view s) {
  std::vector<std::string_view> parts;
  std::size_t from = 0, at = 1;
  // A record of NCCL's glued to the end of another's message: its host is the line's first one.
  M m;
  const std::string_view first_host = rx(re_nccl_start(), s, m) ? s.substr(0, s.find(':')) : std::string_view{};
  while (at < s.size()) {
    re2::StringPiece sp[1];
    if (!re_record_inside().Match(re2::StringPiece(s.data(), s.size()), at, s.size(), RE2::UNANCHORED, sp, 1)) break;
    std::size_t pos = static_cast<std::size_t>(sp[0].data() - s.data());
    bool known_host = false;
    if (!first_host.empty() && std::isalnum(static_cast<unsigned char>(s[pos]))) {
      const std::string_view host = s.substr(pos, s.find(':', pos) - pos);
      if (host.size() >= first_host.size() && host.substr(host.size() - first_host.size()) == first_host) {
        pos += host.size() - first_host.size();
        sp[0] = re2::StringPiece(s.data() + pos, 1);
        known_host = true;
      }
    }
    at = pos + 1;
    const std::string_view before = trim(s.substr(from, pos - from));
    if (before.empty()) continue;
    if (before.back() == ':' && sp[0].size() > 0 && sp[0][0] == 'T') continue;
    // NCCL's host:pid:tid after a host name's character is the end of a longer host name.
    if (!known_host && std::isalnum(static_cast<unsigned char>(sp[0][0])) && (word_char(s[pos - 1]) || s[pos - 1] == '-' || s[pos - 1] == '.'))
      continue;
    // A label before the record ("node01: [rank3]: ...", "host: host:pid:tid ..."): its prefix.
    if (before.back() == ':' && before.find_first_of(" \t") == std::string_view::npos) continue;
    parts.push_back(s.substr(from, pos - from));
    from = pos;
  }
  if (parts.empty()) return {};
  parts.push_back(s.substr(from));
  return parts;
}

// A plog header's level at the start of `s`.
bool plog_level_at(std::string_view s) {
  for (const std::string_view level : {"[ERROR] ", "[WARNING] ", "[INFO] ", "[EVENT] ", "[DEBUG] ", "[TRACE] "})
    if (starts_with(s, level)) return true;
  return false;
}

bool plog_inside(std::string_view s) {
  for (std::size_t at = s.find('[', 1); at != std::string_view::npos; at = s.find('[', at + 1))
    if (plog_level_at(s.substr(at))) return true;
  return false;
}

}  // namespace

// True when " NCCL " may start a record glued after other text: it occurs twice, or once after
// more than a line's own NCCL header ("host:pid:tid [dev]", one space at most, ending in ']').
// An ordinary NCCL line, the bulk of an NCCL_DEBUG=INFO log, is not worth splitting.
static bool nccl_glued_maybe(std::string_view s) {
  const std::size_t p = s.find(" NCCL ", 1);
  if (p == std::string_view::npos) return false;
  if (s.find(" NCCL ", p + 1) != std::string_view::npos) return true;
  const std::string_view head = s.substr(0, p);
  return head.empty() || head.back() != ']' || std::count(head.begin(), head.end(), ' ') > 1;
}

// The records split_records looks for, by a piece each: most lines have none.
static bool may_hold_records(std::string_view s) {
  return contains(s, kHeader) || contains(s, "above exception") || s.find("]:", 1) != std::string_view::npos ||
         nccl_glued_maybe(s) || plog_inside(s);
}

// may_hold_records, or a "\n" escape, in one pass over the bytes: a rare byte of each thing looked
// for is looked up in a table, and only there is the rest compared. (A search per thing reads the
// line six times, and those whose first byte is common, ' ' or 'a', compare at most places.)
bool may_be_glued(std::string_view s) {
  if (s.size() < 24) return false;
  const std::size_t n = s.size();
  auto at = [&](std::size_t i) {
    const std::string_view from = s.substr(i);
    switch (s[i]) {
      case '\\':
        return i + 1 < n && s[i + 1] == 'n';
      case ']':
        return i >= 1 && i + 1 < n && s[i + 1] == ':';
      case '[':
        return i >= 1 && plog_level_at(from);
      case 'T':
        return starts_with(from, kHeader);
      case 'v':  // "above exception" (a rarer byte than its first)
        return i >= 2 && starts_with(s.substr(i - 2), "above exception");
      case 'N':  // " NCCL " (not ' ', most bytes of a table row)
        return i >= 2 && s[i - 1] == ' ' && starts_with(from, "NCCL ") && nccl_glued_maybe(s);
      default:
        return false;
    }
  };
  // Sixteen bytes at a time (base/bytes.hpp): only the places of the six bytes are looked at.
  const auto marks = [](base::Bytes16 w) { return (w == '\\') | (w == ']') | (w == '[') | (w == 'T') | (w == 'v') | (w == 'N'); };
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16)
    if (base::each_set(marks(base::load16(s.data() + i)), [&](int k) { return at(i + static_cast<std::size_t>(k)); })) return true;
  // The last sixteen bytes, read again where they overlap: those not looked at yet.
  const std::size_t from = n - 16, seen = i - from;
  return i < n && base::each_set(marks(base::load16(s.data() + from)), [&](int k) {
           return static_cast<std::size_t>(k) >= seen && at(from + static_cast<std::size_t>(k));
         });
}

bool split_glued(std::string_view s, std::vector<std::string>& pieces) {
  pieces.clear();
  if (!may_be_glued(s)) return false;
  if (s.find("\\n") != std::string_view::npos) {
    std::vector<std::string> escaped = split_escaped(s);
    if (!escaped.empty()) {  // each piece may hold a record's start after some text ("error": "Traceback ...)
      for (const std::string& e : escaped) {
        const std::vector<std::string_view> parts = split_records(e);
        if (parts.empty()) pieces.push_back(e);
        for (const std::string_view part : parts) pieces.emplace_back(part);
      }
      return true;
    }
  }
  if (!may_hold_records(s)) return false;
  const bool header = s.find(kHeader) != std::string_view::npos;
  const std::vector<std::string_view> parts = split_records(s);
  if (parts.empty()) {
    if (!header) return false;
    split_traceback(s, pieces);
    return pieces.size() > 1;
  }
  for (const std::string_view part : parts) split_traceback(part, pieces);
  return true;
}

}  // namespace dtriage::formats
