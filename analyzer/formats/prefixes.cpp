// Outer prefixes added by launchers and collectors ([rankN]:, [defaultN]:, Ray, MPI, vLLM, pdsh,
// container JSON, collector timestamps, kubectl --prefix): peeled before a line is parsed.
#include <simdjson.h>

#include <algorithm>
#include <cstring>

#include "base/bytes.hpp"
#include "formats/families.hpp"
#include "formats/parse_util.hpp"

namespace dtriage::formats {
namespace {

// ---- outer prefixes -----------------------------------------------------------------------------
DT_RE(re_viewer_lineno, R"(^\[\d+\] )")
// Ray's driver forwards every process's lines behind who wrote them (python/ray/_private/worker.py):
// "(NAME pid=N, ip=A) " for a named actor or task, "(pid=N) " for an unnamed one, "(raylet) ",
// "(raylet, ip=A) " and "(autoscaler +1m30s) " for its daemons; vLLM adds "rank=R".
DT_RE(re_ray_prefix, R"(^\((?:([A-Za-z_][\w-]*)(?: rank=(\d+))? pid=(\d+)|pid=(\d+)|(?:raylet|gcs_server|autoscaler|monitor|dashboard)(?: \+[\dhms.]+)?)(?:, ip=([\d.]+))?\) ?)")
DT_RE(re_vllm_logger, R"(^(DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d{2}-\d{2} \d{2}:\d{2}:\d{2}) \[[^\]]+\] ?)")
DT_RE(re_mpi_prefix, R"(^\[(\d+),(\d+)\]<(stdout|stderr)>: ?)")
DT_RE(re_bracket_iso_collector, R"(^\[(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z?\] \S+ \|\| )")
// What may follow a fan-out tool's host label ("node01: "), the first time it is seen: the start of
// a record of the stack (torchrun's rank prefix, NCCL's host:pid:tid, a date, a traceback, a plog or
// glog header, c10d's "[W socket.cpp:...]", Ray's worker prefix, Python logging of torch, a shell's
// trace of the launch command: "+ torchrun ...").
DT_RE(re_after_label,
      R"(^(?:\[(?:rank|default)\d+\]:|[\w.-]+:\d+:\d+ \[\d+\] |\[?\d{4}-\d{2}-\d{2}[ T_-]\d{2}:\d{2}|Traceback \(most recent call last\)|\[(?:ERROR|WARNING|INFO|DEBUG|EVENT|TRACE)\] [A-Z][A-Z0-9_]*\(\d+,|\[[EWIF]\d{4} |\[[EWIF] [\w.]+:\d+\]|[EWIF]\d{4} \d{2}:\d{2}:\d{2}|\([A-Za-z_][\w-]*(?: rank=\d+)? pid=\d+|(?:INFO|WARNING|ERROR|CRITICAL|DEBUG):(?:torch|__main__|root)|[EWHI][A-Z0-9]\d{4}: |\[(?:ERROR|WARN|WARNING|INFO|DEBUG)\] \d{4}-\d{2}-\d{2}-\d{2}:\d{2}|(?:[a-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception): |  File "[^"]+", line \d+|\+ (?:\S*/)?(?:torchrun|python[\d.]*|deepspeed|accelerate|srun|mpirun|bash|sh) ))")
// syslog / journalctl's short format: "Mar  4 05:06:07 HOST IDENT[PID]: " (a job run as a systemd
// unit, or the kernel's lines in /var/log/messages).
DT_RE(re_syslog, R"(^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) {1,2}(\d{1,2}) (\d{2}:\d{2}:\d{2})(?:\.\d+)? ([\w.-]+) [\w./@:-]+(?:\[\d+\])?: )")

}  // namespace

std::string without_terminal_escapes(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] != '\x1b') {
      out += s[i++];
      continue;
    }
    ++i;
    if (i < s.size() && s[i] == '[') {  // CSI: parameters, intermediates, one final byte
      ++i;
      while (i < s.size() && s[i] >= 0x30 && s[i] <= 0x3f) ++i;
      while (i < s.size() && s[i] >= 0x20 && s[i] <= 0x2f) ++i;
      if (i < s.size() && s[i] >= 0x40 && s[i] <= 0x7e) ++i;
    } else if (i < s.size() && s[i] == ']') {  // OSC (window titles, links): to BEL or ESC '\\'
      while (i < s.size() && s[i] != '\a' && !(s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '\\')) ++i;
      if (i < s.size()) i += s[i] == '\a' ? 1 : 2;
    } else {  // ESC, intermediates (a charset choice: ESC ( B), one final byte
      while (i < s.size() && s[i] >= 0x20 && s[i] <= 0x2f) ++i;
      if (i < s.size()) ++i;
    }
  }
  return out;
}

