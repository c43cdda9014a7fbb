#include "batch/batch.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/json_escape.hpp"
#include "base/sentences.hpp"
#include "base/text.hpp"
#include "report/html.hpp"

namespace dtriage::batch {
namespace {

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; }

// Replaces whole occurrences of `what` (not inside a longer name) with `with`.
void replace_token(std::string& s, const std::string& what, const std::string& with) {
  if (what.empty()) return;
  std::size_t at = 0;
  while ((at = s.find(what, at)) != std::string::npos) {
    const bool left = at == 0 || !word_char(s[at - 1]);
    const std::size_t end = at + what.size();
    // a trailing '.' ends a sentence, not a name
    const bool right = end >= s.size() || !word_char(s[end]) || (s[end] == '.' && (end + 1 >= s.size() || !word_char(s[end + 1])));
    if (left && right) {
      s.replace(at, what.size(), with);
      at += with.size();
    } else {
      at = end;
    }
  }
}

std::string str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  return it->get<std::string>();
}
std::uint64_t num(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_unsigned()) return 0;
  return it->get<std::uint64_t>();
}

}  // namespace

std::string pattern_of(const std::string& summary, const std::vector<std::string>& hosts, const std::vector<std::int64_t>& pids) {
  std::string s = summary;
  std::vector<std::string> names = hosts;
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& h : names)
    if (h.size() >= 2) replace_token(s, h, "<node>");
  static const RE2 time_re(R"(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?|\b\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)");
  static const RE2 ip_re(R"(\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b)");
  static const RE2 hex_re(R"(\b0x[0-9a-fA-F]+\b)");
  static const RE2 rank_re(R"(\b(ranks?|Rank|Ranks|global rank|local_rank)(\s*[= ]\s*)\d+(?:(?:\s*(?:-|,|and)\s*)\d+)*)");
  static const RE2 pid_re(R"(\b(pid|PID|process|processes|Process)(\s*[=: ]\s*)\d+(?:(?:\s*(?:,|and)\s*)\d+)*)");
  static const RE2 long_re(R"(\b\d{5,}\b)");
  RE2::GlobalReplace(&s, time_re, "<time>");
  RE2::GlobalReplace(&s, ip_re, "<ip>");
  RE2::GlobalReplace(&s, hex_re, "<hex>");
  for (std::int64_t p : pids)
    if (p > 0) replace_token(s, std::to_string(p), "<pid>");
  RE2::GlobalReplace(&s, rank_re, "\\1\\2<rank>");
  RE2::GlobalReplace(&s, pid_re, "\\1\\2<pid>");
  RE2::GlobalReplace(&s, long_re, "<n>");
  return s;
}

std::string fingerprint(const std::string& category, const std::string& rule, const std::string& pattern) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a(category + "\n" + rule + "\n" + pattern)));
  return buf;
}

base::Result<Shard> parse_shard(const std::string& text) {
  unsigned long long k = 0, n = 0;
  char tail = 0;
  // Digits only on both sides: sscanf's %llu would take "-1" as 2^64 - 1.
  const std::size_t slash = text.find('/');
  const bool digits = slash != std::string::npos && slash > 0 && slash + 1 < text.size() && slash <= 18 &&
                      text.size() - slash - 1 <= 18 &&
                      text.find_first_not_of("0123456789/") == std::string::npos && text.find('/', slash + 1) == std::string::npos;
  if (!digits || std::sscanf(text.c_str(), "%llu/%llu%c", &k, &n, &tail) != 2 || n == 0 || k >= n) {
    return base::err("--shard wants K/N with 0 <= K < N (e.g. 0/3, as SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT), not '" + text + "'");
  }
  return Shard{k, n};
}

bool in_shard(const std::string& name, const Shard& shard) { return fnv1a(name) % shard.count == shard.index; }

ReadResults read_results(const std::string& path, const std::function<void(ResultLine&&)>& each) {
  ReadResults r;
  std::ifstream in(path, std::ios::binary);
  if (!in) return r;
  std::uint64_t number = 0;
  std::string line;
  while (std::getline(in, line)) {
    ++number;
    if (in.eof()) {  // no '\n' after it: a scan killed while writing
      r.partial_tail = !line.empty();
      break;
    }
    r.complete_bytes += line.size() + 1;
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || str(j, "job").empty()) {
      r.problems.push_back(base::say(base::Say::InputNotResultLine, {{"path", path}, {"line", std::to_string(number)}}));
      continue;
    }
    ResultLine l;
    l.job = str(j, "job");
    l.status = str(j, "status");
    l.category = str(j, "category");
    l.rule = str(j, "rule");
    l.summary = str(j, "summary");
    l.fingerprint = str(j, "fingerprint");
    l.pattern = str(j, "pattern");
    l.time = str(j, "time");
    l.error = str(j, "error");
    l.node = str(j, "node");
    l.files = num(j, "files");
    l.bytes = num(j, "bytes");
    l.raw = line;
    l.path = path;
    l.line = number;
    if (each) each(std::move(l));
    else r.lines.push_back(std::move(l));
  }
  return r;
}

