// Facts per node and per job, built from all events of one analysis, each with the events that
// support it (indices into the event list).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/event.hpp"

namespace dtriage::correlate {

using EventIndex = std::size_t;

// A derived fact: its value, typed (a number, a text, a list of numbers), and the events it was
// derived from. Facts are computed once, here; rules name them, compare them and cite their
// evidence; the value becomes words (text()) only when a sentence is filled in.
struct Fact {
  using Value = std::variant<std::int64_t, std::string, std::vector<std::int64_t>>;
  Value value;
  std::vector<EventIndex> evidence;

  // As a sentence shows it: numbers in decimal, lists as "1, 2 and 3" (join_ints).
  std::string text() const;
  // The number, when the fact is one.
  std::optional<std::int64_t> number() const;
};
using FactMap = std::map<std::string, Fact, std::less<>>;

struct Node {
  std::string name;                                 // "" = no node could be named
  std::string named_by;                             // content (a host the lines name), folder, path
  std::optional<std::int64_t> nproc_per_node;       // launcher (command line or config dump)
  std::optional<std::int64_t> node_rank;            // launcher --node_rank
  std::optional<std::int64_t> rank_base;            // its first global rank (rank_bases: the nodes before it)
  std::string rdzv_backend;                         // launcher --rdzv_backend (c10d, static, etcd)
  bool local_addr = false;                          // launcher --local_addr given: c10d orders it by that
  bool rank_base_by_name = false;                   // rank_base from c10d's order of host names (c10d_bases)
  std::vector<EventIndex> nproc_evidence;
  std::optional<std::int64_t> devices;              // inventory: npu-smi / nvidia-smi
  std::vector<EventIndex> device_evidence;
  std::set<std::int64_t> pids;                      // worker processes seen (plog, torch_npu, failures)
  std::map<std::int64_t, std::set<std::int64_t>> device_pids;  // device -> pids that used it
  std::map<std::int64_t, EventIndex> device_pid_evidence_first;  // pid -> first event tying it to a device
  std::set<std::int64_t> ranks;
  std::set<std::int64_t> local_ranks;
  std::map<std::string, std::string> versions;      // nccl_version, driver_version, ...
  std::optional<EventIndex> first_error;
  std::uint64_t errors = 0;
  std::set<std::int64_t> unhealthy_devices;
  std::string chip;                                 // accelerator model from the inventory
  std::map<std::string, EventIndex> version_evidence;  // version key -> the event that stated it
  std::map<std::string, std::string> launch;        // how its launcher was started: nnodes, master_addr, master_port
  std::map<std::string, EventIndex> launch_evidence;
  std::vector<EventIndex> pid_evidence;             // first event of each worker pid
  bool workers_seen = false;                        // lines named a rank or local rank of its workers
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>, std::less<>> plain_tail;  // path -> last plain line, plain lines
  FactMap derived;                                  // node.* facts (model/fields.cpp lists them)

