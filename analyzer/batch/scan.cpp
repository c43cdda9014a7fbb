#include "batch/scan.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>
#include <mutex>
#include <system_error>
#include <thread>

#include "base/sentences.hpp"
#include "base/json_escape.hpp"
#include "base/text.hpp"
#include "diff/diff.hpp"
#include "ingest/decompress.hpp"
#include "report/report.hpp"

namespace dtriage::batch {

namespace fs = std::filesystem;

std::vector<std::pair<std::string, std::string>> list_jobs(const std::vector<std::string>& roots, base::Inventory& inv,
                                                            const std::vector<std::string>& own, bool follow_outside_links) {
  std::vector<std::pair<std::string, std::string>> jobs;  // (name, path)
  // The same file: one that exists already (-o is opened before the listing), else by its path.
  auto is_own = [&own](const std::string& path) {
    std::error_code ec;
    for (const std::string& o : own) {
      if (fs::equivalent(path, o, ec) && !ec) return true;
      ec.clear();
      if (fs::weakly_canonical(path, ec) == fs::weakly_canonical(o, ec) && !ec) return true;
    }
    return false;
  };
  for (const std::string& root : roots) {
    std::error_code ec;
    if (fs::is_directory(root, ec)) {
      std::vector<std::string> names;
      for (auto it = fs::directory_iterator(root, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
        names.push_back(it->path().filename().string());
      if (ec) inv.add_unreadable(root, ec.message());
      std::sort(names.begin(), names.end());
      const fs::path root_real = fs::weakly_canonical(root, ec);
      for (const std::string& n : names) {
        const std::string path = root + "/" + n;
        // A link out of the ROOT could pull the engineer's own files into the results.
        if (!follow_outside_links && fs::is_symlink(fs::symlink_status(path, ec))) {
          const fs::path target = fs::weakly_canonical(path, ec);
          const auto rel = target.lexically_relative(root_real);
          if (!ec && (rel.empty() || *rel.begin() == "..")) {
            inv.add_skipped(path, base::say(base::Say::InputSymlinkOutside, {{"target", target.string()}, {"root", root}}));
            continue;
          }
        }
        // A FIFO, socket or device is no job: reading it could block or never end.
        const auto st = fs::status(path, ec);
        if (!ec && !fs::is_directory(st) && !fs::is_regular_file(st)) {
          inv.add_skipped(path, base::say(base::Say::InputNotJob));
          continue;
        }
        if (is_own(path)) {
          inv.add_skipped(path, base::say(base::Say::InputOwnOutput));
          continue;
        }
        jobs.emplace_back(roots.size() > 1 ? root + "/" + n : n, path);
      }
    } else if (fs::exists(root, ec)) {
      jobs.emplace_back(root, root);
    } else {
      inv.add_unreadable(root, "no such file or directory");
    }
  }
  return jobs;
}

namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json text_or_null(const std::string& s) { return s.empty() ? ordered_json(nullptr) : ordered_json(s); }

std::string dump(const ordered_json& j) {
  std::string out = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  base::escape_spoofing_controls_in_json(out);
  return out;
}

// A text line of `scan --format text`: name, status, category, then the sentence. A name longer
// than its column stands on a line of its own, so that the columns stay put.
std::string text_columns(const std::string& name, const char* status, const std::string& category, const std::string& rest) {
  const std::string shown = base::visible(name);
  char head[256];
  std::snprintf(head, sizeof head, "%-32s %-12s %-26s ", shown.size() > 32 ? "" : shown.c_str(), status, base::visible(category).c_str());
  return (shown.size() > 32 ? shown + "\n" : std::string()) + head + base::visible(rest);
}

// The job's day from its logs: its first error's, else its earliest dated line's.
std::string logs_day(const report::Report& job) {
  const model::Time* t = nullptr;
  if (const auto& fe = job.facts.job.first_error; fe && *fe < job.events.size() && job.events[*fe].time.valid) t = &job.events[*fe].time;
  if (t == nullptr)
    for (const auto& e : job.events)
      if (e.time.valid && (t == nullptr || e.time < *t)) t = &e.time;
  return t != nullptr && t->text.size() >= 10 ? t->text.substr(0, 10) : "";
}

// The device the culprit's evidence names on its node, when one does.
std::string culprit_device(const report::Report& job) {
  const rules::Verdict& v = job.analysis.verdict;
  if (v.root < 0 || static_cast<std::size_t>(v.root) >= job.analysis.findings.size() || v.node.empty()) return "";
  for (auto i : job.analysis.findings[static_cast<std::size_t>(v.root)].events)
    if (i < job.events.size() && job.events[i].device && job.events[i].node == v.node) return std::to_string(*job.events[i].device);
  return "";
}

std::string line_of(const std::string& name, const report::Report& job, double seconds, const std::string& format, const JobMeta& meta) {
  const rules::Verdict& v = job.analysis.verdict;
  const bool failed = v.status != rules::Status::Healthy && !v.category.empty();
  const char* status = rules::status_name(v.status);
  if (format == "text") return text_columns(name, status, failed ? v.category : "-", v.summary);
  std::vector<std::string> hosts;
  std::vector<std::int64_t> pids;
  for (const auto& n : job.facts.nodes) {
    hosts.push_back(n.name);
    pids.insert(pids.end(), n.pids.begin(), n.pids.end());
  }
  const std::string pattern = pattern_of(v.english(), hosts, pids);  // the same whatever the language
  std::string time;
  if (const auto& fe = job.facts.job.first_error; fe && *fe < job.events.size()) time = job.events[*fe].time.text;
  const bool healthy = v.status == rules::Status::Healthy;
  std::string day = logs_day(job);
  const char* day_from = "logs";
  if (day.empty() && !meta.path.empty()) {
    day = files_day(meta.path);
    day_from = "files";
  }
  if (day.empty()) day_from = nullptr;
  ordered_json nodes = ordered_json::array();
  for (const auto& h : hosts)
    if (!h.empty()) nodes.push_back(h);
  ordered_json j{{"job", name},
                       {"status", status},
                       {"category", failed ? ordered_json(v.category) : ordered_json(nullptr)},
                       {"summary", v.summary},
                       {"node", text_or_null(v.node)},
                       {"rank", v.rank ? ordered_json(*v.rank) : ordered_json(nullptr)},
                       {"rule", text_or_null(v.rule)},
                       {"fingerprint", healthy ? ordered_json(nullptr) : ordered_json(fingerprint(v.category, v.rule, pattern))},
                       {"pattern", healthy ? ordered_json(nullptr) : ordered_json(pattern)},
                       {"time", text_or_null(time)},
                       {"files", job.inventory.files},
                       {"bytes", job.inventory.bytes},
                       {"seconds", std::round(seconds * 1000) / 1000},
                       {"unreadable", job.inventory.unreadable.size()},
                       {"date", text_or_null(day)},
                       {"date_from", day_from ? ordered_json(day_from) : ordered_json(nullptr)},
                       {"device", failed ? text_or_null(culprit_device(job)) : ordered_json(nullptr)},
                       {"nodes", nodes}};
  if (!v.summary_en.empty()) j["summary_en"] = v.summary_en;  // said in another language
  if (!meta.report.empty()) j["report"] = meta.report;
  if (!meta.baseline.empty())
    j["baseline"] = ordered_json{{"path", meta.baseline},
                                 {"compared", meta.baseline_compared},
                                 {"relevant_change", text_or_null(meta.baseline_change)},
                                 {"sentence", text_or_null(meta.baseline_sentence)},
                                 {"sentence_en", text_or_null(meta.baseline_sentence_en.empty() ? meta.baseline_sentence : meta.baseline_sentence_en)}};
  return dump(j);
}

// Bytes on disk below `path` (for the progress line's rate and ETA).
std::uint64_t disk_bytes(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return fs::file_size(path, ec);
  std::uint64_t total = 0;
  if (!fs::is_directory(path, ec)) return 0;
  for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
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

}  // namespace

std::string files_day(const std::string& path) {
  std::error_code ec;
  fs::file_time_type newest = fs::file_time_type::min();
  auto see = [&newest](const fs::directory_entry& e) {
    std::error_code ec2;
    if (!e.is_regular_file(ec2)) return;
    const auto t = e.last_write_time(ec2);
    if (!ec2 && t > newest) newest = t;
  };
  if (fs::is_directory(path, ec)) {
    for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      see(*it);
  } else {
    see(fs::directory_entry(path, ec));
  }
  if (newest == fs::file_time_type::min()) return "";
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::file_clock::to_sys(newest).time_since_epoch()).count();
  const std::time_t tt = static_cast<std::time_t>(secs);
  std::tm tm{};
  if (gmtime_r(&tt, &tm) == nullptr) return "";
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::string report_file_name(const std::string& job) {
  std::string o;
  for (unsigned char c : job) o += (std::isalnum(c) || c == '.' || c == '-' || c == '_') ? static_cast<char>(c) : '_';
  if (o.empty() || o[0] == '.') o.insert(0, "job");
  // Two names that differ only in what was replaced ("job 1", "job_1") must not share a file.
  if (o != job) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : job) h = (h ^ c) * 1099511628211ull;
    char tag[24];
    std::snprintf(tag, sizeof tag, "-%08llx", static_cast<unsigned long long>(h & 0xffffffffull));
    o += tag;
  }
  return o;
}

std::string result_line(const std::string& name, const analysis::Analysis& job, const analysis::RuleBook& book,
                        double seconds, const std::string& format, bool redact, const JobMeta& meta) {
  const report::Report full{job.events, job.facts, job.outcome, job.inventory, book.set.problems, 0, "", "", ""};
  if (!redact) return line_of(name, full, seconds, format, meta);
  // The job's name is a path the customer chose: masked by one rule for the whole scan (and every
  // shard and resumed run of it), not by the job's own numbering of hosts.
  const report::RedactedReport masked = report::redact(full);
  return line_of(report::masked_job_name(name), masked.view(), seconds, format, meta);
}

std::string error_line(const std::string& name, const std::string& what, const std::string& format, const char* status) {
  if (format == "text") return text_columns(name, status, "-", what);
  return dump(ordered_json{{"job", name}, {"status", status}, {"error", what}});
}

base::Result<std::set<std::string>> resume_from(const std::string& path) {
  std::set<std::string> done;
  // Only the names are kept: a results file of half a million jobs is read a line at a time.
  const ReadResults prior = read_results(path, [&done](ResultLine&& l) { done.insert(std::move(l.job)); });
  for (const auto& p : prior.problems) std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::InputKeptAsItIs, {{"problem", p}}).c_str());
  if (prior.problems_total > prior.problems.size())
    std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::InputMoreKeptAsTheyAre, {{"path", path}, {"count", std::to_string(prior.problems_total - prior.problems.size())}}).c_str());
  if (prior.partial_tail) {
    std::error_code ec;
    fs::resize_file(path, prior.complete_bytes, ec);
    if (ec) return base::err(base::say(base::Say::InputCannotCutLine, {{"path", path}, {"error", ec.message()}}));
    std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::InputDroppedHalfLine, {{"path", path}}).c_str());
  }
  return done;
}

