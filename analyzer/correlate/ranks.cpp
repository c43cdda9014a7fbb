// The rank table: one record per global rank, built once from everything the logs say about it.
#include <re2/re2.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "base/sentences.hpp"
#include "base/text.hpp"
#include "correlate/facts.hpp"
#include "formats/path_facts.hpp"

namespace dtriage::correlate {

const char* ending_name(Ending e) {
  switch (e) {
    case Ending::Running: return "running";
    case Ending::Timeout: return "timeout";
    case Ending::PeerLost: return "peer-lost";
    case Ending::Signal: return "signal";
    case Ending::Exception: return "exception";
    case Ending::Exited: return "exit";
    case Ending::Stopped: return "stopped";
    case Ending::NeverHeardFrom: return "never-heard-from";
  }
  return "running";
}

namespace {


// Signals a process raises on itself when it crashes (or aborts after an unrecoverable error).
bool crash_signal(const std::string& sig) {
  return sig == "SIGSEGV" || sig == "SIGBUS" || sig == "SIGFPE" || sig == "SIGILL" || sig == "SIGABRT" || sig == "SIGTRAP";
}


// An exception a torch.distributed collective raised: its stack passes through distributed_c10d.py,
// or it wraps a communication library's error (NCCL / HCCL error in:, an Hccl* operator's error code).
bool raised_in_collective(const model::Event& e) {
  static const RE2 wrapper(R"((?:NCCL|HCCL) error in:|DistBackendError|function error: Hccl\w+, error code is)");
  if (RE2::PartialMatch(e.text, wrapper) || RE2::PartialMatch(e.message, wrapper) || RE2::PartialMatch(e.get_str("exception_text"), wrapper))
    return true;
  return std::any_of(e.body.begin(), e.body.end(), [](const std::string& l) { return l.find("distributed_c10d.py") != std::string::npos; });
}

// The earliest line of each kind of ending a rank's lines show.
struct Endings {
  std::optional<EventIndex> timeout, peer_lost, signal, exception, exited, stopped;
  std::optional<EventIndex> said;  // its own words that it is failing: an ERROR line, "error: ...", an abort
};

// Which restart attempt a line belongs to, for one rank: {0, N} attempt N that a later one
// replaced, {1, 0} the last attempt.
using AttemptKey = std::pair<int, std::int64_t>;

struct Building {
  RankRecord rec;
  std::set<std::int64_t> pids;
  Endings ends;
  std::map<AttemptKey, RankAttempt> attempts;                 // every attempt its lines show
  std::map<std::int64_t, std::set<AttemptKey>> pid_attempts;  // pid -> the attempts whose lines name it
  bool restarted = false;                                     // a line in a replaced attempt, or in attempt_N with N > 0
  std::string task, replaced_task;                            // the srun task / pod its lines carry (last attempt, replaced ones)
};

void keep_earliest(std::optional<EventIndex>& slot, EventIndex i, const std::vector<model::Event>& ev) {
  if (!slot || model::earlier(ev[i], ev[*slot])) slot = i;
}

// What a rank's lines say about its ending, one line at a time.
void note_line(Building& b, EventIndex i, const model::Event& e, std::uint8_t said, const std::vector<model::Event>& ev) {
  if ((said & kReportsTimeout) != 0) keep_earliest(b.ends.timeout, i, ev);
  if ((said & kReportsPeerLoss) != 0 && (said & kReportsTimeout) == 0) keep_earliest(b.ends.peer_lost, i, ev);
  if (said != 0) return;  // a victim's report says nothing of its own end
  if (e.code == "oom-kill") {
    keep_earliest(b.ends.signal, i, ev);
    return;
  }
  if (e.code == "failure-row" || e.code == "worker-failed") {
    const std::string sig = e.get_str("signal");
    if (launcher_stop(sig)) keep_earliest(b.ends.stopped, i, ev);
    else if (!sig.empty()) keep_earliest(b.ends.signal, i, ev);
    else if (e.get_int("exitcode")) keep_earliest(b.ends.exited, i, ev);
    return;
  }
  if (e.kind == model::Kind::Python && e.level == model::Level::Error && !e.get_str("exception").empty()) keep_earliest(b.ends.exception, i, ev);
  // A CUDA call of its own that failed, as PyTorch's C++ side reports it ("[Rank 1] NCCL watchdog
  // thread terminated with exception: CUDA error: uncorrectable ECC error encountered"): its device's
  // failure, not a wait for another rank.
  if (e.kind == model::Kind::Torch && e.level == model::Level::Error && !e.get_str("cuda_error").empty()) keep_earliest(b.ends.exception, i, ev);
  if (own_words(e)) keep_earliest(b.ends.said, i, ev);
}

std::string timeout_detail(const model::Event& e) {
  std::string d;
  if (const std::string op = e.get_str("op_type"); !op.empty()) d = op;
  if (auto seq = e.get_int("seq")) d += (d.empty() ? "" : " ") + base::say(base::Say::DetailSeq, {{"seq", std::to_string(*seq)}});
  if (auto ran = e.get_int("ran_for_ms")) d += (d.empty() ? "" : ", ") + base::say(base::Say::DetailRan, {{"seconds", std::to_string(*ran / 1000)}});
  if (auto t = e.get_int("timeout_ms")) d += (d.empty() ? "" : ", ") + base::say(base::Say::DetailTimeout, {{"seconds", std::to_string(*t / 1000)}});
  return d.empty() ? base::clip_utf8(e.message.empty() ? e.text : e.message, 120) : d;
}

// Chooses the ending: what the rank suffered from others first (a timeout, a lost peer), then what
// ended it on its own (a signal, an exception, an exit code), then its launcher's stop.
void decide(Building& b, const std::vector<model::Event>& ev, const Facts& f, const std::map<std::pair<std::string, std::int64_t>, EventIndex>& oom_pids) {
  RankRecord& r = b.rec;
  const Endings& x = b.ends;
  auto take = [&](Ending kind, EventIndex i) {
    r.ending = kind;
    r.evidence = i;
    if (auto code = ev[i].get_int("exitcode"); code && *code >= 0) r.exit_code = *code;
  };
  auto peer_of = [&]() -> std::optional<std::int64_t> {
    const auto w = f.job.waits_on.find(r.rank);
    const auto peer = w == f.job.waits_on.end() ? std::nullopt : waited_rank(w->second);
    return peer && *peer >= 0 ? peer : std::nullopt;
  };
  if (x.timeout) {
    take(Ending::Timeout, *x.timeout);
    r.detail = timeout_detail(ev[*x.timeout]);
    r.peer = peer_of();
  } else if (x.peer_lost) {
    take(Ending::PeerLost, *x.peer_lost);
    r.peer = peer_of();
    r.detail = base::clip_utf8(ev[*x.peer_lost].message.empty() ? ev[*x.peer_lost].text : ev[*x.peer_lost].message, 120);
  } else if (x.signal) {
    const model::Event& e = ev[*x.signal];
    take(Ending::Signal, *x.signal);
    r.signal = e.code == "oom-kill" ? "SIGKILL" : e.get_str("signal");
    const bool oom = e.code == "oom-kill" ||
                     std::any_of(r.pids.begin(), r.pids.end(), [&](std::int64_t p) { return oom_pids.count({r.node, p}) != 0; });
    r.sent_by = oom ? "oom-killer" : crash_signal(r.signal) ? "itself" : "unknown";
    const base::Say say = oom ? base::Say::RankSignalOom : crash_signal(r.signal) ? base::Say::RankSignalCrash : base::Say::RankSignal;
    r.detail = base::say(say, {{"signal", r.signal}});
    if (x.said && !oom) r.detail += ", after: " + base::clip_utf8(ev[*x.said].message, 120);
  } else if (x.exception) {
    const model::Event& e = ev[*x.exception];
    take(Ending::Exception, *x.exception);
    std::string msg = e.message;
    const std::string type = e.get_str("exception");
    r.detail = base::clip_utf8(type.empty() ? msg : type + (msg.empty() ? "" : ": " + msg), 160);
    if (x.exited) {
      if (auto code = ev[*x.exited].get_int("exitcode"); code && *code >= 0) r.exit_code = *code;
    }
  } else if (x.exited) {
    take(Ending::Exited, *x.exited);
    r.detail = base::say(base::Say::RankExit, {{"code", std::to_string(ev[*x.exited].get_int("exitcode").value_or(0))}});
    if (x.said) r.detail += ", after: " + base::clip_utf8(ev[*x.said].message, 120);
  } else if (x.stopped) {
    take(Ending::Stopped, *x.stopped);
    r.signal = ev[*x.stopped].get_str("signal");
    r.sent_by = "launcher";
    r.detail = base::say(base::Say::RankStopped, {{"signal", r.signal}});
  }
}

// The node whose launch range (--node_rank x --nproc_per_node) holds `rank`, or "".
// The node a rank no line names was launched on: the node whose --node_rank range holds it; else
// one whose ranks' lines give its first rank (global minus local rank, one value) and whose
// --nproc_per_node reaches it.
std::string launch_node(const Facts& f, std::int64_t rank) {
  for (const Node& n : f.nodes)
    if (n.holds_rank(rank)) return n.name;
  std::map<std::string, std::set<std::int64_t>> bases;
  for (const RankRecord& r : f.rank_table)
    if (!r.node.empty() && r.local_rank) bases[r.node].insert(r.rank - *r.local_rank);
  for (const Node& n : f.nodes) {
    const auto b = bases.find(n.name);
    if (b != bases.end() && b->second.size() == 1 && n.nproc_per_node && *b->second.begin() <= rank &&
        rank < *b->second.begin() + *n.nproc_per_node)
      return n.name;
  }
  return "";
}

// torchrun --log-dir's attempt number in a path (RUN/attempt_N/LOCAL_RANK/stderr.log).
std::optional<std::int64_t> path_attempt(const std::string& path) {
  if (const auto folder = formats::attempt_folder(path)) return folder->number;
  return std::nullopt;
}

// A rank's lines in one attempt: which attempt, the pid they name, the srun task or pod they carry.
void note_attempt(Building& b, EventIndex i, const model::Event& e, std::optional<std::int64_t> pid, const Facts& f,
                  const std::vector<std::int64_t>& in_stream) {
  const auto number = path_attempt(e.path);
  const bool replaced = f.is_replaced(i);
  const AttemptKey key = replaced ? AttemptKey{0, number.value_or(i < in_stream.size() ? in_stream[i] : 0)} : AttemptKey{1, 0};
  RankAttempt& a = b.attempts[key];
  a.replaced = replaced;
  if (number && (!a.number || *a.number < *number)) a.number = number;
  if (replaced || (number && *number > 0)) b.restarted = true;
  if (pid) b.pid_attempts[*pid].insert(key);
  std::string& task = replaced ? b.replaced_task : b.task;
  if (task.empty()) task = e.task;
}

// (node, pid) -> the earliest replaced attempt whose lines name that worker process, and its
// attempt_N number where its path gives one: the rank's own lines, or its launcher's ("failed
// (exitcode", failure rows, "Sending process N closing signal").
using ReplacedPids = std::map<std::pair<std::string, std::int64_t>, std::pair<AttemptKey, std::optional<std::int64_t>>>;

void note_replaced_pid(ReplacedPids& out, EventIndex i, const model::Event& e, const Facts& f, const std::vector<std::int64_t>& in_stream) {
  if (!f.is_replaced(i)) return;
  std::optional<std::int64_t> pid;
  if (e.code == "closing-signal") pid = e.get_int("target_pid");
  else if (e.kind != model::Kind::Torchrun || e.code == "failure-row" || e.code == "worker-failed") pid = e.pid;
  if (!pid || *pid <= 0) return;
  const auto number = path_attempt(e.path);
  const AttemptKey key{0, number.value_or(i < in_stream.size() ? in_stream[i] : 0)};
  auto [it, fresh] = out.emplace(std::make_pair(e.node, *pid), std::make_pair(key, number));
  if (!fresh && key < it->second.first) it->second = {key, number};
}

// A launcher reports each worker's failure once per attempt: of the "failed (exitcode" lines of one
// launcher's stream (its file, node and srun task or pod) for one local rank, all but the last name
// processes of attempts a later one replaced, the k-th of attempt k, where no line of theirs was
// marked replaced (the workers' lines went to attempt_N files, not into the launcher's stream). So
// does the last, when the failure table printed after it (the last attempt's) names another process.
void note_failed_before(ReplacedPids& out, const std::vector<model::Event>& events) {
  using Stream = std::tuple<std::string_view, std::string_view, std::string_view, std::int64_t>;
  std::map<Stream, std::vector<EventIndex>> failed;
  std::map<Stream, std::pair<std::uint64_t, std::int64_t>> row;  // the stream's last failure row: line, pid
  for (EventIndex i = 0; i < events.size(); ++i) {
    const model::Event& e = events[i];
    if (!e.pid || *e.pid <= 0 || !e.local_rank) continue;
    if (e.code == "worker-failed") failed[{e.path, e.node, e.task, *e.local_rank}].push_back(i);
    if (e.code == "failure-row") {
      auto& r = row[{e.path, e.node, e.task, *e.local_rank}];
      if (r.first <= e.line) r = {e.line, *e.pid};
    }
  }
  for (auto& [stream, idx] : failed) {
    std::stable_sort(idx.begin(), idx.end(), [&](EventIndex a, EventIndex b) { return events[a].line < events[b].line; });
    std::int64_t last_pid = *events[idx.back()].pid;
    std::size_t earlier = idx.size() - 1;
    if (auto r = row.find(stream); r != row.end() && r->second.first > events[idx.back()].line && r->second.second != last_pid) {
      last_pid = r->second.second;
      earlier = idx.size();
    }
    for (std::size_t k = 0; k < earlier; ++k) {
      const model::Event& e = events[idx[k]];
      if (*e.pid == last_pid) continue;
      const AttemptKey key{0, static_cast<std::int64_t>(k)};
      auto [it, fresh] = out.emplace(std::make_pair(e.node, *e.pid), std::make_pair(key, std::nullopt));
      if (!fresh && key < it->second.first) it->second = {key, std::nullopt};
    }
  }
}

// Each pid in one attempt: a process lives in one, so a pid a replaced attempt's line names is that
// attempt's (the earliest, when several do), even where files that know no attempts (plog) name it
// too; else the last attempt's. Attempts in order, earliest first.
std::vector<RankAttempt> attempts_of(Building& b, const std::string& node, const ReplacedPids& replaced_pids) {
  std::map<std::int64_t, AttemptKey> placed;
  for (const auto& [pid, keys] : b.pid_attempts) {
    AttemptKey key = *keys.rbegin();
    if (keys.begin()->first == 0) key = *keys.begin();
    else if (auto it = replaced_pids.find({node, pid}); it != replaced_pids.end()) {
      key = it->second.first;
      RankAttempt& a = b.attempts[key];
      a.replaced = true;
      if (it->second.second && !a.number) a.number = it->second.second;
      b.restarted = true;
    }
    placed[pid] = key;
  }
  if (!b.restarted) return {};
  for (const auto& [pid, key] : placed) b.attempts[key].pids.push_back(pid);
  std::vector<RankAttempt> out;
  for (auto& [key, a] : b.attempts) out.push_back(std::move(a));
  // A restart starts the whole group again: a rank none of whose lines is the last attempt's still
  // had one (no pid known: "101->-").
  if (!out.empty() && out.back().replaced) out.emplace_back();
  return out;
}

// The global rank a sighting names: its own, else its local rank on its node, through the pairs
// the table already holds for that node or the node's launch range (--node_rank x --nproc_per_node).
std::optional<std::int64_t> sighted_rank(const model::Sighting& s, const std::string& node, const Facts& f,
                                         const std::map<std::pair<std::string, std::int64_t>, std::int64_t>& by_local) {
  if (s.rank) return s.rank;
  if (!s.local_rank) return std::nullopt;
  if (auto it = by_local.find({node, *s.local_rank}); it != by_local.end()) return it->second;
  const Node* n = f.node(node);
  return n != nullptr ? n->global_rank(*s.local_rank) : std::nullopt;
}

// Ranks that lines named without a kept event of theirs (a worker's own prints under [defaultN]:,
// its per-rank files) ran: they are in the table as running, not as never heard from.
void add_sighted(Facts& f, const std::vector<model::Event>& events, const std::vector<model::Sighting>& sightings) {
  std::map<std::string_view, std::string_view> path_node;  // the node correlation gave each file's lines
  for (const model::Event& e : events) path_node.emplace(e.path, e.node);
  std::map<std::pair<std::string, std::int64_t>, std::int64_t> by_local;
  std::set<std::int64_t> known;
  for (const RankRecord& r : f.rank_table) {
    known.insert(r.rank);
    if (r.local_rank) by_local.emplace(std::make_pair(r.node, *r.local_rank), r.rank);
  }
  for (const model::Sighting& s : sightings) {
    const auto at = path_node.find(s.path);
    const std::string node(at != path_node.end() ? at->second : std::string_view(s.node));
    const auto rank = sighted_rank(s, node, f, by_local);
    if (!rank || *rank < 0 || !known.insert(*rank).second) continue;
    RankRecord rec;
    rec.rank = *rank;
    rec.node = node;
    rec.local_rank = s.local_rank;
    f.rank_table.push_back(std::move(rec));
  }
}

// Each rank's last progress print: of its files, the one of the latest attempt (torchrun's
// attempt_N folders), else the latest print by time, else the furthest step.
void add_progress(Facts& f, const std::vector<model::Event>& events, const std::vector<model::Sighting>& sightings) {
  // The node of a file's lines; in a file several launchers share (srun tasks, pods), of one
  // launcher's lines.
  std::map<std::pair<std::string_view, std::string_view>, std::string_view> task_node;
  std::map<std::string_view, std::string_view> path_node;
  for (const model::Event& e : events) {
    task_node.emplace(std::make_pair(std::string_view(e.path), std::string_view(e.task)), e.node);
    path_node.emplace(e.path, e.node);
  }
  std::map<std::pair<std::string, std::int64_t>, std::int64_t> by_local;
  std::map<std::int64_t, RankRecord*> by_rank;
  for (RankRecord& r : f.rank_table) {
    by_rank.emplace(r.rank, &r);
    if (r.local_rank) by_local.emplace(std::make_pair(r.node, *r.local_rank), r.rank);
  }
  auto attempt = [](const std::string& path) {
    const auto a = formats::attempt_folder(path);
    return a ? a->number : -1;
  };
  for (const model::Sighting& s : sightings) {
    if (!s.step) continue;
    std::string_view node = s.node;
    if (const auto t = task_node.find({s.path, s.task}); t != task_node.end()) node = t->second;
    else if (const auto p = path_node.find(s.path); p != path_node.end()) node = p->second;
    const auto rank = sighted_rank(s, std::string(node), f, by_local);
    const auto r = rank ? by_rank.find(*rank) : by_rank.end();
    if (r == by_rank.end()) continue;
    r->second->prints.push_back(PrintSpan{s.path, s.task, s.first_step_line, s.line});
    std::optional<RankProgress>& have = r->second->progress;
    if (have) {
      const std::int64_t a = attempt(s.path), b = attempt(have->path);
      if (a != b) {
        if (a < b) continue;
      } else if (!s.step_time.empty() && !have->time.empty() && !(s.step_time == have->time)) {
        if (s.step_time < have->time) continue;
      } else if (*s.step <= have->step) {
        continue;
      }
    }
    have = RankProgress{*s.step, s.steps, s.path, s.line, s.step_time, s.step_text};
  }
}

// A node's one rank that no line names, whose launcher stopped one process no rank has: that
// process was it (stopped by its launcher after another worker failed).
void stopped_if_alone(RankRecord& r, const std::vector<model::Event>& events, const std::set<std::int64_t>& node_pids,
                      const std::map<std::pair<std::string, std::int64_t>, std::vector<EventIndex>>& closing) {
  std::vector<std::pair<std::int64_t, EventIndex>> stopped;  // pids the launcher stopped that no rank has
  for (auto it = closing.lower_bound({r.node, std::numeric_limits<std::int64_t>::min()}); it != closing.end() && it->first.first == r.node; ++it)
    if (node_pids.count(it->first.second) == 0 && launcher_stop(events[it->second.front()].get_str("signal")))
      stopped.emplace_back(it->first.second, it->second.front());
  if (stopped.size() != 1) return;
  r.pids = {stopped.front().first};
  r.ending = Ending::Stopped;
  r.evidence = stopped.front().second;
  r.first = r.last = stopped.front().second;
  r.signal = events[stopped.front().second].get_str("signal");
  r.sent_by = "launcher";
  r.detail = base::say(base::Say::RankStopped, {{"signal", r.signal}});
}

// The ranks each torchrun agent's last rendezvous result gives its workers ("local_ranks=[0, 1]",
// "global_ranks=[6, 7]"), those no line names, on that agent's node: under c10d no --node_rank
// says which node holds which ranks, and a worker that printed nothing is known only there.
void add_rendezvous_implied(Facts& f, const std::vector<model::Event>& events,
                            const std::map<std::pair<std::string, std::int64_t>, std::vector<EventIndex>>& closing) {
  std::map<std::string_view, std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> result;  // node -> (locals, globals)
  for (EventIndex i = 0; i < events.size(); ++i) {
    const model::Event& e = events[i];
    if (e.code != "rendezvous-result" || e.node.empty() || f.is_replaced(i)) continue;
    auto locals = int_list(e.get_str("local_ranks")), globals = int_list(e.get_str("global_ranks"));
    if (!globals.empty() && locals.size() == globals.size()) result[e.node] = {std::move(locals), std::move(globals)};
  }
  if (result.empty()) return;
  std::set<std::int64_t> named;
  std::map<std::string, std::set<std::int64_t>> pids;  // node -> pids of its ranks
  for (const RankRecord& r : f.rank_table) {
    named.insert(r.rank);
    pids[r.node].insert(r.pids.begin(), r.pids.end());
  }
  for (const auto& [node, r] : result) {
    std::vector<RankRecord> missing;
    for (std::size_t k = 0; k < r.second.size(); ++k) {
      if (r.second[k] < 0 || named.count(r.second[k]) != 0) continue;
      RankRecord rec;
      rec.rank = r.second[k];
      rec.node = std::string(node);
      rec.local_rank = r.first[k];
      rec.ending = Ending::NeverHeardFrom;
      missing.push_back(std::move(rec));
    }
    if (missing.size() == 1) stopped_if_alone(missing.front(), events, pids[std::string(node)], closing);
    for (RankRecord& m : missing) {
      named.insert(m.rank);
      f.rank_table.push_back(std::move(m));
    }
  }
}

// Ranks a node's launch implies when no world size is known (c10d rendezvous numbers the nodes by
// arrival, so no --node_rank places them): the node's own lines give its first rank (global rank
// minus local rank, the same for all of them) and its --nproc_per_node how many workers it
// started, so a local rank no line names is one of its ranks too. When its launcher stopped a
// process that no rank is known by ("Sending process N closing signal SIGTERM") and exactly one of
// its ranks is unaccounted for, that process was this rank: stopped, not never heard from.
void add_node_implied(Facts& f, const std::vector<model::Event>& events,
                      const std::map<std::pair<std::string, std::int64_t>, std::vector<EventIndex>>& closing) {
  std::set<std::int64_t> named;
  std::map<std::string, std::set<std::int64_t>> bases, pids;  // node -> rank - local rank; pids of its ranks
  for (const RankRecord& r : f.rank_table) {
    named.insert(r.rank);
    if (r.node.empty()) continue;
    if (r.local_rank) bases[r.node].insert(r.rank - *r.local_rank);
    pids[r.node].insert(r.pids.begin(), r.pids.end());
  }
  for (const Node& n : f.nodes) {
    const auto b = bases.find(n.name);
    if (b == bases.end() || b->second.size() != 1 || !n.nproc_per_node || *n.nproc_per_node <= 0 || *n.nproc_per_node > 4096) continue;
    const std::int64_t base = *b->second.begin();
    if (base < 0) continue;
    std::vector<RankRecord> missing;
    for (std::int64_t local = 0; local < *n.nproc_per_node; ++local) {
      if (named.count(base + local) != 0) continue;
      RankRecord rec;
      rec.rank = base + local;
      rec.node = n.name;
      rec.local_rank = local;
      rec.ending = Ending::NeverHeardFrom;
      missing.push_back(std::move(rec));
    }
    if (missing.size() == 1) stopped_if_alone(missing.front(), events, pids[n.name], closing);
    for (RankRecord& r : missing) {
      named.insert(r.rank);
      f.rank_table.push_back(std::move(r));
    }
  }
}

}  // namespace

void build_rank_table(Facts& f, const std::vector<model::Event>& events, const std::vector<std::uint8_t>& reports,
                      const std::vector<model::Sighting>& sightings) {
  std::map<std::int64_t, Building> table;
  std::map<std::pair<std::string, std::int64_t>, EventIndex> oom_pids;                 // (node, pid) the OOM killer named
  std::map<std::pair<std::string, std::int64_t>, std::vector<EventIndex>> closing;     // (node, pid) the launcher stopped
  const bool restarts = std::find(f.replaced.begin(), f.replaced.end(), true) != f.replaced.end();
  const std::vector<std::int64_t>& in_stream = f.stream_attempt;
  ReplacedPids replaced_pids;
  note_failed_before(replaced_pids, events);
  for (EventIndex i = 0; i < events.size(); ++i) {
    const model::Event& e = events[i];
    if (e.code == "oom-kill" && e.pid) oom_pids.emplace(std::make_pair(e.node, *e.pid), i);
    if (restarts) note_replaced_pid(replaced_pids, i, e, f, in_stream);
    if (e.code == "closing-signal" && !f.is_replaced(i))
      if (auto target = e.get_int("target_pid")) closing[{e.node, *target}].push_back(i);
    // A rank in the communicator of the whole job (nranks = world size) is the global rank.
    std::optional<std::int64_t> rank = e.rank;
    if (!rank && f.job.world_size)
      if (auto cr = e.get_int("comm_rank"); cr && e.get_int("nranks") == f.job.world_size) rank = cr;
    if (!rank || *rank < 0) continue;
    Building& b = table[*rank];
    RankRecord& r = b.rec;
    r.rank = *rank;
    if (r.node.empty()) r.node = e.node;
    if (e.local_rank && !r.local_rank) r.local_rank = e.local_rank;
    if (e.device && !r.device && (e.kind == model::Kind::Nccl || e.kind == model::Kind::Plog)) r.device = e.device;
    // Launcher lines carry the agent's pid; its failure rows and "failed (exitcode" lines the worker's.
    const bool worker_pid = e.pid && *e.pid > 0 && (e.kind != model::Kind::Torchrun || e.code == "failure-row" || e.code == "worker-failed");
    if (worker_pid) b.pids.insert(*e.pid);
    note_attempt(b, i, e, worker_pid ? e.pid : std::nullopt, f, in_stream);
    keep_earliest(r.first, i, events);
    if (!r.last || model::earlier(events[*r.last], e)) r.last = i;
    if (auto lc = e.get_int("last_completed")) r.last_completed = *lc;
    if (!f.is_replaced(i)) note_line(b, i, e, i < reports.size() ? reports[i] : 0, events);
  }
  for (auto entry = table.begin(); entry != table.end(); entry = table.erase(entry)) {  // each rank's notes freed once used
    auto& [rank, b] = *entry;
    RankRecord& r = b.rec;
    if (auto it = f.ranks.find(rank); it != f.ranks.end() && !it->second.node.empty()) r.node = it->second.node;
    r.pids.assign(b.pids.begin(), b.pids.end());
    r.attempts = attempts_of(b, r.node, replaced_pids);
    r.launcher = b.task.empty() ? b.replaced_task : b.task;
    // "Sending process N closing signal SIGTERM": the launcher stopped this rank's process.
    for (std::int64_t pid : r.pids)
      if (auto c = closing.find({r.node, pid}); c != closing.end() && launcher_stop(events[c->second.front()].get_str("signal")))
        for (EventIndex i : c->second) keep_earliest(b.ends.stopped, i, events);
    decide(b, events, f, oom_pids);
    // An exception raised inside a collective by a rank that reported a timeout or a lost peer is
    // how that collective failed (HCCL's "OPS function error: HcclAllreduce, error code is 6" over
    // its "Remote Rank did not send the data in time"), not a failure of its own.
    const bool carrier = b.ends.exception && (b.ends.timeout || b.ends.peer_lost) && raised_in_collective(events[*b.ends.exception]);
    for (const auto& own : {b.ends.signal, carrier ? std::nullopt : b.ends.exception, b.ends.exited})
      if (own) keep_earliest(r.own_failure, *own, events);
    // A rank that failed on its own began to when it said so (a dated ERROR line before its exit).
    if (r.own_failure && b.ends.said) keep_earliest(r.own_failure, *b.ends.said, events);
    f.rank_table.push_back(std::move(r));
  }
  add_sighted(f, events, sightings);
  add_progress(f, events, sightings);
  add_rendezvous_implied(f, events, closing);
  if (!f.job.world_size) add_node_implied(f, events, closing);
  // Ranks the launch implies that no line names.
  std::set<std::int64_t> named;
  for (const RankRecord& r : f.rank_table) named.insert(r.rank);
  std::optional<std::int64_t> world = f.job.world_size;
  if (!world) {  // c10d's order of host names placed every node's block (Node::rank_base_by_name): their sum
    std::int64_t sum = 0;
    for (const Node& n : f.nodes)
      if (n.rank_base_by_name && n.nproc_per_node) sum += *n.nproc_per_node;
    if (sum > 0) world = sum;
  }
  if (world && *world > 0 && *world <= 65536) {
    std::vector<RankRecord> silent;
    for (std::int64_t r = 0; r < *world; ++r) {
      if (named.count(r) != 0) continue;
      RankRecord rec;
      rec.rank = r;
      rec.node = launch_node(f, r);
      rec.ending = Ending::NeverHeardFrom;
      silent.push_back(std::move(rec));
    }
    f.rank_table.insert(f.rank_table.end(), silent.begin(), silent.end());
  }
  std::sort(f.rank_table.begin(), f.rank_table.end(), [](const RankRecord& a, const RankRecord& b) { return a.rank < b.rank; });
  // A rank no srun task or pod is known for was started by its node's launcher, where one shows:
  // torchrun's own lines there, or its launch command or configuration.
  std::set<std::string, std::less<>> launched;
  for (const model::Event& e : events)
    if (e.kind == model::Kind::Torchrun && !e.node.empty()) launched.insert(e.node);
  for (const Node& n : f.nodes)
    if (!n.name.empty() && (!n.launch.empty() || n.nproc_per_node)) launched.insert(n.name);
  for (RankRecord& r : f.rank_table)
    if (r.launcher.empty() && launched.count(r.node) != 0) r.launcher = r.node;
}

}  // namespace dtriage::correlate