  // Derived.
  std::int64_t processes() const;  // nproc_per_node if known, else worker pids at once
  // Its launch range (--node_rank x --nproc_per_node): the global rank of a local rank there, and
  // whether a global rank is one of its.
  std::optional<std::int64_t> global_rank(std::int64_t local_rank) const;
  bool holds_rank(std::int64_t rank) const;
  std::optional<std::int64_t> shared_device() const;  // a device used by two or more pids
};

struct Rank {
  std::int64_t rank = 0;
  std::string node;
  std::optional<std::int64_t> pid;
  std::optional<EventIndex> first_error;
  std::optional<EventIndex> own_end;  // the first line where it ended on its own (exception, exit, kill)
  bool killed = false;                // ... by a signal other than the launcher's SIGTERM / SIGINT / SIGHUP
  std::optional<std::int64_t> last_completed;
};

// How a rank ended, as its own lines and its launcher's say (the rank table).
enum class Ending : std::uint8_t {
  Running,         // no line says it ended: still running when the logs stop
  Timeout,         // reported a collective (or store) timeout: a victim of another rank
  PeerLost,        // lost a peer (connection closed or reset by a remote rank): a victim too
  Signal,          // died from a signal its launcher did not send (killed, crashed)
  Exception,       // raised an exception
  Exited,          // exited with a code, and no line says more
  Stopped,         // stopped by its launcher (SIGTERM / SIGINT / SIGHUP), usually after another failed
  NeverHeardFrom,  // the launch implies it (world size, nnodes x nproc_per_node) but no line names it
};
// "running", "timeout", "peer-lost", "signal", "exception", "exit", "stopped", "never-heard-from".
const char* ending_name(Ending e);

// One restart attempt of a rank, as far as the logs tell attempts apart: the pids its lines show in it.
struct RankAttempt {
  std::optional<std::int64_t> number;  // torchrun --log-dir's attempt_N, when the rank's files there say
  bool replaced = false;               // a later attempt replaced it (Facts::is_replaced): it decides nothing
  std::vector<std::int64_t> pids;      // ascending; a pid seen in the last attempt is the last attempt's only
};

// One row of the rank table: who a global rank was and how it ended, from every line that names
// it (its own, its launcher's failure table, the kernel's OOM killer through its pid).
// A rank's last progress print: the step it reached (formats/progress.hpp).
struct RankProgress {
  std::int64_t step = 0;
  std::optional<std::int64_t> steps;  // of how many, where the line says
  std::string path;
  std::uint64_t line = 0;
  model::Time time;                   // where the line has one
  std::string text;
};

// Where a rank printed its progress in one file: its first and last progress print there, under
// one launcher's task ("" when the file has no tasks).
struct PrintSpan {
  std::string path, task;
  std::uint64_t first = 0, last = 0;
};

struct RankRecord {
  std::int64_t rank = 0;
  std::string node;                          // "" when no line ties it to a node
  std::optional<std::int64_t> local_rank;
  std::optional<std::int64_t> device;        // the device its NCCL / plog lines name
  std::vector<std::int64_t> pids;            // worker pids seen for it, ascending (a restart adds one)
  // Its pids per restart attempt, earliest first, the last attempt last; filled only when the logs
  // show it in an attempt a later one replaced, or in torchrun's attempt_N folder with N > 0.
  std::vector<RankAttempt> attempts;
  // Who started it: the srun task or pod whose lines in a shared file are its ("srun task 3",
  // "pod/NAME"), else the launcher of its node (the node's name); "" when unknown.
  std::string launcher;
  std::optional<EventIndex> first, last;     // its earliest and latest kept line
  std::optional<std::int64_t> last_completed;  // the last collective it completed (ProcessGroupNCCL's seq)
  std::optional<RankProgress> progress;        // its last progress print, in its last attempt's files
  std::vector<PrintSpan> prints;               // where it printed progress, in every file and attempt
  Ending ending = Ending::Running;
  std::string detail;                        // what the ending's line says, in a few words
  std::string signal;                        // Signal, Stopped: SIGKILL, SIGTERM, ...
  std::string sent_by;                       // Signal, Stopped: launcher, oom-killer, itself (a crash), unknown
  std::optional<std::int64_t> exit_code;     // Exited (and Exception / Signal when a failure table says)
  std::optional<std::int64_t> peer;          // Timeout, PeerLost: the rank it waited on, where a line says
  std::optional<EventIndex> evidence;        // the line the ending comes from
  std::optional<EventIndex> own_failure;     // its earliest line of failing on its own (signal, exception, exit)
};

// Why the culprit is the culprit (correlate/culprit.cpp, the policy ARCHITECTURE.md writes down).
enum class CulpritBasis : std::uint8_t {
  FirstFailure,    // of the ranks that failed on their own, it failed first
  OnlyFailure,     // the only rank that failed on its own; the others were victims
  DistinctEnding,  // at the same time as others, but the only one that ended this way
  Recurring,       // at the same time as others, but the only one whose process failed so in the attempt before
  StrongerEnding,  // at the same time as others, with the ending that says most (kill > exception > exit)
  Silent,          // the others timed out or lost a peer; it never reported either (hung, stalled, absent)
  LateArrival,     // the others timed out waiting; it lost its peers afterwards: it came late
  OutOfStep,       // every rank timed out; it timed out in another collective than all the others
  Reported,        // a rank's desync report (TORCH_NCCL_DESYNC_DEBUG) names it as the one the others waited for
};
// "first-failure", "only-failure", "distinct-ending", "recurring", "stronger-ending", "silent", "late-arrival",
// "out-of-step", "desync-report".
const char* basis_name(CulpritBasis b);

struct Culprit {
  std::int64_t rank = 0;
  std::string node;
  CulpritBasis basis = CulpritBasis::OnlyFailure;
  std::vector<std::string> why;      // the two or three facts that decided, as sentences
  std::vector<EventIndex> evidence;  // the lines they rest on
  std::vector<std::int64_t> passed_over;  // other ranks that failed on their own, not chosen
  // It failed on its own (an exception, a signal, an exit code), rather than being inferred from
  // what the others reported.
  bool own_failure() const { return basis <= CulpritBasis::StrongerEnding; }
};

struct Job {
  std::optional<std::int64_t> world_size;
  std::vector<EventIndex> world_size_evidence;
  std::set<std::int64_t> nproc_values;
  std::optional<std::int64_t> expected_nodes;
  std::string master_addr;
  std::optional<std::int64_t> master_port;
  std::set<std::int64_t> ranks_with_timeout;
  std::set<std::int64_t> victims;                      // ranks that timed out or lost a peer
  std::uint64_t timeout_lines = 0;                     // timeout reports, with a rank or not
  std::uint64_t unranked_timeouts = 0;                 // ... of which no rank is known
  std::map<std::int64_t, EventIndex> stopped;          // ranks the launcher stopped (SIGTERM / SIGINT) -> the line
  std::uint64_t worker_lines = 0;                      // lines the workers wrote (not the launchers)
  // Launchers no host is known for, told apart by their srun task label: "srun task N" -> what its
  // launch command said (nnodes, master_addr, master_port) and where.
  struct TaskLaunch {
    std::map<std::string, std::string> launch;
    std::map<std::string, EventIndex> evidence;
    std::optional<std::int64_t> node_rank;
  };
  std::map<std::string, TaskLaunch> task_launches;
  std::vector<EventIndex> timeout_evidence;
  std::string timeout_op;
  std::optional<std::int64_t> timeout_seq;
  std::optional<std::int64_t> timeout_ms;
  std::optional<EventIndex> first_error;
  std::optional<EventIndex> first_hard_error;          // the first that is not an NCCL WARN
  std::map<std::int64_t, std::int64_t> notify_index;   // rank -> collective index of its Notify Wait
  std::map<std::int64_t, std::string> notify_tag;      // rank -> collective op of its Notify Wait
  std::vector<EventIndex> notify_evidence;
  std::map<std::int64_t, std::string> waits_on;        // rank -> the remote rank its failed task waited on
  std::map<std::int64_t, EventIndex> waits_evidence;   // rank -> the event that says whom it waited on
  FactMap derived;                                     // job.* facts (model/fields.cpp lists them)
};

struct Facts {
  std::vector<Node> nodes;            // sorted by name
  std::map<std::int64_t, Rank> ranks;
  Job job;
  std::vector<RankRecord> rank_table;  // one record per global rank, ascending (build_rank_table)
  std::optional<Culprit> culprit;      // the rank the job's failure started from (choose_culprit)
  std::set<std::int64_t> ranks_by_name;  // ranks lent to lines of a local rank by c10d's order of host names
  std::string culprit_node;            // its node; also set when the rank is ambiguous but the node is not
  std::vector<std::int64_t> culprit_tie;  // no culprit: the ranks the policy could not tell apart
  std::string culprit_tie_why;            // why they tie, when not the plain "same time, same way"
  std::vector<std::int64_t> culprit_tie_passed;  // ranks of the same second the tie was preferred to
  std::string quiet_node;              // no rank known: the one launched node that reported no timeout or lost peer
  std::string late_node;               // no rank known: the one node whose ranks lost their peers while the others timed out
  // Every reporting rank timed out, one in another collective than all the others (OutOfStep):
  // its collective and theirs, as "ALLREDUCE, SeqNum 2210".
  std::string desync_what, desync_common;
  std::int64_t desync_common_ranks = 0;
  // ProcessGroupNCCL's desync report named the ranks the others waited for (every report of the
  // last attempt together, as "3" or "3, 7"), what it says of the first, and its lines.
  std::string reported_lagging, reported_what;
  std::vector<EventIndex> reported_evidence;
  // No rank known, every node reported: the one node where fewer of its processes printed a
  // timeout or lost-peer traceback than it ran (every process of the others did): one was busy.
  std::string short_node;
  std::int64_t short_reported = 0, short_procs = 0;
  std::string short_kind;  // "timeout" (some process timed out) or "peer-lost" (all only lost peers)
  std::vector<EventIndex> short_evidence;  // the reports of its processes that did report
  std::set<std::string> superseded;    // files of an earlier restart attempt (torchrun --log-dir attempt_N, a later one exists)
  // Per event: it belongs to a restart attempt a later one replaced (a superseded file, or the part
  // of a launcher's stream before its workers were started again). Only the last attempt decides.
  std::vector<bool> replaced;
  std::vector<std::int64_t> stream_attempt;  // per event: its attempt within its launcher's stream, from 0
  bool recovered = false;              // errors, but no launcher gave up and every file went on after its last error
  // The last restart attempt was stopped from outside (a time limit, an operator) before it showed
  // anything of its own: no rank failed or reported a timeout or a lost peer in it, no progress
  // print came after the attempt before it ended. It does not show the restart cured that
  // attempt's failure, so the attempt before it decides: `replaced` and the rank table are that
  // attempt's view (its events not replaced, the last attempt's and older ones' replaced), the last
  // attempt's events are marked here, and `cut_short_stop` is its stop's line.
  std::vector<bool> cut_short;
  std::optional<EventIndex> cut_short_stop;
  // Every progress print that says of how many steps (the last of each rank and file, in the last
  // attempt's files) had reached its last step: the training loop had finished. "13/14" (the
  // furthest; "" when not so).
  std::string steps_done;

