// Batch scans at archive scale: what `dtriage scan` writes per job, how a killed scan resumes, how
// shards split the jobs and merge back, and the summary over many results (what kills the jobs,
// how often, which share a cause).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace dtriage::batch {

// ---- fingerprints ----
// The summary with what differs from job to job taken out: host names, addresses, pids, ranks,
// times, hex addresses and long numbers become <node>, <ip>, <pid>, <rank>, <time>, <hex>, <n>;
// the values that make the cause (nproc_per_node=8, 16-device, exit code 1, SIGKILL, 3.50 GiB)
// stay. `hosts` and `pids` are the job's own, replaced wherever they occur.
std::string pattern_of(const std::string& summary, const std::vector<std::string>& hosts,
                       const std::vector<std::int64_t>& pids);
// 16 hex digits over category, rule and pattern.
std::string fingerprint(const std::string& category, const std::string& rule, const std::string& pattern);

// ---- shards ----
struct Shard {
  std::uint64_t index = 0, count = 1;  // K/N, 0 <= K < N
};
// "K/N", or why it is not one.
base::Result<Shard> parse_shard(const std::string& text);
// True when job `name` belongs to the shard: a hash of the name, so the split does not depend on
// which other jobs exist or on the order a machine lists them in.
bool in_shard(const std::string& name, const Shard& shard);

// ---- result files (JSON lines) ----
struct ResultLine {
  std::string job;
  std::string status;       // failed, healthy, inconclusive, error
  std::string category, rule, summary, fingerprint, pattern, time, error, node;
  std::uint64_t files = 0, bytes = 0;
  std::string raw;          // the line as written
  std::string path;         // file it came from
  std::uint64_t line = 0;
};
struct ReadResults {
  std::vector<ResultLine> lines;
  std::vector<std::string> problems;  // "path:line: why" for lines that are not results
  bool partial_tail = false;          // the last line has no end (a scan was killed while writing)
  std::uint64_t complete_bytes = 0;   // bytes up to and including the last '\n'
};
// Reads one result file, a line at a time. A missing file is an empty result. With `each`, every
// result line goes to it and none is kept (memory bounded by the longest line, not the file).
ReadResults read_results(const std::string& path, const std::function<void(ResultLine&&)>& each = nullptr);

// ---- the summary ----
struct Group {
  std::string fingerprint, category, rule, pattern;
  std::uint64_t jobs = 0;
  std::string first_seen, last_seen;  // ISO times of the jobs' first errors ("" when undated)
  std::string example_job, example_summary;
};
struct Summary {
  std::uint64_t jobs = 0;
  std::map<std::string, std::uint64_t> by_status;
  std::map<std::string, std::uint64_t> by_category;
  std::vector<Group> groups;  // most jobs first
  std::vector<std::string> sources;
};
// Summaries made a line at a time: memory grows with the groups (and the job names, to count a
// job given twice once), not with the lines.
class Summarizer {
 public:
  void add(const ResultLine& l);
  Summary finish();
  std::uint64_t repeated() const { return repeated_; }  // lines of a job already counted, left out

 private:
  Summary s_;
  std::map<std::string, Group> groups_;
  std::set<std::string> jobs_seen_;
  std::uint64_t repeated_ = 0;
};
Summary summarize(const std::vector<ResultLine>& results);
std::string render_summary_text(const Summary& s);
std::string render_summary_json(const Summary& s);
std::string render_summary_markdown(const Summary& s);
std::string render_summary_html(const Summary& s);
// The one for `format`: text, json, markdown or html.
std::string render_summary(const Summary& s, std::string_view format);

}  // namespace dtriage::batch
