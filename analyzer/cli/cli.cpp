// The command line: flags parsed and validated into a Config, then one sub-command called. The
// commands live in analyze_cmd.cpp, results_cmd.cpp, rules_cmd.cpp and check_cmd.cpp; the work they
// do lives in the stages (analysis::analyze, batch::scan, report::render_*).
#include "cli/cli.hpp"

#include <CLI/CLI.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "base/sentences.hpp"
#include "base/text.hpp"
#include "cli/commands.hpp"
#include "rules/loader.hpp"

namespace dtriage::cli {

bool open_output(Output& out, const std::string& path, bool append) {
  auto opened = Output::open(path, append);
  if (!opened) {
    std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::OutputCannotWrite, {{"what", opened.error()}}).c_str());
    return false;
  }
  out = std::move(opened).value();
  return true;
}

bool finish_output(Output& out) {
  if (auto done = out.finish(); !done) {
    std::fprintf(stderr, "dtriage: %s\n", done.error().c_str());
    return false;
  }
  return true;
}

std::optional<analysis::RuleBook> load_rules(const Config& config, const char* prefix) {
  auto book = analysis::RuleBook::load(config.rules_dirs);
  if (!book) {
    std::fprintf(stderr, "dtriage: %s\n", book.error().c_str());
    return std::nullopt;
  }
  for (const auto& p : book->set.problems) std::fprintf(stderr, "%s%s: %s\n", prefix, p.where.c_str(), p.message.c_str());
  return std::move(book.value());
}

void print_problems(const base::Inventory& inv) {
  for (const auto& p : inv.unreadable)
    std::fprintf(stderr, "dtriage: %s: %s\n", base::visible(p.path).c_str(), base::visible(p.reason).c_str());
  for (const auto& p : inv.skipped)
    std::fprintf(stderr, "dtriage: %s\n",
                 base::say(base::Say::InputSkipped, {{"path", base::visible(p.path)}, {"reason", base::visible(p.reason)}}).c_str());
}

int exit_code(bool read_anything, const base::Inventory& inv) {
  if (!read_anything) return 2;
  return inv.unreadable.empty() ? 0 : 1;
}

// A report format from the name of the file it goes to (report.html, report.md, report.json), as
// `scan --summary` does; "" when the name says none.
std::string format_of_file(const std::string& path) {
  const auto dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return "";
  std::string ext = path.substr(dot + 1);
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (ext == "json") return "json";
  if (ext == "md" || ext == "markdown") return "markdown";
  if (ext == "html" || ext == "htm") return "html";
  if (ext == "txt" || ext == "text" || ext == "log") return "text";
  return "";
}