namespace {

enum class Peel { Peeled, Stop };

bool digit(char c) { return c >= '0' && c <= '9'; }
// A character of a host or service name: letters, digits, '-', '.', '_'.
bool name_char(char c) { return ascii_alnum(c) || c == '-' || c == '.' || c == '_'; }
bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }  // RE2's \s
std::size_t spaces_from(std::string_view s, std::size_t k) {
  while (k < s.size() && space(s[k])) ++k;
  return k;
}

// A prefix's time as the events carry it: "DATE" 'T' "HH:MM:SS" ['.' FRAC] (seconds ":00" when the
// stamp has minutes only), written in place.
void set_time(std::string& out, const Stamp& st) {
  out.assign(st.date);
  out += 'T';
  out.append(st.clock);
  if (st.clock.size() == 5) out.append(":00");
  if (!st.frac.empty()) {
    out += '.';
    out.append(st.frac);
  }
}

// Container runtimes' JSON lines ({"log":"...","stream":"stderr","time":"..."}): the log text.
std::string_view peel_container_json(std::string_view s, Prefix& p, std::string& storage) {
  if (s.empty() || s.front() != '{' || !contains(s, "\"log\"")) return s;
  static thread_local simdjson::ondemand::parser parser;
  simdjson::padded_string padded(s.data(), s.size());
  auto doc = parser.iterate(padded);
  if (!doc.error()) {
    auto obj = doc.get_object();
    if (!obj.error()) {
      for (auto field : obj) {
        std::string_view k, v;
        if (field.unescaped_key().get(k)) break;
        if (k == "log") {
          if (field.value().get_string().get(v)) break;
          storage.assign(v);
        } else if (k == "time") {
          if (!field.value().get_string().get(v)) p.time = std::string(v);  // RFC 3339, kept as given
        }
      }
    }
  }
  if (storage.empty()) return s;
  while (!storage.empty() && (storage.back() == '\n' || storage.back() == '\r')) storage.pop_back();
  p.key += "json:";
  return storage;
}

// UCX's own prefix (ucs/debug/log.c): "[HOST:PID:THREAD] " on its log lines (after their
// "[SECONDS.MICROS] " stamp), "[HOST:PID   :THREAD:TID] " (the pid padded to 4) on a fatal error
// ("Caught signal 7 (Bus error: ...)", its backtrace): the host and process the line is of.
bool peel_ucx(std::string_view& s, Prefix& p) {
  std::size_t i = 1;
  while (i < s.size() && i < 130 && name_char(s[i])) ++i;
  const std::string_view host = s.substr(1, i - 1);
  if (host.empty() || i >= s.size() || s[i] != ':' || !std::any_of(host.begin(), host.end(), [](char c) { return ascii_alpha(c); }))
    return false;
  std::size_t k = ++i;
  while (k < s.size() && digit(s[k])) ++k;
  if (k == i) return false;
  const auto pid = int_of(s.substr(i, k - i));
  while (k < s.size() && s[k] == ' ') ++k;
  int numbers = 0;
  while (k < s.size() && s[k] == ':') {
    const std::size_t from = ++k;
    while (k < s.size() && digit(s[k])) ++k;
    if (k == from) return false;
    ++numbers;
  }
  if (numbers < 1 || numbers > 2 || k + 1 >= s.size() || s[k] != ']' || s[k + 1] != ' ') return false;
  p.host = std::string(host);
  p.pid = pid;
  p.key.append(s.substr(0, k + 2));
  s.remove_prefix(k + 2);
  return true;
}

