// The rank table: one record per global rank, built once from everything the logs say about it.
#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "base/sentences.hpp"
#include "base/text.hpp"
#include "correlate/facts.hpp"

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


// The earliest line of each kind of ending a rank's lines show.
struct Endings {
  std::optional<EventIndex> timeout, peer_lost, signal, exception, exited, stopped;
};

struct Building {
  RankRecord rec;
  std::set<std::int64_t> pids;
  Endings ends;
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
}

std::string timeout_detail(const model::Event& e) {
  std::string d;
  if (const std::string op = e.get_str("op_type"); !op.empty()) d = op;
  if (auto seq = e.get_int("seq")) d += (d.empty() ? "seq " : " seq ") + std::to_string(*seq);
  if (auto ran = e.get_int("ran_for_ms")) d += (d.empty() ? "ran " : ", ran ") + std::to_string(*ran / 1000) + " s";
  if (auto t = e.get_int("timeout_ms")) d += (d.empty() ? "timeout " : ", timeout ") + std::to_string(*t / 1000) + " s";
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
  } else if (x.exception) {
    const model::Event& e = ev[*x.exception];
    take(Ending::Exception, *x.exception);
    std::string msg = e.message;
    const std::string type = e.get_str("exception");
    r.detail = base::clip_utf8(type + (msg.empty() ? "" : ": " + msg), 160);
    if (x.exited) {
      if (auto code = ev[*x.exited].get_int("exitcode"); code && *code >= 0) r.exit_code = *code;
    }
  } else if (x.exited) {
    take(Ending::Exited, *x.exited);
    r.detail = base::say(base::Say::RankExit, {{"code", std::to_string(ev[*x.exited].get_int("exitcode").value_or(0))}});
  } else if (x.stopped) {
    take(Ending::Stopped, *x.stopped);
    r.signal = ev[*x.stopped].get_str("signal");
    r.sent_by = "launcher";
    r.detail = base::say(base::Say::RankStopped, {{"signal", r.signal}});
  }
}

// The node whose launch range (--node_rank x --nproc_per_node) holds `rank`, or "".
std::string launch_node(const Facts& f, std::int64_t rank) {
  for (const Node& n : f.nodes)
    if (n.holds_rank(rank)) return n.name;
  return "";
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
  std::map<std::string, std::string> path_node;  // the node correlation gave each file's lines
  for (const model::Event& e : events) path_node.emplace(e.path, e.node);
  std::map<std::pair<std::string, std::int64_t>, std::int64_t> by_local;
  std::set<std::int64_t> known;
  for (const RankRecord& r : f.rank_table) {
    known.insert(r.rank);
    if (r.local_rank) by_local.emplace(std::make_pair(r.node, *r.local_rank), r.rank);
  }
  for (const model::Sighting& s : sightings) {
    const auto at = path_node.find(s.path);
    const std::string& node = at != path_node.end() ? at->second : s.node;
    const auto rank = sighted_rank(s, node, f, by_local);
    if (!rank || *rank < 0 || !known.insert(*rank).second) continue;
    RankRecord rec;
    rec.rank = *rank;
    rec.node = node;
    rec.local_rank = s.local_rank;
    f.rank_table.push_back(std::move(rec));
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
    if (missing.size() == 1) {
      std::vector<std::pair<std::int64_t, EventIndex>> stopped;  // pids the launcher stopped that no rank has
      for (auto it = closing.lower_bound({n.name, std::numeric_limits<std::int64_t>::min()});
           it != closing.end() && it->first.first == n.name; ++it)
        if (pids[n.name].count(it->first.second) == 0 && launcher_stop(events[it->second.front()].get_str("signal")))
          stopped.emplace_back(it->first.second, it->second.front());
      if (stopped.size() == 1) {
        RankRecord& r = missing.front();
        r.pids = {stopped.front().first};
        r.ending = Ending::Stopped;
        r.evidence = stopped.front().second;
        r.first = r.last = stopped.front().second;
        r.signal = events[stopped.front().second].get_str("signal");
        r.sent_by = "launcher";
        r.detail = base::say(base::Say::RankStopped, {{"signal", r.signal}});
      }
    }
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
  for (EventIndex i = 0; i < events.size(); ++i) {
    const model::Event& e = events[i];
    if (e.code == "oom-kill" && e.pid) oom_pids.emplace(std::make_pair(e.node, *e.pid), i);
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
    if (e.pid && *e.pid > 0 && (e.kind != model::Kind::Torchrun || e.code == "failure-row" || e.code == "worker-failed")) b.pids.insert(*e.pid);
    keep_earliest(r.first, i, events);
    if (!r.last || model::earlier(events[*r.last], e)) r.last = i;
    if (auto lc = e.get_int("last_completed")) r.last_completed = *lc;
    if (!f.is_replaced(i)) note_line(b, i, e, i < reports.size() ? reports[i] : 0, events);
  }
  for (auto& [rank, b] : table) {
    RankRecord& r = b.rec;
    if (auto it = f.ranks.find(rank); it != f.ranks.end() && !it->second.node.empty()) r.node = it->second.node;
    r.pids.assign(b.pids.begin(), b.pids.end());
    // "Sending process N closing signal SIGTERM": the launcher stopped this rank's process.
    for (std::int64_t pid : r.pids)
      if (auto c = closing.find({r.node, pid}); c != closing.end() && launcher_stop(events[c->second.front()].get_str("signal")))
        for (EventIndex i : c->second) keep_earliest(b.ends.stopped, i, events);
    decide(b, events, f, oom_pids);
    for (const auto& own : {b.ends.signal, b.ends.exception, b.ends.exited})
      if (own) keep_earliest(r.own_failure, *own, events);
    f.rank_table.push_back(std::move(r));
  }
  add_sighted(f, events, sightings);
  if (!f.job.world_size) add_node_implied(f, events, closing);
  // Ranks the launch implies that no line names.
  std::set<std::int64_t> named;
  for (const RankRecord& r : f.rank_table) named.insert(r.rank);
  if (f.job.world_size && *f.job.world_size > 0 && *f.job.world_size <= 65536) {
    std::vector<RankRecord> silent;
    for (std::int64_t r = 0; r < *f.job.world_size; ++r) {
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
}

}  // namespace dtriage::correlate