namespace {

// ---- raw flags (what the user typed) -------------------------------------------------------
struct RawArgs {
  std::vector<std::string> paths;
  std::string format;
  std::string output;
  std::string max_line = "1M";
  std::string max_total = "64G";
  std::string max_event_memory = "128M";
  double max_ratio = 1000.0;
  int zstd_window_log_max = 27;
  bool follow_outside_links = false;
  std::string node_from_path;
  bool all_lines = false;
  bool raw = false;
  std::vector<std::string> rules_dirs;
  bool no_default_rules = false;
  std::string color = "auto";
  bool redact = false;
  bool json = false;  // analyze --json
  bool ci = false;    // analyze --ci
  bool no_gate = false;
  unsigned jobs = 0;  // analyze: files in parallel; scan: jobs in parallel (0 = one per core)
  std::string baseline;  // analyze --baseline GOOD
  unsigned context = 0;  // analyze -C N
  bool full = false;     // analyze --full
};

// "1048576", "64K", "1M", "2G", "1T" (binary multiples).
std::optional<std::uint64_t> parse_size(const std::string& s) {
  if (s.empty()) return std::nullopt;
  std::size_t pos = 0;
  std::uint64_t v = 0;
  try {
    v = std::stoull(s, &pos);
  } catch (...) {
    return std::nullopt;
  }
  std::string unit = s.substr(pos);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  if (!unit.empty() && (unit.back() == 'i')) unit.pop_back();
  int shift = 0;
  if (unit.empty()) shift = 0;
  else if (unit == "K" || unit == "k") shift = 10;
  else if (unit == "M" || unit == "m") shift = 20;
  else if (unit == "G" || unit == "g") shift = 30;
  else if (unit == "T" || unit == "t") shift = 40;
  else return std::nullopt;
  if (shift > 0 && v > (~0ull >> shift)) return std::nullopt;
  return v << shift;
}

// The format of a report: --format, else --json, else -o's extension, else text. `formats` are
// those the command writes.
base::Result<std::string> report_format(const RawArgs& raw, const std::vector<std::string>& formats) {
  if (raw.json && !raw.format.empty() && raw.format != "json")
    return base::err("--json and --format " + raw.format + " disagree; give one of them");
  if (!raw.format.empty()) return raw.format;
  if (raw.json) return std::string("json");
  const std::string f = format_of_file(raw.output);
  if (!f.empty() && std::find(formats.begin(), formats.end(), f) != formats.end()) return f;
  return std::string("text");
}

base::Result<Config> validate(const RawArgs& raw) {
  Config c;
  // A path that is not there is a mistake in the command, not input to report on.
  for (const std::string& p : raw.paths) {
    struct stat st {};
    if (p != "-" && ::lstat(p.c_str(), &st) != 0)
      return base::err(base::say(base::Say::CliNothingAnalysed, {{"path", base::visible(p)}, {"reason", std::strerror(errno)}}));
  }
  c.paths = raw.paths;
  c.format = raw.format;
  c.output = raw.output;
  const auto max_line = parse_size(raw.max_line);
  if (!max_line || *max_line == 0 || *max_line > (1ull << 30))
    return base::err("--max-line-bytes: expected a size from 1 to 1G such as 4096 or 1M, got '" + raw.max_line + "'");
  c.analysis.max_line = static_cast<std::size_t>(*max_line);
  const auto total = parse_size(raw.max_total);
  if (!total || *total == 0) return base::err("--max-total-bytes: expected a size such as 64G, got '" + raw.max_total + "'");
  const auto event_memory = parse_size(raw.max_event_memory);
  if (!event_memory || *event_memory < (1ull << 20))
    return base::err("--max-event-memory: expected a size of at least 1M such as 128M, got '" + raw.max_event_memory + "'");
  c.analysis.max_event_bytes = *event_memory;
  ingest::Limits& limits = c.analysis.limits;
  limits.max_total_bytes = *total;
  if (!(raw.max_ratio >= 1.0)) return base::err("--max-ratio: expected a number >= 1");
  limits.max_ratio = raw.max_ratio;
  limits.zstd_window_log_max = raw.zstd_window_log_max;
  limits.follow_outside_links = raw.follow_outside_links;
  if (!raw.node_from_path.empty()) {
    auto hints = ingest::NodeHints::from_pattern(raw.node_from_path);
    if (!hints) return base::err(hints.error());
    c.hints = std::move(hints.value());
    c.node_pattern = raw.node_from_path;
  }
  if (!raw.no_default_rules) c.rules_dirs.push_back(rules::default_rules_dir());
  for (const auto& d : raw.rules_dirs) c.rules_dirs.push_back(d);
  c.color = raw.color;
  c.redact = raw.redact;
  c.ci = raw.ci;
  c.baseline = raw.baseline;
  c.context = raw.context;
  c.full = raw.full;
  if (!c.baseline.empty() && (c.baseline == "-" || std::find(c.paths.begin(), c.paths.end(), "-") != c.paths.end()))
    return base::err("--baseline reads each side twice: give files or folders, not - (standard input)");
  c.parse.all_lines = raw.all_lines;
  c.parse.raw = raw.raw;
  c.analysis.gate = !raw.no_gate;
  c.analysis.threads = raw.jobs != 0 ? raw.jobs : std::max(1u, std::thread::hardware_concurrency());
  return c;
}

// ---- the flags of each command --------------------------------------------------------------
void add_input_options(CLI::App& cmd, RawArgs& raw) {
  cmd.add_option("paths", raw.paths,
                 "Files, directories, archives (tar, zip, gz, bz2, xz, zst, nested) or - for stdin")
      ->required();
  cmd.add_option("--max-line-bytes", raw.max_line,
                 "Cut lines longer than this (default 1M); cut lines are counted");
  cmd.add_option("--max-total-bytes", raw.max_total,
                 "Stop after reading this much decoded text over the whole run (default 64G)");
  cmd.add_option("--max-event-memory", raw.max_event_memory,
                 "Memory for the events kept over the whole run (default 128M); events past it are counted, not kept");
  cmd.add_flag("--follow-outside-links", raw.follow_outside_links,
               "Read symlinks that lead out of the folder given (skipped by default, listed in inputs.skipped)");
  cmd.add_option("--zstd-window-log-max", raw.zstd_window_log_max,
                 "Refuse zstd frames whose window needs more than 2^N bytes of memory (default 27, as the zstd tool)")
      ->check(CLI::Range(10, 31));
  cmd.add_option("--max-ratio", raw.max_ratio,
                 "Stop reading a compressed input that expands more than this many times (default 1000)");
  cmd.add_option("--node-from-path", raw.node_from_path,
                 "RE2 pattern searched in each file's path; group 1 (or the match) names its node");
  cmd.add_option("-o,--output", raw.output, "Write to this file instead of standard output");
}

void add_gate_option(CLI::App& cmd, RawArgs& raw) {
  cmd.add_flag("--no-gate", raw.no_gate,
               "Parse every line, even those the line gate knows hold nothing a parser or rule uses (slower; same result)");
}

void add_rules_options(CLI::App& cmd, RawArgs& raw) {
  cmd.add_option("--rules", raw.rules_dirs, "Also load rules from this directory (repeatable)");
  cmd.add_flag("--no-default-rules", raw.no_default_rules, "Do not load the installed rule pack");
}

CLI::App* add_diff(CLI::App& app, RawArgs& raw) {
  CLI::App* cmd = app.add_subcommand("diff", "What changed between a run that worked (GOOD) and one that failed (BAD): configuration, new messages, progress");
  add_input_options(*cmd, raw);
  add_gate_option(*cmd, raw);
  cmd->add_option("-j,--jobs", raw.jobs, "Files read in parallel (default: one per core)")->check(CLI::Range(1u, 1024u));
  cmd->add_option("--format", raw.format, "text, json, markdown or html (default: from -o's extension, else text)")
      ->check(CLI::IsMember({"text", "json", "markdown", "html"}));
  cmd->add_flag("--json", raw.json, "The same as --format json");
  cmd->add_flag("--redact", raw.redact, "Mask identities in both runs (hosts as node#1, host#1, IP addresses, users, secrets); keep what changed");
  add_rules_options(*cmd, raw);
  return cmd;
}

CLI::App* add_analyze(CLI::App& app, RawArgs& raw) {
  CLI::App* cmd = app.add_subcommand("analyze", "Name the root cause of one failed job");
  add_input_options(*cmd, raw);
  add_gate_option(*cmd, raw);
  cmd->add_option("-j,--jobs", raw.jobs, "Files read in parallel (default: one per core); the report is the same for any number")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--format", raw.format, "text, json, markdown or html (default: from -o's extension, else text)")
      ->check(CLI::IsMember({"text", "json", "markdown", "html"}));
  cmd->add_flag("--json", raw.json, "The same as --format json");
  cmd->add_flag("--ci", raw.ci, "The verdict in the exit code: 0 healthy, 3 failed, 4 inconclusive (1 and 2 as always)");
  cmd->add_option("--baseline", raw.baseline, "A run of the same job that worked: the report adds what changed since (as dtriage diff GOOD BAD)");
  cmd->add_flag("--redact", raw.redact, "Mask identities (hosts as node#1, host#1, IP addresses, users, secrets); keep what the lines mean");
  cmd->add_option("-C,--context", raw.context,
                  "Show N lines before and after each evidence line (read again from the inputs; not from standard input)")
      ->check(CLI::Range(0u, 100u));
  cmd->add_flag("--full", raw.full, "Every evidence line, none cut to the terminal's width");
  add_rules_options(*cmd, raw);
  cmd->add_option("--color", raw.color, "auto (default), always or never; NO_COLOR is honoured")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  return cmd;
}

struct ScanFlags {
  RawArgs raw;
  bool quiet = false, resume = false;
  double job_timeout = 0;
  std::string shard, summary, reports, report_format = "html", baseline;
};

CLI::App* add_scan(CLI::App& app, ScanFlags& f) {
  f.raw.format = "jsonl";
  CLI::App* cmd = app.add_subcommand("scan", "Analyze many jobs: each entry below ROOT is one job; one line per job");
  add_input_options(*cmd, f.raw);
  add_gate_option(*cmd, f.raw);
  cmd->add_option("--format", f.raw.format, "jsonl (default) or text")->check(CLI::IsMember({"jsonl", "text"}));
  cmd->add_option("-j,--jobs", f.raw.jobs, "Jobs analysed in parallel (default: one per core)");
  add_rules_options(*cmd, f.raw);
  cmd->add_flag("--redact", f.raw.redact, "Mask identities in every line (job names as job-HASH, the same in every shard and run)");
  cmd->add_flag("-q,--quiet", f.quiet, "No progress line on stderr (it is shown only when stderr is a terminal)");
  cmd->add_flag("--resume", f.resume, "Skip the jobs already in -o FILE (a killed scan goes on where it stopped)");
  cmd->add_option("--job-timeout", f.job_timeout, "Seconds one job may take to read; past it the job is an error line")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--shard", f.shard, "K/N: scan only the K-th of N shares of the jobs (0 <= K < N), e.g. a Slurm array task");
  cmd->add_option("--summary", f.summary, "Also write the summary of the jobs here (.html, .md, .json, else text)");
  cmd->add_option("--reports", f.reports, "Write each job's own report into this folder (named after the job; the summary links to them)");
  cmd->add_option("--baseline", f.baseline, "A folder of runs that worked: each job is compared (as dtriage diff) with the entry of its name there");
  cmd->add_option("--report-format", f.report_format, "html (default), markdown or both: the reports --reports writes")
      ->check(CLI::IsMember({"html", "markdown", "both"}));
  return cmd;
}

struct ResultFlags {
  std::vector<std::string> files;
  std::string format = "text", output, since, until;
};

CLI::App* add_summary(CLI::App& app, ResultFlags& f) {
  CLI::App* cmd = app.add_subcommand("summary", "What kills the jobs: results of scans grouped by root cause");
  cmd->add_option("results", f.files, "JSON-lines files written by dtriage scan")->required();
  cmd->add_option("--format", f.format, "text (default), json, markdown or html")
      ->check(CLI::IsMember({"text", "json", "markdown", "html"}));
  cmd->add_option("-o,--output", f.output, "Write to this file instead of standard output");
  cmd->add_option("--since", f.since, "Only jobs of this day or later (YYYY-MM-DD; a job's day is from its logs, else its files)");
  cmd->add_option("--until", f.until, "Only jobs of this day or earlier (YYYY-MM-DD)");
  return cmd;
}

CLI::App* add_merge(CLI::App& app, ResultFlags& f) {
  CLI::App* cmd = app.add_subcommand("merge", "Join the outputs of scan shards: one line per job, in name order");
  cmd->add_option("results", f.files, "JSON-lines files written by dtriage scan --shard")->required();
  cmd->add_option("-o,--output", f.output, "Write to this file instead of standard output");
  return cmd;
}

CLI::App* add_rules(CLI::App& app, RawArgs& raw, std::string& action, std::string& id) {
  CLI::App* cmd = app.add_subcommand("rules", "List, show, test or lint the rules");
  cmd->add_option("action", action, "list, show ID, test, lint, fields, patterns (the event rules' regexes, for rg -f), literals or coverage [SOURCE]")
      ->required()
      ->check(CLI::IsMember({"list", "show", "test", "lint", "fields", "patterns", "literals", "coverage"}));
  cmd->add_option("id", id, "Rule id (for show), catalogue source (for coverage)");
  add_rules_options(*cmd, raw);
  return cmd;
}

CLI::App* add_events(CLI::App& app, RawArgs& raw) {
  raw.format = "jsonl";
  CLI::App* cmd = app.add_subcommand("events", "Print the normalized events of the inputs");
  add_input_options(*cmd, raw);
  cmd->add_option("--format", raw.format, "jsonl (default) or text")->check(CLI::IsMember({"jsonl", "text"}));
  cmd->add_flag("--all-lines", raw.all_lines, "Also print lines no parser recognised (kind \"line\")");
  cmd->add_flag("--raw", raw.raw, "Do not parse: one event per line with its path, line and text");
  cmd->add_flag("--redact", raw.redact, "Mask host names, IP addresses, user names and secrets (hosts learned as the lines go)");
  return cmd;
}

CLI::App* add_check(CLI::App& app, RawArgs& raw, std::string& launch) {
  CLI::App* cmd = app.add_subcommand(
      "check", "Before a launch: the six multi-node checks over node snapshots, smoke-test output and training logs");
  add_input_options(*cmd, raw);
  cmd->add_option("--launch", launch, "The launch command, e.g. \"torchrun --nnodes 2 --nproc_per_node 8 train.py\"");
  cmd->add_option("--format", raw.format, "text, json or markdown (default: from -o's extension, else text)")
      ->check(CLI::IsMember({"text", "json", "markdown"}));
  cmd->add_flag("--json", raw.json, "The same as --format json");
  cmd->add_flag("--redact", raw.redact, "Mask host names, IP addresses, user names and secrets");
  cmd->add_option("--color", raw.color, "auto (default), always or never; NO_COLOR is honoured")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  return cmd;
}

// ---- "did you mean" ---------------------------------------------------------------------------
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The candidate nearest to `word` when it is near enough to be a typo of it (or starts it), else "".
std::string closest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const std::string& c : candidates) {
    const std::size_t d = c.rfind(word, 0) == 0 && word.size() >= 3 ? 1 : edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

CLI::App* subcommand_named(CLI::App& app, const std::string& name) {
  for (CLI::App* sub : app.get_subcommands({}))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The index of the command's name in argv: the first word that is not an option, past a leading
// --lang and its value; argc when there is none.
int command_word(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--lang") ++i;
    else if (a.empty() || a[0] != '-') return i;
  }
  return argc;
}

// The language usage errors are said in, before the command line is parsed: its --lang (before or
// after the command), else the environment's.
base::Lang early_language(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    std::string_view value;
    if (a == "--lang" && i + 1 < argc) value = argv[i + 1];
    else if (a.rfind("--lang=", 0) == 0) value = a.substr(7);
    if (!value.empty())
      if (const auto l = base::parse_language(std::string(value))) return *l;
  }
  return base::language_from_environment();
}

// After a parse error: for each --option the command line gave that the command does not have,
// the nearest one it has, said (one line each); false when there was none to say.
bool say_closest_options(CLI::App& app, int argc, char** argv) {
  CLI::App* cmd = &app;
  for (CLI::App* sub : app.get_subcommands())
    if (sub->parsed()) cmd = sub;
  const int word = command_word(argc, argv);
  if (cmd == &app && word < argc) cmd = subcommand_named(app, argv[word]);
  if (cmd == nullptr) return false;
  std::vector<std::string> names;
  for (const CLI::Option* o : cmd->get_options())
    for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
  bool said = false;
  for (int i = word + 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0 || a.size() < 3) continue;
    a = a.substr(0, a.find('='));
    if (std::find(names.begin(), names.end(), a) != names.end()) continue;
    if (const std::string near = closest(a, names); !near.empty()) {
      std::fprintf(stderr, "dtriage: %s\n",
                   base::say(base::Say::CliNoSuchOption, {{"command", cmd->get_name()}, {"option", base::visible(a)}, {"near", near}}).c_str());
      said = true;
    }
  }
  return said;
}