namespace {

// The jobs of one scan and what became of them; lines leave in name order.
class Scan {
 public:
  Scan(std::vector<std::pair<std::string, std::string>> jobs, const ScanSettings& s, const analysis::RuleBook& book,
       const std::function<bool(const std::string&)>& write)
      : jobs_(std::move(jobs)), s_(s), book_(book), write_(write), lines_(jobs_.size()), finished_(jobs_.size(), 0),
        codes_(jobs_.size(), 2), statuses_(jobs_.size()), sizes_(jobs_.size(), 0) {
    std::uint64_t total = 0;
    if (s.progress)
      for (std::size_t i = 0; i < jobs_.size(); ++i) total += sizes_[i] = disk_bytes(jobs_[i].second);
    progress_ = std::make_unique<Progress>(s.progress, jobs_.size(), total);
  }

  // Runs every job on `threads` threads (this one among them).
  void run(unsigned threads) {
    std::vector<std::thread> pool;
    try {
      for (unsigned t = 1; t < threads; ++t) pool.emplace_back([this] { work(); });
    } catch (const std::system_error&) {
      // no more threads (a container's pids limit): the jobs run on those there are, this one at least
    }
    work();
    for (auto& t : pool) t.join();
    progress_->finish();
  }
  bool write_failed() const { return write_failed_; }
  const std::vector<int>& codes() const { return codes_; }
  const std::vector<std::string>& statuses() const { return statuses_; }
  bool report_failed() const { return report_failed_; }