// "[rank3]:", "[default3]:", "[pod/NAME/CONTAINER] ", "[1,3]<stdout>:", bracketed timestamps.
Peel peel_bracket(std::string_view& s, Prefix& p) {
  if (peel_ucx(s, p)) return Peel::Peeled;
  // "[rank3]:" / "[default3]:" (role name, then the number), split by hand: it starts most
  // lines of torchrun output.
  // ("]:" is looked for where both uses below may take it: before byte 48.)
  const std::size_t close_colon = s.substr(0, 49).find("]:");
  if (const std::size_t close = close_colon; close != std::string_view::npos && close < 40) {
    std::size_t d = close;
    while (d > 1 && s[d - 1] >= '0' && s[d - 1] <= '9') --d;
    bool name_ok = d > 1 && d < close;
    for (std::size_t i = 1; name_ok && i < d; ++i)
      name_ok = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_';
    if (name_ok) {
      const auto n = int_of(s.substr(d, close - d));
      if (s.substr(1, d - 1) == "rank") p.rank = n;
      else p.local_rank = n;
      std::size_t end = close + 2;
      if (end < s.size() && s[end] == ' ') ++end;
      p.key.append(s.substr(0, end));
      s.remove_prefix(end);
      return Peel::Peeled;
    }
  }
  // Any other torchrun line prefix: its template is the user's (TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE,
  // log_line_prefix_template, from ${role_name}, ${rank}, ${local_rank}: "[trainer0|0]:", "[3]:",
  // "[worker-1/2]:"). One bracketed word without blanks, with a digit, right before ':' is a stream's prefix; which
  // number is which is the template's, so none is taken. Not a date ("[2024-06-04T10:00:00]:").
  if (const std::size_t close = close_colon; close != std::string_view::npos && close > 1 && close < 48) {
    const std::string_view inner = s.substr(1, close - 1);
    const bool date = inner.size() >= 5 && digit(inner[0]) && digit(inner[1]) && digit(inner[2]) && digit(inner[3]) && inner[4] == '-';
    const bool word = std::none_of(inner.begin(), inner.end(), [](char c) { return space(c) || c == '[' || c == ']'; }) &&
                      std::any_of(inner.begin(), inner.end(), [](char c) { return digit(c); });  // not a level ("[ERROR]:")
    // "[0]:" alone on its line opens a row of torchrun's failure table: not a prefix.
    const bool alone = s.find_first_not_of(" \t\r", close + 2) == std::string_view::npos;
    if (word && !date && !alone && !starts_with(s, "[pod/")) {
      std::size_t end = close + 2;
      if (end < s.size() && s[end] == ' ') ++end;
      p.key.append(s.substr(0, end));
      s.remove_prefix(end);
      return Peel::Peeled;
    }
  }
  // kubectl logs --prefix (every pod of a job in one stream): "[pod/NAME/CONTAINER] ".
  if (starts_with(s, "[pod/")) {
    const std::size_t close = s.find("] ");
    if (close != std::string_view::npos && close < 320 &&
        s.substr(5, close - 5).find_first_of(" \t[") == std::string_view::npos) {
      p.key.append(s.substr(0, close + 2));
      const std::string_view name = s.substr(5, close - 5);
      p.task = name.substr(0, name.find('/'));
      p.task_kind = Prefix::Task::Pod;
      p.host.clear();  // a host named before it (a journal's) is where the lines were collected
      s.remove_prefix(close + 2);
      return Peel::Peeled;
    }
    return Peel::Stop;
  }
  // The other bracketed prefixes start with a digit: "[1,3]<stdout>:", "[12] ", "[2024-...".
  if (s.size() < 2 || s[1] < '0' || s[1] > '9') return Peel::Stop;
  // What follows the first number tells which (the regexes are not tried where they cannot match).
  std::size_t digits = 1;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  const char after = digits < s.size() ? s[digits] : '\0';
  M m;
  if (after == ',' && rx(re_mpi_prefix(), s, m)) {
    p.rank = int_of(m[2]);
    p.key.append(m[0]);
    s.remove_prefix(m[0].size());
    return Peel::Peeled;
  }
  if (after == ']' && rx(re_viewer_lineno(), s, m)) {
    std::string_view rest = s.substr(m[0].size());
    if (starts_with(rest, "[rank") || starts_with(rest, "[default")) {
      s = rest;
      return Peel::Peeled;
    }
  }
  if (after != '-' || digits != 5) return Peel::Stop;  // dates: "[2024-..."
  if (s.size() > 11 && s[11] == 'T' && rx(re_bracket_iso_collector(), s, m)) {
    p.time = iso(m[1], m[2], m[3]);
    s.remove_prefix(m[0].size());
    return Peel::Peeled;
  }
  Stamp st;
  if (const std::size_t len = s.size() > 18 && s[5] == '-' ? bracket_stamp(s, st) : 0; len != 0) {
    set_time(p.time, st);
    s.remove_prefix(len);
    return Peel::Peeled;
  }
  return Peel::Stop;
}

