#include "formats/pipeline.hpp"

#include <simdjson.h>

#include <re2/re2.h>

#include <cstring>
#include <deque>
#include <map>
#include <unordered_set>

#include "base/bytes.hpp"
#include "base/text.hpp"
#include "formats/families.hpp"
#include "formats/parse_util.hpp"
#include "formats/smi.hpp"
#include "formats/snapshot.hpp"
#include "formats/path_facts.hpp"
#include "formats/progress.hpp"
#include "formats/tables.hpp"
#include "formats/util.hpp"

namespace dtriage::formats {
namespace {

using re2::RE2;

constexpr std::string_view kLogDirSays = "log directory set to: ";

enum class BlockType { Traceback, ExceptionTail, Cann, FailureRow, LaunchConfig, RendezvousResult, NpuSmi, HcclReturn };

struct Block {
  BlockType type;
  model::Event event;
  std::vector<std::pair<std::uint64_t, std::string>> lines;  // numbered rows, for tables
  std::size_t scanned = 0;  // body lines before this one need no scan for facts (frames, or scanned already)
  bool torn = false;        // the exception line's message is another process's stack frame (interleaved output)
  bool traced = false;      // an exception's tail after its traceback (not an exception line alone)
};

bool indented(std::string_view s) { return !s.empty() && (s.front() == ' ' || s.front() == '\t'); }
// A line of a pretty-printed JSON document: a member ("key": ...), or a brace or bracket alone.
// torchelastic's error handler logs its error record so, and a launch failure it reports is not
// followed by a running worker's prints for it.
bool json_structure(std::string_view s) {
  const std::size_t a = s.find_first_not_of(" \t");
  if (a == std::string_view::npos) return false;
  const std::string_view t = s.substr(a);
  if (t.front() == '"') return t.find("\": ") != std::string_view::npos;
  return t == "{" || t == "}" || t == "}," || t == "[" || t == "]" || t == "],";
}
bool blank(std::string_view s) { return trim(s).empty(); }
// Looks a line's text up in a set of strings without a copy.
struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
// Nothing after a line's prefixes but a progress bar's redraw was not one of them.
bool blank_after_prefixes(std::string_view rest, const Prefix& p) { return !p.bar && blank(rest); }
// Whether `part` is a view into `whole` (not into a copy read out of it: container JSON, escapes).
bool within(std::string_view whole, std::string_view part) {
  return part.data() >= whole.data() && part.data() <= whole.data() + whole.size();
}

}  // namespace

struct SourceParser::Impl {
  const ingest::Source& source;
  ParseOptions options;
  EventFn emit;
  PathFacts facts;
  std::string year;  // last full date seen ("2025"), for lines without a year
  std::map<std::string, Block> open;            // per stream key
  std::map<std::string, std::string> section;   // failure-table section per stream key

  Impl(const ingest::Source& s, ParseOptions o, EventFn fn)
      : source(s), options(o), emit(std::move(fn)), facts(path_facts(s.path)) {
    if (!facts.date.empty()) year = facts.date.substr(0, 4);
  }

  // Resets the reused event for a new line. Most lines are recognised by no parser, so the event
  // is filled in place and only moved out when it is emitted (no allocation per boring line).
  // The launcher a prefix names in a shared file, as events carry it ("srun task 3", "pod/NAME").
  static std::string task_of(const Prefix& p) { return task_of(p.task, p.task_kind); }
  static const char* task_label(Prefix::Task kind) {
    return kind == Prefix::Task::Pod ? "pod/" : kind == Prefix::Task::Host ? "host/" : "srun task ";
  }
  static std::string task_of(std::string_view task, Prefix::Task kind) {
    if (task.empty()) return {};
    return task_label(kind) + std::string(task);
  }

  void reset(model::Event& e, const lines::Line& line, const Prefix& p) const {
    e.path = source.path;
    e.line = line.number;
    e.text.assign(line.text.data(), line.text.size());
    e.node = p.host.empty() ? source.node : p.host;
    e.node_from_content = !p.host.empty();
    if (p.task.empty()) {
      e.task.clear();
    } else {
      e.task.assign(task_label(p.task_kind));
      e.task.append(p.task);
    }
    e.rank = p.rank;
    e.local_rank = p.local_rank;
    e.pid = p.pid;
    e.device.reset();
    e.kind = model::Kind::None;
    e.level = p.level;
    e.code.clear();
    if (p.time.empty()) e.time = {};
    else e.set_time(p.time);
    e.message.clear();
    e.body.clear();
    e.end_line = 0;
    e.fields.clear();
    e.quiet = false;
    if (line.cut) e.set("cut", true);
    if (!p.worker_ip.empty()) e.set("worker_ip", std::string(p.worker_ip));
  }
  model::Event scratch;

  // What the file's path says of every line in it, where the line does not say it.
  void fill_from_path(model::Event& e) const {
    if (!e.rank && facts.rank) e.rank = facts.rank;
    if (!e.local_rank && facts.local_rank) e.local_rank = facts.local_rank;
    if (!e.pid && facts.pid) e.pid = facts.pid;
    if (!e.device && facts.device) e.device = facts.device;
    if (e.node.empty()) e.node = source.node;
  }

  // The time of a line no family read (a "line" event), from its prefixes as reset and
  // finish_event give it; learns the year as finish_event does. The time is made only when asked.
  void learn_plain_year(const Prefix& p) {
    if (p.time.size() >= 10 && p.time[4] == '-') year = p.time.substr(0, 4);
  }
  model::Time plain_time(const Prefix& p) const { return plain_time(p.time, p.month_day_time, year); }
  static model::Time plain_time(const std::string& time, std::string_view month_day_time, const std::string& in_year) {
    if (!time.empty()) return model::Time::parse(time);
    if (month_day_time.empty() || in_year.empty()) return {};
    std::string md(month_day_time.substr(0, 5));
    const std::string clock(month_day_time.substr(std::min<std::size_t>(6, month_day_time.size())));
    if (md.empty() || clock.empty()) return {};
    return model::Time::parse(model::time_with_year(in_year, std::move(md), clock), true);
  }

  void finish_event(model::Event& e, const Prefix* p) {
    fill_from_path(e);
    if (!e.time.empty() && e.time.text.size() >= 10 && e.time.text[4] == '-') {
      year = e.time.text.substr(0, 4);
    } else if (e.time.empty()) {
      std::string md = e.get_str("month_day");
      std::string clock = e.get_str("clock");
      if (md.empty() && p != nullptr && !p->month_day_time.empty()) {
        md = p->month_day_time.substr(0, 5);
        clock = p->month_day_time.substr(6);
      }
      if (!md.empty() && !clock.empty() && !year.empty()) {
        e.set_time(model::time_with_year(year, std::move(md), clock), true);
      }
    }
  }