void Summarizer::add(const ResultLine& l) {
  if (!jobs_seen_.insert(l.job).second) {  // the same job in two result files (or twice in one)
    ++repeated_;
    return;
  }
  ++s_.jobs;
  ++s_.by_status[l.status.empty() ? "unknown" : l.status];
  if (l.status == "failed" || l.status == "inconclusive") ++s_.by_category[l.category.empty() ? "unknown" : l.category];
  if (l.status != "failed" && l.status != "inconclusive") return;
  const std::string fp = !l.fingerprint.empty() ? l.fingerprint : fingerprint(l.category, l.rule, l.summary);
  Group& g = groups_[fp];
  if (g.jobs == 0) {
    g.fingerprint = fp;
    g.category = l.category.empty() ? "unknown" : l.category;
    g.rule = l.rule;
    g.pattern = !l.pattern.empty() ? l.pattern : l.summary;
  }
  ++g.jobs;
  if (!l.time.empty()) {
    if (g.first_seen.empty() || l.time < g.first_seen) g.first_seen = l.time;
    if (g.last_seen.empty() || l.time > g.last_seen) g.last_seen = l.time;
  }
  // The example: the first job by name, whatever order the results came in.
  if (g.example_job.empty() || l.job < g.example_job) {
    g.example_job = l.job;
    g.example_summary = l.summary;
  }
}

Summary Summarizer::finish() {
  Summary s = std::move(s_);
  for (auto& [fp, g] : groups_) s.groups.push_back(std::move(g));
  groups_.clear();
  std::sort(s.groups.begin(), s.groups.end(), [](const Group& a, const Group& b) {
    if (a.jobs != b.jobs) return a.jobs > b.jobs;
    return a.fingerprint < b.fingerprint;
  });
  return s;
}

Summary summarize(const std::vector<ResultLine>& results) {
  Summarizer s;
  for (const ResultLine& l : results) s.add(l);
  return s.finish();
}