// Ray / vLLM workers: "(VllmWorker rank=3 pid=6903) " and the logger's level and time after it.
Peel peel_paren(std::string_view& s, Prefix& p) {
  M m;
  if (rx(re_ray_prefix(), s, m)) {
    if (!m[2].empty()) p.rank = int_of(m[2]);
    if (!m[3].empty()) p.pid = int_of(m[3]);
    else if (!m[4].empty()) p.pid = int_of(m[4]);
    // A worker's line forwarded by Ray's driver from the node at ip=: a host named before it
    // (the driver's journal or fan-out label) is where the driver ran, not the worker.
    if (!m[5].empty()) {
      p.host.clear();
      p.worker_ip = m[5];
    }
    p.key.append(m[0]);
    s.remove_prefix(m[0].size());
    if (rx(re_vllm_logger(), s, m)) {
      p.level = level_word(m[1]);
      p.month_day_time = std::string(m[2]);
      s.remove_prefix(m[0].size());
    }
    return Peel::Peeled;
  }
  return Peel::Stop;
}

// syslog / journalctl short lines: "Mar  4 05:06:07 HOST IDENT[PID]: ".
bool peel_syslog(std::string_view& s, Prefix& p) {
  M m;
  if (rx(re_syslog(), s, m)) {
    static constexpr std::string_view kMonths = "JanFebMarAprMayJunJulAugSepOctNovDec";
    const std::size_t month = kMonths.find(m[1]) / 3 + 1;
    const std::string day(m[2]);
    p.month_day_time = (month < 10 ? "0" : "") + std::to_string(month) + "-" + (day.size() < 2 ? "0" : "") + day +
                       " " + std::string(m[3]);
    p.host = std::string(m[4]);
    p.key.append(m[0]);
    s.remove_prefix(m[0].size());
    return true;
  }
  return false;
}

// A host name as a fan-out tool prints it before a line: one word of letters, digits, '-', '.',
// '_', with a digit (node01, gpu-a03, 10.0.0.7, n003.hpc.example.edu); not a number alone (srun's
// task label), a rank tag, an error code or an exception's type.
// An IPv4 address written with dashes, as cloud and Kubernetes host names are ("10-0-6-23"): four
// groups of one to three digits (a date has three groups).
bool dashed_quad(std::string_view l) {
  int groups = 0;
  std::size_t run = 0;
  for (const char c : l) {
    if (c == '-') {
      if (run == 0 || run > 3) return false;
      ++groups;
      run = 0;
    } else if (digit(c)) {
      ++run;
    } else {
      return false;
    }
  }
  return groups == 3 && run >= 1 && run <= 3;
}

bool label_shaped(std::string_view l) {
  if (l.empty() || l.size() > 63 || !std::isalnum(static_cast<unsigned char>(l[0]))) return false;
  bool digit = false, letter = false;
  for (const char c : l) {
    if (!name_char(c)) return false;
    digit = digit || (c >= '0' && c <= '9');
    letter = letter || ascii_alpha(c);
  }
  if (!digit || (!letter && l.find('.') == std::string_view::npos && !dashed_quad(l))) return false;
  // Capitals then digits is an error code's shape (CANN's "EJ0001: 2024-05-21-11:57:54.167.645 ..."),
  // not a host's.
  std::size_t caps = 0;
  while (caps < l.size() && l[caps] >= 'A' && l[caps] <= 'Z') ++caps;
  if (caps > 0 && l.find_first_not_of("0123456789", caps) == std::string_view::npos) return false;
  if (starts_with(l, "rank") || starts_with(l, "default") || contains(l, "Error") || contains(l, "Exception") ||
      contains(l, "Warning"))
    return false;
  return true;
}