// ---- dispatch -------------------------------------------------------------------------------
int run_scan(ScanFlags& f, Config& config) {
  batch::ScanSettings s;
  s.jobs = f.raw.jobs;
  // A number of seconds a clock can add (1e10 s would wrap steady_clock's nanoseconds); nan is none.
  if (!(f.job_timeout >= 0 && f.job_timeout <= 1e8)) {
    std::fprintf(stderr, "dtriage: --job-timeout: expected seconds from 0 to 100000000, got '%g'\n", f.job_timeout);
    return 2;
  }
  s.job_timeout = f.job_timeout;
  s.progress = !f.quiet && isatty(fileno(stderr)) != 0;
  s.say_resumed = f.resume && !f.quiet;
  if (!f.shard.empty()) {
    const auto shard = batch::parse_shard(f.shard);
    if (!shard) {
      std::fprintf(stderr, "dtriage: %s\n", shard.error().c_str());
      return 2;
    }
    s.shard = shard.value();
  }
  s.reports_dir = f.reports;
  s.baseline_root = f.baseline;
  if (f.report_format == "both") s.report_formats = {"html", "markdown"};
  else s.report_formats = {f.report_format};
  s.say_end = !f.quiet;
  return cmd_scan(config, std::move(s), f.resume, f.summary);
}