 private:
  void work() {
    for (std::size_t i = next_++; i < jobs_.size(); i = next_++) {
      try {
        one(i);
      } catch (const std::exception& e) {  // one job's failure (e.g. out of memory) is its own line
        codes_[i] = 1;
        statuses_[i] = "error";
        lines_[i] = error_line(shown_name(i), e.what(), s_.format);
      }
      commit(i);
    }
  }

  void one(std::size_t i) {
    analysis::Inputs in;
    in.paths = {jobs_[i].second};
    if (!s_.node_pattern.empty()) in.hints = std::move(ingest::NodeHints::from_pattern(s_.node_pattern).value());
    const auto start = std::chrono::steady_clock::now();
    analysis::Options opt = s_.analysis;
    opt.threads = 1;
    opt.limits.deadline = deadline_from_now();
    auto job = analysis::analyze(std::move(in), book_, opt);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (job->inventory.timed_out) {
      char what[160];
      std::snprintf(what, sizeof what, "timed out after %.0f s (--job-timeout); %llu files read before", s_.job_timeout,
                    static_cast<unsigned long long>(job->inventory.files));
      codes_[i] = 1;
      lines_[i] = error_line(shown_name(i), what, s_.format);
      statuses_[i] = "error";
      return;
    }
    codes_[i] = !job->read_anything ? 2 : job->inventory.unreadable.empty() ? 0 : 1;
    // Nothing of it could be read (an archive format not supported, a damaged one): an error with
    // the reason, not an "inconclusive" cause of its own.
    if (!job->read_anything && !job->inventory.unreadable.empty()) {
      const auto& p = job->inventory.unreadable.front();
      std::string why = p.path + ": " + p.reason;
      if (job->inventory.unreadable.size() > 1) why += " (and " + std::to_string(job->inventory.unreadable.size() - 1) + " more)";
      statuses_[i] = "error";
      lines_[i] = error_line(shown_name(i), s_.redact ? p.reason : why, s_.format);
      return;
    }
    // A lone file of which no parser recognised a line (a README.txt beside the jobs) is no job.
    std::error_code ec;
    if (job->read_anything && job->events.empty() && job->inventory.events_not_kept == 0 && job->outcome.findings.empty() &&
        fs::is_regular_file(jobs_[i].second, ec)) {
      codes_[i] = 0;
      statuses_[i] = "skipped";
      lines_[i] = error_line(shown_name(i), base::say(base::Say::InputNoRecognisedLine), s_.format, "skipped");
      return;
    }
    JobMeta meta;
    meta.path = jobs_[i].second;
    if (!s_.reports_dir.empty()) meta.report = write_reports(i, *job);
    statuses_[i] = rules::status_name(job->outcome.verdict.status);
    // --baseline ROOT: the BAD side, when there is a good run to compare with, owns the analysis.
    std::optional<diff::Side> bad = compare_with_baseline(i, job, opt, meta);
    const analysis::Analysis& a = bad ? *bad->job : *job;
    lines_[i] = result_line(jobs_[i].first, a, book_, secs, s_.format, s_.redact, meta);
  }