// pdsh / clush / a script's "node01: " before every line of a node: taken once a record of the
// stack follows it, then before any line of the same stream.
bool peel_label(std::string_view& s, Prefix& p, std::size_t colon, HostLabels& labels) {
  const std::string_view label = s.substr(0, colon);
  if (!label_shaped(label)) return false;
  const std::string_view after = s.substr(colon + 2);
  if (labels.known.find(label) == labels.known.end()) {
    M m;
    if (labels.known.size() >= 4096 || !rx(re_after_label(), after, m)) return false;
    labels.known.emplace(label);
  }
  p.host = std::string(label);
  if (p.task.empty()) {  // each host's lines are a stream of their own (its launcher's, its workers')
    p.task = label;
    p.task_kind = Prefix::Task::Host;
  }
  p.key.append(s.substr(0, colon + 2));
  s.remove_prefix(colon + 2);
  return true;
}

// docker compose logs: "SERVICE  | line", the service's name padded to the longest one's width
// (compose v1 "name_1", v2 "name-1"). Not a logger's level ("INFO     | " of loguru's format).
bool peel_compose(std::string_view& s, Prefix& p) {
  std::size_t i = 0;
  while (i < s.size() && i < 64 && name_char(s[i])) ++i;
  if (i < 2 || i >= s.size() || s[i] != ' ') return false;
  std::size_t k = i;
  while (k < s.size() && s[k] == ' ') ++k;
  if (k >= s.size() || s[k] != '|' || (k + 1 < s.size() && s[k + 1] != ' ')) return false;
  const std::string_view name = s.substr(0, i);
  if (level_word(name) != model::Level::None || name == "SUCCESS" || name == "TRACE") return false;
  p.key.append(s.substr(0, std::min(s.size(), k + 2)));
  s.remove_prefix(std::min(s.size(), k + 2));
  return true;
}

// Collector timestamps, srun labels, progress bars, pdsh / clush host names.
Peel peel_plain(std::string_view& s, Prefix& p, char c, HostLabels* labels) {
  if (((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) && peel_compose(s, p)) return Peel::Peeled;
  // pdsh / clush: "host: host:pid:tid [0] ...": the first ':' is followed by a space.
  // (A label is at most 63 bytes: a ':' further on is none.)
  const std::size_t colon = s.substr(0, 65).find(':');
  const bool pdsh = colon != std::string_view::npos && colon + 1 < s.size() && s[colon + 1] == ' ';
  const bool bar = s.size() > 8 && contains(s.substr(0, 60), "%|");
  if (!(c >= '0' && c <= '9') && c != ' ' && !bar && !pdsh) return Peel::Stop;
  M m;
  Stamp st;
  if (const std::size_t len = c >= '0' && c <= '9' && s.size() > 16 && s[4] == '-' ? collector_stamp(s, st) : 0; len != 0) {
    set_time(p.time, st);
    std::size_t cut = len;
    std::size_t stamp = cut;  // the timestamp and its separator, without the spaces after it
    while (stamp > 0 && (s[stamp - 1] == ' ' || s[stamp - 1] == '\t')) --stamp;
    const std::string_view after = trim(s.substr(cut));
    if (s.substr(0, cut).find('|') != std::string_view::npos && !after.empty() && after.back() == '|' &&
        after.front() != '|') {
      // "TIME | message" drops the bar, but a table row printed under a collector's timestamp
      // (npu-smi, nvidia-smi: "TIME | NPU  Name ... |") keeps its own first bar.
      cut = s.substr(0, cut).find('|');
    } else if (s[10] == 'T' && s[stamp - 1] != '|' && s[stamp - 1] != ':') {
      // RFC 3339 stamps of kubectl / docker --timestamps are followed by exactly one space: the
      // rest keeps its indentation (traceback frames, CANN continuation lines).
      cut = stamp + 1;
    }
    s.remove_prefix(cut);
    return Peel::Peeled;
  }
  // Slurm "srun -l" task labels ("3: "), with the padding srun uses for wide jobs: ^ {0,4}(\d{1,5}): 
  if (c == ' ' || (c >= '0' && c <= '9')) {
    std::size_t i = 0;
    while (i < 4 && i < s.size() && s[i] == ' ') ++i;
    std::size_t j = i;
    while (j < s.size() && j - i < 6 && s[j] >= '0' && s[j] <= '9') ++j;
    if (j > i && j - i <= 5 && j + 1 < s.size() && s[j] == ':' && s[j + 1] == ' ') {
      p.key.append(s.substr(0, j + 2));
      p.task = s.substr(i, j - i);
      p.task_kind = Prefix::Task::Srun;
      // srun gathers every task's output where it runs: a host named before the label (its
      // journal's, a fan-out tool's) is that one, not the task's.
      p.host.clear();
      s.remove_prefix(j + 2);
      return Peel::Peeled;
    }
  }
  if (const std::size_t len = bar ? progress_bar(s) : 0; len != 0) {
    p.bar = true;
    s.remove_prefix(len);
    return Peel::Peeled;
  }
  if (pdsh && labels != nullptr && peel_label(s, p, colon, *labels)) return Peel::Peeled;
  return Peel::Stop;
}

}  // namespace

