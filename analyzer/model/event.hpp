// The normalized event: what every parser produces and every later stage consumes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "model/time.hpp"

namespace dtriage::model {

using Value = std::variant<std::int64_t, double, std::string, bool>;
// A field's value as text: numbers as printed, strings as they are, true / false.
std::string value_text(const Value& v);

// The log family a line came from. `None` = not known; named (kind_name) only when written out or
// matched against a rule's `kind:` list.
enum class Kind : std::uint8_t {
  None,
  Plog,       // CANN plog / device log header lines
  Cann,       // CANN error codes (EE8888, EI0002) outside a plog header
  TorchNpu,   // torch_npu's [ERROR] / [WARNING] lines
  Nccl,       // NCCL_DEBUG output
  Torch,      // PyTorch C++ (c10d, ProcessGroupNCCL / HCCL) lines
  Torchrun,   // the elastic launcher (torchrun, torch.distributed.run, the failure table)
  Python,     // Python tracebacks and logging
  NpuSmi,     // npu-smi info tables
  NvidiaSmi,  // nvidia-smi tables and queries
  Kernel,     // dmesg / journal kernel lines
  Snapshot,   // dtriage's own node snapshot
  Log,        // a timestamped line no parser knew (kept by a rule)
  Line,       // any other line (kept by a rule, or --all-lines)
};
inline constexpr int kKindCount = static_cast<int>(Kind::Line) + 1;
std::string_view kind_name(Kind k);                         // "plog", "npu-smi", "" for None
std::optional<Kind> kind_from_name(std::string_view name);  // nullopt: no such kind

// How severe the line says it is. `None` = the line said nothing this knows.
enum class Level : std::uint8_t { None, Trace, Debug, Info, Event, Warning, Error };
std::string_view level_name(Level l);  // "error", "" for None
std::optional<Level> level_from_name(std::string_view name);
// A log's own level word ("E", "ERROR", "CRITICAL", "W", "WARN", "INFO", "DEBUG", "event", ...):
// None when it is none of these.
Level level_from_word(std::string_view word);

struct Event {
  // Where it came from (evidence).
  std::string path;          // origin path, archive members as a.tar.gz!x/y
  std::uint64_t line = 0;    // 1-based line of the first line
  std::string text;          // the raw first line

  // What it is. Empty / nullopt = unknown.
  Kind kind = Kind::None;
  Level level = Level::None;
  std::string code;          // EE8888, EI0002, Xid-79, ...
  Time time;                 // ISO 8601 with the precision of the log, read once (model/time.hpp)
  std::string node;
  bool node_from_content = false;  // the node is a host the line itself names (not the file's path)
  // Made of one line in which the line gate found no literal (formats/gate.hpp): with no code, no
  // rule of a kind that needs a literal can match it, so the rules are not asked.
  bool quiet = false;
  std::string task;          // "srun task 3" (srun -l), "pod/NAME" (kubectl --prefix): one launcher's lines in a shared file
  std::optional<std::int64_t> pid;
  std::optional<std::int64_t> rank;
  std::optional<std::int64_t> local_rank;
  std::optional<std::int64_t> device;
  std::string message;       // the message without its prefix
  std::vector<std::string> body;  // continuation lines that belong to it (traceback, code block)
  std::uint64_t end_line = 0;     // last line of the event when it spans several
  // Lines the collector folded into this one: the same line again (same file, process, kind, code,
  // fields and rules; its text the same but for numbers), between the first copies kept and this,
  // the last (analysis/collector.hpp). The event stands for 1 + folded lines.
  std::uint64_t folded = 0;

  // Format-specific fields (nproc_per_node, exitcode, signal, op_type, seq, timeout_ms, ...).
  std::vector<std::pair<std::string, Value>> fields;

  // The line's time from the ISO text a parser wrote (`year_inferred`: its year came from elsewhere).
  void set_time(std::string iso, bool year_inferred = false) { time = Time::parse(std::move(iso), year_inferred); }
  void set(std::string key, Value v);
  const Value* get(std::string_view key) const;
  std::optional<std::int64_t> get_int(std::string_view key) const;
  std::string get_str(std::string_view key) const;
};

// A rank (or local rank) that a line names through its prefix ([rank3]:, [default3]:) or its file's
// path (attempt_0/3/stderr.log), whether or not the line became an event: that rank ran. Only the
// first line of each per file is kept, so the gate (which skips lines, never their prefixes) does
// not change what is seen.
struct Sighting {
  std::string path, node;
  std::optional<std::int64_t> rank, local_rank;
  std::uint64_t line = 0;
  // With no rank and no local rank: the file's quiet lines (no kept event: a worker's own prints
  // no parser knows, progress and loss lines, informational lines), `plain` of them, the last at
  // `line`.
  std::uint64_t plain = 0;
  // Its last progress print in the file (formats/progress.hpp; with no rank and no local rank,
  // the last of the file's lines that name none), at `line`: the step, of how many where it says,
  // the line's time where it has one, its text.
  std::optional<std::int64_t> step, steps;
  std::uint64_t first_step_line = 0;  // its first progress print in the file (under `task`)
  std::string task;  // the launcher of the progress print's lines in a shared file (Event::task)
  Time step_time;
  std::string step_text;
};

// The order every stage uses for "first": dated events before undated ones, then by time, path, line.
bool earlier(const Event& a, const Event& b);

// One JSON object on one line (dtriage events --format jsonl), appended to `out` with '\n'.
void append_jsonl(std::string& out, const Event& e);

}  // namespace dtriage::model
