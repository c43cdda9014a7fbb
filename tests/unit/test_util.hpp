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
// The JSON report of an analysis, as `dtriage analyze --format json` writes it.
std::string json_report(const analysis::Analysis& a);
// The "verdict" object of that report, for `path`.
nlohmann::json verdict_of(const std::string& path);

std::string read_file(const std::string& path);
bool exists(const std::string& path);
// The ../shared/corpus folder beside the checkout, or "" when absent (tests then skip).
std::string corpus_dir();

}  // namespace dtriage::test
