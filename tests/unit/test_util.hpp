// Helpers shared by the unit tests: temporary directories, running dtriage, collecting events.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/analysis.hpp"

#include "base/inventory.hpp"
#include "ingest/ingest.hpp"
#include "model/event.hpp"
#include "report/report.hpp"

namespace dtriage::test {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& rel) const { return path_ + "/" + rel; }
  // Writes `content` to `rel` (creating directories); returns the full path.
  std::string write(const std::string& rel, const std::string& content) const;

 private:
  std::string path_;
};

// Runs a shell command; returns its exit status (-1 when it could not run).
int sh(const std::string& command);

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Runs the dtriage binary with `args` (already shell-quoted where needed).
RunResult run_dtriage(const std::string& args, const std::string& stdin_file = "");

struct Collected {
  std::vector<model::Event> events;
  base::Inventory inventory;
  bool read_anything = false;
};
// Ingests `paths` in-process, one event per line (no parsers), as `dtriage events --all-lines`.
Collected collect_lines(const std::vector<std::string>& paths, ingest::Limits limits = {},
                        std::size_t max_line = 1 << 20);
// Ingests and parses `paths` in-process, as `dtriage events`.
Collected collect_events(const std::vector<std::string>& paths);

// The source tree's rule pack, loaded once per test process.
const analysis::RuleBook& rule_pack();
// `dtriage analyze PATH`, in-process (one thread unless `options` says otherwise).
std::unique_ptr<analysis::Analysis> analyze_path(const std::string& path, const analysis::Options& options = {});
// The report of an analysis made with `book`, as `dtriage analyze` builds it before rendering.
report::Report report_view(const analysis::Analysis& a, const analysis::RuleBook& book = rule_pack());
// The JSON report of an analysis, as `dtriage analyze --format json` writes it.
std::string json_report(const analysis::Analysis& a, const analysis::RuleBook& book = rule_pack());
// The "verdict" object of that report, for `path`.
nlohmann::json verdict_of(const std::string& path);
// The exit code `dtriage analyze` gives after this analysis (cli::exit_code: 0 all read, 1 some
// input unreadable, 2 nothing readable).
int exit_code_of(const analysis::Analysis& a);
// `dtriage analyze --format json PATH`, in-process: the report, parsed; `exit_code` as the command's.
nlohmann::json analyze_report(const std::string& path, int* exit_code = nullptr);
// `dtriage events PATHS` (JSON lines, one event a line), in-process; `exit_code` as the command's.
std::string events_jsonl(const std::vector<std::string>& paths, int* exit_code = nullptr);

std::string read_file(const std::string& path);
bool exists(const std::string& path);
// The ../shared/corpus folder beside the checkout, or "" when absent (tests then skip).
std::string corpus_dir();

// Builds that run 5-30 times slower (sanitizers: a Debug build; qemu-user): tests that go over
// every lab job (a thousand and growing) take one in kSlowBuildShare of them there, chosen by a hash
// of the job's folder name (the same whatever else the folder holds); the dev build takes them all.
#if defined(DTRIAGE_SANITIZED) || defined(DTRIAGE_EMULATED)
inline constexpr unsigned kSlowBuildShare = 4;
#else
inline constexpr unsigned kSlowBuildShare = 1;
#endif
bool in_this_builds_share(const std::string& name);

// The head of an `npu-smi info` table of a 910B host, down to the first device row.
inline constexpr const char* kNpuSmi910Header =
      "+------------------------------------------------------------------------------------------------+\n"
      "| npu-smi 23.0.6                   Version: 23.0.6                                               |\n"
      "+---------------------------+---------------+----------------------------------------------------+\n"
      "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|\n"
      "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |\n"
      "+===========================+===============+====================================================+\n";

}  // namespace dtriage::test