namespace {

// The outer prefixes one after the other (rank, pod, srun label, collector time, syslog header).
void peel_outer(std::string_view& s, Prefix& p, HostLabels* labels) {
  for (int guard = 0; guard < 8 && !s.empty(); ++guard) {
    const char c = s.front();
    Peel r = Peel::Stop;
    if (c == '[') r = peel_bracket(s, p);
    else if (c == '(') r = peel_paren(s, p);
    else if (c >= 'A' && c <= 'S' && s.size() > 20 && s[3] == ' ' && peel_syslog(s, p)) r = Peel::Peeled;
    else r = peel_plain(s, p, c, labels);
    if (r != Peel::Peeled) break;
  }
}

}  // namespace

// Read by hand (the regex was a tenth of the time on lines of progress under a logger's time); the
// choices are the ones RE2 made for the patterns in families.hpp, which a test compares.
bool read_stamp(std::string_view s, Stamp& st) {
  static constexpr std::string_view kShape = "dddd-dd-dd dd:dd";  // 'd' a digit, ' ' or 'T'
  if (s.size() < kShape.size()) return false;
  for (std::size_t i = 0; i < kShape.size(); ++i) {
    const char k = kShape[i], c = s[i];
    if (k == 'd' ? !digit(c) : k == ' ' ? (c != ' ' && c != 'T') : c != k) return false;
  }
  std::size_t i = kShape.size();
  if (i + 2 < s.size() && s[i] == ':' && digit(s[i + 1]) && digit(s[i + 2])) i += 3;
  st.date = s.substr(0, 10);
  st.clock = s.substr(11, i - 11);
  st.frac = {};
  if (i + 1 < s.size() && (s[i] == '.' || s[i] == ',') && digit(s[i + 1])) {
    std::size_t j = i + 1;
    while (j < s.size() && digit(s[j])) ++j;
    st.frac = s.substr(i + 1, j - i - 1);
    i = j;
  }
  if (i < s.size() && s[i] == 'Z') {
    ++i;
  } else if (i + 2 < s.size() && (s[i] == '+' || s[i] == '-') && digit(s[i + 1]) && digit(s[i + 2])) {
    const std::size_t j = i + 3;
    if (j + 2 < s.size() && s[j] == ':' && digit(s[j + 1]) && digit(s[j + 2])) i = j + 3;
    else if (j + 1 < s.size() && digit(s[j]) && digit(s[j + 1])) i = j + 2;
  }
  st.end = i;
  return true;
}

std::size_t collector_stamp(std::string_view s, Stamp& st) {
  if (!read_stamp(s, st)) return 0;
  const std::size_t at = st.end;
  // "STAMP | ", then "STAMP: ", then "STAMP ", the first that is followed by white space.
  if (const std::size_t bar = spaces_from(s, at); bar < s.size() && s[bar] == '|') {
    if (const std::size_t end = spaces_from(s, bar + 1); end > bar + 1) return end;
  }
  if (at < s.size() && s[at] == ':') {
    if (const std::size_t end = spaces_from(s, at + 1); end > at + 1) return end;
  }
  const std::size_t end = spaces_from(s, at);
  return end > at ? end : 0;
}

