// NCCL_DEBUG output in every prefix generation (2.2 without the NCCL token, stripped, bare
// file:line, timestamped, host:pid:tid) and the NCCL version / failure lines.
#include "formats/families.hpp"
#include "formats/parse_util.hpp"

namespace dtriage::formats {
namespace {

DT_RE(re_nccl_stripped, R"(^\[(\d+)\] (?:([\w./-]+):(\d+) )?NCCL (INFO|WARN|TRACE) (.*)$)")
DT_RE(re_nccl_bare, R"(^([\w./-]+\.(?:cc|h|cu|c)):(\d+) NCCL (WARN|INFO) (.*)$)")
DT_RE(re_nccl_body_warn, R"(^(?:([\w./-]+):(\d+) )?(?:\(\w+\) )?NCCL WARN (.*)$)")
DT_RE(re_nccl_body_trace, R"(^(?:[\d.]+ )?([\w./-]+):(\d+) NCCL TRACE (.*)$)")
DT_RE(re_nccl_body_old, R"(^(?:([\w./-]+):(\d+) )?(INFO|WARN) (.*)$)")
DT_RE(re_nccl_version, R"(^NCCL version (\d[\w.+-]*))")
DT_RE(re_nccl_failure, R"(^NCCL failure ([\w./-]+):(\d+) '([^']*)')")

}  // namespace

bool split_nccl_header(std::string_view s, NcclHeader& h) {
  const std::size_t c1 = s.find(':');
  if (c1 == std::string_view::npos || c1 == 0) return false;
  h.host = s.substr(0, c1);
  for (char c : h.host)
    if (c == ' ' || c == '[' || c == ']' || c == '\t') return false;
  const std::size_t c2 = s.find(':', c1 + 1);
  const std::size_t sp = s.find(' ', c1 + 1);
  if (c2 == std::string_view::npos || sp == std::string_view::npos || c2 > sp) return false;
  h.pid = s.substr(c1 + 1, c2 - c1 - 1);
  h.tid = s.substr(c2 + 1, sp - c2 - 1);
  if (!digits(h.pid) || !digits(h.tid)) return false;
  h.body = s.substr(sp + 1);
  h.dev = {};
  if (!h.body.empty() && h.body.front() == '[') {
    const std::size_t end = h.body.find("] ");
    if (end != std::string_view::npos && digits(h.body.substr(1, end - 1))) {
      h.dev = h.body.substr(1, end - 1);
      h.body.remove_prefix(end + 2);
    }
  }
  return true;
}

bool parse_nccl(std::string_view s, model::Event& e) {
  M m;
  std::string_view body;
  if (!s.empty() && s.front() == '[' && rx(re_nccl_stripped(), s, m)) {
    e.kind = model::Kind::Nccl;
    e.device = int_of(m[1]);
    e.level = m[4] == "WARN" ? model::Level::Warning : level_word(m[4]);
    if (!m[2].empty()) e.set("src", std::string(m[2]) + ":" + std::string(m[3]));
    e.message = std::string(m[5]);
    scan_message(e.message, e);
    return true;
  }
  const bool has_nccl = contains(s, "NCCL ");
  if (has_nccl && rx(re_nccl_bare(), s, m)) {  // prefix stripped down to the source file by the user
    e.kind = model::Kind::Nccl;
    e.level = m[3] == "WARN" ? model::Level::Warning : model::Level::Info;
    e.set("src", std::string(m[1]) + ":" + std::string(m[2]));
    e.message = std::string(m[4]);
    scan_message(e.message, e);
    return true;
  }
  // "NCCL WARN ..." with nothing before it: a line of NCCL's whose header was cut (a paste, a
  // collector that keeps the message alone); NCCL prints no other line that starts so.
  for (const auto& [word, level] : {std::pair{std::string_view("NCCL WARN "), model::Level::Warning}, {"NCCL INFO ", model::Level::Info}})
    if (starts_with(s, word) && s.size() > word.size()) {
      e.kind = model::Kind::Nccl;
      e.level = level;
      e.message = std::string(s.substr(word.size()));
      scan_message(e.message, e);
      return true;
    }
  if (starts_with(s, "NCCL version") && rx(re_nccl_version(), s, m)) {
    e.kind = model::Kind::Nccl;
    e.level = model::Level::Info;
    e.code = "nccl-version";
    e.set("nccl_version", std::string(m[1]));
    e.message = std::string(s);
    return true;
  }
  if (starts_with(s, "NCCL failure") && rx(re_nccl_failure(), s, m)) {
    e.kind = model::Kind::Nccl;
    e.level = model::Level::Error;
    e.code = "nccl-failure";
    e.message = std::string(m[3]);
    e.set("src", std::string(m[1]) + ":" + std::string(m[2]));
    return true;
  }
  if (!has_nccl && !contains(s, "INFO") && !contains(s, "WARN")) return false;
  // "[date time] host:pid:tid [dev] body", split by hand (see split_plog).
  std::string_view date, clock, frac, rest = s;
  if (!rest.empty() && rest.front() == '[' && rest.size() > 22 && digits(rest.substr(1, 4)) && rest[5] == '-') {
    const std::size_t end = rest.find("] ");
    if (end == std::string_view::npos || end < 20) return false;
    date = rest.substr(1, 10);
    clock = rest.substr(12, 8);
    if (end > 21 && rest[20] == '.') frac = rest.substr(21, end - 21);
    rest.remove_prefix(end + 2);
  }
  NcclHeader h;
  if (!split_nccl_header(rest, h)) return false;
  const std::string_view host = h.host, pid = h.pid, tid = h.tid, dev = h.dev;
  body = h.body;
  M b;
  model::Level level = model::Level::None;
  std::string msg;
  if (starts_with(body, "NCCL INFO ")) {
    level = model::Level::Info;
    msg = std::string(body.substr(10));
  } else if (contains(body, "NCCL WARN") && rx(re_nccl_body_warn(), body, b)) {
    level = model::Level::Warning;
    msg = std::string(b[3]);
    if (!b[1].empty()) e.set("src", std::string(b[1]) + ":" + std::string(b[2]));
  } else if (contains(body, "NCCL TRACE") && rx(re_nccl_body_trace(), body, b)) {
    level = model::Level::Trace;
    msg = std::string(b[3]);
  } else if (starts_with(body, "NCCL CALL ")) {
    level = model::Level::Trace;
    msg = std::string(body.substr(10));
  } else if (rx(re_nccl_body_old(), body, b)) {  // NCCL 2.2: no "NCCL" token
    level = b[3] == "WARN" ? model::Level::Warning : model::Level::Info;
    msg = std::string(b[4]);
  } else {
    return false;
  }
  e.kind = model::Kind::Nccl;
  e.level = level;
  if (!date.empty()) set_time_full(e, date, clock, frac);
  e.node = std::string(host);
  e.node_from_content = true;
  e.pid = int_of(pid);
  set_int(e, "tid", tid);
  if (!dev.empty()) e.device = int_of(dev);
  e.message = std::move(msg);
  scan_message(e.message, e);
  return true;
}

}  // namespace dtriage::formats