int run_check(Config& config, const std::string& launch) {
  CheckArgs args;
  args.paths = config.paths;
  args.launch = launch;
  args.format = config.format;
  args.output = config.output;
  args.max_line = config.analysis.max_line;
  args.limits = config.analysis.limits;
  args.hints = std::move(config.hints);
  args.redact = config.redact;
  args.color = config.color;
  return cmd_check(args);
}

int run_checked(int argc, char** argv) {
  // Named, so that usage lines say "dtriage" whatever path (or emulator) started it.
  CLI::App app{"dtriage: post-mortem analyzer for failed distributed training jobs", "dtriage"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  RawArgs analyze_raw, rules_raw, events_raw, check_raw, diff_raw;
  ScanFlags scan_flags;
  ResultFlags summary_flags, merge_flags;
  std::string rule_action, rule_id, check_launch;
  CLI::App* analyze = add_analyze(app, analyze_raw);
  CLI::App* diff = add_diff(app, diff_raw);
  CLI::App* scan = add_scan(app, scan_flags);
  CLI::App* summary = add_summary(app, summary_flags);
  CLI::App* merge = add_merge(app, merge_flags);
  CLI::App* rules_cmd = add_rules(app, rules_raw, rule_action, rule_id);
  add_events(app, events_raw);  // the command left when no other was given
  CLI::App* check = add_check(app, check_raw, check_launch);
  CLI::App* script = app.add_subcommand(
      "snapshot-script", "Print the node snapshot collector (bash): run it on every node, then `dtriage check` the files");
  // --lang on every command (before or after its name): en or zh; by default LC_ALL / LC_MESSAGES / LANG.
  std::string lang;
  const char* lang_help = "Language of what is said for people: en or zh (default: from LC_ALL / LC_MESSAGES / LANG)";
  app.add_option("--lang", lang, lang_help);
  for (CLI::App* sub : app.get_subcommands({})) sub->add_option("--lang", lang, lang_help);
  base::set_default_language(early_language(argc, argv));  // for usage errors; --lang is checked below
  // A command that is not one: say which is closest, rather than "a subcommand is required".
  if (const int word = command_word(argc, argv); word < argc && subcommand_named(app, argv[word]) == nullptr) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    const std::string near = closest(argv[word], names);
    const std::string w = base::visible(argv[word]);
    std::fprintf(stderr, "dtriage: %s\n",
                 (near.empty() ? base::say(base::Say::CliNotACommand, {{"word", w}, {"commands", join(names)}})
                               : base::say(base::Say::CliNotACommandNear, {{"word", w}, {"near", near}, {"commands", join(names)}}))
                     .c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // help and version
    // An option near one the command has: that, in the user's language, rather than CLI11's words.
    if (say_closest_options(app, argc, argv)) return 2;
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {  // "The following argument(s) was/were not expected: A B"
      const std::string m = e.what();
      const std::size_t colon = m.find(": ");
      std::fprintf(stderr, "dtriage: %s\n%s\n",
                   base::say(base::Say::CliNotExpected, {{"args", base::visible(colon == std::string::npos ? m : m.substr(colon + 2))}}).c_str(),
                   base::say(base::Say::CliUsageHint).c_str());
      return 2;
    }
    app.exit(e);
    std::fprintf(stderr, "%s\n", base::say(base::Say::CliUsageHint).c_str());
    return 2;
  }
  if (lang.empty()) {
    base::set_default_language(base::language_from_environment());
  } else if (const std::optional<base::Lang> l = base::parse_language(lang)) {
    base::set_default_language(*l);
  } else {
    std::fprintf(stderr, "dtriage: --lang wants en or zh, not '%s'\n", base::visible(lang).c_str());
    return 2;
  }
  for (auto [cmd, raw, formats] : {std::tuple{analyze, &analyze_raw, std::vector<std::string>{"text", "json", "markdown", "html"}},
                                   std::tuple{diff, &diff_raw, std::vector<std::string>{"text", "json", "markdown", "html"}},
                                   std::tuple{check, &check_raw, std::vector<std::string>{"text", "json", "markdown"}}}) {
    if (!cmd->parsed()) continue;
    const auto format = report_format(*raw, formats);
    if (!format) {
      std::fprintf(stderr, "dtriage: %s\n", format.error().c_str());
      return 2;
    }
    raw->format = format.value();
  }

  if (summary->parsed()) {
    for (const std::string* d : {&summary_flags.since, &summary_flags.until})
      if (!d->empty() && batch::iso_week(*d).empty()) {
        std::fprintf(stderr, "dtriage: --since / --until want a day as YYYY-MM-DD, not '%s'\n", d->c_str());
        return 2;
      }
    return cmd_summary(summary_flags.files, summary_flags.format, summary_flags.output, {summary_flags.since, summary_flags.until});
  }
  if (merge->parsed()) return cmd_merge(merge_flags.files, merge_flags.output);
  if (script->parsed()) {
    const std::string_view text = snapshot_script();
    return std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0 ? 0 : 2;
  }
  if (rules_cmd->parsed()) rules_raw.paths = {"-"};
  RawArgs& raw = check->parsed()       ? check_raw
                 : rules_cmd->parsed() ? rules_raw
                 : scan->parsed()      ? scan_flags.raw
                 : analyze->parsed()   ? analyze_raw
                 : diff->parsed()      ? diff_raw
                                       : events_raw;
  auto config = validate(raw);
  if (!config) {
    std::fprintf(stderr, "dtriage: %s\n", config.error().c_str());
    return 2;
  }
  if (check->parsed()) return run_check(*config, check_launch);
  if (rules_cmd->parsed()) return cmd_rules(rule_action, *config, rule_id);
  if (scan->parsed()) return run_scan(scan_flags, *config);
  if (analyze->parsed()) return cmd_analyze(*config);
  if (diff->parsed()) return cmd_diff(*config);
  return cmd_events(*config);
}

}  // namespace

int run(int argc, char** argv) {
  try {
    return run_checked(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "dtriage: out of memory\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dtriage: internal error: %s\n", e.what());
  }
  return 2;
}

}  // namespace dtriage::cli
