// `dtriage scan` (many jobs, one result line each), `summary` and `merge` (over result files).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "base/sentences.hpp"
#include "batch/batch.hpp"
#include "batch/scan.hpp"
#include "cli/commands.hpp"

namespace dtriage::cli {
namespace {

// The result lines of scan outputs, in file order, each to `each`, none kept. A missing file, a
// line that is no result (the first 5 of a file said one by one, then how many more) and a
// half-written last line are said on stderr and left out; each makes `code` 1.
void for_each_result(const std::vector<std::string>& files, int& code, const std::function<void(batch::ResultLine&&)>& each) {
  for (const std::string& f : files) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(f, ec)) {
      std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::InputNoSuchFile, {{"path", f}}).c_str());
      code = 1;
      continue;
    }
    const auto r = batch::read_results(f, each);
    for (const std::string& p : r.problems) std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::InputLeftOut, {{"problem", p}}).c_str());
    if (r.problems_total > r.problems.size())
      std::fprintf(stderr, "dtriage: %s\n",
                   base::say(base::Say::InputMoreLeftOut, {{"path", f}, {"count", std::to_string(r.problems_total - r.problems.size())}}).c_str());
    if (r.problems_total != 0) code = 1;
    if (r.partial_tail) {
      std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::InputHalfWrittenLine, {{"path", f}}).c_str());
      code = 1;
    }
  }
}

// The summary of `files`, read a line at a time; says on stderr how many lines repeated a job.
batch::Summary summarize_files(const std::vector<std::string>& files, int& code, std::uint64_t& lines,
                               const batch::SummaryOptions& options = {}) {
  batch::Summarizer sum(options);
  for_each_result(files, code, [&](batch::ResultLine&& l) {
    ++lines;
    sum.add(l);
  });
  if (sum.repeated() > 0)
    std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::InputJobsCountedOnce, {{"count", std::to_string(sum.repeated())}}).c_str());
  return sum.finish();
}

// The reports' paths as the summary at `summary_path` reaches them (relative to its folder).
void relink(batch::Summary& sum, const std::string& summary_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // Both made absolute and normal (no "..", no "."), else lexically_relative misreads them.
  const fs::path from =
      fs::absolute(summary_path.empty() || summary_path == "-" ? fs::path("x") : fs::path(summary_path), ec).lexically_normal().parent_path();
  for (auto& g : sum.groups)
    for (auto& e : g.examples)
      if (!e.report.empty()) {
        const fs::path rel = fs::absolute(e.report, ec).lexically_normal().lexically_relative(from);
        if (!rel.empty()) e.report = rel.generic_string();
      }
}

// The bytes written, or why the summary could not be written.
base::Result<std::uint64_t> write_summary(const std::string& path, batch::Summary sum) {
  relink(sum, path);
  const std::string named = format_of_file(path);
  const std::string format = named.empty() ? "text" : named;
  auto out = Output::open(path);
  if (!out) return base::err(base::say(base::Say::OutputCannotWrite, {{"what", out.error()}}));
  out->buffer() += batch::render_summary(sum, format);
  return out->finish();
}

}  // namespace