  std::uint64_t emitted = 0;  // events handed to emit by emit_event
  void emit_event(model::Event&& e, const Prefix* p) {
    ++emitted;
    finish_event(e, p);
    if (e.level <= model::Level::Info && e.code.empty() && e.body.empty() &&
        (e.kind == model::Kind::Line || e.kind == model::Kind::Log || e.kind == model::Kind::Python || e.kind == model::Kind::None))
      note_progress(e.rank, e.local_rank, e.task, e.message.empty() ? e.text : e.message, e.line, &e.time);  // the text read, without escapes
    emit(std::move(e));
  }

  // Each rank's last progress print (formats/progress.hpp), by its launcher's task in a shared
  // file and the sighting key (the lines that name no rank under their own key); given back as
  // sightings when the source ends.
  std::map<std::pair<std::string, std::uint64_t>, model::Sighting> stepped;
  model::Sighting* last_stepped = nullptr;
  std::uint64_t last_stepped_key = 0;
  void note_progress(std::optional<std::int64_t> rank, std::optional<std::int64_t> local, std::string_view task,
                     std::string_view text, std::uint64_t number, const model::Time* time) {
    if (const auto progress = read_progress(text)) note_step(rank, local, task, *progress, text, number, time);
  }
  void note_step(std::optional<std::int64_t> rank, std::optional<std::int64_t> local, std::string_view task,
                 const Progress& progress, std::string_view text, std::uint64_t number, const model::Time* time) {
    resolve_deferred();  // the lines before this one first
    store_step(rank, local, task, progress, text, number, time);
  }
  void store_step(std::optional<std::int64_t> rank, std::optional<std::int64_t> local, std::string_view task,
                  const Progress& progress, std::string_view text, std::uint64_t number, const model::Time* time) {
    // Most progress lines are the same rank's as the one before (a rank's own file, rank 0's prints).
    const std::uint64_t key = sighting_key(rank, local);
    if (last_stepped == nullptr || last_stepped_key != key || last_stepped->task != task) {
      last_stepped = &stepped[{std::string(task), key}];
      last_stepped_key = key;
    }
    model::Sighting& s = *last_stepped;
    s.task.assign(task);
    s.rank = rank;
    s.local_rank = local;
    if (!s.step) s.first_step_line = number;
    s.line = number;
    s.step = progress.step;
    s.steps = progress.total;
    if (time != nullptr) s.step_time = *time;
    else s.step_time = {};
    s.step_text.assign(text.substr(0, 240));
  }
  // The plain lines skip_plain passed over in the batch being fed, whose progress is read when the
  // batch ends (or before a step is noted otherwise), from the last line back: only each rank's
  // last progress print counts, and most of a batch's plain lines are its ranks' earlier prints,
  // never read. A line's slot is its rank key's (rank, local rank, launcher task) in the batch.
  struct Deferred {
    const lines::Line* line = nullptr;  // in the batch (feed_many keeps it alive)
    std::string time, month_day_time, year;  // what plain_time reads, as it was at the line
    std::size_t slot = 0;
  };
  std::vector<Deferred> deferred;  // the first deferred_n in use (the rest keep their strings' room)
  std::size_t deferred_n = 0;
  struct Slot {
    std::uint64_t key = 0;  // sighting_key(rank, local)
    std::optional<std::int64_t> rank, local;
    std::string_view task;  // Prefix::task, a view into the line
    Prefix::Task task_kind = Prefix::Task::Srun;
  };
  static constexpr std::size_t kSlots = 64;  // a bit each in resolve_deferred
  std::vector<Slot> slots;
  void defer_progress(const lines::Line& line, const Prefix& p) {
    const std::optional<std::int64_t> rank = p.rank ? p.rank : facts.rank;
    const std::optional<std::int64_t> local = p.local_rank ? p.local_rank : facts.local_rank;
    const std::uint64_t key = sighting_key(rank, local);
    std::size_t slot = 0;
    const auto same = [&](const Slot& sl) { return sl.key == key && sl.task_kind == p.task_kind && sl.task == p.task; };
    if (deferred_n > 0 && same(slots[deferred[deferred_n - 1].slot])) {
      slot = deferred[deferred_n - 1].slot;  // most lines: the same rank's as the line before
    } else {
      slot = static_cast<std::size_t>(std::find_if(slots.begin(), slots.end(), same) - slots.begin());
      if (slot == slots.size()) {
        if (slots.size() == kSlots) {  // more ranks interleave: the lines so far are read now
          resolve_deferred();
          slot = 0;
        }
        slots.push_back({key, rank, local, p.task, p.task_kind});
      }
    }
    if (deferred_n == deferred.size()) deferred.emplace_back();
    Deferred& d = deferred[deferred_n++];
    d.line = &line;
    d.time.assign(p.time);
    d.month_day_time.assign(p.month_day_time);
    d.year.assign(year);
    d.slot = slot;
  }
  void resolve_deferred() {
    if (deferred_n == 0) return;
    std::uint64_t done = 0;  // a bit per slot whose last progress print was found
    const std::uint64_t all = slots.size() == kSlots ? ~0ull : (1ull << slots.size()) - 1;
    for (std::size_t j = deferred_n; j-- > 0 && done != all;) {
      const Deferred& d = deferred[j];
      const std::uint64_t bit = 1ull << d.slot;
      if ((done & bit) != 0) continue;
      const auto progress = read_progress(d.line->text);
      if (!progress) continue;
      done |= bit;
      const model::Time t = plain_time(d.time, d.month_day_time, d.year);
      const Slot& sl = slots[d.slot];
      store_step(sl.rank, sl.local, task_of(sl.task, sl.task_kind), *progress, d.line->text, d.line->number, &t);
    }
    deferred_n = 0;
    slots.clear();
  }

  void give_progress() {
    for (auto& [key, s] : stepped) {
      s.path = source.path;
      s.node = source.node;
      sightings.push_back(std::move(s));
    }
    stepped.clear();
    last_stepped = nullptr;
  }

  void close(const std::string& key) {
    auto it = open.find(key);
    if (it == open.end()) return;
    Block b = std::move(it->second);
    open.erase(it);
    model::Event& e = b.event;
    switch (b.type) {
      case BlockType::Traceback:
      case BlockType::ExceptionTail:
      case BlockType::Cann:
        for (std::size_t i = b.scanned; i < e.body.size(); ++i) scan_message(e.body[i], e);
        if (b.type == BlockType::Cann && !e.device) {
          for (const std::string& l : e.body) {
            if (auto d = find_device(l)) {
              e.device = d;
              break;
            }
          }
        }
        break;
      case BlockType::FailureRow: finish_failure_row(e); break;
      case BlockType::LaunchConfig: break;
      case BlockType::RendezvousResult: break;
      case BlockType::HcclReturn: break;
      case BlockType::NpuSmi:
        parse_npu_smi(b.lines, e, [this](model::Event&& sub) { emit_event(std::move(sub), nullptr); });
        break;
    }
    if (e.end_line <= e.line) e.end_line = 0;
    emit_event(std::move(e), nullptr);
  }