std::size_t bracket_stamp(std::string_view s, Stamp& st) {
  if (s.empty() || s.front() != '[' || !read_stamp(s.substr(1), st)) return 0;
  std::size_t at = st.end + 1;
  if (at >= s.size() || s[at] != ']') return 0;
  ++at;
  if (at < s.size() && s[at] == ' ') ++at;
  return at;
}

std::size_t progress_bar(std::string_view s) {
  // Up to 40 bytes with no '|' or newline, 1-3 digits, "%|": the line's first '|' is the bar's.
  std::size_t open = 0;  // (a loop: find_first_of calls memchr once per byte)
  while (open < s.size() && s[open] != '|' && s[open] != '\n') ++open;
  if (open == s.size() || s[open] != '|' || open < 2 || s[open - 1] != '%') return 0;
  std::size_t run = 0;
  while (run < 3 && run + 2 <= open && digit(s[open - 2 - run])) ++run;
  if (run == 0) return 0;
  std::size_t chars = 0;  // the regex counts characters, not bytes (a UTF-8 continuation byte is none)
  for (std::size_t i = 0; i + 1 + run < open; ++i) chars += (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
  if (chars > 40) return 0;
  // The bar, to the next '|'.
  const std::size_t close = s.find('|', open + 1);
  if (close == std::string_view::npos) return 0;
  std::size_t end = close + 1;
  // Then, when there is one, the counts' bracket: " 10/10 [00:01<00:00, 9.51it/s]".
  std::size_t lb = end;
  while (lb < s.size() && s[lb] != '[' && s[lb] != ']' && s[lb] != '|') ++lb;
  if (lb < s.size() && s[lb] == '[') {
    if (const std::size_t rb = s.find(']', lb + 1); rb != std::string_view::npos) end = rb + 1;
  }
  if (end < s.size() && s[end] == ' ') ++end;
  return end;
}

std::string_view strip_prefixes(std::string_view line, Prefix& p, std::string& storage, HostLabels* labels) {
  std::string_view s = peel_container_json(line, p, storage);
  // ESC, '#' and '\r' looked for in one pass (most lines hold none of them).
  const unsigned rare = base::which_of(s.data(), s.size(), '\x1b', '#', '\r');
  // Terminal escapes (colours, cursor moves) in output captured from a terminal or a TTY container:
  // read without them. The line's text, as evidence, keeps them (shown as ^[ by the reports).
  if ((rare & 1u) != 0) {
    std::string clean = without_terminal_escapes(s);
    storage = std::move(clean);
    s = storage;
  }
  // rsyslog writes a control character it receives as '#' and three octal digits: ESC is "#033",
  // so colours reach /var/log/messages as "#033[33m".
  if ((rare & 2u) != 0 && s.find("#033[") != std::string_view::npos) {
    std::string esc;
    esc.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s.compare(i, 5, "#033[") == 0) {
        esc += '\x1b';
        i += 3;
        continue;
      }
      esc += s[i];
    }
    storage = without_terminal_escapes(esc);
    s = storage;
  }
  // Carriage returns (progress bars redrawn in place): what a terminal shows is the last part.
  while (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  if ((rare & 4u) != 0)  // (removing escapes removes no '\r')
    if (const std::size_t cr = s.rfind('\r'); cr != std::string_view::npos) s.remove_prefix(cr + 1);
  peel_outer(s, p, labels);
  // A container's JSON line under colours, a collector's prefix or another container's JSON (a
  // json-file log gathered again through a terminal, srun, kubectl, the journal or a container):
  // the JSON is peeled after them, once more, and the prefixes inside its text are the line's too.
  if (!s.empty() && s.front() == '{') {
    std::string inner;
    if (const std::string_view got = peel_container_json(s, p, inner); !inner.empty() && got.data() == inner.data()) {
      storage = std::move(inner);
      s = storage;
      peel_outer(s, p, labels);
    }
  }
  // A plog line pasted indented (a list item of a vendor's guide, a quoted block in a thread): read
  // from its header. Only a whole plog header counts: other indented lines (traceback frames, CANN
  // continuation lines) keep their indentation.
  if (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    const std::size_t k = s.find_first_not_of(" \t");
    PlogHeader h;
    if (k != std::string_view::npos && k <= 16 && s[k] == '[' && split_plog(s.substr(k), h)) s.remove_prefix(k);
  }
  return s;
}

}  // namespace dtriage::formats