namespace {

std::string seen(const Group& g) {
  if (g.first_seen.empty()) return "undated";
  return g.first_seen == g.last_seen ? g.first_seen : g.first_seen + " .. " + g.last_seen;
}

std::string pct(std::uint64_t part, std::uint64_t whole) {
  char b[16];
  std::snprintf(b, sizeof b, "%.0f%%", whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  return b;
}

std::vector<std::pair<std::string, std::uint64_t>> categories_by_count(const Summary& s) {
  std::vector<std::pair<std::string, std::uint64_t>> v(s.by_category.begin(), s.by_category.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return v;
}

std::string md(const std::string& s) { return base::markdown_inline(s); }

// A fingerprint as results files should hold it (hex digits); any other text is shown escaped.
bool plain_fingerprint(const std::string& f) {
  return !f.empty() && f.size() <= 32 && std::all_of(f.begin(), f.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

// Every string of a summary comes from results files, which anyone can write: text shows its
// control bytes (base::visible), Markdown escapes it, JSON writes the invisible ones as \uXXXX.
std::string render_summary_text(const Summary& s) {
  using base::visible;
  std::string o = "jobs: " + std::to_string(s.jobs);
  for (const auto& [st, n] : s.by_status) o += "  " + visible(st) + " " + std::to_string(n);
  o += "\n\ncategories:\n";
  for (const auto& [cat, n] : categories_by_count(s)) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-28s %6llu  %s\n", visible(cat).c_str(), static_cast<unsigned long long>(n), pct(n, s.jobs).c_str());
    o += line;
  }
  o += "\nrecurring root causes (most jobs first):\n";
  for (const Group& g : s.groups) {
    char count[32];
    std::snprintf(count, sizeof count, "  %6llu jobs  [", static_cast<unsigned long long>(g.jobs));
    o += count + visible(g.category) + "] " + visible(g.fingerprint) + "  " + visible(g.rule) + "\n";
    o += "           " + visible(g.pattern) + "\n";
    o += "           seen: " + visible(seen(g)) + "; e.g. " + visible(g.example_job) + "\n";
  }
  return o;
}

std::string render_summary_json(const Summary& s) {
  nlohmann::ordered_json j;
  j["jobs"] = s.jobs;
  j["by_status"] = s.by_status;
  nlohmann::ordered_json cats = nlohmann::ordered_json::array();
  for (const auto& [cat, n] : categories_by_count(s)) cats.push_back({{"category", cat}, {"jobs", n}});
  j["by_category"] = cats;
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const Group& g : s.groups)
    groups.push_back({{"fingerprint", g.fingerprint},
                      {"category", g.category},
                      {"rule", g.rule.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(g.rule)},
                      {"pattern", g.pattern},
                      {"jobs", g.jobs},
                      {"first_seen", g.first_seen.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(g.first_seen)},
                      {"last_seen", g.last_seen.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(g.last_seen)},
                      {"example", {{"job", g.example_job}, {"summary", g.example_summary}}}});
  j["causes"] = groups;
  std::string out = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  base::escape_spoofing_controls_in_json(out);
  return out;
}

std::string render_summary_markdown(const Summary& s) {
  std::string o = "## dtriage summary: " + std::to_string(s.jobs) + " jobs\n\n";
  for (const auto& [st, n] : s.by_status) o += "- " + md(st) + ": " + std::to_string(n) + "\n";
  o += "\n| category | jobs | share |\n|---|---:|---:|\n";
  for (const auto& [cat, n] : categories_by_count(s)) o += "| " + md(cat) + " | " + std::to_string(n) + " | " + pct(n, s.jobs) + " |\n";
  o += "\n### Recurring root causes\n\n| jobs | category | cause | seen | example |\n|---:|---|---|---|---|\n";
  for (const Group& g : s.groups)
    o += "| " + std::to_string(g.jobs) + " | " + md(g.category) + " | " + md(g.pattern) + " (" + md(g.rule) + ", " +
         (plain_fingerprint(g.fingerprint) ? "`" + g.fingerprint + "`" : md(g.fingerprint)) + ") | " + md(seen(g)) + " | " + md(g.example_job) + " |\n";
  return o;
}

std::string render_summary_html(const Summary& s) {
  using report::esc;
  std::string o = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n";
  o += "<title>dtriage summary: " + std::to_string(s.jobs) + " jobs</title>\n<style>"
       "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222;padding:0 1em}"
       "table{border-collapse:collapse;width:100%;margin:1em 0}td,th{border-bottom:1px solid #ddd;padding:.3em .5em;text-align:left;vertical-align:top}"
       "td.n{text-align:right;font-variant-numeric:tabular-nums}code{font-size:12px;color:#555}.bar{fill:#c0392b}.lbl{font-size:12px}"
       "</style></head>\n<body><main>\n";
  o += "<h1>" + std::to_string(s.jobs) + " jobs</h1>\n<p>";
  bool first = true;
  for (const auto& [st, n] : s.by_status) {
    o += (first ? "" : " &middot; ") + esc(st) + " " + std::to_string(n);
    first = false;
  }
  o += "</p>\n<h2>Causes</h2>\n";
  // The chart: one bar per category, as inline SVG (no script, nothing from outside).
  const auto cats = categories_by_count(s);
  std::uint64_t most = 1;
  for (const auto& [c, n] : cats) most = std::max(most, n);
  const int row = 22, label = 220, width = 460;
  o += "<svg role=\"img\" aria-label=\"jobs by root-cause category\" width=\"" + std::to_string(label + width + 80) + "\" height=\"" +
       std::to_string(row * static_cast<int>(cats.size()) + 8) + "\">\n";
  int y = 4;
  for (const auto& [cat, n] : cats) {
    const int w = std::max(1, static_cast<int>(static_cast<double>(width) * static_cast<double>(n) / static_cast<double>(most)));
    o += "<text class=\"lbl\" x=\"" + std::to_string(label - 6) + "\" y=\"" + std::to_string(y + 14) + "\" text-anchor=\"end\">" + esc(cat) +
         "</text><rect class=\"bar\" x=\"" + std::to_string(label) + "\" y=\"" + std::to_string(y + 2) + "\" width=\"" + std::to_string(w) +
         "\" height=\"" + std::to_string(row - 6) + "\"/><text class=\"lbl\" x=\"" + std::to_string(label + w + 6) + "\" y=\"" +
         std::to_string(y + 14) + "\">" + std::to_string(n) + " (" + pct(n, s.jobs) + ")</text>\n";
    y += row;
  }
  o += "</svg>\n<h2>Recurring root causes</h2>\n<table><tr><th>jobs</th><th>category</th><th>cause</th><th>seen</th><th>example</th></tr>\n";
  for (const Group& g : s.groups)
    o += "<tr><td class=\"n\">" + std::to_string(g.jobs) + "</td><td>" + esc(g.category) + "</td><td>" + esc(g.pattern) + "<br><code>" +
         esc(g.rule) + " " + esc(g.fingerprint) + "</code></td><td>" + esc(seen(g)) + "</td><td>" + esc(g.example_job) + "<br><small>" +
         esc(g.example_summary) + "</small></td></tr>\n";
  o += "</table>\n</main></body></html>\n";
  return o;
}

std::string render_summary(const Summary& s, std::string_view format) {
  if (format == "json") return render_summary_json(s);
  if (format == "markdown") return render_summary_markdown(s);
  if (format == "html") return render_summary_html(s);
  return render_summary_text(s);
}

}  // namespace dtriage::batch