  static void finish_failure_row(model::Event& e) {
    const std::string tb = e.get_str("traceback");
    static const RE2 sig(R"(Signal (\d+) \((SIG\w+)\) received by PID (\d+))");
    std::string n, name, pid;
    if (RE2::PartialMatch(tb, sig, &n, &name, &pid)) e.set("signal", normalize_signal(name));
    if (auto ex = e.get_int("exitcode"); ex && *ex < 0 && e.get_str("signal").empty()) e.set("signal", signal_name(-*ex));
  }

  // Adds a continuation line to the open block of `key`; false when the line does not belong.
  // A block torchrun logs one record per line (PyTorch 2.3+: "I0618 15:59:02.634000 1396 torch/
  // distributed/launcher/api.py:188]   entrypoint : echo.py"): the text after the glog header of a
  // torchrun source, which keeps its indentation; else the line as it is.
  model::Event glog_probe;
  std::string glog_text;
  std::string_view glog_continued(std::string_view rest) {
    if (rest.size() < 20 || (rest[0] != 'I' && rest[0] != 'W')) return rest;
    glog_probe.message.clear();
    if (!parse_glog(rest, glog_probe) || glog_probe.kind != model::Kind::Torchrun) return rest;
    glog_text = std::move(glog_probe.message);
    return glog_text;
  }

  bool continue_block(const std::string& key, Block& b, const lines::Line& line, std::string_view rest) {
    auto add_body = [&](std::string_view t) {
      if (b.event.body.size() < 200) b.event.body.emplace_back(t);
      b.event.end_line = line.number;
    };
    switch (b.type) {
      case BlockType::Traceback: {
        if (indented(rest)) {
          add_body(rest);
          return true;
        }
        model::Event ex;
        if (parse_exception_line(rest, ex)) {
          add_body(rest);
          b.event.set("exception_line", static_cast<std::int64_t>(line.number));
          b.event.set("exception_text", std::string(line.text));
          b.scanned = b.event.body.size();  // stack frames hold no facts; the exception line was scanned
          for (auto& [k, v] : ex.fields) b.event.set(k, std::move(v));
          if (!b.event.device) b.event.device = ex.device;
          if (!b.event.rank) b.event.rank = ex.rank;
          b.event.code = ex.code;
          b.event.message = ex.message;
          b.event.set("exception", ex.code);
          b.type = BlockType::ExceptionTail;
          b.traced = true;
          if (b.event.get("unraisable") != nullptr)
            if (auto it = ignored_at.find(key); it != ignored_at.end() && it->second.pending > 0) {
              // Several "Exception ignored in ..." lines at once (objects of two processes
              // collected together), then their tracebacks one after the other: the next one
              // follows this one's exception line.
              if (--it->second.pending > 0) it->second.line = line.number;
            }
          // Two processes writing one stream at once: "RuntimeError:   File \"...\", line 9, in f"
          // (the other's frame cut in); the message comes on the next line.
          b.torn = starts_with(trim(ex.message), "File \"") && contains(ex.message, "\", line ");
          return true;
        }
        return false;
      }
      case BlockType::ExceptionTail: {
        if (blank(rest) || b.event.body.size() > 40) return false;
        // A process writes its exception's message at once: a line of another stream in between
        // (the launcher, another rank) ends it; what follows is the process going on.
        if (line.number != std::max(b.event.end_line, b.event.line) + 1) return false;
        if (b.torn && !indented(rest) && !starts_with(rest, "Traceback (most recent call last)")) {
          b.torn = false;
          b.event.message = std::string(trim(rest));
          scan_message(rest, b.event);
          add_body(rest);
          return true;
        }
        b.torn = false;
        if (starts_with(rest, "Traceback (most recent call last)") || starts_with(rest, "Exception ignored ") || starts_with(rest, "===") ||
            starts_with(rest, "---") || starts_with(rest, "Root Cause") || starts_with(rest, "Failures:") ||
            contains(b.event.code, "ChildFailedError"))
          return false;
        // A logging record ("INFO [rank 0] step 3", "WARNING:root:...", its time peeled as a
        // prefix) is the process going on, not more of the exception's message.
        static const RE2 record(R"(^(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL|NOTICE)(?:[ :\]]|$))");
        if (RE2::PartialMatch(rest, record)) return false;
        // So is a progress print ("step 18/19 loss 0.28"): an "Exception ignored ..." traceback
        // is one Python printed and went on after, in the middle of the training loop.
        if (read_progress(rest)) return false;
        model::Event probe;
        // An exception's message of several lines may hold another error's name on one of them
        // (PyTorch's DistBackendError: "NCCL error in: ...", then "ncclInternalError: Internal check
        // failed.", "Last error:", NCCL's own reason): right after its traceback's exception line,
        // in its stream, it is more of the message; a chained exception comes after a blank line and
        // a "During handling ..." line. (Exception lines alone, one after the other, are a loop's
        // prints, each its own; after a stack frame it is another process's, interleaved.)
        if (b.traced && !b.event.body.empty() && !indented(b.event.body.back()) && !contains(rest, "ChildFailedError") &&
            parse_exception_line(rest, probe)) {
          scan_message(rest, b.event);
          add_body(rest);
          return true;
        }
        probe = model::Event{};
        if (formats::recognised(rest, probe) || scan_message(rest, probe)) return false;
        add_body(rest);
        return true;
      }
      case BlockType::Cann:
        if ((indented(rest) && !blank(rest)) || starts_with(rest, "there are(is)") || rest == "]") {
          add_body(rest);
          return true;
        }
        return false;
      case BlockType::HcclReturn: {
        // HCCL returns through its callers, each logging "call trace: hcclRet -> N" on the next
        // line of the same thread: the first one is the failed call's own result. The line is
        // still read as itself (false).
        static constexpr std::string_view kRet = "call trace: hcclRet -> ";
        if (line.number == b.event.line + 1)
          if (const std::size_t at = rest.find(kRet); at != std::string_view::npos)
            if (auto n = to_int(trim(rest.substr(at + kRet.size())))) b.event.set("hccl_ret", *n);
        return false;
      }
      case BlockType::FailureRow: {
        std::string k, v;
        if (parse_key_colon_value(rest, k, v, false) &&
            (k == "time" || k == "host" || k == "rank" || k == "exitcode" || k == "error_file" || k == "traceback")) {
          add_failure_field(b.event, k, v);
          add_body(trim(rest));  // the row's lines, so that rules see "exitcode : -9", "Signal 9 (SIGKILL)"
          return true;
        }
        if (indented(rest) && !blank(rest) && b.event.get("traceback") != nullptr) {
          add_body(trim(rest));
          return true;
        }
        return false;
      }
      case BlockType::LaunchConfig: {
        std::string k, v;
        if (parse_key_colon_value(glog_continued(rest), k, v)) {
          if (auto n = to_int(v)) b.event.set(k, *n);
          else b.event.set(k, v);
          b.event.end_line = line.number;
          return true;
        }
        return false;
      }
      case BlockType::RendezvousResult: {
        // "  group_rank=1", "  local_ranks=[0, 1, 2]", "  global_ranks=[3, 4, 5]": the agent's
        // workers as the rendezvous numbered them (torch/distributed/elastic/agent/server/api.py).
        const std::string_view body = glog_continued(rest);
        const std::string_view t = trim(body);
        const std::size_t eq = t.find('=');
        if (!indented(body) || eq == std::string_view::npos || eq == 0) return false;
        const std::string_view k = t.substr(0, eq), v = t.substr(eq + 1);
        if (std::any_of(k.begin(), k.end(), [](char c) { return !(std::isalnum(static_cast<unsigned char>(c)) || c == '_'); }))
          return false;
        if (k == "restart_count" || k == "group_rank" || k == "group_world_size" || k == "master_port") {
          set_int(b.event, std::string(k), v);
        } else if (k == "master_addr" || k == "local_ranks" || k == "global_ranks" || k == "role_ranks" ||
                   k == "global_world_sizes") {
          b.event.set(std::string(k), std::string(v.substr(0, 4096)));
        }
        b.event.end_line = line.number;
        return true;
      }
      case BlockType::NpuSmi:
        if (!rest.empty() && (rest.front() == '|' || rest.front() == '+')) {
          b.lines.emplace_back(line.number, std::string(rest));
          b.event.end_line = line.number;
          return true;
        }
        return false;
    }
    return false;
  }

