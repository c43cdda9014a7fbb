// `dtriage analyze` (one job, one report) and `dtriage events` (the normalized events).
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <set>
#include <vector>

#include "base/sentences.hpp"
#include "base/text.hpp"
#include "cli/commands.hpp"
#include "diff/diff.hpp"
#include "model/event.hpp"
#include "report/report.hpp"

namespace dtriage::cli {

bool use_color(const std::string& setting, const Output& out) {
  if (setting == "always") return true;
  if (setting == "never") return false;
  if (std::getenv("NO_COLOR") != nullptr) return false;
  return out.is_terminal();
}
namespace {

std::string render(const report::Report& rep, const std::string& format, bool color) {
  if (format == "json") return report::render_json(rep);
  if (format == "markdown") return report::render_markdown(rep);
  if (format == "html") return report::render_html(rep);
  return report::render_text(rep, color);
}

// Prints each event as it is parsed: nothing is kept.
class EventPrinter final : public ingest::Sink {
 public:
  EventPrinter(const Config& config, Output& out, base::Inventory& inv) : config_(config), out_(out), inv_(inv) {}

  void on_text(const ingest::Source& source, ingest::ByteReader& text) override {
    const auto counts = formats::parse_stream(text, source, config_.parse, config_.analysis.max_line,
                                              [this](model::Event&& e) { print(e); });
    inv_.lines += counts.lines;
    inv_.lines_cut += counts.lines_cut;
  }