int cmd_scan(Config& config, batch::ScanSettings settings, bool resume, const std::string& summary) {
  const bool to_file = !config.output.empty() && config.output != "-";
  if (!summary.empty() && config.format != "jsonl") {
    std::fprintf(stderr, "dtriage: --summary is made of the jsonl result lines: leave out --format text\n");
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
  settings.version = kVersion;
  settings.analysed_at = analysis_time();
  settings.wrote = to_file ? config.output : "";
  if (!summary.empty()) settings.wrote += (settings.wrote.empty() ? "" : " and ") + summary;
  // Without -o FILE the summary is made of the lines as they are written (with it, of the file,
  // which holds the jobs of a resumed scan's earlier runs too).
  batch::Summarizer live;
  const bool summarize_live = !summary.empty() && !to_file;
  const int code = batch::scan(config.paths, settings, *book, [&](const std::string& lines) {
    out.buffer() += lines;
    out.flush();
    if (summarize_live) {
      std::size_t at = 0;
      for (std::size_t nl; (nl = lines.find('\n', at)) != std::string::npos; at = nl + 1)
        if (auto l = batch::parse_result_line(lines.substr(at, nl - at))) live.add(*l);
    }
    return !out.failed();
  });
  if (!finish_output(out)) return 2;
  if (!summary.empty()) {
    int read_code = 0;
    std::uint64_t lines = 0;
    batch::Summary sum = summarize_live ? live.finish() : summarize_files({config.output}, read_code, lines);
    if (const auto written = write_summary(summary, std::move(sum)); !written)
      std::fprintf(stderr, "dtriage: %s\n", written.error().c_str());
  }
  return code;
}

int cmd_summary(const std::vector<std::string>& files, const std::string& format, const std::string& output,
                const batch::SummaryOptions& options) {
  int code = 0;
  std::uint64_t lines = 0;
  batch::Summary sum = summarize_files(files, code, lines, options);
  relink(sum, output);
  if (lines == 0 && code != 0) return 2;
  Output out;
  if (!open_output(out, output)) return 2;
  out.buffer() += batch::render_summary(sum, format);
  if (!finish_output(out)) return 2;
  return code;
}

// Joins shard outputs: one line per job (the first seen; a job in two shards is reported), in
// name order, half-written lines left out. Each job keeps where its line is (file, offset, size) and
// a hash of it, not the line: the lines are read again as they are written. When the output is one
// of the files merged, the lines are kept instead (the file is rewritten).
int cmd_merge(const std::vector<std::string>& files, const std::string& output) {
  struct Kept {
    std::uint64_t hash = 0;
    std::size_t file = 0;
    std::uint64_t line = 0, offset = 0, size = 0;
    std::string raw;  // only when the output is an input
  };
  namespace fs = std::filesystem;
  bool rewrites = false;
  std::error_code ec;
  for (const std::string& f : files)
    if (!output.empty() && output != "-" && fs::exists(output, ec) && fs::equivalent(f, output, ec)) rewrites = true;
  auto fnv = [](const std::string& s) {
    std::uint64_t h = 14695981039346656037ull;
    for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return h;
  };
  std::map<std::string, Kept> by_job;
  int code = 0;
  std::size_t file = 0;
  for (const std::string& f : files) {
    for_each_result({f}, code, [&](batch::ResultLine&& l) {
      const std::uint64_t h = fnv(l.raw);
      const auto it = by_job.find(l.job);
      if (it == by_job.end()) {
        Kept k{h, file, l.line, l.offset, l.raw.size(), {}};
        if (rewrites) k.raw = std::move(l.raw);
        by_job.emplace(std::move(l.job), std::move(k));
        return;
      }
      if (it->second.hash != h)
        std::fprintf(stderr, "dtriage: %s\n",
                     base::say(base::Say::InputJobTwice, {{"path", f}, {"line", std::to_string(l.line)}, {"job", it->first},
                                                          {"first", files[it->second.file]}, {"at", std::to_string(it->second.line)}})
                         .c_str());
    });
    ++file;
  }
  std::vector<std::ifstream> in(files.size());
  if (!rewrites)
    for (std::size_t i = 0; i < files.size(); ++i) in[i].open(files[i], std::ios::binary);
  Output out;
  if (!open_output(out, output)) return 2;
  std::string line;
  for (const auto& [job, k] : by_job) {
    if (rewrites) {
      out.buffer() += k.raw;
    } else {
      line.resize(k.size);
      std::ifstream& f = in[k.file];
      f.seekg(static_cast<std::streamoff>(k.offset));
      if (!f.read(line.data(), static_cast<std::streamsize>(k.size)) || fnv(line) != k.hash) {
        // Changed since it was read (a scan still writing it): said, and left out.
        std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::InputChangedWhileMerged, {{"path", files[k.file]}, {"line", std::to_string(k.line)}}).c_str());
        f.clear();
        code = 1;
        continue;
      }
      out.buffer() += line;
    }
    out.buffer() += '\n';
    out.maybe_flush();
  }
  if (!finish_output(out)) return 2;
  return by_job.empty() && code != 0 ? 2 : code;
}

}  // namespace dtriage::cli