  const Node* node(const std::string& name) const;
  bool is_replaced(EventIndex i) const { return i < replaced.size() && replaced[i]; }
  bool is_cut_short(EventIndex i) const { return i < cut_short.size() && cut_short[i]; }
  // A fact by its registry name ("node.devices", "job.world_size"); node facts need `node`.
  const Fact* get(const Node* node, std::string_view name) const;
  // Ranks known to exist (world size, comm init, failures) that never reported a timeout.
  std::vector<std::int64_t> ranks_without_timeout() const;
};

// Fills in nodes for events whose source revealed a host elsewhere, then builds the facts.
// What an event reports about its own rank (the rule pack decides which events do: rules with
// `reports: timeout` / `reports: peer-loss`): the rank waited for a collective that never
// completed, or lost a peer. Either way the rank is a victim of another.
inline constexpr std::uint8_t kReportsTimeout = 1;
inline constexpr std::uint8_t kReportsPeerLoss = 2;
struct Inputs {
  std::vector<std::uint8_t> reports;  // reports[i]: those bits for event i; empty = none
  std::vector<std::string> sources;   // every file read (paths as in events), for the dump's structure
  std::uint64_t unparsed_lines = 0;   // lines no parser knew (a worker's own prints, progress bars)
  std::vector<model::Sighting> sightings;  // ranks that lines named, kept as events or not
};
Facts correlate(std::vector<model::Event>& events, Inputs inputs = {});  // by value: its sightings are moved in

// Sets each event's node from the dump's structure (sibling folders or per-node archives are
// nodes) where its line does not name a host; returns how each node was named.
// Sightings of files no kept event came from get their node the same way.
std::map<std::string, std::string> assign_nodes(std::vector<model::Event>& events, std::vector<std::string> sources,
                                                std::vector<model::Sighting>* sightings = nullptr);

// Computes the derived node.* and job.* facts with their evidence (called by correlate).
void derive(Facts& f, const std::vector<model::Event>& events);

// Builds f.rank_table from the events and what each reports about its rank (called by correlate,
// after the other facts: it reads the world size and the nodes' launch ranges).
void build_rank_table(Facts& f, const std::vector<model::Event>& events, const std::vector<std::uint8_t>& reports,
                      const std::vector<model::Sighting>& sightings);

// Chooses f.culprit from the rank table (called by correlate after build_rank_table): the policy
// ARCHITECTURE.md writes down. `reports` as for build_rank_table.
void choose_culprit(Facts& f, const std::vector<model::Event>& events, const std::vector<std::uint8_t>& reports);

// The rank a "waits on" value names ("3"); nullopt for a word ("local", "unknown").
std::optional<std::int64_t> waited_rank(const std::string& w);

// "[0, 1, 2]" -> 0, 1, 2 (torchrun's rendezvous result); nothing when any item is not a number.
std::vector<std::int64_t> int_list(std::string_view s);

// "1, 2 and 3" (at most `max` shown, "(+N more)" after).
std::string join_ints(const std::vector<std::int64_t>& v, std::size_t max = 8);

// True for events that report a failure (used for first errors and the "failed" status).
bool is_error(const model::Event& e);
// A signal a launcher sends its workers to stop them (SIGTERM, SIGINT, SIGHUP), not a death of their own.
bool launcher_stop(const std::string& sig);
// The failure table's "Root Cause (first observed failure)" row.
bool root_cause_row(const model::Event& e);
// A Python traceback of a worker's own: an exception type that is neither torchrun's summary of
// its failed children (ChildFailedError) nor torchrun being stopped (SignalException).
bool own_traceback(const model::Event& e);
// A worker's own words that it is failing, other than a traceback (formats: parse_error_print): an
// ERROR line, an "error:" print, the C++ runtime's abort, faulthandler's report.
bool own_words(const model::Event& e);

}  // namespace dtriage::correlate