  // A budget of --job-timeout from now (none when it is 0).
  std::optional<std::chrono::steady_clock::time_point> deadline_from_now() const {
    if (s_.job_timeout <= 0) return std::nullopt;
    return std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s_.job_timeout));
  }

  // --baseline ROOT: the entry of the job's name there is its run that worked. Fills the line's
  // baseline fields; returns the BAD side (which then owns `job`) when the two were compared.
  std::optional<diff::Side> compare_with_baseline(std::size_t i, std::unique_ptr<analysis::Analysis>& job, analysis::Options opt, JobMeta& meta) {
    if (s_.baseline_root.empty() || job->inventory.timed_out) return std::nullopt;
    const std::string good_path = s_.baseline_root + "/" + fs::path(jobs_[i].second).filename().string();
    std::error_code ec;
    if (!fs::exists(good_path, ec)) return std::nullopt;
    opt.limits.deadline = deadline_from_now();  // a budget of its own, as long as the job's
    const diff::Side good = diff::read_side(good_path, book_, opt);
    meta.baseline = s_.redact ? "yes" : good_path;
    if (good.job->inventory.timed_out || !good.job->read_anything) {
      meta.baseline_sentence = good.job->inventory.timed_out ? "the baseline could not be read within --job-timeout" : "nothing of the baseline could be read";
      return std::nullopt;
    }
    diff::Side bad = diff::read_side({jobs_[i].second}, jobs_[i].first, book_, opt, std::move(job));
    const diff::Diff d = diff::compare(good, bad);
    meta.baseline_compared = true;
    meta.baseline_change = d.relevant_key;
    meta.baseline_sentence = d.sentence;
    meta.baseline_sentence_en = d.sentence_en;
    if (s_.redact) {  // BAD's names first, numbered as the job's redacted line numbers its nodes
      report::Redactor red;
      diff::learn_names(good, bad, red);
      meta.baseline_sentence = red.apply(meta.baseline_sentence);
      meta.baseline_sentence_en = red.apply(meta.baseline_sentence_en);
    }
    return bad;
  }

  // The job's reports below --reports DIR; the path of the first written (for the result line).
  std::string write_reports(std::size_t i, const analysis::Analysis& job) {
    const report::Report full{job.events, job.facts, job.outcome, job.inventory, book_.set.problems, book_.set.rules.size(), s_.version,
                              shown_name(i), s_.analysed_at};
    std::optional<report::RedactedReport> masked;
    if (s_.redact) masked = report::redact(full);
    const report::Report& r = masked ? masked->view() : full;
    std::string first;
    for (const std::string& f : s_.report_formats) {
      const std::string path = s_.reports_dir + "/" + report_file_name(shown_name(i)) + (f == "markdown" ? ".md" : ".html");
      const std::string text = f == "markdown" ? report::render_markdown(r) : report::render_html(r);
      std::FILE* out = std::fopen(path.c_str(), "wb");
      const bool ok = out != nullptr && std::fwrite(text.data(), 1, text.size(), out) == text.size();
      if (out != nullptr && std::fclose(out) != 0) report_failed_ = true;
      if (!ok) {
        report_failed_ = true;
        continue;
      }
      if (first.empty()) first = path;
    }
    return first;
  }

  std::string shown_name(std::size_t i) const { return s_.redact ? report::masked_job_name(jobs_[i].first) : jobs_[i].first; }

  // Lines go out in name order as soon as every earlier job is done, one write each, so that a
  // killed scan leaves whole lines of finished jobs.
  void commit(std::size_t i) {
    std::lock_guard<std::mutex> lock(mu_);
    finished_[i] = 1;
    ++done_;
    bytes_done_ += sizes_[i];
    std::string out;
    while (next_write_ < jobs_.size() && finished_[next_write_]) {
      out += lines_[next_write_];
      out += '\n';
      std::string().swap(lines_[next_write_]);
      ++next_write_;
    }
    if (!out.empty() && !write_(out)) write_failed_ = true;
    progress_->update(done_, bytes_done_, done_ == jobs_.size());
  }

  const std::vector<std::pair<std::string, std::string>> jobs_;
  const ScanSettings& s_;
  const analysis::RuleBook& book_;
  const std::function<bool(const std::string&)>& write_;
  std::vector<std::string> lines_;
  std::vector<char> finished_;
  std::vector<int> codes_;
  std::vector<std::string> statuses_;  // failed, healthy, inconclusive, error, skipped
  std::vector<std::uint64_t> sizes_;
  std::unique_ptr<Progress> progress_;
  std::atomic<std::size_t> next_{0};
  std::mutex mu_;
  std::size_t next_write_ = 0, done_ = 0;
  std::uint64_t bytes_done_ = 0;
  bool write_failed_ = false;
  std::atomic<bool> report_failed_{false};
};

}  // namespace

