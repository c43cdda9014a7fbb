#include "correlate/facts.hpp"

#include <algorithm>
#include <tuple>

#include "formats/path_facts.hpp"
#include "formats/tables.hpp"
#include "formats/util.hpp"

namespace dtriage::correlate {

std::int64_t Node::processes() const {
  if (nproc_per_node) return *nproc_per_node;
  return static_cast<std::int64_t>(std::max(local_ranks.size(), device_pids.size()));
}

std::optional<std::int64_t> Node::global_rank(std::int64_t local_rank) const {
  if (!rank_base || !nproc_per_node || *nproc_per_node <= 0 || *nproc_per_node >= 4096) return std::nullopt;
  if (local_rank < 0 || local_rank >= *nproc_per_node) return std::nullopt;
  return *rank_base + local_rank;
}

bool Node::holds_rank(std::int64_t rank) const {
  return rank_base && nproc_per_node && *nproc_per_node > 0 && *nproc_per_node < 4096 && rank >= *rank_base &&
         rank < *rank_base + *nproc_per_node;
}

std::optional<std::int64_t> Node::shared_device() const {
  for (const auto& [dev, users] : device_pids)
    if (users.size() >= 2) return dev;
  return std::nullopt;
}

const Node* Facts::node(const std::string& name) const {
  // Nodes are sorted by name (correlate()): a binary search; the scan only for a miss, when a
  // caller renamed them (a redacted copy).
  auto it = std::lower_bound(nodes.begin(), nodes.end(), name, [](const Node& n, const std::string& v) { return n.name < v; });
  if (it != nodes.end() && it->name == name) return &*it;
  for (const Node& n : nodes)
    if (n.name == name) return &n;
  return nullptr;
}

std::vector<std::int64_t> Facts::ranks_without_timeout() const {
  std::vector<std::int64_t> out;
  if (job.ranks_with_timeout.empty()) return out;
  std::set<std::int64_t> known;
  for (const auto& [r, info] : ranks) known.insert(r);
  // Every job has a rank 0, named by a line or not; but one rank's lines alone (a pasted fragment,
  // one worker's file) say nothing of which others there were.
  if (known.size() >= 2) known.insert(0);
  if (job.world_size && *job.world_size <= 4096)
    for (std::int64_t r = 0; r < *job.world_size; ++r) known.insert(r);
  for (std::int64_t r : known)
    if (job.ranks_with_timeout.count(r) == 0 && job.victims.count(r) == 0) out.push_back(r);
  return out;
}

bool is_error(const model::Event& e) {
  if (e.level == model::Level::Error) return true;
  if (e.kind == model::Kind::Nccl && e.level == model::Level::Warning) return true;  // NCCL WARN is NCCL's error level
  return false;
}

bool launcher_stop(const std::string& sig) { return sig == "SIGTERM" || sig == "SIGINT" || sig == "SIGHUP"; }

bool root_cause_row(const model::Event& e) {
  const model::Value* v = e.get("root_cause");
  return e.code == "failure-row" && v != nullptr && std::holds_alternative<bool>(*v) && std::get<bool>(*v);
}

bool own_words(const model::Event& e) {
  return e.code == "error-message" || e.code == "cpp-terminate" || e.code == "fatal-python-error";
}

bool own_traceback(const model::Event& e) {
  if (e.kind != model::Kind::Python || e.level != model::Level::Error) return false;
  const std::string type = e.get_str("exception");
  return !type.empty() && type.find("ChildFailedError") == std::string::npos && type.find("SignalException") == std::string::npos;
}

namespace {

void keep_first(std::optional<EventIndex>& slot, EventIndex i, const std::vector<model::Event>& ev) {
  if (!slot || model::earlier(ev[i], ev[*slot])) slot = i;
}

}  // namespace

namespace {

// The same host as a node of the job spells it, when one is; else as given.
std::string known_spelling(const std::vector<model::Event>& events, const std::string& host) {
  for (const auto& e : events)
    if (!e.node.empty() && formats::same_host(e.node, host)) return e.node;
  return host;
}

using LauncherStream = std::pair<std::string_view, std::string_view>;  // path, task

// What torchrun's own lines say of where a launcher stream with no host of its own ran (srun -l
// tasks in one file). Under c10d rendezvous only the agent whose host the endpoint names tries to
// host the store (torch's _matches_machine_hostname); the others connect as clients: a stream
// that failed to bind the endpoint's port is on the endpoint's host. The agent of group rank 0
// publishes its own host as the workers' MASTER_ADDR (elastic's rendezvous: its fqdn or local
// address; static rendezvous: node rank 0 hosts the store at --master_addr), and every agent prints
// it in its rendezvous result: the stream whose result says group_rank=0 is on that host.
void host_from_launcher_lines(const std::vector<model::Event>& events, std::map<LauncherStream, std::string>& stream_host) {
  std::map<LauncherStream, std::pair<std::string, std::int64_t>> c10d_endpoint;  // stream -> host, port
  for (const auto& e : events)
    if ((e.code == "launch-command" || e.code == "launch-config") && e.node.empty() && e.get_str("rdzv_backend") == "c10d")
      if (const std::string host = e.get_str("master_addr"); !host.empty() && !formats::loopback_host(host))
        c10d_endpoint[{e.path, e.task}] = {host, e.get_int("master_port").value_or(-1)};
  for (const auto& e : events) {
    if (e.code != "EADDRINUSE" || !e.node.empty() || e.task.empty()) continue;
    const auto it = c10d_endpoint.find({e.path, e.task});
    if (it != c10d_endpoint.end() && e.get_int("port") == it->second.second)
      stream_host.try_emplace(it->first, known_spelling(events, it->second.first));
  }
  for (const auto& e : events) {
    if (e.code != "rendezvous-result" || !e.node.empty() || e.get_int("group_rank") != 0) continue;
    const std::string addr = e.get_str("master_addr");
    if (!addr.empty() && !formats::loopback_host(addr)) stream_host.try_emplace(LauncherStream{e.path, e.task}, known_spelling(events, addr));
  }
}

// torchrun's agent makes a fresh folder "<run_id>_<random>" for its workers' files and says so
// ("log directory set to: DIR"): a launcher stream with no host of its own is the node whose
// worker files sit in that folder.
void host_from_log_dirs(const std::vector<model::Event>& events, std::map<LauncherStream, std::string>& stream_host) {
  std::map<std::string, LauncherStream, std::less<>> log_dirs;  // folder name -> the launcher stream
  for (const auto& e : events) {
    if (e.code != "log-dir" || !e.node.empty()) continue;
    std::string dir = e.get_str("log_dir");
    while (!dir.empty() && dir.back() == '/') dir.pop_back();
    const std::string name = dir.substr(dir.find_last_of('/') + 1);  // npos + 1 == 0
    if (name.size() >= 4) log_dirs.emplace(name, LauncherStream{e.path, e.task});
  }
  if (log_dirs.empty()) return;
  std::map<std::string_view, std::string_view> path_node;  // a path of a node's files, its node
  for (const auto& e : events)
    if (!e.node.empty()) path_node.emplace(e.path, e.node);
  for (const auto& [path, node] : path_node) {
    for (std::size_t at = 0; at < path.size();) {
      const std::size_t end = std::min(path.find_first_of("/!", at), path.size());
      if (auto it = log_dirs.find(path.substr(at, end - at)); it != log_dirs.end() && it->second.first != path)
        stream_host.try_emplace(it->second, std::string(node));
      at = end + 1;
    }
  }
}

void lend_hosts(std::vector<model::Event>& events) {
  // A stream whose lines name a host (NCCL prefix, failure table) lends it to its other lines. A
  // stream: a source, or one srun task's lines in it (srun -l: each task's launcher prints its own
  // failure table, naming its host).
  std::map<LauncherStream, std::map<std::string, int>> content_nodes;     // stream -> node -> count
  for (const auto& e : events)
    if ((e.kind == model::Kind::Nccl || e.code == "failure-row") && !e.node.empty()) content_nodes[{e.path, e.task}][e.node]++;
  std::map<LauncherStream, std::string> stream_host;
  for (const auto& [stream, counts] : content_nodes) {
    if (counts.size() == 1) stream_host[stream] = counts.begin()->first;
  }
  host_from_launcher_lines(events, stream_host);
  host_from_log_dirs(events, stream_host);
  // kubectl logs --prefix of several pods in one file: the pods' names are what tells their
  // launchers apart, and a pod's host name is its name (where its lines name no other host). A
  // file of one pod is one launcher's, whose node the path or other files give.
  std::map<std::string_view, std::set<std::string_view>> pods;  // path -> its pods
  for (const auto& e : events)
    if (e.task.rfind("pod/", 0) == 0) pods[e.path].insert(e.task);
  for (auto& e : events) {
    if (!e.node.empty()) continue;
    if (auto it = stream_host.find({e.path, e.task}); it != stream_host.end()) e.node = it->second;
    else if (e.task.rfind("pod/", 0) == 0 && pods[e.path].size() > 1 && content_nodes.count({e.path, e.task}) == 0)
      e.node = e.task.substr(4);
  }
}

void lend_ranks(std::vector<model::Event>& events) {
  // A process log whose communicator-init lines name exactly one rank lends it to its other lines.
  // So does the same process (node and pid) in its other files (debug/ and run/ plogs).
  std::map<std::string, std::set<std::int64_t>> path_ranks;
  std::map<std::pair<std::string, std::int64_t>, std::set<std::int64_t>> pid_ranks;
  for (const auto& e : events) {
    if (e.code != "hccl-comm-init" || !e.rank) continue;
    path_ranks[e.path].insert(*e.rank);
    if (e.pid) pid_ranks[{e.node, *e.pid}].insert(*e.rank);
  }
  std::map<std::string, std::optional<std::int64_t>> file_pid;
  for (auto& e : events) {
    if (e.rank) continue;
    if (auto it = path_ranks.find(e.path); it != path_ranks.end() && it->second.size() == 1) {
      e.rank = *it->second.begin();
    } else {
      // The line's pid, else the pid in the file name (plog-<pid>_<stamp>.log).
      std::vector<std::int64_t> pids;
      if (e.pid) pids.push_back(*e.pid);
      auto [at, fresh] = file_pid.try_emplace(e.path);
      if (fresh) at->second = formats::path_facts(e.path).pid;
      if (at->second) pids.push_back(*at->second);
      for (auto pid : pids) {
        if (auto p = pid_ranks.find({e.node, pid}); p != pid_ranks.end() && p->second.size() == 1) {
          e.rank = *p->second.begin();
          break;
        }
      }
    }
  }
}

// A stream whose lines state one global rank ("rank_declared": Ray Train's "[rank=3, world_size=8]",
// Lightning's GLOBAL_RANK, c10d's barrier, a script's "rank 3/8") is that rank's: its later lines
// that name none take it. A stream: one file, one launcher's lines in it (srun task, pod), one
// process's (a platform prefix's pid, a [defaultN]: local rank). A stream that states two ranks is
// shared (workers without prefixes, or c10d renumbering a restart), as is one whose launcher ran
// several workers into it (--nproc_per_node, the local ranks of its failure lines): nothing is lent.
// The launcher's own lines in a worker's stream (its failure lines, its tracebacks) are not the
// worker's.
// A traceback all of whose frames are the launcher's (torchrun's agent: its exit barrier, its
// store, its rendezvous; torch/distributed/run.py) is the launcher process's own, never a worker's,
// whichever stream it was written to.
bool launcher_frames_only(const model::Event& e) {
  if (e.kind != model::Kind::Python || e.get_str("exception").empty()) return false;
  std::size_t frames = 0;
  for (const std::string& b : e.body) {
    const std::size_t at = b.find("File \"");
    if (at == std::string::npos) continue;
    const std::size_t end = b.find('"', at + 6);
    const std::string_view path = std::string_view(b).substr(at + 6, end == std::string::npos ? std::string::npos : end - at - 6);
    ++frames;
    if (path.find("torch/distributed/elastic/") == std::string_view::npos && path.find("torch/distributed/run.py") == std::string_view::npos &&
        path.find("torch/distributed/launcher/") == std::string_view::npos)
      return false;
  }
  return frames > 0;
}

void lend_declared_ranks(std::vector<model::Event>& events) {
  using Stream = std::tuple<std::string_view, std::string_view, std::optional<std::int64_t>, std::optional<std::int64_t>>;
  auto stream_of = [](const model::Event& e) { return Stream{e.path, e.task, e.pid, e.local_rank}; };
  struct Declared {
    std::set<std::int64_t> ranks;
    std::uint64_t first_line = 0;
  };
  std::map<Stream, Declared> declared;
  for (const auto& e : events) {
    const model::Value* flag = e.get("rank_declared");
    if (!e.rank || flag == nullptr || !std::holds_alternative<bool>(*flag) || !std::get<bool>(*flag)) continue;
    auto [it, fresh] = declared.try_emplace(stream_of(e));
    it->second.ranks.insert(*e.rank);
    if (fresh || e.line < it->second.first_line) it->second.first_line = e.line;
  }
  if (declared.empty()) return;
  // A launcher's lines in a stream without per-process prefixes tell how many workers share it:
  // its --nproc_per_node, the local ranks its failure lines name.
  std::map<std::pair<std::string_view, std::string_view>, std::set<std::int64_t>> launched;  // path, task -> local ranks
  std::set<std::pair<std::string_view, std::string_view>> shared;
  for (const auto& e : events) {
    if (e.kind != model::Kind::Torchrun && e.code != "launch-command") continue;
    const std::pair<std::string_view, std::string_view> at{e.path, e.task};
    if (auto n = e.get_int("nproc_per_node"); n && *n > 1) shared.insert(at);
    if (e.local_rank && launched[at].insert(*e.local_rank).second && launched[at].size() > 1) shared.insert(at);
  }
  for (auto& e : events) {
    if (e.rank || e.kind == model::Kind::Torchrun || e.kind == model::Kind::Kernel || e.kind == model::Kind::NpuSmi ||
        e.kind == model::Kind::NvidiaSmi || e.kind == model::Kind::Snapshot)
      continue;
    const std::string type = e.get_str("exception");
    if (type.find("ChildFailedError") != std::string::npos || type.find("SignalException") != std::string::npos ||
        type.find("Rendezvous") != std::string::npos || launcher_frames_only(e))
      continue;
    const auto it = declared.find(stream_of(e));
    if (it == declared.end() || it->second.ranks.size() != 1 || e.line < it->second.first_line) continue;
    if (!e.pid && !e.local_rank && shared.count({e.path, e.task}) != 0) continue;
    e.rank = *it->second.ranks.begin();
  }
}

// A worker's lines behind a prefix that names only its pid (Ray's "(RayTrainWorker pid=N, ip=..)")
// take the node, rank and local rank the launcher's lines give that pid (its failure row, its
// "failed (exitcode" line; its "Sending process N closing signal" line gives the node alone), when
// the pid names one worker in the job. Ray's ip= names the machine: a line of a pid no launcher's
// line names takes the node of the others from that ip, when they were all lent one node. Returns
// whether any did.
bool lend_worker_ranks(std::vector<model::Event>& events) {
  struct Worker {
    std::set<std::string> nodes;
    std::set<std::int64_t> ranks, locals;
  };
  std::map<std::int64_t, Worker> by_pid;
  for (const auto& e : events) {
    if (e.node.empty()) continue;
    if ((e.code == "failure-row" || e.code == "worker-failed") && e.pid) {
      Worker& w = by_pid[*e.pid];
      w.nodes.insert(e.node);
      if (e.rank) w.ranks.insert(*e.rank);
      if (e.local_rank) w.locals.insert(*e.local_rank);
    } else if (e.code == "closing-signal") {
      if (auto t = e.get_int("target_pid")) by_pid[*t].nodes.insert(e.node);
    }
  }
  bool lent = false;
  for (auto& e : events) {
    // Its own words, and the line where it stated its rank (which must be the row's).
    if (!e.pid || (e.kind != model::Kind::Python && !e.get("rank_declared"))) continue;
    const auto it = by_pid.find(*e.pid);
    if (it == by_pid.end()) continue;
    const Worker& w = it->second;
    if (w.nodes.size() != 1 || w.ranks.size() > 1 || w.locals.size() > 1) continue;  // pids of several processes
    const std::string& node = *w.nodes.begin();
    if (!e.node.empty() && e.node != node) continue;
    if (e.rank && !w.ranks.empty() && *e.rank != *w.ranks.begin()) continue;
    if (!e.rank && !w.ranks.empty()) e.rank = *w.ranks.begin();
    if (!e.local_rank && !w.locals.empty()) e.local_rank = *w.locals.begin();
    e.node = node;
    lent = true;
  }
  if (!lent) return false;
  std::map<std::string, std::set<std::string>> ip_nodes;  // worker_ip -> the nodes its lent lines got
  for (const auto& e : events)
    if (!e.node.empty())
      if (const std::string ip = e.get_str("worker_ip"); !ip.empty()) ip_nodes[ip].insert(e.node);
  for (auto& e : events) {
    if (!e.node.empty()) continue;
    const std::string ip = e.get_str("worker_ip");
    if (ip.empty()) continue;
    if (const auto it = ip_nodes.find(ip); it != ip_nodes.end() && it->second.size() == 1) e.node = *it->second.begin();
  }
  return true;
}

void infer_years(std::vector<model::Event>& events) {
  // Lines without a year (glog "E1104 10:17:31", vLLM "11-04 10:17:31") that found no dated line
  // in their own file take the year the rest of the job was dated with.
  std::map<std::string, int> years;
  for (const auto& e : events)
    if (e.time.text.size() >= 10 && e.time.text[4] == '-' && !e.time.year_inferred) years[e.time.text.substr(0, 4)]++;
  if (!years.empty()) {
    const std::string year =
        std::max_element(years.begin(), years.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
    for (auto& e : events) {
      if (!e.time.empty()) continue;
      std::string md = e.get_str("month_day");
      const std::string clock = e.get_str("clock");
      if (md.empty() || clock.empty()) continue;
      e.set_time(model::time_with_year(year, std::move(md), clock), true);
    }
  }
}

// Where each node's launch range starts: torchrun numbers ranks node by node in --node_rank order,
// so a node's first rank is the sum of the --nproc_per_node of the nodes before it (node_rank x
// nproc when every node runs as many). Nodes the lines give no such count for, or whose earlier
// nodes are not all known (uneven counts), get none.
std::map<std::string, std::int64_t> rank_bases(const std::map<std::string, std::pair<std::int64_t, std::int64_t>>& range) {
  std::map<std::int64_t, std::int64_t> nproc_at;  // node_rank -> nproc_per_node; -1 when nodes disagree
  std::set<std::int64_t> counts;
  for (const auto& [node, r] : range) {
    auto [it, fresh] = nproc_at.emplace(r.first, r.second);
    if (!fresh && it->second != r.second) it->second = -1;
    counts.insert(r.second);
  }
  std::map<std::string, std::int64_t> out;
  for (const auto& [node, r] : range) {
    if (counts.size() == 1) {
      out[node] = r.first * r.second;
      continue;
    }
    std::int64_t base = 0;
    bool known = r.first < (1 << 12);
    for (std::int64_t k = 0; known && k < r.first; ++k) {
      const auto it = nproc_at.find(k);
      known = it != nproc_at.end() && it->second > 0;
      if (known) base += it->second;
    }
    if (known) out[node] = base;
  }
  return out;
}

// Under c10d no --node_rank orders the nodes: the rendezvous numbers them by their agents'
// addresses (socket.getfqdn(), the host a failure table prints), sorted as strings, the agent's
// pid breaking a tie (torchelastic's dynamic_rendezvous.py: enumerate(sorted(participants)) when a
// round completes, in every version to date), and each node's workers take the next block of
// global ranks (agent/server/api.py: the local world sizes of the nodes before it). With every node
// of --nnodes (more than one) here under c10d, each with its --nproc_per_node, none started with
// --local_addr (which replaces the address) or a --node_rank, and no rank a line states outside its
// node's block: those blocks, node -> (first rank, count). Read from the launchers' lines before
// the nodes are built, so that lines knowing only their local rank get their global one.
// (A node named otherwise than its agent's address may sort elsewhere: a stated rank outside its
// block then leaves every node without one.)
std::map<std::string, std::pair<std::int64_t, std::int64_t>> c10d_blocks(const std::vector<model::Event>& events) {
  struct Launch {
    std::optional<std::int64_t> nproc;
    bool node_rank = false, local_addr = false;
    std::string backend;
  };
  std::map<std::string, Launch> at;  // node -> what its lines say of its launch (the last word wins, as for Node)
  std::optional<std::int64_t> expected;
  for (const model::Event& e : events) {
    const bool launch_line = e.code == "launch-command" || e.code == "launch-config";
    const auto np = e.get_int("nproc_per_node");
    if (np) {
      if (auto nn = e.get_int("nnodes")) expected = *nn;
      if (auto mx = e.get_int("max_nodes")) expected = *mx;
    }
    const auto nr = e.get_int("node_rank");
    if (e.node.empty() || (!np && !nr && !launch_line)) continue;
    Launch& l = at[e.node];
    if (np) l.nproc = *np;
    if (nr && *nr >= 0 && *nr < (1 << 20)) l.node_rank = true;
    if (launch_line) {
      if (std::string b = e.get_str("rdzv_backend"); !b.empty()) l.backend = std::move(b);
      if (e.get("local_addr") != nullptr) l.local_addr = true;
    }
  }
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> block;
  if (!expected || *expected <= 1 || *expected >= (1 << 20)) return {};
  std::int64_t world = 0;
  for (const auto& [name, l] : at) {
    if (!l.nproc) continue;
    if (l.backend != "c10d" || l.local_addr || l.node_rank || *l.nproc <= 0 || *l.nproc >= 4096) return {};
    block[name] = {world, *l.nproc};
    world += *l.nproc;
  }
  if (block.size() != static_cast<std::size_t>(*expected)) return {};
  // What the lines state must agree: a rank inside its node's block, at its local rank's place
  // when both are stated, and an agent's rendezvous result's pairs likewise.
  const auto agrees = [&](const std::string& node, std::int64_t rank, std::optional<std::int64_t> local) {
    if (rank < 0 || rank >= world) return false;
    const auto it = block.find(node);
    if (it == block.end()) return true;
    const auto [first, count] = it->second;
    return rank >= first && rank < first + count && (!local || rank - *local == first);
  };
  for (const model::Event& e : events) {
    if (e.rank && !agrees(e.node, *e.rank, e.local_rank)) return {};
    if (e.code == "rendezvous-result") {
      const auto locals = int_list(e.get_str("local_ranks")), globals = int_list(e.get_str("global_ranks"));
      for (std::size_t k = 0; k < locals.size() && k < globals.size(); ++k)
        if (!agrees(e.node, globals[k], locals[k])) return {};
    }
  }
  return block;
}

}  // namespace

std::vector<std::int64_t> int_list(std::string_view s) {
  std::vector<std::int64_t> out;
  s = formats::trim(s);
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') return {};
  s = s.substr(1, s.size() - 2);
  while (!formats::trim(s).empty()) {
    const std::size_t comma = s.find(',');
    const auto v = formats::to_int(formats::trim(s.substr(0, comma)));
    if (!v) return {};
    out.push_back(*v);
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

namespace {

// Ranks for lines that only know their local rank ([defaultN]:, attempt_N/<local_rank>/ files,
// "failed ... local_rank: N") or only their pid (the kernel OOM killer): the pairs other lines of
// the same node state (failure-table rows: rank, local rank and pid; a process's statement of its
// global and local rank), else the node's rank range
// (--node_rank x --nproc_per_node).
// Returns the ranks lent by c10d's order of host names (c10d_blocks), which the why then states.
std::set<std::int64_t> lend_global_ranks(std::vector<model::Event>& events, const std::map<std::string, std::pair<std::int64_t, std::int64_t>>& c10d) {
  std::set<std::int64_t> by_name;
  std::map<std::string, std::map<std::int64_t, std::int64_t>> by_local, by_pid, stated;  // node -> key -> rank
  std::map<std::string, std::map<std::int64_t, std::int64_t>> rendezvous;  // node -> local rank -> rank (the agent's last)
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> range;            // node -> (node_rank, nproc)
  // An agent numbers its workers' global ranks in one run from its base: rank - local rank is the
  // same for all of them (torchelastic's role ranks). Kept per node while every pair agrees.
  struct Offset {
    std::int64_t offset = 0;
    bool seen = false, agree = true, table = false;
  };
  std::map<std::string, Offset> offset;
  // A launcher's lines in a file every launcher shares, where no host is known (srun -l, kubectl
  // --prefix): its task is its node here.
  const auto where = [](const model::Event& e) -> const std::string& { return e.node.empty() && !e.task.empty() ? e.task : e.node; };
  for (const auto& e : events) {
    if (e.code == "rendezvous-result") {  // torchrun's agent: its workers' ranks, this attempt
      const auto locals = int_list(e.get_str("local_ranks")), globals = int_list(e.get_str("global_ranks"));
      if (!locals.empty() && locals.size() == globals.size()) {
        auto& m = rendezvous[where(e)];
        m.clear();
        for (std::size_t k = 0; k < locals.size(); ++k) m[locals[k]] = globals[k];
      }
    }
    if (e.rank && e.local_rank) {
      by_local[where(e)][*e.local_rank] = *e.rank;
      Offset& o = offset[where(e)];
      const std::int64_t d = *e.rank - *e.local_rank;
      if (!o.seen) o.offset = d;
      else if (o.offset != d) o.agree = false;
      o.seen = true;
      o.table = o.table || e.code == "failure-row";
    } else if (e.rank)  // "rank 9/24 (local 1)": a process's own statement of both; two ranks for one: neither
      if (const auto local = e.get_int("local_rank_stated")) {
        auto [it, fresh] = stated[where(e)].emplace(*local, *e.rank);
        if (!fresh && it->second != *e.rank) it->second = -1;
      }
    if (e.rank && e.pid && e.code == "failure-row") by_pid[where(e)][*e.pid] = *e.rank;
    const auto nr = e.get_int("node_rank"), np = e.get_int("nproc_per_node");
    if (nr && np && *nr >= 0 && *nr < (1 << 20) && *np > 0 && *np < 4096) range[where(e)] = {*nr, *np};
  }
  const auto base = rank_bases(range);
  for (auto& e : events) {
    if (e.rank) continue;
    if (e.local_rank) {
      // The node's local -> global pairs, the surest first (in statements, -1: two ranks for one).
      const auto lent = [&](const std::map<std::string, std::map<std::int64_t, std::int64_t>>& pairs, bool sentinel) {
        if (auto n = pairs.find(where(e)); n != pairs.end())
          if (auto it = n->second.find(*e.local_rank); it != n->second.end() && (!sentinel || it->second >= 0)) {
            e.rank = it->second;
            return true;
          }
        return false;
      };
      if (lent(by_local, false) || lent(stated, true) || lent(rendezvous, true)) continue;
      if (auto r = range.find(where(e)); r != range.end() && *e.local_rank >= 0 && *e.local_rank < r->second.second) {
        if (auto b = base.find(where(e)); b != base.end()) {
          e.rank = b->second + *e.local_rank;
          continue;
        }
      }
      // The node's other workers' pairs, all with one offset: two local ranks' pairs, or a failure-table row
      // (torchelastic's own numbering; a launcher that deals ranks round-robin over nodes gives
      // pairs that disagree).
      const auto pairs = by_local.find(where(e));
      if (auto o = offset.find(where(e)); o != offset.end() && o->second.agree && *e.local_rank >= 0 &&
                                          o->second.offset + *e.local_rank >= 0 &&
                                          ((pairs != by_local.end() && pairs->second.size() >= 2) || o->second.table))
        e.rank = o->second.offset + *e.local_rank;
      // Else c10d's order of host names: the node's block.
      else if (auto b = c10d.find(e.node); b != c10d.end() && *e.local_rank >= 0 && *e.local_rank < b->second.second) {
        e.rank = b->second.first + *e.local_rank;
        by_name.insert(*e.rank);
      }
    } else if (e.pid) {
      if (auto n = by_pid.find(where(e)); n != by_pid.end())
        if (auto it = n->second.find(*e.pid); it != n->second.end()) e.rank = it->second;
    }
  }
  // A pid that only some line of its node knows the rank of now (a launcher's "failed ...
  // local_rank: L (pid: P)" ranked above): the kernel's lines about that process (its OOM kill)
  // are that rank's. A pid seen with two ranks gives none.
  std::map<std::string, std::map<std::int64_t, std::int64_t>> pid_rank;
  for (const auto& e : events)
    if (e.rank && e.pid && *e.pid > 0) {
      auto [it, fresh] = pid_rank[where(e)].emplace(*e.pid, *e.rank);
      if (!fresh && it->second != *e.rank) it->second = -1;
    }
  for (auto& e : events)
    if (!e.rank && !e.local_rank && e.pid)
      if (auto n = pid_rank.find(where(e)); n != pid_rank.end())
        if (auto it = n->second.find(*e.pid); it != n->second.end() && it->second >= 0) e.rank = it->second;
  return by_name;
}

// The one process left over: every node's --nproc_per_node known for all --nnodes nodes, every
// rank of that world but one named by some line, and the lines of exactly one process (a node's
// local rank) naming no rank: that process is the rank left over (a worker that failed before it
// stated its rank, whose peers all stated theirs).
void lend_last_rank(std::vector<model::Event>& events) {
  std::map<std::string, std::int64_t> nproc;  // node -> its launcher's --nproc_per_node
  std::optional<std::int64_t> nnodes;
  std::set<std::int64_t> named;
  std::set<std::pair<std::string, std::int64_t>> ranked, unranked;  // (node, local rank)
  for (const auto& e : events) {
    if (e.code == "launch-command" || e.code == "launch-config") {
      if (const auto n = e.get_int("nproc_per_node"); n && *n > 0 && *n < 4096 && !e.node.empty()) nproc[e.node] = *n;
      const auto nn = e.get_int("nnodes"), lo = e.get_int("min_nodes"), hi = e.get_int("max_nodes");
      if (nn) nnodes = nn;
      else if (lo && hi && *lo == *hi) nnodes = lo;
    }
    if (e.rank) named.insert(*e.rank);
    if (e.local_rank && !e.node.empty()) (e.rank ? ranked : unranked).emplace(e.node, *e.local_rank);
  }
  for (const auto& p : ranked) unranked.erase(p);
  if (!nnodes || *nnodes <= 0 || static_cast<std::size_t>(*nnodes) != nproc.size() || unranked.size() != 1) return;
  std::int64_t world = 0;
  for (const auto& [node, n] : nproc) world += n;
  if (unranked.begin()->second >= nproc[unranked.begin()->first]) return;
  std::optional<std::int64_t> left;
  for (std::int64_t r = 0; r < world; ++r) {
    if (named.count(r) != 0) continue;
    if (left) return;  // two or more left: which is whose is not known
    left = r;
  }
  if (!left || named.size() != static_cast<std::size_t>(world - 1) || *named.rbegin() >= world) return;
  for (auto& e : events)
    if (!e.rank && e.local_rank && e.node == unranked.begin()->first && *e.local_rank == unranked.begin()->second) e.rank = left;
}

}  // namespace

namespace {

// HCCL names peers by (host IP, device); communicator-init lines map those to ranks.
struct PeerMaps {
  std::map<std::pair<std::string, std::int64_t>, std::int64_t> rank_at;      // (host IP, device) -> rank
  std::map<std::pair<std::string, std::int64_t>, std::int64_t> rank_on_phy;  // (node, physical device) -> rank
};

PeerMaps peer_maps(const std::vector<model::Event>& events) {
  PeerMaps m;
  for (const auto& e : events) {
    if (e.code != "hccl-comm-init" || !e.rank) continue;
    std::string server = e.get_str("server");
    server = server.substr(0, server.find('%'));
    if (!server.empty() && e.device) m.rank_at[{server, *e.device}] = *e.rank;
    if (auto phy = e.get_int("phy_device")) m.rank_on_phy[{e.node, *phy}] = *e.rank;
  }
  return m;
}

// One event's contribution to the facts, by subject. Each builder reads only the event and what
// earlier events gave; correlate() calls them in this order for every event.
struct Builder {
  Facts& f;
  const std::vector<model::Event>& events;
  const PeerMaps& peers;

  // How the job was launched: the launcher's command line or config dump, communicator sizes.
  void launch(Node& n, EventIndex i, const model::Event& e) {
    if (auto nr = e.get_int("node_rank"); nr && *nr >= 0 && *nr < (1 << 20)) n.node_rank = *nr;
    if (auto v = e.get_int("nproc_per_node")) {
      n.nproc_per_node = *v;
      n.nproc_evidence.push_back(i);
      f.job.nproc_values.insert(*v);
      if (auto nn = e.get_int("nnodes")) f.job.expected_nodes = *nn;
      if (auto mx = e.get_int("max_nodes")) f.job.expected_nodes = *mx;
      if (const std::string a = e.get_str("master_addr"); !a.empty()) f.job.master_addr = a;
      if (auto p = e.get_int("master_port")) f.job.master_port = *p;
    }
    if (e.code == "launch-command" || e.code == "launch-config") {  // the command line or torchrun's config dump
      n.launch.emplace("launched", "1");
      if (std::string b = e.get_str("rdzv_backend"); !b.empty()) n.rdzv_backend = std::move(b);
      if (e.get("local_addr") != nullptr) n.local_addr = true;
      Job::TaskLaunch* task = e.node.empty() && !e.task.empty() ? &f.job.task_launches[e.task] : nullptr;
      if (task != nullptr) task->node_rank = e.get_int("node_rank");
      for (const char* k : {"nnodes", "max_nodes", "master_addr", "master_port"}) {
        if (const model::Value* v = e.get(k)) {
          const std::string key = std::string(k) == "max_nodes" ? "nnodes" : k;
          const std::string value = std::holds_alternative<std::int64_t>(*v) ? std::to_string(std::get<std::int64_t>(*v)) : e.get_str(k);
          n.launch[key] = value;
          n.launch_evidence.emplace(key, i);
          if (task != nullptr) {
            task->launch[key] = value;
            task->evidence.emplace(key, i);
          }
        }
      }
    }
    if (auto nr = e.get_int("nranks")) {
      if (!f.job.world_size || *nr > *f.job.world_size) {
        f.job.world_size = *nr;
        f.job.world_size_evidence = {i};
      }
    }
  }

  // What the node has: devices, their health and model, versions (npu-smi, nvidia-smi, snapshots).
  void inventory(Node& n, EventIndex i, const model::Event& e) {
    if (e.kind == model::Kind::Snapshot && e.code == "inventory") {  // a node snapshot (formats/snapshot.hpp) in the dump
      if (const std::string a = e.get_str("master_addr"); !a.empty() && f.job.master_addr.empty()) f.job.master_addr = a;
      if (auto p = e.get_int("master_port"); p && !f.job.master_port) f.job.master_port = *p;
    }
    if ((e.kind == model::Kind::NpuSmi || e.kind == model::Kind::Snapshot) && e.code == "inventory") {
      if (auto dc = e.get_int("device_count"); dc && *dc > 0) {
        n.devices = *dc;
        n.device_evidence.push_back(i);
      }
    }
    if (e.kind == model::Kind::NpuSmi && e.code == "npu-device" && e.get_str("health") != "OK" && e.device) n.unhealthy_devices.insert(*e.device);
    if (n.chip.empty()) {
      if (const std::string c = e.get_str("chip_name"); !c.empty()) n.chip = c;
      else if (const std::string g = e.get_str("gpu_name"); !g.empty()) n.chip = g;
    }
    if (e.kind == model::Kind::NvidiaSmi && e.code == "gpu" && e.device) {
      const std::int64_t count = *e.device + 1;
      if (!n.devices || *n.devices < count) n.devices = count;
      n.device_evidence.push_back(i);
    }
    std::size_t nkeys = 0;
    const formats::VersionKey* keys = formats::version_keys(nkeys);
    for (std::size_t k = 0; k < nkeys; ++k) {
      const std::string field(keys[k].field);
      if (const std::string v = e.get_str(field); !v.empty()) {
        if (e.kind == model::Kind::Snapshot && n.versions.count(field) != 0) continue;  // the logs' own word wins
        n.versions[field] = v;
        n.version_evidence.emplace(field, i);
      }
    }
  }

  // Worker processes, the devices they used and the local ranks seen. NCCL lines carry the device
  // per thread, and launcher lines carry the agent's pid, so only process-level sources count here.
  void processes(Node& n, EventIndex i, const model::Event& e) {
    // c10d's server socket failing to bind is the store's host: under torchrun, its agent.
    const bool store_host = e.code == "EADDRINUSE" || e.code == "listen-failed";
    if ((e.rank || e.local_rank || e.kind == model::Kind::Nccl || e.kind == model::Kind::Python || e.kind == model::Kind::Plog || e.kind == model::Kind::Cann ||
         e.kind == model::Kind::TorchNpu || e.kind == model::Kind::Torch) && !store_host)
      ++f.job.worker_lines;
    const bool worker_source = e.kind == model::Kind::Plog || e.kind == model::Kind::TorchNpu || e.kind == model::Kind::Cann || (e.kind == model::Kind::Nccl && e.level == model::Level::Info);
    if (e.pid && *e.pid > 0 && (worker_source || e.code == "failure-row" || e.code == "worker-failed"))
      if (n.pids.insert(*e.pid).second) n.pid_evidence.push_back(i);
    if (e.pid && e.device && worker_source && *e.device >= 0) {
      auto& set = n.device_pids[*e.device];
      if (set.insert(*e.pid).second) n.device_pid_evidence_first.emplace(*e.pid, i);
    }
    if (e.local_rank) n.local_ranks.insert(*e.local_rank);
  }

  // How each rank lived and ended: its errors, its own end (exception, exit, kill), the launcher's
  // stop, the timeouts it reported; the first errors of the node and the job.
  void lifecycle(Node& n, EventIndex i, const model::Event& e, std::uint8_t said) {
    const bool reports_timeout = (said & kReportsTimeout) != 0;
    if (e.rank && (said & (kReportsTimeout | kReportsPeerLoss)) != 0) f.job.victims.insert(*e.rank);
    if (reports_timeout) ++f.job.timeout_lines;
    if (reports_timeout && !e.rank) ++f.job.unranked_timeouts;
    if (e.rank) {
      n.ranks.insert(*e.rank);
      Rank& r = f.ranks[*e.rank];
      r.rank = *e.rank;
      if (r.node.empty()) r.node = e.node;
      if (e.pid && !r.pid && e.kind != model::Kind::Torchrun) r.pid = e.pid;
      if (is_error(e) && !reports_timeout) keep_first(r.first_error, i, events);
      // How the rank ended: a victim's end (timeout, lost peer) is not its own; neither is the
      // launcher's SIGTERM to the workers left after another failed.
      if (said == 0 && (e.code == "failure-row" || e.code == "worker-failed" || e.code == "oom-kill" ||
                        (e.kind == model::Kind::Python && e.level == model::Level::Error))) {
        const std::string sig = e.get_str("signal");
        const bool stopped = launcher_stop(sig);
        if (stopped) f.job.stopped.emplace(*e.rank, i);
        if (!stopped) {
          const bool killed = !sig.empty() || e.code == "oom-kill";
          if (killed && !r.killed) r.own_end.reset();  // a kill says more than an exit code
          if (killed || !r.killed) keep_first(r.own_end, i, events);
          r.killed = r.killed || killed;
        }
      }
      if (auto lc = e.get_int("last_completed")) r.last_completed = *lc;
    }
    if (reports_timeout) {
      if (e.rank) f.job.ranks_with_timeout.insert(*e.rank);
      f.job.timeout_evidence.push_back(i);
      if (const std::string op = e.get_str("op_type"); !op.empty()) f.job.timeout_op = op;
      if (auto s = e.get_int("seq")) f.job.timeout_seq = *s;
      if (auto t = e.get_int("timeout_ms")) f.job.timeout_ms = *t;
    }
    if (is_error(e)) {
      ++n.errors;
      keep_first(n.first_error, i, events);
      keep_first(f.job.first_error, i, events);
      if (!(e.kind == model::Kind::Nccl && e.level == model::Level::Warning)) keep_first(f.job.first_hard_error, i, events);
    }
  }

  // Who waited on whom: HCCL task failures, transport and link errors, P2P timeouts, Notify Waits.
  void waits(EventIndex i, const model::Event& e) {
    auto waits_on = [&](std::int64_t rank, std::string peer) {
      f.job.waits_on[rank] = std::move(peer);
      f.job.waits_evidence[rank] = i;
    };
    if (e.rank && e.get("task_failed") != nullptr)
      if (const std::string rr = e.get_str("remote_rank"); !rr.empty()) waits_on(*e.rank, rr);
    // A rank that waited in the store for another's ncclUniqueId waited on that rank.
    if (auto from = e.get_int("unique_id_from"); from && e.rank && *from != *e.rank) waits_on(*e.rank, std::to_string(*from));
    if (e.code == "transport-init-error" && e.rank) {
      std::optional<std::int64_t> peer;
      if (auto dev = e.get_int("link_remote_device"))
        if (auto it = peers.rank_at.find({e.get_str("link_remote_ip"), *dev}); it != peers.rank_at.end()) peer = it->second;
      if (!peer) peer = e.get_int("link_dst_rank");
      if (peer && *peer != *e.rank) waits_on(*e.rank, std::to_string(*peer));
    }
    // The link table's src waited on its dest, and a P2P timeout waited on the rank of the same
    // node on that physical device.
    if (e.code == "hccl-link-error") {
      const std::string status = e.get_str("link_status");
      const auto src = e.get_int("src_rank"), dst = e.get_int("dest_rank");
      if (src && dst && *src != *dst && (status == "time out" || status == "no connect") && f.job.waits_on.count(*src) == 0)
        waits_on(*src, std::to_string(*dst));
    }
    if (e.code == "p2p-timeout" && e.rank)
      if (auto phy = e.get_int("p2p_remote_phy"))
        if (auto it = peers.rank_on_phy.find({e.node, *phy}); it != peers.rank_on_phy.end() && it->second != *e.rank)
          waits_on(*e.rank, std::to_string(it->second));
    if (e.code == "notify-wait" && e.rank) {
      if (auto ix = e.get_int("op_index")) f.job.notify_index[*e.rank] = *ix;
      if (const std::string t = e.get_str("op_tag"); !t.empty()) f.job.notify_tag[*e.rank] = t;
      f.job.notify_evidence.push_back(i);
    }
  }
};

// torchrun --log-dir keeps each restart's files under RUN/attempt_N/: those of an attempt a later
// one replaced say nothing of how the job ended. `restarts`: the highest N of any run folder whose
// workers printed a line in it (every agent of an elastic job restarts when one does, so each
// launcher restarted that many times, and the workers of the restart ran).
struct LogDirAttempts {
  std::set<std::string> superseded;
  // The highest attempt_N whose files hold lines. One number for the job: a restart restarts
  // every node's workers (a node whose restarted workers printed nothing before the end still
  // restarted).
  std::int64_t restarts = 0;
  // Where the workers of each file (and launcher task in it) last printed their progress
  // (formats/progress.hpp): its line.
  std::map<std::pair<std::string, std::string>, std::uint64_t, std::less<>> last_progress;
};

LogDirAttempts log_dir_attempts(const std::vector<std::string>& sources, const std::set<std::string_view>& with_lines) {
  std::map<std::string_view, std::int64_t> last;  // run folder -> its last attempt
  std::vector<std::tuple<const std::string*, std::string_view, std::int64_t>> seen;
  for (const std::string& p : sources) {
    const auto folder = formats::attempt_folder(p);
    if (!folder) continue;
    seen.emplace_back(&p, folder->run, folder->number);
    auto [it, fresh] = last.emplace(folder->run, folder->number);
    if (!fresh) it->second = std::max(it->second, folder->number);
  }
  LogDirAttempts out;
  for (const auto& [p, run, n] : seen) {
    if (n < last[run]) out.superseded.insert(*p);
    if (with_lines.count(*p) != 0) out.restarts = std::max(out.restarts, n);
  }
  return out;
}

// The restart attempts in one launcher's stream (a node's lines in one file: --tee, kubectl logs,
// srun output): torchrun logs "failed (exitcode" once per attempt when a worker fails, and, when it
// has restarts left, starts the workers again, whose lines follow. An attempt ends at such a line
// followed by a worker's line; the attempt after it is real when its launcher saw a worker fail
// again, or its failure table's root cause is a process no earlier attempt had (a worker's output
// that arrived after the launcher's line is not a new attempt), or when the job's --log-dir folders
// show at least as many restarts (attempt_N; then the launcher being stopped from outside after a
// failure, with no worker line between, ends the failed attempt too: its workers went on quietly). Events of a replaced attempt, and of superseded files,
// are marked.
// `attempt` gets, per event, the attempt of its stream it belongs to, counted from 0.
std::vector<bool> replaced_attempts(const std::vector<model::Event>& events, const LogDirAttempts& log_dir,
                                    std::vector<std::int64_t>& attempt) {
  const std::set<std::string>& superseded = log_dir.superseded;
  std::vector<bool> out(events.size(), false);
  attempt.assign(events.size(), 0);
  std::map<std::tuple<std::string_view, std::string_view, std::string_view>, std::vector<EventIndex>> streams;
  for (EventIndex i = 0; i < events.size(); ++i) {
    if (superseded.count(events[i].path) != 0) out[i] = true;
    streams[{events[i].path, events[i].node, events[i].task}].push_back(i);
  }
  for (auto& [key, idx] : streams) {
    std::stable_sort(idx.begin(), idx.end(), [&](EventIndex a, EventIndex b) { return events[a].line < events[b].line; });
    std::vector<std::size_t> starts{0};  // where each attempt's events begin in idx
    const auto progress = log_dir.last_progress.find(std::make_pair(std::string(std::get<0>(key)), std::string(std::get<2>(key))));
    const std::uint64_t progressed_at = progress != log_dir.last_progress.end() ? progress->second : 0;
    bool pending = false;
    std::uint64_t failed_at = 0;  // the line of the pending failure
    bool progressed = false;      // the workers printed steps after the last attempt's failure: the attempt after it ran
    bool gave_up = false;         // a failure table follows the pending failure
    std::int64_t failures = 0;    // the launcher's "failed (exitcode" lines: one per attempt
    // The pids of the failure table the launcher printed when it gave up: it lists every process of
    // the last attempt that failed, so a "failed (exitcode" line for another pid was an attempt's
    // before it (its output went elsewhere: --redirects, --log-dir).
    std::set<std::int64_t> table_pids;
    for (const EventIndex i : idx)
      if (events[i].code == "failure-row" && events[i].pid) table_pids.insert(*events[i].pid);
    bool before_table = false;  // the pending failure is one of an attempt before the table's
    // --max_restarts of this stream's launcher: while restarts remain, a failure is always followed
    // by a new attempt (torchrun gives up, with its failure table, only when none remain).
    std::optional<std::int64_t> max_restarts;
    for (const EventIndex i : idx)
      if (auto m = events[i].get_int("max_restarts")) max_restarts = m;  // the command, or its config block
    std::int64_t failures_at_split = 0;  // failures before the last attempt began
    bool table_at_split = false;         // a failure table came between that failure and the split
    for (std::size_t k = 0; k < idx.size(); ++k) {
      const model::Event& e = events[idx[k]];
      // A worker's line: any but the launcher's own (torchrun's lines, its ChildFailedError and
      // SignalException tracebacks), in plain output as behind rank prefixes.
      const bool launcher_traceback = e.kind == model::Kind::Python && !e.rank && !e.local_rank && !own_traceback(e) &&
                                      !e.get_str("exception").empty();
      const bool worker = e.kind != model::Kind::Torchrun && !launcher_traceback;
      // Workers that went on quietly until their launcher was stopped from outside: the attempt
      // after the failure is real when the --log-dir folders show that many restarts.
      const bool stopped_later = e.code == "agent-death-signal" && static_cast<std::int64_t>(starts.size()) <= log_dir.restarts;
      // The workers' progress prints after the failure, with this line after them: it is the
      // next attempt's (the launcher's own lines between belong to the failure).
      const bool after_steps = progressed_at > failed_at && e.line > progressed_at;
      if (pending && (worker || stopped_later || after_steps || (before_table && e.code != "worker-failed"))) {
        starts.push_back(k);
        failures_at_split = failures;
        table_at_split = gave_up;
        progressed = progressed_at > failed_at;  // this stream shows steps of the attempt after
        pending = false;
      }
      if (e.code == "worker-failed") {
        pending = true;
        failed_at = e.line;
        gave_up = false;
        before_table = !table_pids.empty() && e.pid && table_pids.count(*e.pid) == 0;
        ++failures;
      }
      gave_up = gave_up || (pending && e.code == "failure-row");
    }
    // A failure with nothing of the workers after it in this stream, and no failure table (the
    // launcher giving up): the next attempt ran all the same when its workers printed steps after
    // it here, or when its node's --log-dir holds more attempts than this stream saw fail (one
    // "failed (exitcode" line per attempt; their output went to attempt_N's files). (A restart
    // left alone does not say the next attempt got going: its workers may never have printed.)
    if (pending && !gave_up && (progressed_at > failed_at || failures <= log_dir.restarts)) {
      progressed = progressed_at > failed_at;
      starts.push_back(idx.size());
      failures_at_split = failures;
      table_at_split = false;
    }
    for (std::size_t k = 0, a = 0; k < idx.size(); ++k) {
      while (a + 1 < starts.size() && starts[a + 1] <= k) ++a;
      attempt[idx[k]] = static_cast<std::int64_t>(a);
    }
    if (starts.size() < 2) continue;
    // The last attempt stands only on a failure of its own: a launcher line that a worker failed, or
    // a failure row naming a new process. Else its lines are the attempt before it, late.
    std::set<std::int64_t> earlier_pids;
    for (std::size_t k = 0; k < starts.back(); ++k) {
      const model::Event& e = events[idx[k]];
      if (e.code == "worker-failed" && e.pid) earlier_pids.insert(*e.pid);
      if (e.code == "closing-signal")
        if (auto t = e.get_int("target_pid")) earlier_pids.insert(*t);
    }
    bool stands = progressed || static_cast<std::int64_t>(starts.size()) - 1 <= log_dir.restarts ||
                  (max_restarts && !table_at_split && failures_at_split <= *max_restarts);
    for (std::size_t k = starts.back(); k < idx.size() && !stands; ++k) {
      const model::Event& e = events[idx[k]];
      stands = e.code == "worker-failed" || (root_cause_row(e) && e.pid && earlier_pids.count(*e.pid) == 0);
    }
    const std::size_t last = stands ? starts.back() : starts[starts.size() - 2];
    for (std::size_t k = 0; k < last; ++k) out[idx[k]] = true;
  }
  return out;
}

// A rank that a new process holds in the same file after the process that held it before printed
// its last line (Ray starts new workers for each attempt, and names them by pid alone; a process's
// rank is the one it stated, or its failure row's): the earlier process's attempt was replaced. Two processes that state one rank at once (a shared rank,
// two jobs' workers) replace nothing.
void replaced_by_restatement(const std::vector<model::Event>& events, std::vector<bool>& replaced) {
  using Proc = std::pair<std::string_view, std::int64_t>;  // path, pid
  struct Span {
    std::uint64_t first = 0, last = 0;  // its lines in the file
    std::set<std::int64_t> ranks;       // the ranks its lines stated or were lent (its failure row's)
  };
  std::map<Proc, Span> procs;
  for (const auto& e : events) {
    if (!e.pid || e.kind == model::Kind::Torchrun) continue;
    auto [it, fresh] = procs.try_emplace({e.path, *e.pid});
    Span& sp = it->second;
    if (fresh || e.line < sp.first) sp.first = e.line;
    sp.last = std::max({sp.last, e.line, e.end_line});
    if (e.rank) sp.ranks.insert(*e.rank);
  }
  // Per file and rank, the latest first line of a process that held it (one pass, not pairs: a
  // platform log may hold thousands of pids).
  std::map<std::pair<std::string_view, std::int64_t>, std::uint64_t> latest_start;
  for (const auto& [p, sp] : procs)
    if (sp.ranks.size() == 1) {
      auto [it, fresh] = latest_start.try_emplace({p.first, *sp.ranks.begin()}, sp.first);
      if (!fresh) it->second = std::max(it->second, sp.first);
    }
  std::set<Proc> gone;
  for (const auto& [p, sp] : procs)
    if (sp.ranks.size() == 1 && latest_start.at({p.first, *sp.ranks.begin()}) > sp.last) gone.insert(p);
  if (gone.empty()) return;
  for (EventIndex i = 0; i < events.size(); ++i)
    if (events[i].pid && events[i].kind != model::Kind::Torchrun && gone.count({events[i].path, *events[i].pid}) != 0) replaced[i] = true;
}

// Worker processes a platform's log names by pid alone (a Ray driver's "(RayTrainWorker pid=N,
// ip=...)" lines, no rank stated): where the rank table shows a whole group of W ranks restarted
// (A attempts), the first W x (A - 1) processes of a file by first line are the earlier attempts'
// (torchrun stops the whole group before it starts the next, so their lines all come first). Only
// when the file holds more than that and at most W x A, the earlier ones' lines all end before the
// first line of the rest, every pid the launchers' lines place (the rank table's attempts) falls
// in its own attempt, at least one on each side, and, when some process of the last attempt is not
// in the file, every one that is is placed (else one earlier process that printed nothing would
// move a last one across). Marks the earlier attempts' events replaced; true when any was not yet.
bool replaced_by_generation(const Facts& f, const std::vector<model::Event>& events, std::vector<bool>& replaced) {
  if (!f.job.world_size || *f.job.world_size <= 0 || *f.job.world_size > 65536) return false;
  const std::size_t world = static_cast<std::size_t>(*f.job.world_size);
  std::size_t attempts = 0;
  for (const RankRecord& r : f.rank_table) attempts = std::max(attempts, r.attempts.size());
  if (attempts < 2) return false;
  // A rank the table shows in one attempt only (no line of it replaced) was seen in the last.
  std::map<std::int64_t, bool> placed;  // pid -> in the last attempt
  auto place = [&](std::int64_t pid, bool last) {
    const auto [it, fresh] = placed.emplace(pid, last);
    return fresh || it->second == last;
  };
  for (const RankRecord& r : f.rank_table) {
    for (const RankAttempt& a : r.attempts)
      for (std::int64_t pid : a.pids)
        if (!place(pid, !a.replaced)) return false;  // one pid, two places (two nodes' processes)
    if (r.attempts.empty())
      for (std::int64_t pid : r.pids)
        if (!place(pid, true)) return false;
  }
  struct Lines {
    std::uint64_t first = 0, last = 0;
  };
  std::map<std::string_view, std::map<std::int64_t, Lines>> spans;  // path -> pid -> its lines
  for (const model::Event& e : events)
    if (e.pid && *e.pid > 0 && e.kind != model::Kind::Torchrun) {
      auto [it, fresh] = spans[e.path].try_emplace(*e.pid, Lines{e.line, std::max(e.line, e.end_line)});
      if (!fresh) {
        it->second.first = std::min(it->second.first, e.line);
        it->second.last = std::max({it->second.last, e.line, e.end_line});
      }
    }
  const std::size_t before = world * (attempts - 1);
  std::set<std::pair<std::string_view, std::int64_t>> earlier;  // (path, pid) of an earlier attempt
  for (const auto& [path, pids] : spans) {
    if (pids.size() <= before || pids.size() > world * attempts) continue;
    std::vector<std::pair<std::uint64_t, std::int64_t>> order;  // (first line, pid)
    for (const auto& [pid, lines] : pids) order.emplace_back(lines.first, pid);
    std::sort(order.begin(), order.end());
    std::uint64_t earlier_end = 0;
    bool agrees = true, saw_earlier = false, saw_last = false;
    for (std::size_t k = 0; k < order.size() && agrees; ++k) {
      const bool last = k >= before;
      if (!last) earlier_end = std::max(earlier_end, pids.at(order[k].second).last);
      const auto it = placed.find(order[k].second);
      if (it != placed.end()) {
        agrees = it->second == last;
        (last ? saw_last : saw_earlier) = true;
      } else if (last && pids.size() < world * attempts) {
        agrees = false;
      }
    }
    if (!agrees || !saw_earlier || !saw_last || earlier_end >= order[before].first) continue;
    for (std::size_t k = 0; k < before; ++k) earlier.emplace(path, order[k].second);
  }
  bool changed = false;  // one pass over the events, whatever the number of files
  for (EventIndex i = 0; i < events.size() && !earlier.empty(); ++i) {
    const model::Event& e = events[i];
    if (!replaced[i] && e.pid && e.kind != model::Kind::Torchrun && earlier.count({e.path, *e.pid}) != 0) {
      replaced[i] = true;
      changed = true;
    }
  }
  return changed;
}

// "13/14" when every last progress print (of each rank and file) outside the superseded files that
// says of how many steps had reached the last one (step N-1 of N counted from 0, or N of N), else "".
std::string steps_done(const std::vector<model::Sighting>& sightings, const std::set<std::string>& superseded) {
  const model::Sighting* furthest = nullptr;
  for (const model::Sighting& s : sightings) {
    if (!s.step || !s.steps || *s.steps <= 1 || superseded.count(s.path) != 0) continue;
    if (*s.step < *s.steps - 1) return "";
    if (furthest == nullptr || *s.step > *furthest->step) furthest = &s;
  }
  return furthest == nullptr ? "" : std::to_string(*furthest->step) + "/" + std::to_string(*furthest->steps);
}

// A restart recovered the run: a launcher saw a worker fail (or a later attempt's files replaced an
// earlier one's; two pids of one rank are not enough: two processes may have shared it), yet no launcher printed a failure table (it
// gives up with one), and each file with an error goes on with at least 5 quiet lines (the
// workers' own prints) after its last error, or belongs to a replaced attempt.
bool went_on(const Facts& f, const std::vector<model::Event>& events) {
  bool restarted = !f.superseded.empty();
  std::map<std::string, std::pair<std::string, std::uint64_t>> last_error;  // path -> node, end line of its last error
  std::set<std::string> not_only_launcher;  // files with an error other than the launcher's "failed (exitcode"
  std::set<std::string> replaced_on;        // nodes with a replaced attempt's files (they restarted)
  bool replaced_error = false;              // an error of a replaced attempt
  bool stopped = false;                     // a launcher of the last attempt was stopped from outside
  for (EventIndex i = 0; i < events.size(); ++i) {
    const model::Event& e = events[i];
    if (e.code == "failure-row") return false;
    restarted = restarted || e.code == "worker-failed";
    const bool replaced = f.is_replaced(i);
    if (replaced) replaced_on.insert(e.node);
    replaced_error = replaced_error || (replaced && is_error(e));
    stopped = stopped || (!replaced && e.code == "agent-death-signal");
    // The kernel's log is the node's, not a stream the run goes on in.
    if (!is_error(e) || replaced || e.kind == model::Kind::Kernel) continue;
    // Where an error is: a traceback's exception line, else its first line. Lines after it in the
    // same stream may be read into its body (a message's continuation, interleaved streams), yet
    // they are the processes going on.
    const auto key_line = e.get_int("exception_line");
    if (e.code != "worker-failed") not_only_launcher.insert(e.path);
    auto& [node, end] = last_error[e.path];
    node = e.node;
    end = std::max(end, key_line ? static_cast<std::uint64_t>(*key_line) : e.line);
  }
  // Every error (but the kernel's) in attempts a later one replaced: the later one went on, unless
  // it was stopped from outside.
  if (!restarted) return false;
  if (last_error.empty()) return replaced_error && !stopped;
  // A node whose --log-dir holds a replaced attempt restarted, whether or not that attempt's files
  // had an error (a rank that was only stopped prints none).
  for (const Node& n : f.nodes)
    for (const auto& [path, tail] : n.plain_tail)
      if (f.superseded.count(path) != 0) replaced_on.insert(n.name);
  // A file's quiet lines are kept under the node of its lines; lines lent another node (a platform
  // log's workers, by pid) leave them there.
  auto goes_on = [&](const std::string& path, const std::pair<std::string, std::uint64_t>& where) {
    for (const Node& n : f.nodes) {
      const auto tail = n.plain_tail.find(path);
      if (tail != n.plain_tail.end()) return tail->second.second >= 5 && tail->second.first > where.second;
    }
    return false;
  };
  bool workers_went_on = false;  // a stream of the workers' own (not only a launcher's lines) went on
  for (const auto& [path, where] : last_error) {
    if (not_only_launcher.count(path) == 0) continue;
    if (!goes_on(path, where)) return false;
    workers_went_on = true;
  }
  // A launcher that saw a worker fail and restarted its workers prints nothing more when their
  // output goes elsewhere: into a new attempt folder (--redirects), or a platform's log (Ray's
  // driver). It went on where they did.
  for (const auto& [path, where] : last_error) {
    if (not_only_launcher.count(path) != 0) continue;
    if (replaced_on.count(where.first) == 0 && !workers_went_on && !goes_on(path, where)) return false;
  }
  return true;
}

// The last restart attempt, stopped from outside before it showed anything of its own, leaves the
// decision to the attempt before it (Facts::cut_short). "Anything of its own": a rank table row of
// a failure or a report (timeout, lost peer), a worker's traceback or error words, a progress print
// after the attempt before it ended (the restart trained: then the stop ended work that ran, and
// says so itself; other lines, as a library's start-up chatter, say nothing of training). The
// attempt before is, per launcher stream, its latest replaced attempt, and of --log-dir folders the
// highest superseded attempt_N. Only when that attempt shows a failure (a line of its own or a
// report) does it decide; else the facts stay as they were.
void decide_by_attempt_before(Facts& f, const std::vector<model::Event>& events, const std::vector<std::uint8_t>& reports,
                              const std::vector<model::Sighting>& sightings) {
  if (f.culprit || !f.culprit_tie.empty() || !f.culprit_node.empty() || f.recovered || !f.steps_done.empty()) return;
  if (std::find(f.replaced.begin(), f.replaced.end(), true) == f.replaced.end()) return;  // no restart
  if (std::any_of(f.rank_table.begin(), f.rank_table.end(), [](const RankRecord& r) {
        return r.ending != Ending::Running && r.ending != Ending::Stopped && r.ending != Ending::NeverHeardFrom;
      }))
    return;
  // A line of a failure of a worker's own or of a report: a rank's, or one no rank is known for.
  auto failure_line = [&](EventIndex i) {
    const model::Event& e = events[i];
    return (i < reports.size() && reports[i] != 0) || own_traceback(e) || own_words(e) || e.code == "worker-failed" ||
           e.code == "failure-row";
  };
  std::optional<EventIndex> stop;
  using Stream = std::tuple<std::string_view, std::string_view, std::string_view>;  // path, node, task
  std::map<Stream, std::int64_t> before;                       // stream -> its latest replaced attempt
  std::map<LauncherStream, std::uint64_t> ended;                // -> its last replaced line
  std::map<std::string_view, std::int64_t> folder_before;      // --log-dir run -> its highest superseded attempt_N
  for (EventIndex i = 0; i < events.size(); ++i) {
    const model::Event& e = events[i];
    if (!f.is_replaced(i)) {
      if (failure_line(i)) return;
      if (e.code == "agent-death-signal" && !stop) stop = i;
      continue;
    }
    const std::int64_t a = i < f.stream_attempt.size() ? f.stream_attempt[i] : 0;
    auto [it, fresh] = before.try_emplace({e.path, e.node, e.task}, a);
    if (!fresh) it->second = std::max(it->second, a);
    auto& line = ended[{e.path, e.task}];
    line = std::max({line, e.line, e.end_line});
    if (f.superseded.count(e.path) != 0)
      if (const auto folder = formats::attempt_folder(e.path)) {
        auto [ft, ffresh] = folder_before.try_emplace(folder->run, folder->number);
        if (!ffresh) ft->second = std::max(ft->second, folder->number);
      }
  }
  if (!stop) return;
  for (const model::Sighting& s : sightings) {
    if (!s.step || f.superseded.count(s.path) != 0) continue;
    const auto it = ended.find({s.path, s.task});
    if (it == ended.end() || s.line > it->second) return;  // the restart printed its progress
  }
  std::vector<bool> view(events.size(), true), cut(events.size(), false);
  bool view_failed = false;
  for (EventIndex i = 0; i < events.size(); ++i) {
    const model::Event& e = events[i];
    if (!f.is_replaced(i)) {
      cut[i] = true;
      continue;
    }
    bool in = (i < f.stream_attempt.size() ? f.stream_attempt[i] : 0) == before.at({e.path, e.node, e.task});
    if (f.superseded.count(e.path) != 0)
      if (const auto folder = formats::attempt_folder(e.path)) in = folder->number == folder_before.at(folder->run);
    view[i] = !in;
    view_failed = view_failed || (in && failure_line(i));
  }
  if (!view_failed) return;
  f.replaced = std::move(view);
  f.rank_table.clear();
  build_rank_table(f, events, reports, sightings);
  choose_culprit(f, events, reports);
  f.cut_short = std::move(cut);
  f.cut_short_stop = stop;
}

}  // namespace

Facts correlate(std::vector<model::Event>& events, Inputs inputs) {
  std::vector<model::Sighting> sightings = std::move(inputs.sightings);
  const auto named_by = assign_nodes(events, inputs.sources, &sightings);
  lend_hosts(events);
  lend_ranks(events);
  lend_declared_ranks(events);
  lend_global_ranks(events, {});
  if (lend_worker_ranks(events)) lend_global_ranks(events, {});
  // Last, for the lines no surer source ranked: c10d's order of host names.
  const auto c10d = c10d_blocks(events);
  std::set<std::int64_t> by_name = c10d.empty() ? std::set<std::int64_t>{} : lend_global_ranks(events, c10d);
  lend_last_rank(events);
  infer_years(events);
  const PeerMaps peers = peer_maps(events);

  Facts f;
  f.ranks_by_name = std::move(by_name);
  f.job.worker_lines = inputs.unparsed_lines;  // training scripts' own prints: the workers ran
  std::map<std::string, Node> nodes;
  Builder b{f, events, peers};
  for (EventIndex i = 0; i < events.size(); ++i) {
    const model::Event& e = events[i];
    Node& n = nodes[e.node];
    n.name = e.node;
    b.launch(n, i, e);
    b.inventory(n, i, e);
    b.processes(n, i, e);
    b.lifecycle(n, i, e, i < inputs.reports.size() ? inputs.reports[i] : 0);
    b.waits(i, e);
  }
  if (f.job.nproc_values.size() == 1 && f.job.expected_nodes && *f.job.nproc_values.begin() > 0 &&
      *f.job.nproc_values.begin() < (1 << 16) && *f.job.expected_nodes > 0 && *f.job.expected_nodes < (1 << 20)) {
    const std::int64_t launched = *f.job.nproc_values.begin() * *f.job.expected_nodes;
    if (!f.job.world_size) f.job.world_size = launched;
  }
  {
    std::map<std::string_view, std::string_view> path_node;  // the node correlation gave each file's lines
    for (const model::Event& e : events) path_node.emplace(e.path, e.node);
    for (const model::Sighting& s : sightings) {
      const auto at = path_node.find(s.path);
      const auto n = nodes.find(at != path_node.end() ? std::string(at->second) : s.node);
      if (n == nodes.end()) continue;
      if (s.rank || s.local_rank) n->second.workers_seen = true;
      else if (s.plain > 0) n->second.plain_tail[s.path] = {s.line, s.plain};
    }
  }
  {
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> range;  // node -> (node_rank, nproc)
    for (const auto& [name, n] : nodes)
      if (n.node_rank && n.nproc_per_node && *n.nproc_per_node > 0 && *n.nproc_per_node < 4096) range[name] = {*n.node_rank, *n.nproc_per_node};
    for (const auto& [name, start] : rank_bases(range)) nodes[name].rank_base = start;
    // A one-node job (--nnodes 1) starts at rank 0 whatever its rendezvous: its one launching node.
    if (range.empty() && f.job.expected_nodes == 1) {
      std::vector<Node*> launching;
      for (auto& [name, n] : nodes)
        if (!name.empty() && n.nproc_per_node && *n.nproc_per_node > 0) launching.push_back(&n);
      if (launching.size() == 1) launching.front()->rank_base = 0;
    }
    if (range.empty())
      for (const auto& [name, block] : c10d) {
        nodes[name].rank_base = block.first;
        nodes[name].rank_base_by_name = true;
      }
    // Uneven --nproc_per_node: the world is their sum, when every --node_rank of --nnodes is known.
    if (!f.job.world_size && f.job.expected_nodes && *f.job.expected_nodes > 0 && *f.job.expected_nodes < 4096) {
      std::map<std::int64_t, std::int64_t> at;  // node_rank -> nproc
      for (const auto& [name, r] : range) at.emplace(r.first, r.second);
      std::int64_t world = 0;
      bool all = true;
      for (std::int64_t k = 0; all && k < *f.job.expected_nodes; ++k) {
        const auto it = at.find(k);
        all = it != at.end();
        if (all) world += it->second;
      }
      if (all && at.size() == static_cast<std::size_t>(*f.job.expected_nodes)) f.job.world_size = world;
    }
    // Under c10d no --node_rank orders the nodes: each agent's rendezvous result states the world
    // size beside its workers' global ranks ("global_world_sizes=[10]").
    // The last round's: an elastic job's restart may have fewer or more workers.
    std::optional<std::int64_t> stated;
    for (const model::Event& e : events) {
      if (e.code != "rendezvous-result") continue;
      const auto sizes = int_list(e.get_str("global_world_sizes"));
      if (!sizes.empty() && sizes.front() > 0 && sizes.front() <= 65536 &&
          std::all_of(sizes.begin(), sizes.end(), [&](std::int64_t n) { return n == sizes.front(); }))
        stated = sizes.front();
    }
    if (!f.job.world_size) f.job.world_size = stated;
  }
  for (auto& [name, n] : nodes) {
    if (auto it = named_by.find(name); it != named_by.end()) n.named_by = it->second;
    f.nodes.push_back(std::move(n));
  }
  LogDirAttempts log_dir;
  {
    std::set<std::string_view> with_lines;  // files that hold a line: an event, or a print no parser knew
    for (const model::Event& e : events) with_lines.insert(e.path);
    for (const model::Sighting& s : sightings) with_lines.insert(s.path);
    log_dir = log_dir_attempts(inputs.sources, with_lines);
  }
  inputs.sources = {};  // a big job's thousands of paths: not read again
  for (const model::Sighting& s : sightings)
    if (s.step) {
      auto [it, fresh] = log_dir.last_progress.emplace(std::make_pair(s.path, s.task), s.line);
      if (!fresh) it->second = std::max(it->second, s.line);
    }
  f.steps_done = steps_done(sightings, log_dir.superseded);
  f.replaced = replaced_attempts(events, log_dir, f.stream_attempt);
  replaced_by_restatement(events, f.replaced);
  f.superseded = std::move(log_dir.superseded);
  build_rank_table(f, events, inputs.reports, sightings);
  if (replaced_by_generation(f, events, f.replaced)) {  // the table's attempts placed more lines: built again
    f.rank_table.clear();
    build_rank_table(f, events, inputs.reports, sightings);
  }
  choose_culprit(f, events, inputs.reports);
  f.recovered = went_on(f, events);
  decide_by_attempt_before(f, events, inputs.reports, sightings);
  derive(f, events);
  return f;
}

}  // namespace dtriage::correlate