  static void add_failure_field(model::Event& e, const std::string& k, const std::string& v) {
    static const RE2 rank_re(R"((-?\d+) \(local_rank: (\d+)\))");
    static const RE2 exit_re(R"((-?\d+) \(pid: (\d+)\)(?: \((SIG\w+)\))?)");
    static const RE2 time_re(R"((\d{4}-\d{2}-\d{2})_(\d{2}:\d{2}:\d{2}))");
    std::string a, b, c;
    if (k == "time" && RE2::FullMatch(v, time_re, &a, &b)) e.set_time(a + "T" + b);
    else if (k == "host") {
      e.set("host", v);
      e.node = v;  // as the log spells it (an FQDN stays whole; correlate joins a short alias to it)
      e.node_from_content = true;
    } else if (k == "rank" && RE2::FullMatch(v, rank_re, &a, &b)) {
      e.rank = to_int(a);
      e.local_rank = to_int(b);
    } else if (k == "exitcode" && RE2::FullMatch(v, exit_re, &a, &b, &c)) {
      if (auto x = to_int(a)) e.set("exitcode", *x);
      e.pid = to_int(b);
      if (!c.empty()) e.set("signal", c);
    } else {
      e.set(k, v);
    }
  }

  // ---- snapshots (snapshot.hpp): the whole file is one record, read at the end ----
  bool snapshot = false;
  std::optional<SnapshotBuilder> snapshot_builder;
  std::string snapshot_header;
  std::uint64_t snapshot_not_kept = 0;
  bool take_snapshot_line(const lines::Line& line) {
    if (line.number == 1 && !options.raw && is_snapshot_header(line.text)) {
      snapshot = true;
      snapshot_builder.emplace(source.path);
      snapshot_header = std::string(line.text);
    }
    if (!snapshot) return false;
    snapshot_builder->add(line.text);
    return true;
  }
  // One inventory event for the node the snapshot describes: its devices, versions and launch
  // variables, as the correlation reads them from npu-smi / nvidia-smi / launcher lines (the
  // version fields mean what those lines mean: cuda_version is the driver's CUDA, as nvidia-smi
  // prints it). A version a log line states wins over the snapshot's (correlate/facts.cpp).
  void emit_snapshot() {
    snapshot_not_kept = snapshot_builder->lines_not_kept();
    const Snapshot snap = snapshot_builder->finish();
    snapshot_builder.reset();
    model::Event e;
    e.path = source.path;
    e.line = 1;
    e.text = std::move(snapshot_header);
    e.kind = model::Kind::Snapshot;
    e.level = model::Level::Info;
    e.code = "inventory";
    e.node = snap.host.empty() ? source.node : snap.host;
    e.node_from_content = !snap.host.empty();
    if (!snap.devices.empty()) {
      e.set("device_count", static_cast<std::int64_t>(snap.devices.size()));
      e.set("chip_name", snap.devices.front().model);
    }
    static constexpr std::pair<const char*, const char*> kVersionFields[] = {
        {"driver", "driver_version"}, {"npu_driver", "driver_version"}, {"cuda_driver", "cuda_version"},
        {"nccl", "nccl_version"},     {"cann", "cann_version"},         {"torch", "torch_version"},
        {"torch_npu", "torch_npu_version"}};
    for (const auto& [key, field] : kVersionFields)
      if (auto it = snap.versions.find(key); it != snap.versions.end()) e.set(field, it->second);
    for (const char* k : {"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "NNODES", "NPROC_PER_NODE"}) {
      auto it = snap.env.find(k);
      if (it == snap.env.end()) continue;
      std::string field(k);
      for (char& c : field) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
      if (auto v = to_int(it->second)) e.set(field, *v);
      else e.set(field, it->second);
    }
    if (snap.port_state == "bound") {
      e.set("port_bound", snap.port.value_or(0));
      if (snap.port_pid) e.set("port_pid", *snap.port_pid);
    }
    e.message = "snapshot of " + (snap.host.empty() ? source.path : snap.host) + ": " +
                std::to_string(snap.devices.size()) + " devices" +
                (snap.devices.empty() ? "" : " (" + snap.devices.front().model + ")");
    emit(std::move(e));
  }

  // A line in another encoding (GBK in a Chinese locale, Latin-1) is read as its UTF-8 twin.
  std::string decoded;
  void feed(const lines::Line& line, const Gate::Look* look = nullptr) {
    if (!options.raw && !base::is_utf8(line.text)) {
      decoded = base::legacy_to_utf8(line.text);
      lines::Line utf8 = line;
      utf8.text = decoded;
      feed_utf8(utf8, look);
      return;
    }
    feed_utf8(line, look);
  }
  void feed_utf8(const lines::Line& line, const Gate::Look* look) {
    if (take_snapshot_line(line)) return;
    if (options.raw) {
      model::Event e;
      e.path = source.path;
      e.line = line.number;
      e.text = std::string(line.text);
      e.node = source.node;
      if (line.cut) e.set("cut", true);
      emit(std::move(e));
      return;
    }
    if (look != nullptr && *look != Gate::Look::Parse && open.empty() && again(line)) {
      ++skipped_info;
      plain_last = line.number;
      return;
    }
    Prefix& p = line_prefix;
    p.clear();
    std::string& storage = line_storage;
    storage.clear();
    const std::string_view rest = strip_prefixes(line.text, p, storage, &labels);
    sight(p, line.number);
    if (look != nullptr && open.empty() && storage.empty() && skip(line, rest, p, *look)) return;
    if (split_glued(rest, glued)) {
      feed_pieces(line, rest, p);
      return;
    }
    feed_parsed(line, rest, p, look != nullptr && *look != Gate::Look::Parse && storage.empty());
  }

  Prefix line_prefix;  // feed_utf8's, for one line at a time (never re-entered)
  std::string line_storage;

  // Records glued onto one physical line (split_glued): each piece is parsed as a line of its own,
  // with the line's number and outer prefixes; a piece with a rank prefix of its own ("...^^^^[default1]:
  // Traceback ...") takes it instead of the line's.
  std::vector<std::string> glued;
  HostLabels labels;  // the stream's fan-out host labels
  void feed_pieces(const lines::Line& line, std::string_view rest, const Prefix& p) {
    const std::vector<std::string> pieces = std::move(glued);
    glued.clear();
    const std::string_view outer = within(line.text, rest) ? line.text.substr(0, static_cast<std::size_t>(rest.data() - line.text.data()))
                                                           : std::string_view{};
    for (const std::string& piece : pieces) {
      const bool own_role = starts_with(piece, "[rank") || starts_with(piece, "[default");
      Prefix q = p;  // the line's outer prefixes, read once: a piece is read after them
      std::string_view kept = outer;
      if (own_role) {
        q.rank.reset();
        q.local_rank.reset();
        if (const std::size_t cut = std::min(q.key.find("[rank"), q.key.find("[default")); cut != std::string::npos)
          q.key.resize(cut);
        kept = kept.substr(0, std::min(kept.find("[rank"), kept.find("[default")));
      }
      std::string storage;
      const std::string_view own = strip_prefixes(piece, q, storage, &labels);
      std::string text;
      text.reserve(kept.size() + piece.size());
      text.append(kept).append(piece);
      sight(q, line.number);
      lines::Line l = line;
      l.text = text;
      feed_parsed(l, own, q, false);
    }
  }

  void feed_parsed(const lines::Line& line, std::string_view rest, const Prefix& p, bool quiet) {
    const std::string& key = p.key;
    if (auto it = open.find(key); it != open.end()) {
      if (continue_block(key, it->second, line, rest)) return;
      close(key);
    }
    model::Event& e = scratch;
    reset(e, line, p);
    if (open_block(key, line, rest, e)) return;
    // Events of this line alone: the gate's look (`quiet`) holds for them when it read the same text.
    for (const Family& f : single_line_families()) {
      if (!f.parse(rest, e)) continue;
      after_family(key, e, p, quiet);
      return;
    }
    e.quiet = quiet;
    // Every trigger of scan_message is a gate literal (but '|', whose row reads plog events only).
    if (!quiet && scan_message(rest, e)) {
      if (e.kind == model::Kind::None) e.kind = model::Kind::Log;
      if (e.level == model::Level::None) e.level = model::Level::Info;
      e.message = std::string(trim(rest));
      emit_event(std::move(e), &p);
      return;
    }
    if (options.all_lines) {
      if (blank_after_prefixes(rest, p)) return;  // prints nothing, as a blank line
      e.kind = model::Kind::Line;
      // A line read from its container's JSON or without its terminal escapes: what it says is
      // the text read, which rules match too (the raw line escapes '<' as \u003c).
      if (!within(line.text, rest)) e.message = std::string(trim(rest));
      emit_event(std::move(e), &p);  // notes its progress
    } else {
      note_progress(p.rank ? p.rank : facts.rank, p.local_rank ? p.local_rank : facts.local_rank, task_of(p), rest, line.number, nullptr);
    }
  }

  // ---- the gate (gate.hpp) ----
  std::vector<std::string_view> batch_texts;
  std::vector<Gate::Look> batch_looks;
  Gate::Scratch gate_scratch;

  void feed_many(const std::vector<lines::Line>& lines) {
    if (options.gate == nullptr || options.raw) {
      for (const lines::Line& l : lines) feed(l);
      return;
    }
    if (snapshot || (!lines.empty() && lines.front().number == 1 && is_snapshot_header(lines.front().text))) {
      for (const lines::Line& l : lines) feed(l);
      return;
    }
    // Lines in another encoding are decoded first (one pass over the batch finds whether any byte
    // is not ASCII at all), so that the gate and the parsers see the same UTF-8 text.
    const std::vector<lines::Line>* batch = &lines;
    const BatchBytes bytes = scan_bytes(lines);
    if (!lines.empty() && !bytes.ascii && !bytes.utf8) {
      batch_decoded.clear();
      batch_lines = lines;
      for (lines::Line& l : batch_lines)
        if (!base::is_utf8(l.text)) l.text = batch_decoded.emplace_back(base::legacy_to_utf8(l.text));  // a deque: stays put
      batch = &batch_lines;
    }
    batch_texts.clear();
    for (const lines::Line& l : *batch) batch_texts.push_back(l.text);
    options.gate->look_many(batch_texts, batch_looks, gate_scratch);
    // A terminal escape can split a literal ("\x1b[31mERROR\x1b[0m"): such lines are parsed, and
    // read without their escapes (strip_prefixes).
    if (bytes.escape)
      for (std::size_t i = 0; i < batch->size(); ++i)
        if (std::memchr(batch_texts[i].data(), '\x1b', batch_texts[i].size()) != nullptr) batch_looks[i] = Gate::Look::Parse;
    for (std::size_t i = 0; i < batch->size(); ++i) feed_utf8((*batch)[i], &batch_looks[i]);
    resolve_deferred();  // before the batch's lines go
  }
  std::vector<lines::Line> batch_lines;
  std::deque<std::string> batch_decoded;  // stable addresses: lines point into them
  // Whether every byte of the batch is ASCII, and whether some byte is an ESC, in one pass over the
  // one buffer the lines lie in, sixteen bytes at a time (each line alone when they do not lie back
  // to back).
  struct BatchBytes {
    bool ascii = true;
    bool escape = false;
    bool utf8 = false;  // not ASCII, but the lines, back to back, are valid UTF-8 (simdjson's SIMD check)
  };
  static BatchBytes scan_bytes(const std::vector<lines::Line>& lines) {
    BatchBytes out;
    if (lines.empty()) return out;
    for (std::size_t k = 1; k < lines.size(); ++k) {
      const char* prev_end = lines[k - 1].text.data() + lines[k - 1].text.size();
      const char* next = lines[k].text.data();
      if (next < prev_end || next > prev_end + 2) {
        out.ascii = false;  // each line is checked alone
        for (const lines::Line& l : lines)
          out.escape = out.escape || std::memchr(l.text.data(), '\x1b', l.text.size()) != nullptr;
        return out;
      }
    }
    const char* p = lines.front().text.data();
    const char* end = lines.back().text.data() + lines.back().text.size();
    base::Bytes16 acc{}, esc{};
    for (; p + 16 <= end; p += 16) {
      const base::Bytes16 w = base::load16(p);
      acc |= w;
      esc |= (w == 0x1b);
    }
    bool high = base::any_set(acc & 0x80), escaped = base::any_set(esc);
    for (; p < end; ++p) {
      high = high || (static_cast<unsigned char>(*p) & 0x80) != 0;
      escaped = escaped || *p == '\x1b';
    }
    out.ascii = !high;
    out.escape = escaped;
    if (!out.ascii) {
      const char* begin = lines.front().text.data();
      out.utf8 = simdjson::validate_utf8(begin, static_cast<std::size_t>(end - begin));
    }
    return out;
  }
  model::Event ident;  // the binding of a line the gate may skip
  std::uint64_t skipped_info = 0, skipped_plain = 0;
  std::uint64_t plain_last = 0;  // the line of the last plain line skipped
  std::vector<model::Sighting> sightings;
  // The rank a line names (its prefix, else its file's path): the first line of each is kept.
  void sight(const Prefix& p, std::uint64_t line) {
    const std::optional<std::int64_t> rank = p.rank ? p.rank : facts.rank;
    const std::optional<std::int64_t> local = p.local_rank ? p.local_rank : facts.local_rank;
    if (!rank && !local) return;
    const std::uint64_t key = sighting_key(rank, local);
    if (key == last_sighted && !sightings.empty()) return;  // most lines: the same rank as the line before
    last_sighted = key;
    if (sightings.size() >= 4096 || !sighted.insert(key).second) return;  // 4096: no job's file names more
    model::Sighting si;
    si.path = source.path;
    si.node = source.node;
    si.rank = rank;
    si.local_rank = local;
    si.line = line;
    sightings.push_back(std::move(si));
  }
  std::unordered_set<std::uint64_t> sighted;
  std::uint64_t last_sighted = 0;
  static std::uint64_t sighting_key(std::optional<std::int64_t> rank, std::optional<std::int64_t> local) {
    return (static_cast<std::uint64_t>(rank.value_or(-1) + 1) << 32) ^ static_cast<std::uint64_t>(local.value_or(-1) + 1);
  }

  // True when the line is counted and skipped: no fact literal, no rule that may match, and a
  // shape whose parse is known to give nothing else (checked the way the parsers check it). Called
  // only with no block open and no prefix that carries a time.
  bool skip(const lines::Line& line, std::string_view rest, const Prefix& p, Gate::Look look) {
    if (line.cut || look == Gate::Look::Parse) return false;
    // A time's lines: plain ones only. Nothing left after the prefixes (a tqdm bar, peeled whole): plain.
    if (rest.empty() || !p.time.empty() || !p.month_day_time.empty()) return skip_plain(line, rest, p, look);
    // The prefixes before `rest` (rank, local rank, pdsh host) are part of a line's binding.
    const std::string_view outer = line.text.substr(0, line.text.size() - rest.size());
    if (rest.front() == '[') {
      // plog INFO / DEBUG / TRACE: split_plog's header, as parse_plog reads it (the first family).
      PlogHeader h;
      if (rest.size() < 30 || !split_plog(rest, h) || options.gate->open(model::Kind::Plog)) return false;
      if (h.level != "INFO" && h.level != "DEBUG" && h.level != "TRACE") return false;
      if (year.empty() || h.date.substr(0, 4) != year) return false;  // the full path would learn the year
      raw_key.assign(outer);
      raw_key += '\n';
      raw_key.append(h.pid);
      const std::size_t header = outer.size() + static_cast<std::size_t>(h.date.data() - rest.data());
      if (!known_raw(raw_key, [&] {
            binding(p);
            ident.pid = int_of(h.pid);
            if (ident.pid && *ident.pid < 0) ident.pid.reset();
          }))
        return false;
      remember_again(line.text.substr(0, header), true);
      ++skipped_info;
      return true;
    }
    if (NcclHeader h; split_nccl_header(rest, h) && starts_with(h.body, kNcclInfo)) {
      // "host:pid:tid [dev] NCCL INFO msg": the binding is all before the message.
      if (options.gate->open(model::Kind::Nccl)) return false;
      const std::size_t start = outer.size() + static_cast<std::size_t>(h.body.data() - rest.data()) + kNcclInfo.size();
      if (!known_raw(line.text.substr(0, start), [&] {
            binding(p);
            ident.node.assign(h.host);
            ident.pid = int_of(h.pid);
            if (!h.dev.empty()) ident.device = int_of(h.dev);
          }))
        return false;
      remember_again(line.text.substr(0, start), false);
      ++skipped_info;
      plain_last = line.number;
      return true;
    }
    return skip_plain(line, rest, p, look);
  }

  // A logger's record at INFO or DEBUG under a time the prefixes held ("TIME INFO msg", DeepSpeed's
  // "[TIME] [INFO] [file.py:96:fn] msg", "TIME | INFO | msg"), whose level is its only family marker
  // and which holds no gate literal: the python-logging family would read an informational line
  // that nothing keeps, whose progress is all it gives. Read as a plain line (its progress noted,
  // dated by the prefix's time). A logger's line with no time of its own, or in python's default
  // "INFO:name:msg" shape ("INFO:torch.distributed...", torchrun's), is parsed as before.
  bool quiet_logging(std::string_view rest, const Prefix& p) const {
    if (p.time.empty() && p.month_day_time.empty()) return false;
    std::size_t k = 0;
    if (k < rest.size() && (rest[k] == '|' || rest[k] == '-')) k = rest.find_first_not_of(' ', k + 1);
    if (k == std::string_view::npos || k >= rest.size()) return false;
    const bool bracket = rest[k] == '[';
    if (bracket) ++k;
    std::size_t n = 0;
    if (rest.compare(k, 4, "INFO") == 0) n = 4;
    else if (rest.compare(k, 5, "DEBUG") == 0) n = 5;
    else return false;
    k += n;
    if (bracket) {
      if (k >= rest.size() || rest[k] != ']') return false;
      ++k;
    }
    // "INFO:name:msg" (python's default format, torchrun's own lines) is not taken, whatever prefix
    // dates it (a journal's, kubectl's): the launcher's lines are read whole.
    if (k < rest.size() && rest[k] != ' ' && rest[k] != '|') return false;
    return !options.gate->marked(rest.substr(k));  // no other family's marker after the level
  }

  // A line with no marker (Family::markers), no record glued inside and no trigger for scan_message
  // (the gate found no literal): read by a family without markers, else a "line" event that no rule
  // matches, counted and skipped. Its progress is noted, dated by its prefixes' time.
  bool skip_plain(const lines::Line& line, std::string_view rest, const Prefix& p, Gate::Look look) {
    // A blank line is no worker's print, nor one that is blank after its prefixes (kubectl's pod,
    // srun's task, a journal header before an empty line): left to the full path, which emits neither.
    if (options.gate->open(model::Kind::Line) || blank_after_prefixes(rest, p)) return false;
    if (!rest.empty() && rest.front() == '[' && !section.empty()) return false;  // a failure table's "[0]:" row
    const bool bar = !rest.empty() && rest.front() == '|' && options.row_kept_once;
    if (bar && rows_read.count(line.text) != 0) {  // read before, to a row the consumer drops again
      ++skipped_info;
      plain_last = line.number;
      return true;
    }
    if ((look == Gate::Look::Marked && !quiet_logging(rest, p) && options.gate->marked(rest)) || may_be_glued(rest)) return false;
    if (unmarked_family_may_read(rest)) {
      // Of the families, only those without markers may read it. The full path (feed_parsed) would
      // try the same ones, in the same order, first: no block opens on a line without a gate literal.
      model::Event& e = scratch;
      reset(e, line, p);
      for (const Family& f : single_line_families()) {
        if (!f.markers.empty() || !f.parse(rest, e)) continue;
        const std::uint64_t before = emitted;
        after_family(p.key, e, p, true);
        if (bar && emitted == before + 1 && options.row_kept_once() && rows_read.size() < kRowsRead) rows_read.emplace(line.text);
        return true;
      }
    }
    ++skipped_plain;
    if (!json_structure(rest)) plain_last = line.number;  // a JSON document's lines are no process going on
    learn_plain_year(p);
    if (p.level > model::Level::Info) return true;  // emit_event notes the progress of info lines only
    defer_progress(line, p);
    return true;
  }

  // Lines (prefixes and all) skip_plain read to a table row the consumer keeps once: the same bytes
  // again give the same row, dropped. A monitor's tables have a few dozen distinct rows per node
  // (the process rows' memory changes: those are read each time).
  static constexpr std::size_t kRowsRead = 1024;
  std::unordered_set<std::string, TextHash, std::equal_to<>> rows_read;

  // The raw starts of the lines skip() passed over as informational lines of a known binding
  // (an NCCL line up to its message, a plog line up to its time). A quiet line that starts the same
  // way is the same case, decided without peeling its prefixes again: its binding text is the
  // same, and so is everything strip_prefixes and the checks above look at, provided it holds no
  // '\r' (the part after one is what a terminal shows) and no '%' (a progress bar peeled from the
  // front), and, for plog, its time has the same shape and year.
  // Several are kept (processes' lines interleave in one file); each is found by its first 16
  // bytes, compared as two words.
  struct Again {
    std::string prefix;
    bool plog = false;
    std::uint64_t head[2] = {0, 0};
  };
  std::vector<Again> agains;
  std::size_t again_next = 0;  // the entry to replace when full
  static constexpr std::size_t kAgains = 64;
  void remember_again(std::string_view prefix, bool plog) {
    if (prefix.size() < 16 || prefix.front() == '{') return;  // '{': container JSON is peeled by content
    for (const Again& a : agains)
      if (a.prefix == prefix) return;
    Again a;
    a.prefix.assign(prefix);
    a.plog = plog;
    std::memcpy(a.head, prefix.data(), 16);
    if (agains.size() < kAgains) {
      agains.push_back(std::move(a));
    } else {
      agains[again_next] = std::move(a);
      again_next = (again_next + 1) % kAgains;
    }
  }
  bool again(const lines::Line& line) const {
    const std::string_view t = line.text;
    if (agains.empty() || line.cut || t.size() < 16) return false;
    std::uint64_t head[2];
    std::memcpy(head, t.data(), 16);
    for (const Again& a : agains) {
      if (a.head[0] != head[0] || a.head[1] != head[1]) continue;
      const std::size_t n = a.prefix.size();
      if (t.size() < n || t.compare(0, n, a.prefix) != 0) continue;
      if (a.plog && (t.size() < n + 27 || !plog_time_shaped(t.data() + n) || year.size() != 4 || t.compare(n, 4, year) != 0))
        return false;
      return std::memchr(t.data(), '\r', t.size()) == nullptr && std::memchr(t.data(), '%', t.size()) == nullptr;
    }
    return false;
  }

  static constexpr std::string_view kNcclInfo = "NCCL INFO ";

  // The binding the outer prefixes give; the family's own part is added after, the path's last
  // (fill_from_path, as for every event).
  void binding(const Prefix& p) {
    ident.node = p.host.empty() ? source.node : p.host;
    ident.rank = p.rank;
    ident.local_rank = p.local_rank;
    ident.pid.reset();
    ident.device.reset();
  }

  // Whether the binding a line's raw prefix text stands for is known (options.known). The same
  // raw text always stands for the same binding, and a binding once known stays known (the
  // consumer only adds), so the raw keys of a source are remembered and most lines cost one
  // comparison with the last one, or one hash lookup. `fill` sets `ident` from the line when the key is new.
  std::string raw_key;
  std::unordered_set<std::string> known_keys;
  std::string last_known;
  template <typename Fill>
  bool known_raw(std::string_view key, Fill fill) {
    if (key == last_known) return true;
    if (key.data() != raw_key.data()) raw_key.assign(key);  // the plog key is built in raw_key already
    if (known_keys.count(raw_key) != 0) {
      last_known = raw_key;
      return true;
    }
    fill();
    fill_from_path(ident);
    if (!options.known || !options.known(ident)) return false;
    if (known_keys.size() < 65536) known_keys.insert(raw_key);
    last_known = raw_key;
    return true;
  }

  // Each stream's last torch_npu error header (its line and whose it is), for the CANN message
  // printed right under it.
  struct NpuHeader {
    std::uint64_t line = 0;
    std::optional<std::int64_t> rank, device, pid;
  };
  std::unordered_map<std::string, NpuHeader> npu_header;

  // Where each stream last said "Exception ignored ...": CPython's unraisable hook prints it before
  // the traceback of an exception it swallowed (in __del__, a callback, at interpreter exit), and
  // how many of those exceptions' own lines have not come yet (processes that share a stream
  // interleave them: a traceback's exception line may come apart from its header).
  struct Ignored {
    std::uint64_t line = 0;
    int pending = 0;
  };
  std::unordered_map<std::string, Ignored> ignored_at;
  static constexpr std::uint64_t kIgnoredReach = 40;  // lines within which an unraisable exception ends

  // Marks `e` as an exception Python printed and went on after (unraisable): said, not a failure.
  static void unraisable(model::Event& e) {
    e.level = model::Level::Warning;
    e.set("unraisable", true);
  }
  // True (one pending exception taken) when an exception line alone at `line` of stream `key` is
  // the end of an unraisable traceback whose header other output separated from it.
  bool ignored_pending(const std::string& key, std::uint64_t line) {
    const auto it = ignored_at.find(key);
    if (it == ignored_at.end() || it->second.pending <= 0 || line > it->second.line + kIgnoredReach) return false;
    --it->second.pending;
    return true;
  }

  // Lines that start a multi-line block of their own: a traceback, a failure-table row, an
  // npu-smi table. ("Exception ignored ..." only notes that the next traceback is unraisable.)
  bool open_block(const std::string& key, const lines::Line& line, std::string_view rest, model::Event& e) {
    if (starts_with(rest, "Exception ignored ")) {
      if (ignored_at.size() < 4096 || ignored_at.count(key) != 0) {
        Ignored& ig = ignored_at[key];
        ig.pending = line.number > ig.line + kIgnoredReach ? 1 : ig.pending + 1;
        ig.line = line.number;
      }
      return false;
    }
    if (starts_with(rest, "Traceback (most recent call last)")) {
      e.kind = model::Kind::Python;
      e.level = model::Level::Error;
      e.code = "traceback";
      if (const auto it = ignored_at.find(key); it != ignored_at.end() && line.number > it->second.line && line.number <= it->second.line + 3)
        unraisable(e);
      open.emplace(key, Block{BlockType::Traceback, std::move(e), {}});
      return true;
    }
    const std::string_view t = trim(rest);
    if (t == "Root Cause (first observed failure):" || t == "Failures:") {
      section[key] = t == "Failures:" ? "failures" : "root";
      return true;
    }
    if (section.count(key) != 0 && t.size() >= 4 && t.front() == '[' && t.back() == ':' && t[t.size() - 2] == ']') {
      if (auto idx = to_int(t.substr(1, t.size() - 3))) {
        e.kind = model::Kind::Torchrun;
        e.level = model::Level::Error;
        e.code = "failure-row";
        e.set("index", *idx);
        e.set("root_cause", section[key] == "root");
        open.emplace(key, Block{BlockType::FailureRow, std::move(e), {}});
        return true;
      }
    }
    if (!rest.empty() && rest.front() == '|' && contains(rest, "npu-smi") && contains(rest, "Version")) {
      e.kind = model::Kind::NpuSmi;
      e.level = model::Level::Info;
      e.code = "inventory";
      Block b{BlockType::NpuSmi, std::move(e), {}};
      b.lines.emplace_back(line.number, std::string(rest));
      open.emplace(key, std::move(b));
      return true;
    }
    return false;
  }

  // A single-line family recognised the line: emit it, or open the block it starts.
  void after_family(const std::string& key, model::Event& e, const Prefix& p, bool quiet) {
    // A fan-out tool's label names the node every line of its stream came from; NCCL's own host
    // name behind it may be another name of the same machine.
    if (!p.host.empty()) e.node = p.host;
    if (e.kind == model::Kind::Plog) {
      // Framework lines (MindSpore) may end in a CANN error-code message whose body follows.
      static const RE2 embedded(R"(\b([EW][A-Z0-9]\d{4}): )");
      std::string code;
      if (contains(e.message, "Ascend Error Message") && RE2::PartialMatch(e.message, embedded, &code)) {
        e.code = code;
        e.kind = model::Kind::Cann;
        open.emplace(key, Block{BlockType::Cann, std::move(e), {}});
        return;
      }
      // An HCCL error whose meaning is in the code it returns (a listen that failed: 7 when the
      // port is bound, 19 when the NIC's network is not up) waits for its call trace's line.
      if (e.level == model::Level::Error && contains(e.message, "listen on ip[") && contains(e.message, "port[")) {
        open.emplace(key, Block{BlockType::HcclReturn, std::move(e), {}});
        return;
      }
    } else if (e.kind == model::Kind::Cann) {
      // torch_npu prints "[ERROR] ... (PID:n, Device:d, RankID:r) ERRxxxxx ..." and the CANN error
      // message it wraps on the next line: that message is the same process's.
      if (const auto it = npu_header.find(key); it != npu_header.end() && it->second.line + 1 == e.line) {
        if (!e.rank) e.rank = it->second.rank;
        if (!e.device) e.device = it->second.device;
        if (!e.pid) e.pid = it->second.pid;
      }
      open.emplace(key, Block{BlockType::Cann, std::move(e), {}});
      return;
    } else if (e.kind == model::Kind::TorchNpu) {
      if (npu_header.size() < 4096 || npu_header.count(key) != 0) npu_header[key] = NpuHeader{e.line, e.rank, e.device, e.pid};
    } else if ((e.kind == model::Kind::Torch || e.kind == model::Kind::Torchrun || e.kind == model::Kind::Python) && e.get("exception") == nullptr &&
               contains(e.message, "Starting elastic_operator with launch configs")) {
      e.code = "launch-config";
      open.emplace(key, Block{BlockType::LaunchConfig, std::move(e), {}});
      return;
    } else if (e.get("exception") == nullptr && contains(e.message, "Rendezvous complete for workers. Result:")) {
      // torchrun's agent at LOGLEVEL=INFO (any logging format): which global rank each local one got.
      e.code = "rendezvous-result";
      open.emplace(key, Block{BlockType::RendezvousResult, std::move(e), {}});
      return;
    } else if (const std::size_t at = e.message.find(kLogDirSays); e.get("exception") == nullptr && e.code.empty() && at != std::string::npos) {
      // torchrun's agent names the folder it makes for its workers' files (local_elastic_agent.py).
      e.code = "log-dir";
      e.set("log_dir", std::string(trim(std::string_view(e.message).substr(at + kLogDirSays.size()))));
    } else if (e.get("exception") != nullptr) {
      if (e.kind == model::Kind::Python && ignored_pending(key, e.line)) unraisable(e);
      open.emplace(key, Block{BlockType::ExceptionTail, std::move(e), {}});
      return;
    }
    e.quiet = quiet;  // not a block's: those take more lines
    emit_event(std::move(e), &p);
  }

  void finish() {
    if (snapshot) emit_snapshot();
    while (!open.empty()) close(open.begin()->first);
    give_progress();
  }
};

SourceParser::SourceParser(const ingest::Source& source, ParseOptions options, EventFn emit)
    : impl_(std::make_unique<Impl>(source, options, std::move(emit))) {}
SourceParser::~SourceParser() = default;

void SourceParser::feed(const lines::Line& line) { impl_->feed(line); }
void SourceParser::feed_many(const std::vector<lines::Line>& lines) { impl_->feed_many(lines); }
void SourceParser::finish() { impl_->finish(); }
std::uint64_t SourceParser::skipped_info() const { return impl_->skipped_info; }
std::uint64_t SourceParser::skipped_plain() const { return impl_->skipped_plain; }
std::uint64_t SourceParser::snapshot_lines_not_kept() const { return impl_->snapshot_not_kept; }
std::uint64_t SourceParser::plain_last() const { return impl_->plain_last; }
const std::vector<model::Sighting>& SourceParser::sightings() const { return impl_->sightings; }

ParseCounts parse_stream(ingest::ByteReader& text, const ingest::Source& source, ParseOptions options,
                         std::size_t max_line, EventFn emit) {
  ParseCounts counts;
  lines::LineReader reader(text, max_line);
  SourceParser parser(source, options, std::move(emit));
  if (options.gate != nullptr) {
    std::vector<lines::Line> batch;
    while (reader.next_batch(batch)) {
      counts.lines += batch.size();
      parser.feed_many(batch);
    }
  } else {
    lines::Line line;
    while (reader.next(line)) {
      ++counts.lines;
      parser.feed(line);
    }
  }
  parser.finish();
  counts.lines_cut = reader.lines_cut();
  counts.skipped_info = parser.skipped_info();
  counts.skipped_plain = parser.skipped_plain();
  counts.plain_last = parser.plain_last();
  counts.snapshot_not_kept = parser.snapshot_lines_not_kept();
  counts.sightings = parser.sightings();
  return counts;
}

}  // namespace dtriage::formats
