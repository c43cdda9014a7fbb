// Derived facts: computed once per analysis from the raw facts, each with the events it rests on.
#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <set>

#include "base/sentences.hpp"
#include "correlate/facts.hpp"
#include "formats/util.hpp"
#include "model/fields.hpp"

namespace dtriage::correlate {
namespace {

void add(std::vector<EventIndex>& to, const std::vector<EventIndex>& from) { to.insert(to.end(), from.begin(), from.end()); }

void tidy(std::vector<EventIndex>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

struct Put {
  FactMap& map;
  void operator()(const std::string& name, Fact::Value value, std::vector<EventIndex> evidence = {}) const {
    tidy(evidence);
    map[name] = Fact{std::move(value), std::move(evidence)};
  }
};

void derive_node(Node& n) {
  Put put{n.derived};
  if (!n.name.empty()) put("name", n.name);
  if (!n.chip.empty()) put("chip", n.chip, n.device_evidence);
  if (n.devices) put("devices", static_cast<std::int64_t>(*n.devices), n.device_evidence);
  if (n.nproc_per_node) put("nproc_per_node", static_cast<std::int64_t>(*n.nproc_per_node), n.nproc_evidence);
  put("processes", static_cast<std::int64_t>(n.processes()), n.nproc_per_node ? n.nproc_evidence : n.pid_evidence);
  put("pids", static_cast<std::int64_t>(n.pids.size()), n.pid_evidence);
  put("errors", static_cast<std::int64_t>(n.errors));
  put("unhealthy_devices", static_cast<std::int64_t>(n.unhealthy_devices.size()));
  std::int64_t shared = 0;
  for (const auto& [d, p] : n.device_pids) shared += p.size() >= 2 ? 1 : 0;
  std::vector<EventIndex> shared_ev;
  if (auto d = n.shared_device()) {
    for (auto pid : n.device_pids.at(*d))
      if (auto it = n.device_pid_evidence_first.find(pid); it != n.device_pid_evidence_first.end())
        shared_ev.push_back(it->second);
    const auto& pids = n.device_pids.at(*d);
    put("shared_device", static_cast<std::int64_t>(*d), shared_ev);
    put("shared_pids", std::vector<std::int64_t>(pids.begin(), pids.end()), shared_ev);
  }
  put("shared_devices", static_cast<std::int64_t>(shared), shared_ev);
  if (!n.device_pids.empty()) put("max_device", static_cast<std::int64_t>(n.device_pids.rbegin()->first));
  // Processes started together get consecutive pids (plog-<pid>_*.log): the longest such run is
  // how many processes one launch started, even without the launcher's output.
  std::size_t best = 0, run = 0;
  std::int64_t prev = -10;
  for (std::int64_t pid : n.pids) {
    run = pid - prev <= 3 ? run + 1 : 1;
    best = std::max(best, run);
    prev = pid;
  }
  if (best >= 2) put("process_run", static_cast<std::int64_t>(best), n.pid_evidence);
}

void derive_waits(const Job& j, Put& put) {
  auto edge_evidence = [&](const std::vector<std::int64_t>& ranks) {
    std::vector<EventIndex> ev;
    for (auto r : ranks)
      if (auto it = j.waits_evidence.find(r); it != j.waits_evidence.end()) ev.push_back(it->second);
    return ev;
  };
  // Follow "r waits on w" from every waiting rank; where the walks stop (a rank that waits on
  // nobody, or on its own local work) is the rank the others waited for.
  std::map<std::int64_t, int> ends;
  std::map<std::int64_t, std::vector<std::int64_t>> walkers;  // end -> ranks on walks to it
  for (const auto& [start, unused] : j.waits_on) {
    std::int64_t cur = start;
    std::vector<std::int64_t> walk;
    bool looped = true;
    for (int step = 0; step < 64; ++step) {
      walk.push_back(cur);
      auto next = j.waits_on.find(cur);
      if (next == j.waits_on.end()) {
        looped = false;
        break;
      }
      const auto w = waited_rank(next->second);
      if (!w) {
        looped = false;
        break;
      }
      cur = *w;
    }
    if (!looped) {
      ends[cur]++;
      auto& on = walkers[cur];
      on.insert(on.end(), walk.begin(), walk.end());
    }
  }
  if (!ends.empty()) {
    const auto end = std::max_element(ends.begin(), ends.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
    put("job.wait_chain_end", static_cast<std::int64_t>(end), edge_evidence(walkers[end]));
  }
  // A walk that comes back to a rank is a cycle.
  for (const auto& [start, unused] : j.waits_on) {
    std::vector<std::int64_t> walk;
    std::int64_t cur = start;
    for (int step = 0; step < 64; ++step) {
      auto it = std::find(walk.begin(), walk.end(), cur);
      if (it != walk.end()) {
        const std::vector<std::int64_t> cycle(it, walk.end());
        put("job.wait_cycle", std::int64_t{1}, edge_evidence(cycle));
        put("job.wait_cycle_ranks", cycle, edge_evidence(cycle));
        return;
      }
      walk.push_back(cur);
      auto next = j.waits_on.find(cur);
      if (next == j.waits_on.end()) break;
      const auto w = waited_rank(next->second);
      if (!w) break;
      cur = *w;
    }
  }
  put("job.wait_cycle", std::int64_t{0});
}

void derive_notify(const Job& j, Put& put) {
  const auto& ev = j.notify_evidence;
  std::set<std::int64_t> indices;
  std::set<std::string> tags;
  for (const auto& [r, ix] : j.notify_index) indices.insert(ix);
  for (const auto& [r, t] : j.notify_tag) tags.insert(t);
  put("job.notify_index_variants", static_cast<std::int64_t>(indices.size()), ev);
  put("job.notify_tag_variants", static_cast<std::int64_t>(tags.size()), ev);
  if (!j.notify_index.empty()) {
    std::int64_t lo = INT64_MAX, hi = INT64_MIN, who = -1;
    int at_lo = 0;
    for (const auto& [r, ix] : j.notify_index) {
      if (ix < lo) {
        lo = ix;
        who = r;
        at_lo = 1;
      } else if (ix == lo) {
        ++at_lo;
      }
      hi = std::max(hi, ix);
    }
    put("job.lagging_index", static_cast<std::int64_t>(lo), ev);
    put("job.leading_index", static_cast<std::int64_t>(hi), ev);
    if (at_lo == 1) put("job.lagging_rank", static_cast<std::int64_t>(who), ev);
  }
  std::map<std::string, std::vector<std::int64_t>> by;
  for (const auto& [r, t] : j.notify_tag) by[t].push_back(r);
  if (by.size() >= 2) {
    std::string odd, common;
    for (const auto& [t, rs] : by) {
      if (rs.size() == 1 && odd.empty()) odd = t;
      if (common.empty() || rs.size() > by[common].size()) common = t;
    }
    put("job.common_tag", common, ev);
    if (!odd.empty() && odd != common) {
      put("job.odd_tag", odd, ev);
      put("job.odd_tag_rank", static_cast<std::int64_t>(by[odd].front()), ev);
    }
  }
}

void derive_versions(const Facts& f, Put& put) {
  // The same version key with different values on different nodes.
  std::map<std::string, std::map<std::string, std::vector<const Node*>>> seen;  // key -> value -> nodes
  for (const auto& nd : f.nodes)
    for (const auto& [key, value] : nd.versions) seen[key][value].push_back(&nd);
  std::size_t conflicts = 0;
  std::string first;
  std::vector<EventIndex> ev, all;
  for (const auto& [key, values] : seen) {
    if (values.size() < 2) continue;
    ++conflicts;
    std::vector<EventIndex> these;
    for (const auto& [value, nodes] : values)  // one line per value: the first node that stated it
      if (auto it = nodes.front()->version_evidence.find(key); it != nodes.front()->version_evidence.end())
        these.push_back(it->second);
    add(all, these);
    if (!first.empty()) continue;
    ev = these;
    first = key + " differs across nodes:";
    std::size_t shown = 0;
    for (const auto& [value, nodes] : values) {
      if (shown++ == 3) {
        first += ", ...";
        break;
      }
      const std::string& name = nodes.front()->name;
      first += (shown > 1 ? ", " : " ") + value + " on " + (name.empty() ? std::string("an unnamed node") : name) +
               (nodes.size() > 1 ? " (+" + std::to_string(nodes.size() - 1) + ")" : "");
    }
  }
  put("job.version_conflicts", static_cast<std::int64_t>(conflicts), all);
  if (!first.empty()) put("job.version_conflict", first, ev);
}

// Timeouts: how many ranks reported one, which known ranks did not, the collective, and the one
// quiet rank of a timed-out world.
void derive_timeouts(const Facts& f, const Put& put) {
  const Job& j = f.job;
  const auto& tev = j.timeout_evidence;
  put("job.timeout_ranks", static_cast<std::int64_t>(j.ranks_with_timeout.size()), tev);
  const auto missing = f.ranks_without_timeout();
  std::vector<EventIndex> missing_ev = tev;
  add(missing_ev, j.world_size_evidence);
  if (missing.size() == 1)
    if (auto it = f.ranks.find(missing.front()); it != f.ranks.end() && it->second.first_error)
      missing_ev.push_back(*it->second.first_error);
  put("job.missing_timeout_ranks", static_cast<std::int64_t>(missing.size()), missing_ev);
  if (!missing.empty()) put("job.missing_ranks", missing, missing_ev);
  if (!j.timeout_op.empty()) put("job.timeout_op", j.timeout_op, tev);
  if (j.timeout_seq) put("job.timeout_seq", static_cast<std::int64_t>(*j.timeout_seq), tev);
  if (j.timeout_ms) put("job.timeout_s", static_cast<std::int64_t>(*j.timeout_ms / 1000), tev);
  put("job.ranks_known", static_cast<std::int64_t>(f.ranks.size()));
  put("job.timeout_lines", static_cast<std::int64_t>(j.timeout_lines), tev);
}

// Ranks that died of SIGBUS: several at once on a job point at what they share (/dev/shm).
void derive_signals(const Facts& f, const Put& put) {
  std::vector<std::int64_t> ranks;
  std::vector<EventIndex> ev;
  for (const RankRecord& r : f.rank_table)
    if (r.ending == Ending::Signal && r.signal == "SIGBUS") {
      ranks.push_back(r.rank);
      if (r.evidence) ev.push_back(*r.evidence);
    }
  put("job.sigbus_ranks", static_cast<std::int64_t>(ranks.size()), ev);
  if (!ranks.empty()) put("job.sigbus_rank_list", ranks, ev);
}

// The culprit the rank table's policy chose (correlate/culprit.cpp), as facts rules can name: a
// rank that failed on its own is job.culprit_rank; a rank inferred from the others' reports is
// job.quiet_rank (silent) or job.late_rank (came late).
void derive_culprit(const Facts& f, const Put& put) {
  if (!f.quiet_node.empty()) put("job.quiet_node", f.quiet_node, f.job.timeout_evidence);
  if (!f.late_node.empty()) put("job.late_node", f.late_node, f.job.timeout_evidence);
  if (!f.short_node.empty()) {
    put("job.short_node", f.short_node, f.short_evidence);
    put("job.short_node_reported", f.short_reported, f.short_evidence);
    put("job.short_node_procs", f.short_procs, f.short_evidence);
    put("job.short_node_kind", f.short_kind, f.short_evidence);
  }
  if (!f.reported_lagging.empty()) {
    put("job.desync_report_ranks", f.reported_lagging, f.reported_evidence);
    put("job.desync_report_what", f.reported_what, f.reported_evidence);
  }
  if (!f.culprit) return;
  const Culprit& c = *f.culprit;
  put("job.culprit_basis", basis_name(c.basis), c.evidence);
  const char* name = c.own_failure()                       ? "job.culprit_rank"
                     : c.basis == CulpritBasis::Silent    ? "job.quiet_rank"
                     : c.basis == CulpritBasis::OutOfStep ? "job.desync_rank"
                     : c.basis == CulpritBasis::Reported  ? "job.desync_report_rank"
                                                          : "job.late_rank";
  std::vector<EventIndex> ev = c.evidence;
  if (!c.own_failure()) add(ev, f.job.timeout_evidence);
  put(name, static_cast<std::int64_t>(c.rank), ev);
  if (c.own_failure() && !c.node.empty()) put("job.culprit_node", c.node, c.evidence);
  if (c.basis == CulpritBasis::OutOfStep) {
    put("job.desync_what", f.desync_what, c.evidence);
    put("job.desync_common", f.desync_common, c.evidence);
    put("job.desync_common_ranks", f.desync_common_ranks, c.evidence);
  }
  // A rank that came late, known by rank, alone on its node: that node is the late node the timeout
  // rules name (they say "the ranks of NODE ... (rank R, the one it ran)").
  if (c.basis == CulpritBasis::LateArrival && f.late_node.empty() && !c.node.empty() &&
      std::count_if(f.rank_table.begin(), f.rank_table.end(), [&](const RankRecord& r) { return r.node == c.node; }) == 1)
    put("job.late_node", c.node, ev);
}

// One launcher's command: a node's, or one srun task's where no host is known.
struct Launcher {
  std::string name;
  const std::map<std::string, std::string>* launch;
  const std::map<std::string, EventIndex>* launch_evidence;
  std::optional<std::int64_t> node_rank;
};

std::vector<Launcher> launchers(const Facts& f) {
  std::vector<Launcher> out;
  for (const Node& n : f.nodes)
    if (!n.name.empty() || f.job.task_launches.empty()) out.push_back({n.name, &n.launch, &n.launch_evidence, n.node_rank});
  for (const auto& [name, t] : f.job.task_launches) out.push_back({name, &t.launch, &t.evidence, t.node_rank});
  return out;
}

// Launch options the launchers disagree on: the one in the minority is the odd one.
void derive_launch_conflict(const Facts& f, const Put& put) {
  const std::vector<Launcher> all = launchers(f);
  for (const char* key : {"nnodes", "master_port", "master_addr"}) {
    std::map<std::string, std::vector<const Launcher*>> by;
    for (const Launcher& n : all)
      if (auto it = n.launch->find(key); it != n.launch->end()) by[it->second].push_back(&n);
    if (by.size() < 2) continue;
    auto most = std::max_element(by.begin(), by.end(), [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
    const Launcher* odd = nullptr;
    std::string odd_value;
    for (const auto& [value, nodes] : by)
      if (value != most->first && nodes.size() == 1 && most->second.size() > 1) {
        odd = nodes.front();
        odd_value = value;
      }
    if (odd == nullptr && by.size() == 2) {  // one against one: the master (node_rank 0) defines the job
      for (const auto& [value, nodes] : by)
        if (nodes.size() == 1 && nodes.front()->node_rank && *nodes.front()->node_rank == 0)
          for (const auto& [other_value, others] : by)
            if (other_value != value && others.size() == 1) {
              odd = others.front();
              odd_value = other_value;
            }
    }
    // --master_port, one against one, every launcher naming the same master host, and that host one of
    // them: it serves the store (c10d hosts it on the agent whose host the endpoint names; static
    // rendezvous on node rank 0 at --master_addr), on its own port; the other waits at a port
    // nobody serves.
    if (odd == nullptr && by.size() == 2 && std::string_view(key) == "master_port") {
      std::set<std::string> hosts;
      for (const Launcher& n : all)
        if (auto it = n.launch->find("master_addr"); it != n.launch->end()) hosts.insert(it->second);
      if (hosts.size() == 1)
        for (const auto& [value, nodes] : by)
          if (nodes.size() == 1 && !nodes.front()->name.empty() && formats::same_host(nodes.front()->name, *hosts.begin()))
            for (const auto& [other_value, others] : by)
              if (other_value != value && others.size() == 1) {
                odd = others.front();
                odd_value = other_value;
              }
    }
    // --nnodes, one against one: the launchers in the logs are the nodes there were, so the value
    // that counts them is the job's, when the other asks for more (a world that never forms).
    if (odd == nullptr && by.size() == 2 && std::string_view(key) == "nnodes") {
      std::size_t launched = 0;
      for (const auto& [value, nodes] : by) launched += nodes.size();
      for (const auto& [value, nodes] : by) {
        const auto count = formats::to_int(value);
        if (!count || *count != static_cast<std::int64_t>(launched)) continue;
        for (const auto& [other_value, others] : by) {
          const auto asked = formats::to_int(other_value);
          if (other_value != value && others.size() == 1 && asked && *asked > *count) {
            odd = others.front();
            odd_value = other_value;
          }
        }
      }
    }
    std::vector<EventIndex> ev;
    for (const auto& [value, nodes] : by)
      if (auto e = nodes.front()->launch_evidence->find(key); e != nodes.front()->launch_evidence->end()) ev.push_back(e->second);
    put("job.launch_conflict", key, ev);
    put("job.launch_common_value", most->first, ev);
    if (odd != nullptr && !odd->name.empty()) {
      put("job.launch_odd_node", odd->name, ev);
      put("job.launch_odd_value", odd_value, ev);
    } else {  // no odd one to name: each value and who used it, as the reader must choose
      std::string values;
      for (const auto& [value, nodes] : by) {
        std::string who;
        for (std::size_t k = 0; k < nodes.size() && k < 3; ++k) who += (k ? ", " : "") + (nodes[k]->name.empty() ? "?" : nodes[k]->name);
        if (nodes.size() > 3) who += ", ...";
        values += (values.empty() ? "" : "; ") + who + ": " + value;
      }
      put("job.launch_values", values, ev);
    }
    break;
  }
}

}  // namespace

std::optional<std::int64_t> waited_rank(const std::string& w) {
  char* end = nullptr;
  const long long v = std::strtoll(w.c_str(), &end, 10);
  if (end == w.c_str() || *end != '\0') return std::nullopt;
  return v;
}

void derive(Facts& f, const std::vector<model::Event>& events) {
  for (Node& n : f.nodes) derive_node(n);
  Job& j = f.job;
  Put put{j.derived};
  std::vector<EventIndex> nproc_ev;
  for (const Node& n : f.nodes) add(nproc_ev, n.nproc_evidence);
  if (j.world_size) put("job.world_size", static_cast<std::int64_t>(*j.world_size), j.world_size_evidence.empty() ? nproc_ev : j.world_size_evidence);
  std::int64_t named = 0;
  for (const auto& nd : f.nodes) named += nd.name.empty() ? 0 : 1;
  put("job.nodes", static_cast<std::int64_t>(named));
  if (j.expected_nodes) put("job.expected_nodes", static_cast<std::int64_t>(*j.expected_nodes), nproc_ev);
  put("job.nproc_variants", static_cast<std::int64_t>(j.nproc_values.size()), nproc_ev);
  put("job.nproc_values", std::vector<std::int64_t>(j.nproc_values.begin(), j.nproc_values.end()), nproc_ev);
  derive_timeouts(f, put);
  derive_culprit(f, put);
  derive_signals(f, put);
  put("job.worker_lines", static_cast<std::int64_t>(j.worker_lines));
  std::int64_t launches = 0;
  for (const Node& n : f.nodes)
    if (!n.launch.empty())  // a node no host is known for: the srun tasks that launched there, each a node
      launches += n.name.empty() ? std::max<std::int64_t>(1, static_cast<std::int64_t>(j.task_launches.size())) : 1;
  put("job.launched_nodes", static_cast<std::int64_t>(launches), nproc_ev);
  derive_launch_conflict(f, put);
  derive_notify(j, put);
  derive_versions(f, put);
  derive_waits(j, put);
  // Evidence in time order, as every report shows it.
  auto by_time = [&](FactMap& m) {
    for (auto& [k, fact] : m)
      std::stable_sort(fact.evidence.begin(), fact.evidence.end(),
                       [&](auto x, auto y) { return model::earlier(events[x], events[y]); });
  };
  by_time(j.derived);
  for (Node& n : f.nodes) by_time(n.derived);
}

const Fact* Facts::get(const Node* n, std::string_view name) const {
  if (name.rfind("node.", 0) == 0) {
    if (n == nullptr) return nullptr;
    auto it = n->derived.find(name.substr(5));
    return it == n->derived.end() ? nullptr : &it->second;
  }
  auto it = job.derived.find(name);
  return it == job.derived.end() ? nullptr : &it->second;
}

std::string join_ints(const std::vector<std::int64_t>& v, std::size_t max) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < max; ++i) {
    if (i) s += base::say((i + 1 == v.size() || i + 1 == max) ? base::Say::ListAnd : base::Say::ListComma);
    s += std::to_string(v[i]);
  }
  if (v.size() > max) s += base::say(base::Say::ListMore, {{"count", std::to_string(v.size() - max)}});
  return s;
}

std::string Fact::text() const {
  if (const auto* n = std::get_if<std::int64_t>(&value)) return std::to_string(*n);
  if (const auto* t = std::get_if<std::string>(&value)) return *t;
  return join_ints(std::get<std::vector<std::int64_t>>(value));
}

std::optional<std::int64_t> Fact::number() const {
  if (const auto* n = std::get_if<std::int64_t>(&value)) return *n;
  return std::nullopt;
}

}  // namespace dtriage::correlate