int scan(const std::vector<std::string>& roots, const ScanSettings& settings, const analysis::RuleBook& book,
         const std::function<bool(const std::string&)>& write) {
  base::Inventory top;
  auto listed = list_jobs(roots, top, settings.own_outputs, settings.analysis.limits.follow_outside_links);
  for (const auto& p : top.unreadable) std::fprintf(stderr, "dtriage: %s: %s\n", p.path.c_str(), p.reason.c_str());
  for (const auto& p : top.skipped)
    std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::InputSkipped, {{"path", p.path}, {"reason", p.reason}}).c_str());
  std::vector<std::pair<std::string, std::string>> jobs;
  std::size_t skipped_done = 0;
  for (auto& j : listed) {
    if (settings.shard && !in_shard(j.first, *settings.shard)) continue;
    if (settings.done_before.count(settings.redact ? report::masked_job_name(j.first) : j.first) != 0) {
      ++skipped_done;
      continue;
    }
    jobs.push_back(std::move(j));
  }
  if (settings.say_resumed)
    std::fprintf(stderr, "dtriage: %s\n",
                 base::say(base::Say::ScanResuming, {{"done", std::to_string(skipped_done)}, {"count", std::to_string(jobs.size())}}).c_str());
  const std::size_t to_go = jobs.size();
  if (listed.empty() && top.unreadable.empty()) {
    for (const std::string& r : roots) std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::InputNoJobs, {{"root", r}}).c_str());
    return 2;
  }
  if (!settings.reports_dir.empty()) {
    std::error_code ec;
    fs::create_directories(settings.reports_dir, ec);
    if (ec) {
      std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::OutputCannotWrite, {{"what", settings.reports_dir + ": " + ec.message()}}).c_str());
      return 2;
    }
  }
  unsigned n = settings.jobs != 0 ? settings.jobs : std::max(1u, std::thread::hardware_concurrency());
  n = static_cast<unsigned>(std::min<std::size_t>(n, std::max<std::size_t>(to_go, 1)));
  const auto start = std::chrono::steady_clock::now();
  Scan s(std::move(jobs), settings, book, write);
  s.run(n);
  if (s.report_failed())
    std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::OutputCannotWrite, {{"what", "a report below " + settings.reports_dir}}).c_str());
  if (settings.say_end) {
    std::map<std::string, std::size_t> by;
    for (const std::string& st : s.statuses()) ++by[st.empty() ? "error" : st];
    std::string counts;
    const std::pair<const char*, base::Say> words[] = {{"failed", base::Say::ReportStatusFailed},
                                                       {"inconclusive", base::Say::ReportStatusInconclusive},
                                                       {"healthy", base::Say::ReportStatusHealthy},
                                                       {"skipped", base::Say::LabelSkipped},
                                                       {"error", base::Say::ScanStatusError}};
    for (const auto& [st, word] : words)
      if (by.count(st) != 0)
        counts += (counts.empty() ? "" : base::say(base::Say::PunctComma)) +
                  base::say(base::Say::ScanCount, {{"count", std::to_string(by[st])}, {"status", base::say(word)}});
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.1f", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    using base::Say;
    using base::say;
    std::string line = "dtriage: scan: " + say(Say::ScanDoneIn, {{"jobs", say(to_go == 1 ? Say::SummaryJobOne : Say::SummaryJobMany,
                                                                                  {{"count", std::to_string(to_go)}})},
                                                                  {"seconds", secs}});
    if (!counts.empty()) line += say(Say::ScanCounts, {{"counts", counts}});
    if (skipped_done != 0) line += say(Say::ScanDoneBefore, {{"count", std::to_string(skipped_done)}});
    if (!settings.wrote.empty()) line += say(Say::ScanWrote, {{"files", settings.wrote}});
    if (!settings.reports_dir.empty()) line += say(Say::ScanReportsIn, {{"dir", settings.reports_dir}});
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  if (s.write_failed()) return 2;
  if (listed.empty() && to_go == 0 && skipped_done == 0) return 2;
  int code = top.unreadable.empty() ? 0 : 1;
  bool any_read = to_go == 0;
  for (int c : s.codes()) {
    any_read = any_read || c != 2;
    if (c != 0) code = std::max(code, 1);
  }
  return any_read ? code : 2;
}

}  // namespace dtriage::batch
