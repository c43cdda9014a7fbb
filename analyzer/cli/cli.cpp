#include "cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <re2/re2.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <cstdlib>
#include <map>
#include <set>
#include <memory>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "base/inventory.hpp"
#include "base/text.hpp"
#include "correlate/facts.hpp"
#include "model/fields.hpp"
#include <span>
#include "report/report.hpp"
#include "rules/engine.hpp"
#include "rules/loader.hpp"
#include "batch/batch.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "formats/pipeline.hpp"
#include "ingest/decompress.hpp"
#include "ingest/ingest.hpp"
#include "lines/line_reader.hpp"

namespace dtriage::cli {
namespace {

// Flushes and closes the output; false (after saying why) when it could not all be written.
bool finish_output(Output& out) {
  if (const std::string err = out.finish(); !err.empty()) {
    std::fprintf(stderr, "dtriage: %s\n", err.c_str());
    return false;
  }
  return true;
}


constexpr const char* kVersion = "0.1.0";

// ---- raw flags (what the user typed) -------------------------------------------------------
struct RawArgs {
  std::vector<std::string> paths;
  std::string format;
  std::string output;
  std::string max_line = "1M";
  std::string max_total = "64G";
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
  bool no_gate = false;
};

// ---- validated configuration ---------------------------------------------------------------
struct Config {
  std::vector<std::string> paths;
  std::string format;
  std::string output;
  std::size_t max_line = lines::LineReader::kDefaultMaxLine;
  ingest::Limits limits;
  ingest::NodeHints hints;
  formats::ParseOptions parse;
  std::vector<std::string> rules_dirs;  // pack first, then --rules
  std::string color;
  bool redact = false;
  std::string node_pattern;  // --node-from-path, to build hints per job (scan)
  unsigned jobs = 0;         // scan: parallel jobs, 0 = one per core
  bool gate = true;          // analyze / scan: skip lines nothing can use (formats/gate.hpp)
  unsigned threads = 1;      // analyze: files read in parallel
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

std::optional<Config> validate(const RawArgs& raw, std::string& error) {
  Config c;
  c.paths = raw.paths;
  c.format = raw.format;
  c.output = raw.output;
  const auto max_line = parse_size(raw.max_line);
  if (!max_line || *max_line == 0 || *max_line > (1ull << 30)) {
    error = "--max-line-bytes: expected a size from 1 to 1G such as 4096 or 1M, got '" + raw.max_line + "'";
    return std::nullopt;
  }
  c.max_line = static_cast<std::size_t>(*max_line);
  const auto total = parse_size(raw.max_total);
  if (!total || *total == 0) {
    error = "--max-total-bytes: expected a size such as 64G, got '" + raw.max_total + "'";
    return std::nullopt;
  }
  c.limits.max_total_bytes = *total;
  if (!(raw.max_ratio >= 1.0)) {
    error = "--max-ratio: expected a number >= 1";
    return std::nullopt;
  }
  c.limits.max_ratio = raw.max_ratio;
  c.limits.zstd_window_log_max = raw.zstd_window_log_max;
  c.limits.follow_outside_links = raw.follow_outside_links;
  if (!raw.node_from_path.empty()) {
    auto hints = ingest::NodeHints::from_pattern(raw.node_from_path);
    if (!hints) {
      error = hints.error();
      return std::nullopt;
    }
    c.hints = std::move(hints.value());
    c.node_pattern = raw.node_from_path;
  }
  if (!raw.no_default_rules) c.rules_dirs.push_back(rules::default_rules_dir());
  for (const auto& d : raw.rules_dirs) c.rules_dirs.push_back(d);
  c.color = raw.color;
  c.redact = raw.redact;
  c.parse.all_lines = raw.all_lines;
  c.parse.raw = raw.raw;
  c.gate = !raw.no_gate;
  return c;
}

void add_input_options(CLI::App& cmd, RawArgs& raw) {
  cmd.add_option("paths", raw.paths,
                 "Files, directories, archives (tar, zip, gz, bz2, xz, zst, nested) or - for stdin")
      ->required();
  cmd.add_option("--max-line-bytes", raw.max_line,
                 "Cut lines longer than this (default 1M); cut lines are counted");
  cmd.add_option("--max-total-bytes", raw.max_total,
                 "Stop after reading this much decoded text over the whole run (default 64G)");
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

// ---- events ---------------------------------------------------------------------------------

class EventPrinter final : public ingest::Sink {
 public:
  EventPrinter(const Config& config, Output& out, base::Inventory& inv)
      : config_(config), out_(out), inv_(inv) {}

  void on_text(const ingest::Source& source, ingest::ByteReader& text) override {
    const auto counts =
        formats::parse_stream(text, source, config_.parse, config_.max_line, [this](model::Event&& e) { print(e); });
    inv_.lines += counts.lines;
    inv_.lines_cut += counts.lines_cut;
  }

 private:
  void print(const model::Event& e) {
    std::string& buf = out_.buffer();
    if (config_.format == "text") {
      buf += base::visible(e.path);
      buf += ':';
      buf += std::to_string(e.line);
      buf += ": ";
      buf += base::visible(e.text);
      buf += '\n';
    } else {
      model::append_jsonl(buf, e);
    }
    out_.maybe_flush();
  }

  const Config& config_;
  Output& out_;
  base::Inventory& inv_;
};

void print_problems(const base::Inventory& inv) {
  for (const auto& p : inv.unreadable)
    std::fprintf(stderr, "dtriage: %s: %s\n", base::visible(p.path).c_str(), base::visible(p.reason).c_str());
  for (const auto& p : inv.skipped)
    std::fprintf(stderr, "dtriage: skipped %s: %s\n", base::visible(p.path).c_str(), base::visible(p.reason).c_str());
}

void print_problems_brief(const base::Inventory& inv) {
  if (!inv.unreadable.empty())
    std::fprintf(stderr, "dtriage: %zu input(s) could not be read (listed in the report)\n", inv.unreadable.size());
}

// CONTRACT.md: 0 done, 1 some input unreadable, 2 nothing readable.
int exit_code(bool read_anything, const base::Inventory& inv) {
  if (!read_anything) return 2;
  return inv.unreadable.empty() ? 0 : 1;
}

int cmd_events(Config& config) {
  Output out;
  if (auto err = out.open(config.output); !err.empty()) {
    std::fprintf(stderr, "dtriage: cannot write %s\n", err.c_str());
    return 2;
  }
  base::Inventory inv;
  ingest::Ingestor ing(config.limits, std::move(config.hints), inv);
  EventPrinter printer(config, out, inv);
  ing.run(config.paths, printer);
  if (!finish_output(out)) return 2;
  print_problems(inv);
  if (inv.lines_cut > 0)
    std::fprintf(stderr, "dtriage: %llu lines longer than --max-line-bytes were cut\n",
                 static_cast<unsigned long long>(inv.lines_cut));
  return exit_code(ing.read_anything(), inv);
}

// ---- analyze --------------------------------------------------------------------------------

// Parses every source and keeps the events that a parser recognised or a rule matches.
class Collector final : public ingest::ForkableSink {
 public:
  // `inv`: the job's inventory; null for a fork, which counts in its own.
  Collector(const Config& config, const rules::Engine& engine, const formats::Gate* gate, base::Inventory* inv)
      : config_(config), engine_(engine), gate_(gate), inv_(inv != nullptr ? *inv : own_inv_), forked_(inv == nullptr) {}

  // A fork collects one file on a worker thread, with counters of its own; join() appends its
  // events in walk order and applies the "first line of each binding" choice again across files,
  // so that the result is the one a single thread gives.
  std::unique_ptr<ingest::Sink> fork() override {
    return std::make_unique<Collector>(config_, engine_, gate_, nullptr);
  }
  void join(std::unique_ptr<ingest::Sink> sink) override {
    auto& f = static_cast<Collector&>(*sink);
    std::size_t b = 0;
    for (std::size_t i = 0; i < f.events_.size(); ++i) {
      model::Event& e = f.events_[i];
      if (b < f.binding_only_.size() && f.binding_only_[b] == i) {
        ++b;
        if (!seen_.insert(binding_key(e)).second) {
          ++inv_.events_not_kept;
          continue;
        }
      }
      events_.push_back(std::move(e));
    }
    for (auto& s : f.sources_) sources_.push_back(std::move(s));
    unparsed_ += f.unparsed_;
    inv_.absorb(std::move(f.inv_));
  }
  void on_text(const ingest::Source& source, ingest::ByteReader& text) override {
    formats::ParseOptions opt;
    opt.all_lines = true;
    opt.gate = gate_;
    opt.known = [this](const model::Event& e) { return !binds(e) || seen_.count(binding_key(e)) != 0; };
    sources_.push_back(source.path);
    const auto counts = formats::parse_stream(text, source, opt, config_.max_line, [this](model::Event&& e) {
      bool binding_only = false;
      if (keep(e, binding_only)) {
        if (binding_only && forked_) binding_only_.push_back(events_.size());
        events_.push_back(std::move(e));
      } else if (e.kind != "line") {
        ++inv_.events_not_kept;
      } else if (!e.text.empty()) {
        ++unparsed_;
      }
    });
    inv_.lines += counts.lines;
    inv_.lines_cut += counts.lines_cut;
    inv_.events_not_kept += counts.skipped_info;
    unparsed_ += counts.skipped_plain;
  }
  std::vector<model::Event>& events() { return events_; }
  const std::vector<std::string>& sources() const { return sources_; }
  std::uint64_t unparsed_lines() const { return unparsed_; }

 private:
  // Memory stays proportional to what matters, not to the input: errors, warnings, recognised
  // facts and rule matches are kept; an informational line is kept only when it ties a process to
  // a device or rank that no kept line did (millions of "TaskFinished" INFO lines become one).
  bool keep(const model::Event& e, bool& binding_only) {
    if (e.kind == "line") return !engine_.match(e).empty();
    if (correlate::is_error(e) || e.level == "warning" || !e.code.empty()) return true;
    for (const auto& [k, v] : e.fields)
      if (const model::FieldInfo* f = model::find_event_field(k); f != nullptr && f->keep) return true;
    if (!engine_.match(e).empty()) return true;
    if (!binds(e)) return false;
    binding_only = true;
    return seen_.insert(binding_key(e)).second;
  }
  static bool binds(const model::Event& e) { return e.pid || e.rank || e.local_rank; }
  // What ties a process to its node, device and rank.
  const std::string& binding_key(const model::Event& e) {
    key_ = e.node;
    for (const auto& v : {e.pid, e.device, e.rank, e.local_rank}) {
      key_ += '|';
      if (v) key_ += std::to_string(*v);
    }
    return key_;
  }

  const Config& config_;
  const rules::Engine& engine_;
  const formats::Gate* gate_;
  base::Inventory own_inv_;  // a fork's counters
  base::Inventory& inv_;     // the job's inventory, or own_inv_ in a fork
  bool forked_ = false;
  std::vector<std::size_t> binding_only_;  // a fork's events kept only as the first of their binding
  std::string key_;
  std::vector<model::Event> events_;
  std::vector<std::string> sources_;  // every file read, for the dump's structure
  std::uint64_t unparsed_ = 0;        // lines no parser knew
  std::set<std::string> seen_;
};

struct LoadedRules {
  rules::RuleSet set;
  std::shared_ptr<rules::Engine> engine;
  std::unique_ptr<formats::Gate> gate;  // built from the engine's literals
};

std::optional<LoadedRules> load_engine(const Config& config) {
  LoadedRules lr;
  lr.set = rules::load_rules(config.rules_dirs);
  std::vector<std::pair<std::string, std::string>> skipped;
  auto eng = rules::Engine::compile(lr.set.rules, &skipped);
  for (auto& [where, what] : skipped) lr.set.problems.push_back({where, what});
  if (!eng) {
    std::fprintf(stderr, "dtriage: rules: %s\n", eng.error().c_str());
    return std::nullopt;
  }
  lr.engine = eng.value();
  const rules::Engine::Literals& lits = lr.engine->literals();
  lr.gate = std::make_unique<formats::Gate>(formats::RuleLiterals{lits.atoms, lits.open_kinds});
  return lr;
}

bool use_color(const Config& config, const Output& out) {
  if (config.color == "always") return true;
  if (config.color == "never") return false;
  if (std::getenv("NO_COLOR") != nullptr) return false;
  return out.is_terminal();
}

// One job, analysed: what every report is rendered from.
struct Job {
  base::Inventory inv;
  std::vector<model::Event> events;
  correlate::Facts facts;
  rules::Analysis analysis;
  bool read_any = false;
};

std::unique_ptr<Job> analyze_job(const Config& config, const LoadedRules& loaded, ingest::NodeHints hints,
                                 const std::vector<std::string>& paths,
                                 std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt) {
  const rules::Engine& engine = *loaded.engine;
  auto job = std::make_unique<Job>();
  ingest::Limits limits = config.limits;
  limits.deadline = deadline;
  ingest::Ingestor ing(limits, std::move(hints), job->inv);
  Collector collector(config, engine, config.gate ? loaded.gate.get() : nullptr, &job->inv);
  ing.run(paths, collector, config.threads);
  job->read_any = ing.read_anything();
  job->events = std::move(collector.events());
  job->facts = correlate::correlate(
      job->events, correlate::Inputs{engine.reports(job->events), collector.sources(), collector.unparsed_lines()});
  job->analysis = engine.analyze(job->events, job->facts);
  return job;
}

int job_exit_code(const Job& job) { return exit_code(job.read_any, job.inv); }

// Opens the output and loads the rules; false (after saying why) when either fails.
bool prepare(const Config& config, Output& out, std::optional<LoadedRules>& loaded) {
  if (auto err = out.open(config.output); !err.empty()) {
    std::fprintf(stderr, "dtriage: cannot write %s\n", err.c_str());
    return false;
  }
  loaded = load_engine(config);
  if (!loaded) return false;
  for (const auto& p : loaded->set.problems)
    std::fprintf(stderr, "dtriage: rule problem: %s: %s\n", p.where.c_str(), p.message.c_str());
  return true;
}

int cmd_analyze(Config& config) {
  Output out;
  std::optional<LoadedRules> loaded;
  if (!prepare(config, out, loaded)) return 2;
  const auto job = analyze_job(config, *loaded, std::move(config.hints), config.paths);
  const report::Report full{job->events, job->facts, job->analysis, job->inv, loaded->set.problems, loaded->set.rules.size(), kVersion};
  // --redact masks the analysis itself, before any format renders it.
  std::optional<report::RedactedReport> masked;
  if (config.redact) masked = report::redact(full);
  const report::Report rep = masked ? masked->view() : full;
  std::string text;
  if (config.format == "json") text = report::render_json(rep);
  else if (config.format == "markdown") text = report::render_markdown(rep);
  else if (config.format == "html") text = report::render_html(rep);
  else text = report::render_text(rep, use_color(config, out));
  out.buffer() += text;
  if (!finish_output(out)) return 2;
  if (config.format != "json") print_problems_brief(job->inv);
  return job_exit_code(*job);
}

// ---- scan -----------------------------------------------------------------------------------

// Each entry directly below a ROOT (a directory or an archive / compressed file) is one job.
std::vector<std::pair<std::string, std::string>> list_jobs(const std::vector<std::string>& roots, base::Inventory& inv) {
  std::vector<std::pair<std::string, std::string>> jobs;  // (name, path)
  for (const std::string& root : roots) {
    std::error_code ec;
    if (std::filesystem::is_directory(root, ec)) {
      std::vector<std::string> names;
      for (auto it = std::filesystem::directory_iterator(root, ec); !ec && it != std::filesystem::directory_iterator();
           it.increment(ec))
        names.push_back(it->path().filename().string());
      if (ec) inv.add_unreadable(root, ec.message());
      std::sort(names.begin(), names.end());
      for (const std::string& n : names) {
        const std::string path = root + "/" + n;
        // A FIFO, socket or device is no job: reading it could block or never end.
        const auto st = std::filesystem::status(path, ec);
        if (!ec && !std::filesystem::is_directory(st) && !std::filesystem::is_regular_file(st)) {
          inv.add_skipped(path, "not a file or folder (a FIFO, socket or device)");
          continue;
        }
        jobs.emplace_back(roots.size() > 1 ? root + "/" + n : n, path);
      }
    } else if (std::filesystem::exists(root, ec)) {
      jobs.emplace_back(root, root);
    } else {
      inv.add_unreadable(root, "no such file or directory");
    }
  }
  return jobs;
}

struct ScanOptions {
  bool quiet = false;
  bool resume = false;
  double job_timeout = 0;         // seconds; 0 = none
  std::optional<batch::Shard> shard;
  std::string summary;            // write the summary here at the end
};

// Bytes on disk below `path` (for the progress bar's rate and ETA).
std::uint64_t disk_bytes(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) return std::filesystem::file_size(path, ec);
  std::uint64_t total = 0;
  if (!std::filesystem::is_directory(path, ec)) return 0;
  for (auto it = std::filesystem::recursive_directory_iterator(path, std::filesystem::directory_options::skip_permission_denied, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  return total;
}

// One line on stderr, redrawn: jobs done / total, bytes, rate, ETA.
class Progress {
 public:
  Progress(bool on, std::size_t jobs, std::uint64_t bytes) : on_(on), jobs_(jobs), bytes_(bytes), start_(std::chrono::steady_clock::now()) {}
  void update(std::size_t done, std::uint64_t bytes_done, bool force = false) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    if (!force && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double secs = std::chrono::duration<double>(now - start_).count();
    const double rate = secs > 0 ? static_cast<double>(bytes_done) / secs : 0;
    std::string eta = "--:--";
    if (rate > 0 && bytes_ >= bytes_done) {
      const auto left = static_cast<long long>(static_cast<double>(bytes_ - bytes_done) / rate);
      char b[32];
      std::snprintf(b, sizeof b, "%lld:%02lld", left / 60, left % 60);
      eta = b;
    }
    std::fprintf(stderr, "\r\033[Kscan: %zu/%zu jobs  %s of %s  %s/s  ETA %s", done, jobs_, ingest::format_bytes(bytes_done).c_str(),
                 ingest::format_bytes(bytes_).c_str(), ingest::format_bytes(static_cast<std::uint64_t>(rate)).c_str(), eta.c_str());
    std::fflush(stderr);
  }
  void finish() {
    if (on_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool on_;
  std::size_t jobs_;
  std::uint64_t bytes_;
  std::chrono::steady_clock::time_point start_, last_{};
};

std::string write_summary(const std::string& path, const std::vector<batch::ResultLine>& results) {
  const batch::Summary sum = batch::summarize(results);
  auto ends = [&](const char* ext) { return path.size() >= std::strlen(ext) && path.compare(path.size() - std::strlen(ext), std::string::npos, ext) == 0; };
  const std::string text = batch::render_summary(sum, ends(".html") || ends(".htm") ? "html"
                                                     : ends(".md")                  ? "markdown"
                                                     : ends(".json")                ? "json"
                                                                                    : "text");
  Output out;
  if (auto err = out.open(path); !err.empty()) return err;
  out.buffer() += text;
  return out.finish();
}

int cmd_scan(Config& config, const ScanOptions& opt) {
  const bool to_file = !config.output.empty() && config.output != "-";
  if (opt.resume && (!to_file || config.format != "jsonl")) {
    std::fprintf(stderr, "dtriage: --resume needs -o FILE and the jsonl format (the file says which jobs are done)\n");
    return 2;
  }
  // Resume: the jobs already in the output are done; a half line left by a kill is cut off.
  std::set<std::string> done_before;
  if (opt.resume) {
    const batch::ReadResults prior = batch::read_results(config.output);
    for (const auto& l : prior.lines) done_before.insert(l.job);
    for (const auto& p : prior.problems) std::fprintf(stderr, "dtriage: %s (kept as it is)\n", p.c_str());
    if (prior.partial_tail) {
      std::error_code ec;
      std::filesystem::resize_file(config.output, prior.complete_bytes, ec);
      if (ec) {
        std::fprintf(stderr, "dtriage: cannot cut the half-written last line of %s: %s\n", config.output.c_str(), ec.message().c_str());
        return 2;
      }
      std::fprintf(stderr, "dtriage: %s: dropped a half-written last line (a scan was stopped while writing it)\n", config.output.c_str());
    }
  }
  Output out;
  if (auto err = out.open(config.output, opt.resume); !err.empty()) {
    std::fprintf(stderr, "dtriage: cannot write %s\n", err.c_str());
    return 2;
  }
  auto loaded = load_engine(config);
  if (!loaded) return 2;
  for (const auto& p : loaded->set.problems) std::fprintf(stderr, "dtriage: rule problem: %s: %s\n", p.where.c_str(), p.message.c_str());
  base::Inventory top;
  auto listed = list_jobs(config.paths, top);
  for (const auto& p : top.unreadable) std::fprintf(stderr, "dtriage: %s: %s\n", p.path.c_str(), p.reason.c_str());
  for (const auto& p : top.skipped) std::fprintf(stderr, "dtriage: skipped %s: %s\n", p.path.c_str(), p.reason.c_str());
  std::vector<std::pair<std::string, std::string>> jobs;
  std::size_t skipped_done = 0;
  for (auto& j : listed) {
    if (opt.shard && !batch::in_shard(j.first, *opt.shard)) continue;
    if (done_before.count(j.first) != 0) {
      ++skipped_done;
      continue;
    }
    jobs.push_back(std::move(j));
  }
  if (opt.resume && !opt.quiet) std::fprintf(stderr, "dtriage: resuming: %zu jobs done before, %zu to go\n", skipped_done, jobs.size());
  std::vector<std::uint64_t> sizes(jobs.size(), 0);
  std::uint64_t total_bytes = 0;
  const bool progress_on = !opt.quiet && isatty(fileno(stderr)) != 0;
  if (progress_on)
    for (std::size_t i = 0; i < jobs.size(); ++i) total_bytes += sizes[i] = disk_bytes(jobs[i].second);
  Progress progress(progress_on, jobs.size(), total_bytes);

  std::vector<std::string> lines(jobs.size());
  std::vector<char> finished(jobs.size(), 0);
  std::vector<int> codes(jobs.size(), 2);
  std::atomic<std::size_t> next{0};
  std::mutex write_mu;
  std::size_t next_write = 0, done_count = 0;
  std::uint64_t bytes_done = 0;
  bool write_failed = false;
  auto line_of = [&](const std::string& name, const report::Report& job, double seconds) {
    const rules::Verdict& v = job.analysis.verdict;
    const bool failed = v.status != "healthy" && !v.category.empty();
    if (config.format == "text") {
      char head[256];
      std::snprintf(head, sizeof head, "%-32s %-8s %-26s ", base::visible(name).c_str(), v.status.c_str(), failed ? v.category.c_str() : "-");
      return head + base::visible(v.summary);
    }
    std::vector<std::string> hosts;
    std::vector<std::int64_t> pids;
    for (const auto& n : job.facts.nodes) {
      hosts.push_back(n.name);
      pids.insert(pids.end(), n.pids.begin(), n.pids.end());
    }
    const std::string pattern = batch::pattern_of(v.summary, hosts, pids);
    std::string time;
    if (const auto& fe = job.facts.job.first_error; fe && *fe < job.events.size()) time = job.events[*fe].time;
    nlohmann::ordered_json j{{"job", name},
                     {"status", v.status},
                     {"category", failed ? nlohmann::ordered_json(v.category) : nlohmann::ordered_json(nullptr)},
                     {"summary", v.summary},
                     {"node", v.node.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(v.node)},
                     {"rank", v.rank ? nlohmann::ordered_json(*v.rank) : nlohmann::ordered_json(nullptr)},
                     {"rule", v.rule.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(v.rule)},
                     {"fingerprint", v.status == "healthy" ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(batch::fingerprint(v.category, v.rule, pattern))},
                     {"pattern", v.status == "healthy" ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(pattern)},
                     {"time", time.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(time)},
                     {"files", job.inventory.files},
                     {"bytes", job.inventory.bytes},
                     {"seconds", std::round(seconds * 1000) / 1000},
                     {"unreadable", job.inventory.unreadable.size()}};
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  auto error_line = [&](const std::string& name, const std::string& what) {
    nlohmann::ordered_json j{{"job", name}, {"status", "error"}, {"error", what}};
    return config.format == "text" ? base::visible(name) + "  error: " + base::visible(what)
                                   : j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  auto scan_one = [&](std::size_t i) {
    ingest::NodeHints hints;
    if (!config.node_pattern.empty()) hints = std::move(ingest::NodeHints::from_pattern(config.node_pattern).value());
    const auto start = std::chrono::steady_clock::now();
    std::optional<std::chrono::steady_clock::time_point> deadline;
    if (opt.job_timeout > 0)
      deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(opt.job_timeout));
    const auto job = analyze_job(config, *loaded, std::move(hints), {jobs[i].second}, deadline);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (job->inv.timed_out) {
      char what[160];
      std::snprintf(what, sizeof what, "timed out after %.0f s (--job-timeout); %llu files read before", opt.job_timeout,
                    static_cast<unsigned long long>(job->inv.files));
      codes[i] = 1;
      lines[i] = error_line(jobs[i].first, what);
      return;
    }
    codes[i] = job_exit_code(*job);
    const report::Report full{job->events, job->facts, job->analysis, job->inv, loaded->set.problems, 0, kVersion};
    if (config.redact) {
      // The job's name is a path the customer chose: masked with the same map as its report.
      const report::RedactedReport masked = report::redact(full);
      report::Redactor names(full);
      lines[i] = line_of(names.apply(jobs[i].first), masked.view(), secs);
    } else {
      lines[i] = line_of(jobs[i].first, full, secs);
    }
  };
  // Lines go out in name order as soon as every earlier job is done, one flush each, so that a
  // killed scan leaves whole lines of finished jobs (and --resume goes on from there).
  auto commit = [&](std::size_t i) {
    std::lock_guard<std::mutex> lock(write_mu);
    finished[i] = 1;
    ++done_count;
    bytes_done += sizes[i];
    bool wrote = false;
    while (next_write < jobs.size() && finished[next_write]) {
      out.buffer() += lines[next_write];
      out.buffer() += '\n';
      lines[next_write].clear();
      lines[next_write].shrink_to_fit();
      ++next_write;
      wrote = true;
    }
    if (wrote) {
      out.flush();
      if (out.failed()) write_failed = true;
    }
    progress.update(done_count, bytes_done, done_count == jobs.size());
  };
  auto worker = [&] {
    for (std::size_t i = next++; i < jobs.size(); i = next++) {
      try {
        scan_one(i);
      } catch (const std::exception& e) {  // one job's failure (e.g. out of memory) is its own line
        codes[i] = 1;
        lines[i] = error_line(jobs[i].first, e.what());
      }
      commit(i);
    }
  };
  unsigned n = config.jobs != 0 ? config.jobs : std::max(1u, std::thread::hardware_concurrency());
  n = static_cast<unsigned>(std::min<std::size_t>(n, std::max<std::size_t>(jobs.size(), 1)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  progress.finish();
  if (!finish_output(out) || write_failed) return 2;
  if (!opt.summary.empty()) {
    std::vector<batch::ResultLine> results;
    if (to_file && config.format == "jsonl") results = batch::read_results(config.output).lines;
    if (!to_file || config.format != "jsonl")
      std::fprintf(stderr, "dtriage: --summary reads the results back from -o FILE (jsonl); none written\n");
    else if (const std::string err = write_summary(opt.summary, results); !err.empty())
      std::fprintf(stderr, "dtriage: cannot write %s\n", err.c_str());
  }
  if (listed.empty() && jobs.empty() && skipped_done == 0) return 2;
  int code = top.unreadable.empty() ? 0 : 1;
  bool any_read = jobs.empty();
  for (int c : codes) {
    any_read = any_read || c != 2;
    if (c != 0) code = std::max(code, 1);
  }
  return any_read ? code : 2;
}

// ---- summary and merge ----------------------------------------------------------------------

// The result lines of scan outputs, in file order. A missing file, a line that is no result and a
// half-written last line are said on stderr and left out; `code` becomes 1 for a missing file, and
// for the others too when `damage_is_error` (merge: its output would lack them).
std::vector<batch::ResultLine> read_result_files(const std::vector<std::string>& files, int& code, bool damage_is_error) {
  std::vector<batch::ResultLine> all;
  for (const std::string& f : files) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(f, ec)) {
      std::fprintf(stderr, "dtriage: %s: no such file\n", f.c_str());
      code = 1;
      continue;
    }
    auto r = batch::read_results(f);
    for (const auto& p : r.problems) {
      std::fprintf(stderr, "dtriage: %s (left out)\n", p.c_str());
      if (damage_is_error) code = 1;
    }
    if (r.partial_tail) {
      std::fprintf(stderr, "dtriage: %s: the last line is half-written (left out; --resume that scan)\n", f.c_str());
      if (damage_is_error) code = 1;
    }
    for (auto& l : r.lines) all.push_back(std::move(l));
  }
  return all;
}

int cmd_summary(const std::vector<std::string>& files, const std::string& format, const std::string& output) {
  int code = 0;
  std::vector<batch::ResultLine> all;
  for (auto& l : read_result_files(files, code, false)) all.push_back(std::move(l));
  if (all.empty() && code != 0) return 2;
  const batch::Summary sum = batch::summarize(all);
  Output out;
  if (auto err = out.open(output); !err.empty()) {
    std::fprintf(stderr, "dtriage: cannot write %s\n", err.c_str());
    return 2;
  }
  out.buffer() += batch::render_summary(sum, format);
  if (!finish_output(out)) return 2;
  return code;
}

// Joins shard outputs: one line per job (the first seen; a job in two shards is reported), in
// name order, half-written lines left out.
int cmd_merge(const std::vector<std::string>& files, const std::string& output) {
  std::map<std::string, batch::ResultLine> by_job;
  int code = 0;
  for (auto& l : read_result_files(files, code, true)) {
    auto [it, fresh] = by_job.emplace(l.job, l);
    if (!fresh && it->second.raw != l.raw)
      std::fprintf(stderr, "dtriage: %s:%llu: job %s already came from %s:%llu (kept that one)\n", l.path.c_str(),
                   static_cast<unsigned long long>(l.line), l.job.c_str(), it->second.path.c_str(),
                   static_cast<unsigned long long>(it->second.line));
  }
  Output out;
  if (auto err = out.open(output); !err.empty()) {
    std::fprintf(stderr, "dtriage: cannot write %s\n", err.c_str());
    return 2;
  }
  for (const auto& [job, l] : by_job) {
    out.buffer() += l.raw;
    out.buffer() += '\n';
    out.maybe_flush();
  }
  if (!finish_output(out)) return 2;
  return by_job.empty() && code != 0 ? 2 : code;
}

// ---- rules ----------------------------------------------------------------------------------

int cmd_rules(const std::string& action, Config& config, const std::string& id) {
  auto loaded = load_engine(config);
  if (!loaded) return 2;
  const auto& problems = loaded->set.problems;
  for (const auto& p : problems) std::fprintf(stderr, "%s: %s\n", p.where.c_str(), p.message.c_str());
  const auto& rs = loaded->engine->rules();
  if (action == "fields") {  // the registry, as the README's tables
    auto table = [](const char* title, std::span<const model::FieldInfo> fields) {
      std::printf("%s\n\n| name | type | meaning |\n|---|---|---|\n", title);
      for (const auto& f : fields)
        std::printf("| `%.*s` | %s | %.*s |\n", static_cast<int>(f.name.size()), f.name.data(), model::type_name(f.type),
                    static_cast<int>(f.meaning.size()), f.meaning.data());
      std::printf("\n");
    };
    table("Event fields (`event.NAME` in conditions, `{NAME}` in event rules' summaries):", model::event_fields());
    table("Facts (`node.*` per node, `job.*` per job; in conditions and summaries):", model::fact_fields());
    return 0;
  }
  if (action == "patterns") {
    // Every event rule's regex, one per line, for `rg -f` / `grep -P -f`: named groups become plain
    // groups (one combined regex cannot repeat a name), and rules without a literal (matched by
    // their event kind, such as npu-smi table rows) are left out: alone they match every line.
    static const re2::RE2 named(R"(\(\?P<\w+>)");
    for (const auto& r : rs) {
      if (r.scope != rules::Scope::Event || r.regex.empty() || r.regex == "." || r.regex == ".*") continue;
      std::string plain = r.regex;
      re2::RE2::GlobalReplace(&plain, named, "(");
      std::printf("%s\n", plain.c_str());
    }
    return 0;
  }
  if (action == "literals") {  // what the line gate looks for (rules' atoms, then the parsers')
    for (const auto& [group, lit] : loaded->gate->literals()) std::printf("%s\t%s\n", group.c_str(), lit.c_str());
    for (const auto& k : loaded->engine->literals().open_kinds) std::printf("open-kind\t%s\n", k.c_str());
    return 0;
  }
  if (action == "list") {
    for (const auto& r : rs)
      std::printf("%-40s %-26s %-8s %s\n", r.id.c_str(), r.category.c_str(), r.severity.c_str(), r.title.c_str());
    std::printf("%zu rules\n", rs.size());
    return problems.empty() ? 0 : 1;
  }
  if (action == "show") {
    for (const auto& r : rs) {
      if (r.id != id) continue;
      std::printf("id: %s\nfile: %s:%d\ntitle: %s\ncategory: %s\nseverity: %s\nrole: %s\nscope: %s\n", r.id.c_str(),
                  r.file.c_str(), r.line, r.title.c_str(), r.category.c_str(), r.severity.c_str(), rules::role_name(r.role),
                  rules::scope_name(r.scope));
      if (!r.regex.empty()) std::printf("regex: %s\n", r.regex.c_str());
      for (const auto& c : r.when) std::printf("when: %s\n", c.text.c_str());
      std::printf("summary: %s\nremedy: %s\n", r.summary.c_str(), r.remedy.c_str());
      for (const auto& e : r.explains) std::printf("explains: %s\n", e.c_str());
      if (!r.description.empty()) std::printf("\n%s\n", r.description.c_str());
      return 0;
    }
    std::fprintf(stderr, "dtriage: no rule with id '%s'\n", id.c_str());
    return 2;
  }
  // test and lint: examples must behave; lint also checks explains targets.
  std::vector<std::string> failures = rules::check_examples(*loaded->engine);
  if (action == "lint")
    for (std::string& m : rules::lint(rs)) failures.push_back(std::move(m));
  for (const auto& f : failures) std::printf("FAIL %s\n", f.c_str());
  std::size_t examples = 0;
  for (const auto& r : rs) examples += r.examples_match.size() + r.examples_no_match.size();
  std::printf("%zu rules, %zu examples: %zu passed, %zu failed\n", rs.size(), examples, examples - std::min(examples, failures.size()),
              failures.size() + problems.size());
  return failures.empty() && problems.empty() ? 0 : 1;
}

}  // namespace

namespace {
int run_checked(int argc, char** argv);
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

namespace {

int run_checked(int argc, char** argv) {
  // Named, so that usage lines say "dtriage" whatever path (or emulator) started it.
  CLI::App app{"dtriage: post-mortem analyzer for failed distributed training jobs", "dtriage"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);

  RawArgs analyze_raw;
  analyze_raw.format = "text";
  CLI::App* analyze = app.add_subcommand("analyze", "Name the root cause of one failed job");
  add_input_options(*analyze, analyze_raw);
  add_gate_option(*analyze, analyze_raw);
  unsigned analyze_threads = 0;
  analyze->add_option("-j,--jobs", analyze_threads,
                      "Files read in parallel (default: one per core); the report is the same for any number")
      ->check(CLI::Range(1u, 1024u));
  analyze->add_option("--format", analyze_raw.format, "text (default), json, markdown or html")
      ->check(CLI::IsMember({"text", "json", "markdown", "html"}));
  analyze->add_flag("--redact", analyze_raw.redact,
                    "Mask host names (node-1, ...), IP addresses, home-directory user names and secrets");
  analyze->add_option("--rules", analyze_raw.rules_dirs, "Also load rules from this directory (repeatable)");
  analyze->add_flag("--no-default-rules", analyze_raw.no_default_rules, "Do not load the installed rule pack");
  analyze->add_option("--color", analyze_raw.color, "auto (default), always or never; NO_COLOR is honoured")
      ->check(CLI::IsMember({"auto", "always", "never"}));

  RawArgs scan_raw;
  scan_raw.format = "jsonl";
  unsigned scan_jobs = 0;
  CLI::App* scan = app.add_subcommand("scan", "Analyze many jobs: each entry below ROOT is one job; one line per job");
  add_input_options(*scan, scan_raw);
  add_gate_option(*scan, scan_raw);
  scan->add_option("--format", scan_raw.format, "jsonl (default) or text")->check(CLI::IsMember({"jsonl", "text"}));
  scan->add_option("-j,--jobs", scan_jobs, "Jobs analysed in parallel (default: one per core)");
  scan->add_option("--rules", scan_raw.rules_dirs, "Also load rules from this directory (repeatable)");
  scan->add_flag("--no-default-rules", scan_raw.no_default_rules, "Do not load the installed rule pack");
  scan->add_flag("--redact", scan_raw.redact, "Mask host names, IP addresses, home-directory user names and secrets");
  ScanOptions scan_opt;
  std::string scan_shard;
  scan->add_flag("-q,--quiet", scan_opt.quiet, "No progress line on stderr (it is shown only when stderr is a terminal)");
  scan->add_flag("--resume", scan_opt.resume, "Skip the jobs already in -o FILE (a killed scan goes on where it stopped)");
  scan->add_option("--job-timeout", scan_opt.job_timeout, "Seconds one job may take to read; past it the job is an error line")
      ->check(CLI::PositiveNumber);
  scan->add_option("--shard", scan_shard, "K/N: scan only the K-th of N shares of the jobs (0 <= K < N), e.g. a Slurm array task");
  scan->add_option("--summary", scan_opt.summary, "Also write the summary of -o FILE here (.html, .md, .json, else text)");

  std::vector<std::string> summary_files;
  std::string summary_format = "text", summary_output;
  CLI::App* summary_cmd = app.add_subcommand("summary", "What kills the jobs: results of scans grouped by root cause");
  summary_cmd->add_option("results", summary_files, "JSON-lines files written by dtriage scan")->required();
  summary_cmd->add_option("--format", summary_format, "text (default), json, markdown or html")
      ->check(CLI::IsMember({"text", "json", "markdown", "html"}));
  summary_cmd->add_option("-o,--output", summary_output, "Write to this file instead of standard output");
  std::vector<std::string> merge_files;
  std::string merge_output;
  CLI::App* merge_cmd = app.add_subcommand("merge", "Join the outputs of scan shards: one line per job, in name order");
  merge_cmd->add_option("results", merge_files, "JSON-lines files written by dtriage scan --shard")->required();
  merge_cmd->add_option("-o,--output", merge_output, "Write to this file instead of standard output");

  RawArgs rules_raw;
  std::string rule_action;
  std::string rule_id;
  CLI::App* rules_cmd = app.add_subcommand("rules", "List, show, test or lint the rules");
  rules_cmd->add_option("action", rule_action, "list, show ID, test, lint, fields, patterns (the event rules' regexes, for rg -f) or literals")
      ->required()
      ->check(CLI::IsMember({"list", "show", "test", "lint", "fields", "patterns", "literals"}));
  rules_cmd->add_option("id", rule_id, "Rule id (for show)");
  rules_cmd->add_option("--rules", rules_raw.rules_dirs, "Also load rules from this directory (repeatable)");
  rules_cmd->add_flag("--no-default-rules", rules_raw.no_default_rules, "Do not load the installed rule pack");

  RawArgs events_raw;
  events_raw.format = "jsonl";
  CLI::App* events = app.add_subcommand("events", "Print the normalized events of the inputs");
  add_input_options(*events, events_raw);
  events->add_option("--format", events_raw.format, "jsonl (default) or text")
      ->check(CLI::IsMember({"jsonl", "text"}));
  events->add_flag("--all-lines", events_raw.all_lines, "Also print lines no parser recognised (kind \"line\")");
  events->add_flag("--raw", events_raw.raw, "Do not parse: one event per line with its path, line and text");

  RawArgs check_raw;
  check_raw.format = "text";
  std::string check_launch;
  CLI::App* check_cmd = app.add_subcommand(
      "check", "Before a launch: the six multi-node checks over node snapshots, smoke-test output and training logs");
  add_input_options(*check_cmd, check_raw);
  check_cmd->add_option("--launch", check_launch, "The launch command, e.g. \"torchrun --nnodes 2 --nproc_per_node 8 train.py\"");
  check_cmd->add_option("--format", check_raw.format, "text (default), json or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}));
  CLI::App* script_cmd = app.add_subcommand(
      "snapshot-script", "Print the node snapshot collector (bash): run it on every node, then `dtriage check` the files");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }

  if (summary_cmd->parsed()) return cmd_summary(summary_files, summary_format, summary_output);
  if (merge_cmd->parsed()) return cmd_merge(merge_files, merge_output);
  if (script_cmd->parsed()) {
    const std::string_view script = snapshot_script();
    return std::fwrite(script.data(), 1, script.size(), stdout) == script.size() && std::fflush(stdout) == 0 ? 0 : 2;
  }
  if (check_cmd->parsed()) {
    std::string error;
    auto config = validate(check_raw, error);
    if (!config) {
      std::fprintf(stderr, "dtriage: %s\n", error.c_str());
      return 2;
    }
    CheckArgs args;
    args.paths = config->paths;
    args.launch = check_launch;
    args.format = config->format;
    args.output = config->output;
    args.max_line = config->max_line;
    args.limits = config->limits;
    args.hints = std::move(config->hints);
    return cmd_check(args);
  }
  if (rules_cmd->parsed()) {
    std::string error;
    rules_raw.paths = {"-"};
    auto config = validate(rules_raw, error);
    if (!config) {
      std::fprintf(stderr, "dtriage: %s\n", error.c_str());
      return 2;
    }
    return cmd_rules(rule_action, *config, rule_id);
  }
  if (scan->parsed()) {
    std::string error;
    auto config = validate(scan_raw, error);
    if (!config) {
      std::fprintf(stderr, "dtriage: %s\n", error.c_str());
      return 2;
    }
    config->jobs = scan_jobs;
    if (!scan_shard.empty()) {
      std::string why;
      scan_opt.shard = batch::parse_shard(scan_shard, why);
      if (!scan_opt.shard) {
        std::fprintf(stderr, "dtriage: %s\n", why.c_str());
        return 2;
      }
    }
    return cmd_scan(*config, scan_opt);
  }
  const RawArgs& raw = analyze->parsed() ? analyze_raw : events_raw;
  std::string error;
  auto config = validate(raw, error);
  if (!config) {
    std::fprintf(stderr, "dtriage: %s\n", error.c_str());
    return 2;
  }
  config->threads = analyze_threads != 0 ? analyze_threads : std::max(1u, std::thread::hardware_concurrency());
  if (analyze->parsed()) return cmd_analyze(*config);
  return cmd_events(*config);
}

}  // namespace

}  // namespace dtriage::cli
