// The sub-commands, each in a file of its own; cli.cpp parses the command line, validates it into
// a Config and calls one of them. Each returns the process exit code (docs/CONTRACT.md: 0 done, 1 some
// input unreadable, 2 usage error or nothing readable, 3 a pre-launch check failed).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/analysis.hpp"
#include "base/inventory.hpp"
#include "batch/scan.hpp"
#include "cli/output.hpp"
#include "formats/pipeline.hpp"
#include "ingest/ingest.hpp"

namespace dtriage::cli {

inline constexpr const char* kVersion = "0.1.0";

// The flags of analyze, scan, events, rules and check, validated.
struct Config {
  std::vector<std::string> paths;
  std::string format;
  std::string output;
  analysis::Options analysis;              // limits, line length, gate, threads
  ingest::NodeHints hints;
  formats::ParseOptions parse;             // events: --all-lines, --raw
  std::vector<std::string> rules_dirs;     // pack first, then --rules
  std::string color;
  bool redact = false;
  bool ci = false;                         // analyze --ci: the verdict in the exit code
  std::string node_pattern;                // --node-from-path, to build hints per job (scan)
  std::string baseline;                    // analyze --baseline GOOD: a run that worked
  unsigned context = 0;                    // analyze -C N: lines around each evidence line
  bool full = false;                       // analyze --full: evidence uncut, every line of it
};

// ---- helpers every command shares (cli.cpp) ----
// Opens -o (or stdout); false after saying why on stderr.
bool open_output(Output& out, const std::string& path, bool append = false);
// Flushes and closes the output; false (after saying why) when it could not all be written.
bool finish_output(Output& out);
// --color: "always", "never" or "auto" (a terminal, unless NO_COLOR is set).
bool use_color(const std::string& setting, const Output& out);
// Loads and compiles the rules of config.rules_dirs; rule problems said on stderr with `prefix`.
std::optional<analysis::RuleBook> load_rules(const Config& config, const char* prefix = "dtriage: rule problem: ");
// Every unreadable and skipped input, one line each on stderr.
void print_problems(const base::Inventory& inv);
// A report format from the name of the file it goes to (.json, .md / .markdown, .html / .htm,
// .txt / .text / .log); "" when the name says none.
std::string format_of_file(const std::string& path);
// 0 done, 1 some input unreadable, 2 nothing readable.
int exit_code(bool read_anything, const base::Inventory& inv);
// analyze --ci: 3 when the verdict is failed, 4 when inconclusive (after 1 and 2, which win).
inline constexpr int kExitVerdictFailed = 3;
inline constexpr int kExitVerdictInconclusive = 4;

// ---- the commands ----
int cmd_analyze(Config& config);                                          // analyze_cmd.cpp
int cmd_diff(Config& config);                                             // diff_cmd.cpp
int cmd_events(Config& config);                                           // analyze_cmd.cpp
int cmd_scan(Config& config, batch::ScanSettings settings, bool resume, const std::string& summary);  // results_cmd.cpp
int cmd_summary(const std::vector<std::string>& files, const std::string& format, const std::string& output,
                const batch::SummaryOptions& options = {});
// Now, ISO 8601 UTC to the second; SOURCE_DATE_EPOCH (the reproducible-builds convention) when set.
std::string analysis_time();
int cmd_merge(const std::vector<std::string>& files, const std::string& output);
int cmd_rules(const std::string& action, const Config& config, const std::string& id);  // rules_cmd.cpp

// tools/dtriage-snapshot.sh, as built into the binary.
std::string_view snapshot_script();

struct CheckArgs {
  std::vector<std::string> paths;
  std::string launch;              // --launch "torchrun ..."
  std::string format = "text";     // text, json, markdown
  std::string output;              // -o
  std::size_t max_line = 0;
  ingest::Limits limits;
  ingest::NodeHints hints;
  bool redact = false;             // --redact
  std::string color = "auto";      // --color
};

// `dtriage check`: the six pre-launch checks over snapshots, smoke-test output and training logs.
// Exit code: 0 no check failed, 3 a check failed, 1 some input unreadable (and none failed),
// 2 usage error or nothing readable.
inline constexpr int kExitCheckFailed = 3;
int cmd_check(CheckArgs& args);

}  // namespace dtriage::cli
