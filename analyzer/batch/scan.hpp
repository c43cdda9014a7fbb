// `dtriage scan`: many jobs, one analysis each, one result line per job, written in name order as
// soon as every earlier job is done (a killed scan leaves whole lines; --resume goes on from there).
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analysis.hpp"
#include "base/inventory.hpp"
#include "batch/batch.hpp"

namespace dtriage::batch {

struct ScanSettings {
  analysis::Options analysis;          // per job (threads: 1; jobs run in parallel instead)
  std::string node_pattern;            // --node-from-path, hints built anew per job
  std::string format = "jsonl";        // jsonl or text
  bool redact = false;
  unsigned jobs = 0;                   // jobs in parallel, 0 = one per core
  double job_timeout = 0;              // seconds a job may take to read; 0 = none
  std::optional<Shard> shard;
  bool progress = false;               // redraw a progress line on stderr
  std::set<std::string> done_before;   // --resume: jobs already in the output
  bool say_resumed = false;            // say on stderr how many were done before and how many are left
  std::vector<std::string> own_outputs;  // the files the scan writes (-o, --summary): never a job
  // --reports DIR: each job's own report, in each of `report_formats` (html, markdown), named after
  // the job; its path goes into the job's result line ("report").
  std::string reports_dir;
  std::vector<std::string> report_formats{"html"};
  std::string version, analysed_at;   // the reports' head
  // --baseline ROOT: a job's run that worked is the entry of the same name below ROOT; the job's
  // line then carries what `dtriage diff` says changed.
  std::string baseline_root;
  bool say_end = false;               // one line on stderr when the scan ends (jobs by status, what it wrote)
  std::string wrote;                  // what the scan writes, for that line ("results.jsonl")
};

// What a job is beside its analysis: where its files are (their newest modification day dates a
// job whose logs give no date) and the report scan --reports wrote of it.
struct JobMeta {
  std::string path;    // where its files are: their newest modification day dates a job whose logs give none
  std::string report;  // path of its report, "" when none
  // scan --baseline: the job's run that worked ("yes" under --redact), the configuration change
  // `diff` ties to its failure, and its sentence (masked under --redact).
  std::string baseline, baseline_change, baseline_sentence, baseline_sentence_en;
  bool baseline_compared = false;  // the baseline was read and the two runs compared
};

// Each entry directly below a ROOT (a directory or an archive / compressed file) is one job:
// (name, path), in name order. Entries that are no file or folder, that are one of `own` (the
// scan's own output files), or symlinks that lead out of their ROOT (unless `follow_outside_links`,
// as analyze), are skipped into `inv`.
std::vector<std::pair<std::string, std::string>> list_jobs(const std::vector<std::string>& roots, base::Inventory& inv,
                                                            const std::vector<std::string>& own = {},
                                                            bool follow_outside_links = false);

// One result line (no '\n') for a job analysed in `seconds`: JSON (the contract's fields) or text.
std::string result_line(const std::string& name, const analysis::Analysis& job, const analysis::RuleBook& book,
                        double seconds, const std::string& format, bool redact, const JobMeta& meta = {});
// The newest modification day (UTC) of the files below `path` (or of the file itself).
std::string files_day(const std::string& path);
// A job's name as a file name for its report: what is not a letter, digit, '.', '-' or '_' is '_'.
std::string report_file_name(const std::string& job);
// The line of a job that could not be analysed (timed out, out of memory); with status "skipped",
// of an entry that is no job (a lone file no parser recognises a line of).
std::string error_line(const std::string& name, const std::string& what, const std::string& format, const char* status = "error");

// --resume: the jobs already in `path`; a half-written last line (a scan killed while writing
// it) is cut off the file. Problems are said on stderr; an error when the file cannot be cut.
base::Result<std::set<std::string>> resume_from(const std::string& path);

// Scans every job below `roots`. `write` takes finished lines (each ending in '\n') and returns
// false once the output failed. Returns the exit code (0 all read, 1 some job or input unreadable,
// 2 nothing readable or the output failed).
int scan(const std::vector<std::string>& roots, const ScanSettings& settings, const analysis::RuleBook& book,
         const std::function<bool(const std::string&)>& write);

}  // namespace dtriage::batch