 private:
  void print(model::Event& e) {
    if (config_.redact) redactor_.apply(e);
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
  report::Redactor redactor_;  // --redact: hosts learned as the lines go
};


// Many jobs given as one: top-level entries of a PATH (folders, archives) that each hold a global
// rank 0 of their own. One job has one rank 0 (per attempt; torchrun's attempt_N folders are one
// job's restarts). Three or more such entries: the input looks like a folder of jobs.
std::vector<std::string> job_like_entries(const std::vector<model::Event>& events) {
  std::set<std::string> tops;
  for (const model::Event& e : events) {
    if (!(e.rank && *e.rank == 0)) continue;
    const auto cut = e.path.find_first_of("/!");
    if (cut == std::string::npos || cut == 0) continue;  // a file at the top holds no entry of its own
    std::string top = e.path.substr(0, cut);
    if (top.rfind("attempt_", 0) == 0) continue;
    tops.insert(std::move(top));
  }
  return {tops.begin(), tops.end()};
}

}  // namespace

// Now, ISO 8601 UTC to the second; SOURCE_DATE_EPOCH (the reproducible-builds convention) when set.
std::string analysis_time() {
  std::time_t t = std::time(nullptr);
  if (const char* e = std::getenv("SOURCE_DATE_EPOCH"); e != nullptr && *e != '\0') {
    char* end = nullptr;
    const long long v = std::strtoll(e, &end, 10);
    if (*end == '\0' && v >= 0) t = static_cast<std::time_t>(v);
  }
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

int cmd_analyze(Config& config) {
  Output out;
  if (!open_output(out, config.output)) return 2;
  const auto book = load_rules(config);
  if (!book) return 2;
  auto owned = analysis::analyze({config.paths, {}, std::move(config.hints)}, *book, config.analysis);
  analysis::Analysis* job = owned.get();  // owned here, or by the BAD side of --baseline
  std::optional<diff::Side> good, bad;
  std::string inputs;
  for (const std::string& p : config.paths) inputs += (inputs.empty() ? "" : " ") + p;
  // -C N: the lines around the verdict's evidence (the root finding's lines, or the line it leads
  // with), read again from the inputs now that the verdict says which lines they are.
  model::Context context;
  if (config.context > 0) {
    std::vector<std::size_t> wanted;
    const rules::Verdict& v = job->outcome.verdict;
    if (v.root >= 0) {  // the first 32 (what any format shows, unless --full): the memory stays bounded
      const auto& events = job->outcome.findings[static_cast<std::size_t>(v.root)].events;
      for (std::size_t k = 0; k < events.size() && k < 32; ++k) wanted.push_back(events[k]);
    }
    if (v.lead) wanted.push_back(*v.lead);
    context = analysis::read_context({config.paths, {}, {}}, config.analysis, job->events, wanted, config.context);
  }
  const report::Report full{job->events, job->facts,  job->outcome,   job->inventory, book->set.problems, book->set.rules.size(),
                            kVersion,    inputs,      analysis_time(), config.context > 0 ? &context : nullptr, config.full};
  // --redact masks the analysis itself, before any format renders it.
  std::optional<report::RedactedReport> masked;
  report::Redactor red;  // kept for the comparison with --baseline: its names are masked alike
  if (config.redact) {
    red.add_report(full);
    masked = report::redact(full, red);
  }
  std::string text = render(masked ? masked->view() : full, config.format, use_color(config.color, out));
  // --baseline: what changed since the run that worked, as a section of this report.
  if (!config.baseline.empty()) {
    good = diff::read_side(config.baseline, *book, config.analysis);
    print_problems(good->job->inventory);
    if (!good->job->read_anything) {
      std::fprintf(stderr, "dtriage: --baseline %s: nothing readable\n", config.baseline.c_str());
      return 2;
    }
    bad = diff::read_side(config.paths, inputs, *book, config.analysis, std::move(owned));
    diff::Diff d = diff::compare(*good, *bad);
    if (config.redact) diff::redact(*good, *bad, d, red);
    std::string section = diff::render_section(*good, *bad, d, config.format);
    if (config.format == "json") {
      // A member of the report's object, indented as the report is.
      for (std::size_t at = 0; (at = section.find('\n', at)) != std::string::npos && at + 1 < section.size(); at += 3) section.replace(at, 1, "\n  ");
      const std::size_t end = text.rfind('}');
      if (end != std::string::npos)
        text = text.substr(0, end) + ",\n  \"baseline\": " + section.substr(0, section.find_last_not_of('\n') + 1) + "\n}\n";
    } else if (config.format == "html") {
      const std::size_t end = text.rfind("</main>");
      text.insert(end == std::string::npos ? text.size() : end, section);
    } else {
      text += section;
    }
  }
  out.buffer() += text;
  if (!finish_output(out)) return 2;
  if (config.format != "json" && !job->inventory.unreadable.empty())
    std::fprintf(stderr, "dtriage: %s\n",
                 base::say(base::Say::InputCannotRead, {{"count", std::to_string(job->inventory.unreadable.size())}}).c_str());
  if (const auto jobs = job_like_entries(job->events); jobs.size() >= 3) {
    std::string some;
    for (std::size_t i = 0; i < jobs.size() && i < 3; ++i) some += (i ? ", " : "") + base::visible(jobs[i]);
    std::fprintf(stderr, "dtriage: %s\n",
                 base::say(base::Say::InputManyJobs, {{"count", std::to_string(jobs.size())}, {"some", some + (jobs.size() > 3 ? ", ..." : "")}}).c_str());
  }
  const int code = exit_code(job->read_anything, job->inventory);
  if (!config.ci || code != 0) return code;
  switch (job->outcome.verdict.status) {
    case rules::Status::Failed: return kExitVerdictFailed;
    case rules::Status::Inconclusive: return kExitVerdictInconclusive;
    default: return 0;
  }
}

int cmd_events(Config& config) {
  Output out;
  if (!open_output(out, config.output)) return 2;
  base::Inventory inv;
  ingest::Ingestor ing(config.analysis.limits, std::move(config.hints), inv);
  EventPrinter printer(config, out, inv);
  ing.run(config.paths, printer);
  if (!finish_output(out)) return 2;
  print_problems(inv);
  if (inv.lines_cut > 0)
    std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::InputLinesCut, {{"count", std::to_string(inv.lines_cut)}}).c_str());
  return exit_code(ing.read_anything(), inv);
}

}  // namespace dtriage::cli
