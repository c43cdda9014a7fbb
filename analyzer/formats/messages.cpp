// Facts inside a message, whatever the family: one table of {trigger literals, regex, extractor}.
// The triggers of every row form one automaton that a message goes through once; only the rows
// whose literal occurs run their regex. Rows run in table order, and the first row that names a
// code gives the event its code.
#include <re2/set.h>

#include <memory>
#include <vector>

#include "formats/families.hpp"
#include "formats/launch.hpp"
#include "formats/parse_util.hpp"
#include "formats/tables.hpp"

namespace dtriage::formats {
namespace {

// ---- message contents ---------------------------------------------------------------------------
DT_RE(re_worknccl,
      R"(WorkNCCL\(SeqNum=(\d+), OpType=(\w+)(?:, NumelIn=(\d+), NumelOut=(\d+))?, Timeout\(ms\)=(\d+)\))")
DT_RE(re_ran_for, R"(ran for (\d+) milliseconds)")
DT_RE(re_nccl_work,
      R"((?:Timeout at NCCL work|detected by watchdog at work): (\d+), last enqueued NCCL work: (-?\d+), last completed NCCL work: (-?\d+))")
// What every rank's heartbeat monitor says when one rank's watchdog timed out (PyTorch 2.3+, the
// flight recorder's dump signal), and the periodic status line: how far this rank got.
DT_RE(re_nccl_status, R"((?i:last enqueued NCCL work): (-?\d+), last completed NCCL work: (-?\d+))")
DT_RE(re_rank_bracket, R"(\[(?:PG ([^\]]*?) )?(?:Rank|rank|RANK):? ?(\d+)\])")
DT_RE(re_errno, R"(errno: (\d+) - ([^)]+)\))")
DT_RE(re_bind_port, R"(failed to (?:bind|listen) (?:to|on) (\S+?):(\d+)\b)")
DT_RE(re_client_timeout,
      R"(client socket has timed out after (\d+)s while trying to connect to \(([^,]+), (\d+)\))")
DT_RE(re_worker_failed, R"(failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\))")
DT_RE(re_closing_signal, R"(Sending process (\d+) closing signal (SIG\w+))")
DT_RE(re_death_signal, R"(Received (?:Signals\.)?(\w+) death signal)")
DT_RE(re_store_barrier,
      R"(Waiting in store based barrier to initialize process group for rank: (\d+), key: \S+ \(world_size=(\d+), worker_count=(\d+))")
DT_RE(re_dup_gpu, R"(Duplicate GPU detected : rank (\d+) and rank (\d+) both on CUDA device (\w+))")
DT_RE(re_conn_closed_local, R"(Connection closed by localRank (\d+))")
// The caching allocators' words: CUDA, torch_npu's, ROCm's (hipified: "HIP"), Intel's XPU.
DT_RE(re_oom, R"((CUDA|NPU|HIP|XPU) out of memory\. Tried to allocate ([\d.]+ [KMGT]?i?B))")
DT_RE(re_oom_dev, R"(\((?:NPU|GPU|XPU) (\d+);|GPU (\d+) has a total capacity)")
DT_RE(re_signal_pid, R"(Signal (\d+) \((SIG\w+)\) received by PID (\d+))")
DT_RE(re_signal_exc, R"(SignalException: Process (\d+) got (?:signal|sigval): ?(\d+))")
DT_RE(re_acl_code, R"((?:NPU|OPS|HCCL) function error: ([\w:]+).*?error code is (\d+))")
DT_RE(re_npu_warning, R"(NPU warning, error code is (\d+))")
DT_RE(re_nproc_opt, R"(--nproc[_-]per[_-]node[= ](\d+))")
DT_RE(re_visible_devices, R"((ASCEND_RT_VISIBLE_DEVICES|CUDA_VISIBLE_DEVICES|ASCEND_VISIBLE_DEVICES)[:=]\s*([\d,]+))")
DT_RE(re_cuda_error, R"(CUDA error: ([^.\n]+))")
DT_RE(re_nccl_error_in, R"(NCCL error in: [^,]+, ([^(,]+?)(?: \(run with NCCL_DEBUG.*?\))?, NCCL version ([\w.+-]+))")
DT_RE(re_nccl_comm,
      R"(comm (0x[0-9a-fA-F]+) rank (\d+) nranks (\d+)(?: cudaDev (\d+))?(?: nvmlDev \d+)?(?: busId (\w+))?(?: commId (0x\w+))? - (Init START|Init COMPLETE|Abort COMPLETE))")
DT_RE(re_hccl_server, R"(server\[([\w.:-]+))")
DT_RE(re_hccl_remote_rank, R"(remote rank:? ?\[?(\w+)\]?)")
// ProcessGroupNCCL's broadcast of the communicator's id through the store: "[7] is setting up NCCL
// communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but
// store->get('0') got error: Socket Timeout" (rank 7 waited on rank 0).
DT_RE(re_unique_id_from, R"((?:\[(\d+)\] is setting up NCCL communicator and )?retrieving ncclUniqueId from \[(\d+)\])")
DT_RE(re_heartbeat_loc, R"(Cluster Exception Location\[IP/ID\]:\[([\w.*]+)/(\d+)\])")
DT_RE(re_heartbeat_old, R"(serverId\[([\w.*]+)\], deviceId\[(\d+)\], Heartbeat Lost)")
// LINK_ERROR_INFO rows, with or without the port columns:
//   |  124.0.0.11(1)   |   124.0.0.21(0)   |  server  | no connect |
//   |  192.168.100.212(10)   |  16666  |   192.168.100.202(2)   |  2882681339  |  server  | time out |
DT_RE(re_link_row,
      R"(\|\s*([\d.]+)\((\d+)\)\s*\|(?:\s*\d+\s*\|)?\s*([\d.]+)\((\d+)\)\s*\|(?:\s*\d+\s*\|)?\s*(\w+)\s*\|\s*([\w ]+?)\s*\|)")
DT_RE(re_hccl_timeout, R"(timeout\[(\d+)\])")
// ProcessGroupNCCL's desync report (TORCH_NCCL_DESYNC_DEBUG=1, c10d's TraceUtils), printed by a rank
// whose collective timed out after reading every rank's trace from the store; it names the ranks
// the others waited for:
//   "To our best knowledge, ranks [3] are the lagging ranks that caused this timeout. They never joined any collectives"
//   "  - [3] joined but didn't finish collective #5 (count from 1)"
//   "    [3] finished collective #5, but didn't join collective #6 (count from 1)"
// and the older wording ("-[3] joined but do not finish collective seq: 5", "finished collective
// seq: 5, but didnt join collective seq: 6").
DT_RE(re_desync_report,
      R"(\[(\d+(?:, *\d+)*)\] (are the lagging ranks|joined but (?:didn't|do not) finish collective|finished collective)(?: #| seq: )?(\d+)?)")
DT_RE(re_nccl_version_msg, R"(\bNCCL version (\d+\.\d+[\w.+-]*))")
DT_RE(re_gloo_timeout, R"(Timed out waiting (\d+)ms for (recv|send) operation)")
DT_RE(re_port_field, R"(\bport:? (\d{2,5})\b)")
DT_RE(re_p2p_remote, R"(remote physic id:(\d+))")
DT_RE(re_link_dst,
      R"(dst_rank\[(\d+)\]-remoteUserrank\[\d+\]-remoteIpAddr\[([\d.]+)(?:/(\d+))?\])")
DT_RE(re_notify_tag, R"(tag\[([A-Za-z]+)_)")
DT_RE(re_notify_index, R"(index\[(\d+)\])")
// A process stating its own global rank, as frameworks print it once it joins:
//   Ray Train  "Setting up process group for: env:// [rank=0, world_size=2]"
//   Lightning  "Initializing distributed: GLOBAL_RANK: 3, MEMBER: 4/16"
//   c10d       "Rank 3: Completed store-based barrier for key:store_based_barrier_key:1 with 16 nodes."
//              "Added key: store_based_barrier_key:1 to store for rank: 3"
//   gloo       "[Gloo] Rank 3 is connected to 15 peer ranks. Expected number of ..."
//   scripts    "rank 3/16", "Rank 3 of 16", "global rank 3 / 16", "rank: 3, world_size: 16"
// The word before "rank" must not make it another process's (local, peer, remote, src, dst, ...).
DT_RE(re_rank_of_world, R"((?i)(?:\b([a-z]+)[ _]|\b)rank\s*[=:]?\s*(\d+)\s*(?:/|\bof\b)\s*(\d+)\b)")
// The same words glued to a word before them: another print run into this line.
DT_RE(re_rank_of_world_glued, R"((?i)rank\s*[=:]?\s*(\d+)\s*(?:/|\bof\b)\s*(\d+)\b)")
DT_RE(re_rank_world_kv, R"((?i)(?:\b([a-z]+)[ _]|\b)rank\s*[=:]\s*(\d+)\s*[,;]?\s*(?:world[ _]size|nranks|size)\s*[=:]\s*(\d+)\b)")
DT_RE(re_lightning_rank, R"(GLOBAL_RANK: (\d+), MEMBER: \d+/(\d+))")
DT_RE(re_barrier_done, R"(Rank (\d+): Completed store-based barrier for key:\S+ with (\d+) nodes)")
DT_RE(re_barrier_added, R"(to store for rank: (\d+))")
DT_RE(re_gloo_connected, R"(\[Gloo\] Rank (\d+) is connected to (\d+) peer ranks)")
// The local rank a statement of the global one gives beside it: "(local 1)", "local_rank=1",
// "LOCAL_RANK: 1", "local rank 1".
DT_RE(re_local_beside, R"((?i)\blocal[ _]?(?:rank)?\s*[=:]?\s*(\d+)\b)")

// "<word> version: 1.2.3", "NCCL_VERSION=2.18", "torch_npu version 2.1.0": the words come from the
// one version-key table (longest first, so torch_npu wins over torch).
const RE2& re_version_kv() {
  static const RE2 re([] {
    std::size_t n = 0;
    const VersionKey* keys = version_keys(n);
    std::vector<std::string> words;
    for (std::size_t i = 0; i < n; ++i)
      if (keys[i].word.find('-') == std::string_view::npos) words.emplace_back(keys[i].word);
    std::sort(words.begin(), words.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
    std::string alt;
    for (const auto& w : words) alt += (alt.empty() ? "" : "|") + w;
    return std::string(R"((?i)\b()") + alt + R"()[ _]?(?:version)?\s*[:=]\s*v?(\d[\w.+-]*))";
  }(), RE2::Quiet);
  return re;
}

// What a row's extractor works on.
struct Scan {
  std::string_view msg;
  model::Event& e;
  const M& m;  // captures of the row's regex (empty when the row has none)
  bool hit = false;  // the message is worth an event of its own
  void code(const char* c) {
    if (e.code.empty()) e.code = c;
    hit = true;
  }
};

bool others_rank(std::string_view word) {
  static constexpr std::string_view kOthers[] = {"local", "peer", "remote", "src", "dst", "source", "dest", "destination",
                                                 "node", "group", "next", "prev", "previous", "root", "target", "failed", "other"};
  for (std::string_view w : kOthers)
    if (word.size() == w.size() && std::equal(w.begin(), w.end(), word.begin(), [](char a, char b) { return a == (b | 0x20); }))
      return true;
  return false;
}

// The line states its process's global rank (re_rank_of_world and the rows above it): the event
// takes it (a prefix's rank stays) and is kept; correlation lends it to the rest of the stream.
void declared_rank(Scan& s) {
  M m;
  std::optional<std::int64_t> rank, world;
  if (rx(re_lightning_rank(), s.msg, m, RE2::UNANCHORED) || rx(re_barrier_done(), s.msg, m, RE2::UNANCHORED)) {
    rank = int_of(m[1]);
    world = int_of(m[2]);
  } else if (rx(re_gloo_connected(), s.msg, m, RE2::UNANCHORED)) {
    rank = int_of(m[1]);
    if (auto peers = int_of(m[2])) world = *peers + 1;
  } else if (rx(re_barrier_added(), s.msg, m, RE2::UNANCHORED)) {
    rank = int_of(m[1]);
  } else if ((rx(re_rank_of_world(), s.msg, m, RE2::UNANCHORED) || rx(re_rank_world_kv(), s.msg, m, RE2::UNANCHORED)) &&
             !others_rank(m[1])) {
    rank = int_of(m[2]);
    world = int_of(m[3]);
    // Two processes' prints glued into one line ("rank 7/10 ...rank 8/10 ..."): a shared stream's.
    const std::string_view after = s.msg.substr(static_cast<std::size_t>(m[0].data() + m[0].size() - s.msg.data()));
    M next;
    if (rx(re_rank_of_world_glued(), after, next, RE2::UNANCHORED) && int_of(next[1]) != rank) return;
  }
  if (!rank || *rank < 0 || (world && (*world <= *rank || *world > (1 << 20)))) return;
  if (!s.e.rank) s.e.rank = rank;
  if (s.e.rank != rank) return;  // a prefix names another rank: a line about that one
  if (world && s.e.get("world_size") == nullptr) s.e.set("world_size", *world);
  if (rx(re_local_beside(), s.msg, m, RE2::UNANCHORED))
    if (const auto local = int_of(m[1])) s.e.set("local_rank_stated", *local);
  s.e.set("rank_declared", true);
  s.hit = true;
}

struct MessageFact {
  std::vector<std::string_view> triggers;  // any of these literals must occur in the message
  const RE2& (*regex)();                   // searched (unanchored) when a trigger occurs; null = none
  void (*extract)(Scan&);
};

const std::vector<MessageFact>& table() {
  static const std::vector<MessageFact> rows = {
      {{"WorkNCCL("}, re_worknccl,
       [](Scan& s) {
         set_int(s.e, "seq", s.m[1]);
         s.e.set("op_type", std::string(s.m[2]));
         if (!s.m[3].empty()) set_int(s.e, "numel", s.m[3]);
         set_int(s.e, "timeout_ms", s.m[5]);
         M r;
         if (rx(re_ran_for(), s.msg, r, RE2::UNANCHORED)) set_int(s.e, "ran_for_ms", r[1]);
         s.code(contains(s.msg, "Watchdog caught collective operation timeout") ? "watchdog-timeout" : "nccl-work");
       }},
      {{"NCCL work"}, re_nccl_work,
       [](Scan& s) {
         set_int(s.e, "seq", s.m[1]);
         set_int(s.e, "last_enqueued", s.m[2]);
         set_int(s.e, "last_completed", s.m[3]);
         s.code("watchdog-work");
       }},
      {{"lagging ranks that caused", "finish collective", "join collective"}, re_desync_report,
       [](Scan& s) {
         s.e.set("lagging", std::string(s.m[1]));
         s.e.set("lag_state", std::string(s.m[2][0] == 'a'   ? "never-joined"
                                          : s.m[2][0] == 'j' ? "not-finished"
                                                             : "not-joined-next"));
         if (!s.m[3].empty()) set_int(s.e, "lag_seq", s.m[3]);
         if (s.e.level == model::Level::None) s.e.level = model::Level::Error;
         s.code("desync-report");
       }},
      {{"Last enqueued NCCL work", "NCCL Work update periodically"}, re_nccl_status,
       [](Scan& s) {
         set_int(s.e, "last_enqueued", s.m[1]);
         set_int(s.e, "last_completed", s.m[2]);
         s.code(contains(s.msg, "dump signal") ? "watchdog-dump" : "watchdog-status");
       }},
      // The writer's rank in its own words: ProcessGroupNCCL's "[Rank 3]", "[PG 0 (default_pg) Rank 3]",
      // "[PG ID 1 PG GUID 1 Rank 3]"; DeepSpeed's log_dist "[Rank 0] step=..."; Lightning's
      // rank_prefixed_message "[rank: 1] ..."; a logging format's "[rank 3]" / "[RANK 3]".
      {{"[Rank ", "[PG ", "[rank ", "[rank:", "[RANK "}, re_rank_bracket,
       [](Scan& s) {
         if (!s.e.rank) s.e.rank = int_of(s.m[2]);
         if (!s.m[1].empty()) s.e.set("pg", std::string(s.m[1]));  // sequence numbers count per process group
       }},
      {{"rank ", "rank=", "rank:", "Rank ", "GLOBAL_RANK:"}, nullptr, [](Scan& s) { declared_rank(s); }},
      {{"errno: "}, re_errno,
       [](Scan& s) {
         set_int(s.e, "errno", s.m[1]);
         s.e.set("errno_text", std::string(s.m[2]));
         s.code(s.m[1] == "98" ? "EADDRINUSE" : "socket-error");
         M p;
         if (rx(re_bind_port(), s.msg, p, RE2::UNANCHORED)) set_int(s.e, "port", p[2]);
       }},
      {{"has failed to listen on any local network address"}, nullptr, [](Scan& s) { s.code("listen-failed"); }},
      // torch 2.x: "... port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use"
      {{"EADDRINUSE"}, re_port_field,
       [](Scan& s) {
         if (s.e.get("port") == nullptr) set_int(s.e, "port", s.m[1]);
         s.code("EADDRINUSE");
       }},
      {{"client socket has timed out"}, re_client_timeout,
       [](Scan& s) {
         set_int(s.e, "timeout_s", s.m[1]);
         s.e.set("master_addr", std::string(s.m[2]));
         set_int(s.e, "port", s.m[3]);
         s.code("store-connect-timeout");
       }},
      {{"RendezvousTimeoutError"}, nullptr, [](Scan& s) { s.code("rendezvous-timeout"); }},
      // glog's first line in a process that logs before initialising it: c10d's C++ store code in
      // the launcher (its socket warnings follow), not a worker's print.
      {{"Logging before InitGoogleLogging()"}, nullptr,
       [](Scan& s) {
         if (s.e.kind == model::Kind::None) s.e.kind = model::Kind::Torchrun;
         s.code("glog-preamble");
       }},
      {{"RendezvousConnectionError"}, nullptr, [](Scan& s) { s.code("rendezvous-connection"); }},
      {{"failed (exitcode"}, re_worker_failed,
       [](Scan& s) {
         set_int(s.e, "exitcode", s.m[1]);
         s.e.local_rank = int_of(s.m[2]);
         s.e.pid = int_of(s.m[3]);
         if (auto x = int_of(s.m[1]); x && *x < 0) s.e.set("signal", signal_name(-*x));
         s.code("worker-failed");
       }},
      // gloo's send / recv waited past the process group timeout.
      {{"Timed out waiting "}, re_gloo_timeout,
       [](Scan& s) {
         set_int(s.e, "timeout_ms", s.m[1]);
         s.e.set("op_type", std::string(s.m[2]));
         s.code("gloo-timeout");
       }},
      {{"closing signal"}, re_closing_signal,
       [](Scan& s) {
         set_int(s.e, "target_pid", s.m[1]);
         s.e.set("signal", normalize_signal(s.m[2]));
         s.code("closing-signal");
       }},
      {{"death signal"}, re_death_signal,
       [](Scan& s) {
         s.e.set("signal", normalize_signal(s.m[1]));
         s.code("agent-death-signal");
       }},
      {{"store based barrier"}, re_store_barrier,
       [](Scan& s) {
         s.e.rank = int_of(s.m[1]);
         set_int(s.e, "world_size", s.m[2]);
         set_int(s.e, "worker_count", s.m[3]);
         s.code("store-barrier-wait");
       }},
      {{"nranks "}, re_nccl_comm,
       [](Scan& s) {
         s.e.set("comm", std::string(s.m[1]));
         set_int(s.e, "comm_rank", s.m[2]);
         set_int(s.e, "nranks", s.m[3]);
         if (!s.m[4].empty() && !s.e.device) s.e.device = int_of(s.m[4]);
         if (!s.m[5].empty()) s.e.set("bus_id", std::string(s.m[5]));
         if (!s.m[6].empty()) s.e.set("comm_id", std::string(s.m[6]));
         s.e.set("comm_state", std::string(s.m[7]));
         s.code(s.m[7] == "Abort COMPLETE" ? "nccl-comm-abort" : "nccl-comm-init");
       }},
      {{"Duplicate GPU"}, re_dup_gpu,
       [](Scan& s) {
         set_int(s.e, "dup_rank_a", s.m[1]);
         set_int(s.e, "dup_rank_b", s.m[2]);
         s.e.set("bus_id", std::string(s.m[3]));
         s.code("duplicate-gpu");
       }},
      {{"Connection closed by localRank"}, re_conn_closed_local,
       [](Scan& s) {
         set_int(s.e, "peer_local_rank", s.m[1]);
         s.code("peer-closed");
       }},
      {{"out of memory"}, re_oom,
       [](Scan& s) {
         s.e.set("requested", std::string(s.m[2]));
         M d;
         if (rx(re_oom_dev(), s.msg, d, RE2::UNANCHORED) && !s.e.device) s.e.device = int_of(d[1].empty() ? d[2] : d[1]);
         s.code(s.m[1] == "NPU" ? "npu-oom" : "cuda-oom");
       }},
      {{"received by PID"}, re_signal_pid,
       [](Scan& s) {
         s.e.set("signal", normalize_signal(s.m[2]));
         set_int(s.e, "target_pid", s.m[3]);
         s.code("worker-signal");
       }},
      {{"SignalException"}, re_signal_exc,
       [](Scan& s) {
         s.e.set("signal", normalize_signal(s.m[2]));
         s.code("agent-death-signal");
       }},
      {{"error code is"}, re_acl_code,
       [](Scan& s) {
         s.e.set("api", std::string(s.m[1]));
         set_int(s.e, "acl_error", s.m[2]);
         s.hit = true;
       }},
      {{"NPU warning"}, re_npu_warning,
       [](Scan& s) {
         set_int(s.e, "acl_error", s.m[1]);
         s.hit = true;
       }},
      {{"CUDA error: "}, re_cuda_error,
       [](Scan& s) {
         s.e.set("cuda_error", std::string(trim(s.m[1])));
         s.hit = true;
       }},
      {{"NCCL error in:"}, re_nccl_error_in,
       [](Scan& s) {
         s.e.set("nccl_error", std::string(trim(s.m[1])));
         s.e.set("nccl_version", std::string(s.m[2]));
         s.hit = true;
       }},
      // A launch command echoed into a log (`+ torchrun ...`, `srun ... torchrun ...`).
      {{"nproc"}, re_nproc_opt,
       [](Scan& s) {
         const LaunchCommand l = parse_launch_command(s.msg);
         if (l.nproc_per_node) s.e.set("nproc_per_node", *l.nproc_per_node);
         else set_int(s.e, "nproc_per_node", s.m[1]);  // past the script, as some wrappers print it
         if (l.nnodes) s.e.set("nnodes", *l.nnodes);
         if (!l.master_addr.empty()) s.e.set("master_addr", l.master_addr);
         if (l.master_port) s.e.set("master_port", *l.master_port);
         if (l.node_rank) s.e.set("node_rank", *l.node_rank);
         if (!l.rdzv_backend.empty()) s.e.set("rdzv_backend", l.rdzv_backend);
         if (!l.local_addr.empty()) s.e.set("local_addr", l.local_addr);
         if (l.max_restarts) s.e.set("max_restarts", *l.max_restarts);
         s.code("launch-command");
       }},
      {{"VISIBLE_DEVICES"}, re_visible_devices,
       [](Scan& s) {
         s.e.set("visible_devices_var", std::string(s.m[1]));
         s.e.set("visible_devices", std::string(s.m[2]));
         s.hit = true;
       }},
      // HCCL annotations (plog messages and Python-side texts alike).
      {{"rankNum[", "ranks[", "totalRanks["}, nullptr,
       [](Scan& s) {
         model::Event& e = s.e;
         if (auto n = find_int_after(s.msg, "rankNum")) e.set("nranks", *n);
         else if (auto t = find_int_after(s.msg, "totalRanks")) e.set("nranks", *t);
         else if (auto r = find_int_after(s.msg, "ranks")) e.set("nranks", *r);
         if (auto r = find_int_after(s.msg, "rank"); r && !e.rank) e.rank = r;
         M m;
         if (rx(re_hccl_server(), s.msg, m, RE2::UNANCHORED)) e.set("server", std::string(m[1]));
         if (auto phy = find_int_after(s.msg, "phydevId")) e.set("phy_device", *phy);
         if (auto d = find_int_after(s.msg, "logicDevId")) e.device = d;
         else if (auto d2 = find_int_after(s.msg, "deviceLogicId")) e.device = d2;
         else if (auto d3 = find_int_after(s.msg, "device"); d3 && !e.device) e.device = d3;
         s.code("hccl-comm-init");
       }},
      {{"retrieving ncclUniqueId from"}, re_unique_id_from,
       [](Scan& s) {
         if (!s.m[1].empty() && !s.e.rank) s.e.rank = int_of(s.m[1]);
         set_int(s.e, "unique_id_from", s.m[2]);
         s.hit = true;
       }},
      {{"remote rank"}, re_hccl_remote_rank,
       [](Scan& s) {
         s.e.set("remote_rank", std::string(s.m[1]));
         if (contains(s.msg, "Task run failed")) s.e.set("task_failed", true);  // its task waited on that rank
         s.hit = true;
       }},
      {{"Cluster Exception Location"}, re_heartbeat_loc,
       [](Scan& s) {
         s.e.set("lost_server", std::string(s.m[1]));
         set_int(s.e, "lost_device", s.m[2]);
         s.code("heartbeat-lost");
       }},
      {{"Heartbeat Lost"}, re_heartbeat_old,
       [](Scan& s) {
         if (s.e.get("lost_server") != nullptr) return;
         s.e.set("lost_server", std::string(s.m[1]));
         set_int(s.e, "lost_device", s.m[2]);
         s.code("heartbeat-lost");
       }},
      // Intra-node P2P: the peer is named by its physical device.
      {{"p2p timeout"}, nullptr,
       [](Scan& s) {
         M m;
         if (rx(re_p2p_remote(), s.msg, m, RE2::UNANCHORED)) set_int(s.e, "p2p_remote_phy", m[1]);
         s.code("p2p-timeout");
       }},
      {{"Transport init error"}, nullptr,
       [](Scan& s) {
         M m;
         if (rx(re_link_dst(), s.msg, m, RE2::UNANCHORED)) {
           set_int(s.e, "link_dst_rank", m[1]);
           s.e.set("link_remote_ip", std::string(m[2]));
           if (!m[3].empty()) set_int(s.e, "link_remote_device", m[3]);
         }
         s.code("transport-init-error");
       }},
      {{"taskType[Notify Wait]"}, nullptr,
       [](Scan& s) {
         M m;
         if (rx(re_notify_tag(), s.msg, m, RE2::UNANCHORED)) s.e.set("op_tag", std::string(m[1]));
         if (rx(re_notify_index(), s.msg, m, RE2::UNANCHORED)) set_int(s.e, "op_index", m[1]);
         s.code("notify-wait");
       }},
      {{"timeout["}, re_hccl_timeout,
       [](Scan& s) {
         set_int(s.e, "timeout_s", s.m[1]);
         s.hit = true;
       }},
      // LINK_ERROR_INFO rows only come in HCCL plog lines; '|' alone is common (progress bars, tables).
      {{"|"}, re_link_row,
       [](Scan& s) {
         if (s.e.kind != model::Kind::Plog) return;
         s.e.set("dest_ip", std::string(s.m[1]));
         set_int(s.e, "dest_rank", s.m[2]);
         s.e.set("src_ip", std::string(s.m[3]));
         set_int(s.e, "src_rank", s.m[4]);
         s.e.set("link_status", std::string(s.m[6]));
         s.code("hccl-link-error");
       }},
      // "report error module_type=3, module_name=EE8888": the code the user-visible block will carry.
      {{"module_name=", "error_code:"}, nullptr,
       [](Scan& s) {
         const std::string_view msg = s.msg;
         const std::size_t at = msg.find(contains(msg, "module_name=") ? "module_name=" : "error_code:");
         const std::size_t start = msg.find_first_of("=:", at) + 1;
         std::size_t end = start;
         while (end < msg.size() && std::isalnum(static_cast<unsigned char>(msg[end]))) ++end;
         if (end - start == 6) {
           s.e.set("reported_code", std::string(msg.substr(start, 6)));
           if (s.e.code.empty()) s.e.code = std::string(msg.substr(start, 6));
         }
       }},
      {{"there is a sdma error", "hwts sdma error"}, nullptr,
       [](Scan& s) {
         s.e.set("sdma_error", true);
         s.hit = true;
       }},
      // NCCL's own banner, behind any prefix: "host:pid:tid [0] NCCL INFO NCCL version 2.18.3+cuda12.1".
      {{"NCCL version "}, re_nccl_version_msg,
       [](Scan& s) {
         if (s.e.get("nccl_version") == nullptr) s.e.set("nccl_version", std::string(s.m[1]));
         s.hit = true;
       }},
      {{"ersion"}, re_version_kv,
       [](Scan& s) {
         const std::string_view field = version_field(s.m[1]);
         if (field.empty()) return;
         s.e.set(std::string(field), std::string(s.m[2]));
         s.hit = true;  // a version is a fact of its own
       }},
  };
  return rows;
}

struct Trigger {
  std::unique_ptr<re2::RE2::Set> set;
  std::vector<std::size_t> row_of;  // set index -> table row
};

const Trigger& triggers() {
  static const Trigger t = [] {
    Trigger out;
    re2::RE2::Options opt;
    opt.set_log_errors(false);
    out.set = std::make_unique<re2::RE2::Set>(opt, re2::RE2::UNANCHORED);
    const auto& rows = table();
    for (std::size_t i = 0; i < rows.size(); ++i)
      for (std::string_view lit : rows[i].triggers) {
        out.set->Add(re2::RE2::QuoteMeta(re2::StringPiece(lit.data(), lit.size())), nullptr);
        out.row_of.push_back(i);
      }
    out.set->Compile();
    return out;
  }();
  return t;
}

}  // namespace

std::vector<std::string_view> message_triggers() {
  // '|' finds LINK_ERROR_INFO rows, which HCCL prints in plog ERROR lines only: the gate never
  // skips those (it skips plog INFO / DEBUG / TRACE), and a lone '|' is in most lines of a
  // training log (progress bars, Megatron's iteration lines, smi tables).
  std::vector<std::string_view> out;
  for (const MessageFact& row : table())
    for (std::string_view t : row.triggers)
      if (t != "|") out.push_back(t);
  return out;
}

bool scan_message(std::string_view msg, model::Event& e) {
  const Trigger& t = triggers();
  std::vector<int> hits;
  if (!t.set->Match(re2::StringPiece(msg.data(), msg.size()), &hits)) return false;
  const auto& rows = table();
  std::vector<bool> run(rows.size(), false);
  for (int h : hits) run[t.row_of[static_cast<std::size_t>(h)]] = true;
  bool hit = false;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!run[i]) continue;
    const MessageFact& row = rows[i];
    M m;
    if (row.regex != nullptr && !rx(row.regex(), msg, m, RE2::UNANCHORED)) continue;
    Scan s{msg, e, m};
    row.extract(s);
    hit = hit || s.hit;
  }
  return hit;
}

}  // namespace dtriage::formats
