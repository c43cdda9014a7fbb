// `dtriage scan` (many jobs, one result line each), `summary` and `merge` (over result files).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>

#include "base/sentences.hpp"
#include "batch/batch.hpp"
#include "batch/scan.hpp"
#include "cli/commands.hpp"

namespace dtriage::cli {
namespace {

// The bytes written, or why the summary could not be written.
base::Result<std::uint64_t> write_summary(const std::string& path, const std::vector<batch::ResultLine>& results) {
  const batch::Summary sum = batch::summarize(results);
  auto ends = [&](const char* ext) {
    return path.size() >= std::strlen(ext) && path.compare(path.size() - std::strlen(ext), std::string::npos, ext) == 0;
  };
  const char* format = ends(".html") || ends(".htm") ? "html" : ends(".md") ? "markdown" : ends(".json") ? "json" : "text";
  auto out = Output::open(path);
  if (!out) return base::err(base::say(base::Say::OutputCannotWrite, {{"what", out.error()}}));
  out->buffer() += batch::render_summary(sum, format);
  return out->finish();
}

// The result lines of scan outputs, in file order. A missing file, a line that is no result and a
// half-written last line are said on stderr and left out; `code` becomes 1 for a missing file, and
// for the others too when `damage_is_error` (merge: its output would lack them).
std::vector<batch::ResultLine> read_result_files(const std::vector<std::string>& files, int& code, bool damage_is_error) {
  std::vector<batch::ResultLine> all;
  for (const std::string& f : files) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(f, ec)) {
      std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::InputNoSuchFile, {{"path", f}}).c_str());
      code = 1;
      continue;
    }
    auto r = batch::read_results(f);
    for (const auto& p : r.problems) {
      std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::InputLeftOut, {{"problem", p}}).c_str());
      if (damage_is_error) code = 1;
    }
    if (r.partial_tail) {
      std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::InputHalfWrittenLine, {{"path", f}}).c_str());
      if (damage_is_error) code = 1;
    }
    for (auto& l : r.lines) all.push_back(std::move(l));
  }
  return all;
}

}  // namespace

int cmd_scan(Config& config, batch::ScanSettings settings, bool resume, const std::string& summary) {
  const bool to_file = !config.output.empty() && config.output != "-";
  if (!summary.empty() && (!to_file || config.format != "jsonl")) {
    std::fprintf(stderr, "dtriage: --summary reads the results back from -o FILE (jsonl): give -o\n");
    return 2;
  }
  if (!summary.empty()) {
    std::error_code ec;
    if (std::filesystem::weakly_canonical(summary, ec) == std::filesystem::weakly_canonical(config.output, ec)) {
      std::fprintf(stderr, "dtriage: --summary and -o name the same file: the summary would replace the results\n");
      return 2;
    }
    settings.own_outputs.push_back(summary);
  }
  if (to_file) settings.own_outputs.push_back(config.output);
  if (resume && (!to_file || config.format != "jsonl")) {
    std::fprintf(stderr, "dtriage: --resume needs -o FILE and the jsonl format (the file says which jobs are done)\n");
    return 2;
  }
  // Resume: the jobs already in the output are done; a half line left by a kill is cut off.
  if (resume) {
    auto done = batch::resume_from(config.output);
    if (!done) {
      std::fprintf(stderr, "dtriage: %s\n", done.error().c_str());
      return 2;
    }
    settings.done_before = std::move(done.value());
  }
  Output out;
  if (!open_output(out, config.output, resume)) return 2;
  const auto book = load_rules(config);
  if (!book) return 2;
  settings.analysis = config.analysis;
  settings.format = config.format;
  settings.redact = config.redact;
  settings.node_pattern = config.node_pattern;
  const int code = batch::scan(config.paths, settings, *book, [&out](const std::string& lines) {
    out.buffer() += lines;
    out.flush();
    return !out.failed();
  });
  if (!finish_output(out)) return 2;
  if (!summary.empty()) {
    if (const auto written = write_summary(summary, batch::read_results(config.output).lines); !written)
      std::fprintf(stderr, "dtriage: %s\n", written.error().c_str());
  }
  return code;
}

int cmd_summary(const std::vector<std::string>& files, const std::string& format, const std::string& output) {
  int code = 0;
  const std::vector<batch::ResultLine> all = read_result_files(files, code, false);
  if (all.empty() && code != 0) return 2;
  Output out;
  if (!open_output(out, output)) return 2;
  out.buffer() += batch::render_summary(batch::summarize(all), format);
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
      std::fprintf(stderr, "dtriage: %s\n",
                   base::say(base::Say::InputJobTwice, {{"path", l.path}, {"line", std::to_string(l.line)}, {"job", l.job},
                                                        {"first", it->second.path}, {"at", std::to_string(it->second.line)}})
                       .c_str());
  }
  Output out;
  if (!open_output(out, output)) return 2;
  for (const auto& [job, l] : by_job) {
    out.buffer() += l.raw;
    out.buffer() += '\n';
    out.maybe_flush();
  }
  if (!finish_output(out)) return 2;
  return by_job.empty() && code != 0 ? 2 : code;
}

}  // namespace dtriage::cli
