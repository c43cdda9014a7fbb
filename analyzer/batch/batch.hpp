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
// The summary with what differs from job to job taken out, so that jobs that died the same way on
// other nodes, devices, ranks or sizes share one pattern: host names, addresses, pids, ranks, times,
// bus ids, paths and hex become <node>, <ip>, <pid>, <rank>, <time>, <bus>, <path>, <hex>; every
// other number becomes <n> but those that name the kind of ending (exit code 3, errno 98, signal 9,
// Xid 79) and error codes (EE8888, ERR02005), which stay with the words (SIGKILL, OutOfMemoryError).
// Lists of one placeholder are one ("ranks <rank>"), where a cause happened ("on <node>", "(the same
// on <node>)") is dropped, and a pattern is cut at kPatternMax characters. `hosts` and `pids` are
// the job's own, replaced wherever they occur.
std::string pattern_of(const std::string& summary, const std::vector<std::string>& hosts,
                       const std::vector<std::int64_t>& pids);
// The part of pattern_of that needs no job: applied to a pattern it gives it back unchanged, so the
// summary can group result lines of older versions by what they wrote.
std::string normalize_pattern(std::string pattern);
inline constexpr std::size_t kPatternMax = 200;
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
  std::string summary_en;  // the summary in English, when the scan said it in another language
  std::string date, date_from;     // the job's day (YYYY-MM-DD), and from "logs" or "files" (modification time)
  std::string device;              // the culprit's device on `node`, when the evidence names one
  std::string report;              // the job's own report (scan --reports), as written
  std::vector<std::string> nodes;  // every node the job ran on
  bool compared = false;           // scan --baseline found the job's good run and compared
  std::string baseline_change;     // the change it named as the most relevant ("" when none)
  std::uint64_t files = 0, bytes = 0;
  std::string raw;          // the line as written
  std::string path;         // file it came from
  std::uint64_t line = 0;
  std::uint64_t offset = 0;  // byte offset of the line in its file
};
struct ReadResults {
  std::vector<ResultLine> lines;
  std::vector<std::string> problems;  // "path:line: why" for the first kProblemsKept lines that are not results
  std::uint64_t problems_total = 0;   // all of them
  bool partial_tail = false;          // the last line has no end (a scan was killed while writing)
  std::uint64_t complete_bytes = 0;   // bytes up to and including the last '\n'
};
inline constexpr std::size_t kProblemsKept = 5;
// One result line (no '\n'), or nullopt when it is not one (not a JSON object with a job).
std::optional<ResultLine> parse_result_line(const std::string& line);
// Reads one result file, a line at a time. A missing file is an empty result. With `each`, every
// result line goes to it and none is kept (memory bounded by the longest line, not the file).
ReadResults read_results(const std::string& path, const std::function<void(ResultLine&&)>& each = nullptr);

// ---- the summary ----
struct Example {
  std::string job, summary, report;
};
struct Group {
  std::string fingerprint, category, rule, pattern;
  std::uint64_t jobs = 0;
  std::string first_seen, last_seen;  // the jobs' days, first and last ("" when none is dated)
  std::vector<Example> examples;      // the first kExamples jobs by name
  std::set<std::string> nodes;        // the culprits' nodes (at most kGroupNodes kept)
  std::uint64_t more_nodes = 0;       // culprit nodes beyond those kept
};
inline constexpr std::size_t kExamples = 3, kGroupNodes = 8;
inline constexpr std::size_t kMaxNodes = 200000;  // distinct nodes (and node devices) the summary ranks
// A node (or one device of a node) the culprits of failed jobs were on.
struct BadNode {
  std::string node, device;               // device "" for a node's row
  std::uint64_t culprit = 0, ran = 0;     // jobs that name it as the culprit's, jobs that ran on it
  std::map<std::string, std::uint64_t> by_category;  // of the culprit jobs
};
// Failed jobs whose scan compared them with their baseline, grouped by the change named.
struct ChangeGroup {
  std::string change;  // the diff's key ("nproc_per_node", "env NCCL_ALGO", ...); "" = no change found
  std::uint64_t jobs = 0;
  std::map<std::string, std::uint64_t> by_category;
  std::vector<Example> examples;  // the first kExamples jobs by name
};
// A job that was not analysed (error: unreadable, timed out; skipped: not a job).
struct NotAnalysed {
  std::string job, status, reason;
};
inline constexpr std::size_t kNotAnalysedShown = 100;
struct Summary {
  std::uint64_t jobs = 0;
  std::map<std::string, std::uint64_t> by_status;
  std::map<std::string, std::uint64_t> by_category;
  std::vector<Group> groups;  // most jobs first
  std::vector<BadNode> bad_nodes, bad_devices;  // most culprit jobs first, then most jobs ran
  std::vector<ChangeGroup> changes;  // most jobs first; empty when no failed job was compared
  std::uint64_t not_compared = 0;    // failed jobs without a baseline (counted when any was compared)
  // Failed jobs per week (ISO 8601 week of the job's day, "2026-W48") and category.
  std::map<std::string, std::map<std::string, std::uint64_t>> weeks;
  std::uint64_t undated = 0;             // failed jobs with no day
  std::uint64_t dated_by_files = 0;      // jobs dated by their files' modification time
  std::vector<NotAnalysed> not_analysed;  // the first kNotAnalysedShown by name
  std::uint64_t not_analysed_total = 0;
  std::uint64_t left_out = 0;            // jobs outside --since / --until (or undated with them)
  std::uint64_t nodes_not_ranked = 0;    // node mentions past kMaxNodes distinct nodes (not counted)
  std::string since, until;
  std::vector<std::string> sources;
};
// The ISO 8601 week of a day "YYYY-MM-DD" ("2026-W49"), "" when it is no day.
std::string iso_week(const std::string& day);
struct SummaryOptions {
  std::string since, until;  // days, inclusive ("" = open)
};
// Summaries made a line at a time: memory grows with the groups, nodes and job names (to count a
// job given twice once), not with the lines.
class Summarizer {
 public:
  explicit Summarizer(SummaryOptions o = {}) : o_(std::move(o)) {}
  void add(const ResultLine& l);
  Summary finish();
  std::uint64_t repeated() const { return repeated_; }  // lines of a job already counted, left out

 private:
  BadNode* node(const std::string& name, const std::string& device, std::size_t most);  // nullptr past `most` nodes
  void ran(const std::string& name);
  SummaryOptions o_;
  Summary s_;
  std::map<std::string, Group> groups_;
  std::map<std::pair<std::string, std::string>, BadNode> nodes_;
  std::map<std::string, ChangeGroup> changes_;
  std::set<std::string> jobs_seen_;
  std::uint64_t repeated_ = 0;
};
Summary summarize(const std::vector<ResultLine>& results, const SummaryOptions& o = {});
std::string render_summary_text(const Summary& s);
std::string render_summary_json(const Summary& s);
std::string render_summary_markdown(const Summary& s);
std::string render_summary_html(const Summary& s);
// The one for `format`: text, json, markdown or html.
std::string render_summary(const Summary& s, std::string_view format);

}  // namespace dtriage::batch
