#include "cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "base/inventory.hpp"
#include "cli/output.hpp"
#include "formats/pipeline.hpp"
#include "ingest/ingest.hpp"
#include "lines/line_reader.hpp"

namespace dtriage::cli {
namespace {

constexpr const char* kVersion = "0.1.0";

// ---- raw flags (what the user typed) -------------------------------------------------------
struct RawArgs {
  std::vector<std::string> paths;
  std::string format;
  std::string output;
  std::string max_line = "1M";
  std::string max_total = "64G";
  double max_ratio = 1000.0;
  std::string node_from_path;
  bool all_lines = false;
  bool raw = false;
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
  if (!raw.node_from_path.empty()) {
    auto hints = ingest::NodeHints::from_pattern(raw.node_from_path);
    if (!hints) {
      error = hints.error();
      return std::nullopt;
    }
    c.hints = std::move(hints.value());
  }
  c.parse.all_lines = raw.all_lines;
  c.parse.raw = raw.raw;
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
  cmd.add_option("--max-ratio", raw.max_ratio,
                 "Stop reading a compressed input that expands more than this many times (default 1000)");
  cmd.add_option("--node-from-path", raw.node_from_path,
                 "RE2 pattern searched in each file's path; group 1 (or the match) names its node");
  cmd.add_option("-o,--output", raw.output, "Write to this file instead of standard output");
}

// ---- events ---------------------------------------------------------------------------------

class EventPrinter final : public ingest::Sink {
 public:
  EventPrinter(const Config& config, Output& out, base::Inventory& inv)
      : config_(config), out_(out), inv_(inv) {}

  void on_text(const ingest::Source& source, ingest::ByteReader& text) override {
    lines::LineReader reader(text, config_.max_line);
    formats::SourceParser parser(source, config_.parse, [this](model::Event&& e) { print(e); });
    lines::Line line;
    while (reader.next(line)) {
      ++inv_.lines;
      parser.feed(line);
    }
    parser.finish();
    inv_.lines_cut += reader.lines_cut();
  }

 private:
  void print(const model::Event& e) {
    std::string& buf = out_.buffer();
    if (config_.format == "text") {
      buf += e.path;
      buf += ':';
      buf += std::to_string(e.line);
      buf += ": ";
      buf += e.text;
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
  for (const auto& p : inv.unreadable) std::fprintf(stderr, "dtriage: %s: %s\n", p.path.c_str(), p.reason.c_str());
  for (const auto& p : inv.skipped)
    std::fprintf(stderr, "dtriage: skipped %s: %s\n", p.path.c_str(), p.reason.c_str());
}

int exit_code(const ingest::Ingestor& ing, const base::Inventory& inv) {
  if (!ing.read_anything()) return 2;
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
  out.flush();
  print_problems(inv);
  if (inv.lines_cut > 0)
    std::fprintf(stderr, "dtriage: %llu lines longer than --max-line-bytes were cut\n",
                 static_cast<unsigned long long>(inv.lines_cut));
  return exit_code(ing, inv);
}

// ---- analyze --------------------------------------------------------------------------------

class Collector final : public ingest::Sink {
 public:
  Collector(const Config& config, base::Inventory& inv) : config_(config), inv_(inv) {}
  void on_text(const ingest::Source& source, ingest::ByteReader& text) override {
    lines::LineReader reader(text, config_.max_line);
    lines::Line line;
    while (reader.next(line)) ++inv_.lines;
    inv_.lines_cut += reader.lines_cut();
    if (!source.node.empty()) nodes_[source.node] += 1;
  }
  const std::map<std::string, int>& nodes() const { return nodes_; }

 private:
  const Config& config_;
  base::Inventory& inv_;
  std::map<std::string, int> nodes_;
};

nlohmann::json inventory_json(const base::Inventory& inv) {
  nlohmann::json j;
  j["files"] = inv.files;
  j["bytes"] = inv.bytes;
  j["lines"] = inv.lines;
  j["lines_cut"] = inv.lines_cut;
  j["unreadable"] = nlohmann::json::array();
  for (const auto& p : inv.unreadable) j["unreadable"].push_back({{"path", p.path}, {"reason", p.reason}});
  j["skipped"] = nlohmann::json::array();
  for (const auto& p : inv.skipped) j["skipped"].push_back({{"path", p.path}, {"reason", p.reason}});
  return j;
}

int cmd_analyze(Config& config) {
  Output out;
  if (auto err = out.open(config.output); !err.empty()) {
    std::fprintf(stderr, "dtriage: cannot write %s\n", err.c_str());
    return 2;
  }
  base::Inventory inv;
  ingest::Ingestor ing(config.limits, std::move(config.hints), inv);
  Collector collector(config, inv);
  ing.run(config.paths, collector);
  if (config.format == "json") {
    nlohmann::json j;
    j["schema"] = "dtriage.report/1";
    j["nodes"] = nlohmann::json::array();
    for (const auto& [name, files] : collector.nodes()) j["nodes"].push_back({{"name", name}, {"files", files}});
    j["inputs"] = inventory_json(inv);
    out.buffer() += j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    out.buffer() += '\n';
  } else {
    std::string& b = out.buffer();
    b += "inputs: " + std::to_string(inv.files) + " files, " + std::to_string(inv.bytes) + " bytes, " +
         std::to_string(inv.lines) + " lines\n";
    for (const auto& [name, files] : collector.nodes()) b += "  node " + name + ": " + std::to_string(files) + " files\n";
    for (const auto& p : inv.unreadable) b += "  unreadable " + p.path + ": " + p.reason + "\n";
    for (const auto& p : inv.skipped) b += "  skipped " + p.path + ": " + p.reason + "\n";
  }
  out.flush();
  return exit_code(ing, inv);
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"dtriage: post-mortem analyzer for failed distributed training jobs"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);

  RawArgs analyze_raw;
  analyze_raw.format = "text";
  CLI::App* analyze = app.add_subcommand("analyze", "Name the root cause of one failed job");
  add_input_options(*analyze, analyze_raw);
  analyze->add_option("--format", analyze_raw.format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));

  RawArgs events_raw;
  events_raw.format = "jsonl";
  CLI::App* events = app.add_subcommand("events", "Print the normalized events of the inputs");
  add_input_options(*events, events_raw);
  events->add_option("--format", events_raw.format, "jsonl (default) or text")
      ->check(CLI::IsMember({"jsonl", "text"}));
  events->add_flag("--all-lines", events_raw.all_lines, "Also print lines no parser recognised (kind \"line\")");
  events->add_flag("--raw", events_raw.raw, "Do not parse: one event per line with its path, line and text");

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

  const RawArgs& raw = analyze->parsed() ? analyze_raw : events_raw;
  std::string error;
  auto config = validate(raw, error);
  if (!config) {
    std::fprintf(stderr, "dtriage: %s\n", error.c_str());
    return 2;
  }
  if (analyze->parsed()) return cmd_analyze(*config);
  return cmd_events(*config);
}

}  // namespace dtriage::cli
