// The six pre-launch checks (`dtriage check`), across all nodes of a job, from node snapshots
// (formats/snapshot.hpp), the DDP smoke test's lines (tools/ddp_smoke_test.py) and training logs:
//   1 devices: count, model and memory equal on every node, equal to nproc_per_node, none held
//   2 topology: the same device matrix on every node; the master reachable
//   3 versions: driver, CUDA / CANN, torch, NCCL, Python packages and code equal on every node;
//     the driver new enough for torch's CUDA runtime
//   4 launch: WORLD_SIZE = nnodes x nproc_per_node, one MASTER_ADDR / PORT, the port free
//   5 binding: every rank on its own (host, device); the smoke test's all_reduce right
//   6 data: ranks reading different samples; one writer per checkpoint path
// Each gives pass / warn / fail per node with the values behind it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "formats/launch.hpp"
#include "ingest/ingest.hpp"
#include "lines/line_reader.hpp"
#include "formats/snapshot.hpp"
#include "model/event.hpp"

namespace dtriage::check {

enum class Status { Skip, Pass, Warn, Fail };  // in order: the worst wins (Skip: nothing to judge)
const char* status_name(Status s);

// One line of tools/ddp_smoke_test.py: "DTRIAGE_SMOKE key=value ...".
struct SmokeRank {
  std::string host;
  std::optional<std::int64_t> rank, local_rank, world_size;
  std::string backend, device, uuid, status, error;
  std::optional<double> reduced, expected;
  std::optional<std::int64_t> dataset, per_rank;
  std::string first_batch, checkpoint;
  std::string path;
  std::uint64_t line = 0;
  std::string text;
};
// Parses a smoke-test line (anywhere in `text`, after a launcher's prefix); false if none.
bool parse_smoke_line(std::string_view text, SmokeRank& out);
// Every smoke-test record in `text`: ranks that share one stdout can run their lines together.
std::vector<SmokeRank> parse_smoke_lines(std::string_view text);

// What the launch command says (`--launch "torchrun --nnodes 2 --nproc_per_node 8 ..."`), read by
// the one launch-command reader (formats/launch.hpp).
struct Launch : formats::LaunchCommand {
  std::string command;
};
Launch parse_launch(const std::string& command);

struct Evidence {
  std::string path;
  std::uint64_t line = 0;
  std::string text;
};

struct NodeResult {
  std::string node;  // "" for a finding about the whole job
  Status status = Status::Pass;
  std::string message;
  std::string category;  // a failure's root-cause category (docs/CONTRACT.md); "" when none fits (data)
  std::vector<std::pair<std::string, std::string>> values;
  std::vector<Evidence> evidence;
};

struct CheckResult {
  int id = 0;
  std::string name;   // devices, topology, versions, launch, binding, data
  std::string title;
  Status status = Status::Skip;  // the worst of its results
  std::vector<NodeResult> results;
};

// What checks 5 and 6 read in training logs, gathered as the lines go by: a rank's device from
// NCCL's lines, NCCL's duplicate-GPU report, first batches, checkpoint paths, sampler and dataset
// lengths. The values are kept, not the lines, so memory follows the ranks and the distinct
// values (each bounded), not the length of the logs.
class LogFacts {
 public:
  static constexpr std::size_t kMaxValues = 20000;   // distinct batches, paths, (node, device), ranks
  static constexpr std::size_t kMaxEvidence = 4;     // lines kept per value
  static constexpr std::size_t kMaxText = 4096;      // bytes of a line kept as evidence

  void add(const model::Event& e);  // any training-log event (every line, kind "line" included)

  struct Seen {
    std::set<std::string> who;  // ranks as text, else node:pid
    std::string node;           // the node of the first line
    std::vector<Evidence> evidence;
  };
  std::map<std::pair<std::string, std::int64_t>, std::set<std::int64_t>> ranks_on;  // (node, device)
  std::map<std::pair<std::string, std::int64_t>, Evidence> ranks_on_first;
  std::vector<NodeResult> duplicate_gpu;                   // NCCL's report, one per node and message
  std::map<std::string, Seen> batches, saves;               // first-batch content / checkpoint path
  std::map<std::string, std::string> per_rank_len, full_len;  // who -> count
  std::map<std::string, std::pair<std::string, Evidence>> len_line;  // who -> node, line
  std::uint64_t values_not_kept = 0;  // values past kMaxValues (counted, not judged)
};

struct Input {
  std::vector<formats::Snapshot> snapshots;
  std::vector<SmokeRank> smoke;
  LogFacts logs;
  Launch launch;
};

struct Report {
  std::vector<std::string> nodes;
  std::vector<CheckResult> checks;
  Status status = Status::Skip;
  std::uint64_t files = 0;
  std::uint64_t values_not_kept = 0;  // LogFacts::values_not_kept
  std::vector<std::pair<std::string, std::string>> unreadable;  // path, reason
};

// Reads one text source into `in`: a snapshot (its first line says so) a line at a time up to its
// bound; any other text for the smoke test's lines and, through the parsers, the training-log facts.
// Returns the snapshot lines past the bound (0 for any other text).
std::uint64_t read_source(const ingest::Source& source, lines::LineReader& reader, Input& in);

Report run_checks(const Input& input);

std::string render_text(const Report& r, bool color = false);  // ANSI colours when `color`
std::string render_json(const Report& r);
std::string render_markdown(const Report& r);

}  // namespace dtriage::check
