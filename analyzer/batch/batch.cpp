#include "batch/batch.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/json_escape.hpp"
#include "base/sentences.hpp"
#include "base/text.hpp"
#include "model/time.hpp"
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

namespace {

// Numbers that name the kind of ending, not the job: the word before them.
bool kind_number(std::string_view before) {
  while (!before.empty() && std::string_view(" =:(#-").find(before.back()) != std::string_view::npos) before.remove_suffix(1);
  std::size_t w = before.size();
  while (w > 0 && std::isalpha(static_cast<unsigned char>(before[w - 1]))) --w;
  std::string word(before.substr(w));
  for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return word == "code" || word == "exitcode" || word == "status" || word == "errno" || word == "signal" || word == "sig" ||
         word == "xid";
}

// Every number not inside a word (node10, EE8888, v2) and not kind_number becomes <n>; a run
// of digits and dots (3.50, 2.1.0) is one number.
std::string mask_numbers(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const bool starts = std::isdigit(c) && (i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_'));
    if (!starts) {
      o += s[i++];
      continue;
    }
    std::size_t e = i;
    while (e < s.size() && (std::isdigit(static_cast<unsigned char>(s[e])) ||
                            (s[e] == '.' && e + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[e + 1])))))
      ++e;
    if (e < s.size() && (std::isalpha(static_cast<unsigned char>(s[e])) || s[e] == '_')) {  // 3rd, 8x, 16GB: a word
      while (e < s.size() && (std::isalnum(static_cast<unsigned char>(s[e])) || s[e] == '_')) ++e;
      o.append(s, i, e - i);
    } else if (kind_number(std::string_view(s).substr(0, i))) {
      o.append(s, i, e - i);
    } else {
      o += "<n>";
    }
    i = e;
  }
  return o;
}

}  // namespace

namespace {

// One pass of normalize_pattern; the function repeats it until nothing changes.
std::string normalize_once(std::string s) {
  static const RE2 bus_re(R"(\b(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]\b)");
  static const RE2 time_re(R"(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?|\b\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)");
  static const RE2 ip_re(R"(\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b)");
  static const RE2 hex_re(R"(\b0x[0-9a-fA-F]+\b)");
  // Absolute paths, and relative ones that end in a file name (worker-0/train.log) or name an
  // archive member (job.tar.gz!node1/plog/x.log).
  static const RE2 path_re(R"((^|[\s('"=\[])(?:(?:~|\.\.?)?/[^\s:;,()'"\]]+|[^\s:;,()'"\]/]+(?:/[^\s:;,()'"\]/]+)*/[^\s:;,()'"\]/]*\.[^\s:;,()'"\]/]+|[^\s:;,()'"\]]*![^\s:;,()'"\]]+))");
  // A list after "ranks" / "processes" is one, whether its items are numbers or the job's pids
  // already replaced.
  static const RE2 rank_re(R"(\b(ranks?|Rank|Ranks|global rank|local_rank)(\s*[= ]\s*)(?:\d+\b|<rank>)(?:(?:\s*(?:-|,|and)\s*)(?:\d+\b|<rank>))*)");
  static const RE2 pid_re(R"(\b(pid|PID|process|processes|Process)(\s*[=: ]\s*)(?:\d+\b|<pid>)(?:(?:\s*(?:,|and)\s*)(?:\d+\b|<pid>))*)");
  static const RE2 where_re(R"(\s*\((?:the same|also|and)? ?on <node>\)|\s+(?:on|at) <node>)");
  RE2::GlobalReplace(&s, time_re, "<time>");
  RE2::GlobalReplace(&s, bus_re, "<bus>");
  RE2::GlobalReplace(&s, ip_re, "<ip>");
  RE2::GlobalReplace(&s, hex_re, "<hex>");
  RE2::GlobalReplace(&s, path_re, "\\1<path>");
  RE2::GlobalReplace(&s, rank_re, "\\1\\2<rank>");
  RE2::GlobalReplace(&s, pid_re, "\\1\\2<pid>");
  s = mask_numbers(s);
  RE2::GlobalReplace(&s, where_re, "");
  // "<node>, <node> and <node>" is one; so for each placeholder (not two different ones).
  static const std::vector<std::unique_ptr<RE2>> lists = [] {
    std::vector<std::unique_ptr<RE2>> v;
    for (const char* p : {"<node>", "<n>", "<pid>", "<rank>", "<ip>", "<hex>", "<path>", "<bus>", "<time>"})
      v.push_back(std::make_unique<RE2>(std::string("(") + p + ")(?:(?:,\\s*|\\s+and\\s+|,\\s*and\\s+)" + p + ")+"));
    return v;
  }();
  for (const auto& re : lists) RE2::GlobalReplace(&s, *re, "\\1");
  if (s.size() > kPatternMax) {  // a rank table or a long message: its head is the cause
    std::size_t cut = kPatternMax - 4;  // with " ..." it stays within kPatternMax: a second pass keeps it
    while (cut > kPatternMax / 2 && s[cut] != ' ') --cut;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
    s.resize(cut);
    s += " ...";
  }
  return s;
}

}  // namespace

std::string normalize_pattern(std::string s) {
  // Each pass can make a new list or phrase for the next (dropping "(on <node>)" joins two
  // numbers into a list): repeated to a fixed point, so that the summary's second application
  // changes nothing.
  for (int pass = 0; pass < 4; ++pass) {
    std::string next = normalize_once(s);
    if (next == s) break;
    s = std::move(next);
  }
  return s;
}

std::string pattern_of(const std::string& summary, const std::vector<std::string>& hosts, const std::vector<std::int64_t>& pids) {
  std::string s = summary;
  std::vector<std::string> names = hosts;
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& h : names)
    if (h.size() >= 2) replace_token(s, h, "<node>");
  for (std::int64_t p : pids)
    if (p > 0) replace_token(s, std::to_string(p), "<pid>");
  return normalize_pattern(std::move(s));
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

std::optional<ResultLine> parse_result_line(const std::string& line) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object() || str(j, "job").empty()) return std::nullopt;
  ResultLine l;
  l.job = str(j, "job");
  l.status = str(j, "status");
  l.category = str(j, "category");
  l.rule = str(j, "rule");
  l.summary = str(j, "summary");
  l.summary_en = str(j, "summary_en");
  l.fingerprint = str(j, "fingerprint");
  l.pattern = str(j, "pattern");
  l.time = str(j, "time");
  l.error = str(j, "error");
  l.node = str(j, "node");
  l.date = str(j, "date");
  l.date_from = str(j, "date_from");
  l.device = str(j, "device");
  l.report = str(j, "report");
  if (auto it = j.find("nodes"); it != j.end() && it->is_array())
    for (const auto& n : *it)
      if (n.is_string()) l.nodes.push_back(n.get<std::string>());
  if (auto b = j.find("baseline"); b != j.end() && b->is_object()) {
    l.baseline_change = str(*b, "relevant_change");
    const auto c = b->find("compared");
    l.compared = c != b->end() && c->is_boolean() ? c->get<bool>() : !l.baseline_change.empty();
  }
  l.files = num(j, "files");
  l.bytes = num(j, "bytes");
  return l;
}

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
    const std::uint64_t offset = r.complete_bytes;
    r.complete_bytes += line.size() + 1;
    if (line.empty()) continue;
    auto parsed = parse_result_line(line);
    if (!parsed) {
      if (r.problems_total++ < kProblemsKept)
        r.problems.push_back(base::say(base::Say::InputNotResultLine, {{"path", path}, {"line", std::to_string(number)}}));
      continue;
    }
    ResultLine& l = *parsed;
    l.raw = line;
    l.path = path;
    l.line = number;
    l.offset = offset;
    if (each) each(std::move(l));
    else r.lines.push_back(std::move(l));
  }
  return r;
}

namespace {

std::int64_t year_of_days(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2);
}

// The job's day: its own, else the day of its first error's time (lines of older versions).
std::string day_of(const ResultLine& l) {
  if (!l.date.empty()) return l.date;
  if (l.time.size() >= 10 && l.time[4] == '-' && l.time[7] == '-') return l.time.substr(0, 10);
  return "";
}

template <typename T, typename Less>
void keep_first(std::vector<T>& v, T x, std::size_t most, Less less) {
  auto at = std::upper_bound(v.begin(), v.end(), x, less);
  if (static_cast<std::size_t>(at - v.begin()) >= most) return;
  v.insert(at, std::move(x));
  if (v.size() > most) v.pop_back();
}

}  // namespace

std::string iso_week(const std::string& day) {
  // YYYY-MM-DD, digits only, a day the month has.
  if (day.size() != 10 || day[4] != '-' || day[7] != '-') return "";
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isdigit(static_cast<unsigned char>(day[i]))) return "";
  const unsigned y = static_cast<unsigned>(std::stoi(day.substr(0, 4))), m = static_cast<unsigned>(std::stoi(day.substr(5, 2))),
                 d = static_cast<unsigned>(std::stoi(day.substr(8, 2)));
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (m < 1 || m > 12 || d < 1 || d > kDays[m - 1] + (m == 2 && leap ? 1 : 0)) return "";
  const std::int64_t days = model::days_from_civil(y, m, d);
  const std::int64_t weekday = ((days + 3) % 7 + 7) % 7;  // Monday 0 (1970-01-01 was a Thursday)
  const std::int64_t thursday = days - weekday + 3;      // its week belongs to the year of its Thursday
  const std::int64_t year = year_of_days(thursday);
  const std::int64_t week = (thursday - model::days_from_civil(year, 1, 1)) / 7 + 1;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-W%02lld", static_cast<long long>(year), static_cast<long long>(week));
  return buf;
}

void Summarizer::add(const ResultLine& l) {
  if (!jobs_seen_.insert(l.job).second) {  // the same job in two result files (or twice in one)
    ++repeated_;
    return;
  }
  const std::string day = day_of(l);
  // A job that could not be analysed has no day of its own: it stays in a period's summary.
  const bool unanalysed = (l.status == "error" || l.status == "skipped") && day.empty();
  if ((!o_.since.empty() || !o_.until.empty()) && !unanalysed) {
    if (day.empty() || (!o_.since.empty() && day < o_.since) || (!o_.until.empty() && day > o_.until)) {
      ++s_.left_out;
      return;
    }
  }
  ++s_.jobs;
  const std::string status = l.status.empty() ? "unknown" : l.status;
  ++s_.by_status[status];
  if (l.date_from == "files") ++s_.dated_by_files;
  // --redact names a job's nodes node#1, node#2 ... afresh per job, and "srun task 3" is a place in
  // one job's allocation: no node to rank across jobs.
  auto pseudonym = [](const std::string& n) { return n.rfind("node#", 0) == 0 || n.rfind("host#", 0) == 0 || n.rfind("srun task ", 0) == 0; };
  for (const std::string& n : l.nodes)
    if (!pseudonym(n)) ran(n);
  if (status == "error" || status == "skipped") {
    ++s_.not_analysed_total;
    keep_first(s_.not_analysed, NotAnalysed{l.job, status, l.error}, kNotAnalysedShown,
               [](const NotAnalysed& a, const NotAnalysed& b) { return a.job < b.job; });
  }
  if (status != "failed" && status != "inconclusive") return;
  const std::string category = l.category.empty() ? "unknown" : l.category;
  ++s_.by_category[category];
  if (const std::string week = iso_week(day); !week.empty()) ++s_.weeks[week][category];
  else ++s_.undated;
  auto culprit = [&](BadNode* n) {
    if (n == nullptr) return;
    ++n->culprit;
    ++n->by_category[category];
  };
  if (!l.node.empty() && !pseudonym(l.node)) {
    culprit(node(l.node, "", 2 * kMaxNodes));
    if (!l.device.empty()) culprit(node(l.node, l.device, 2 * kMaxNodes));
  }
  // Grouped by what the line says, normalized again: lines of older versions group with new ones.
  const std::string pattern = normalize_pattern(!l.pattern.empty()      ? l.pattern
                                                : !l.summary_en.empty() ? l.summary_en
                                                                        : l.summary);
  const std::string fp = fingerprint(category, l.rule, pattern);
  Group& g = groups_[fp];
  if (g.jobs == 0) {
    g.fingerprint = fp;
    g.category = category;
    g.rule = l.rule;
    g.pattern = pattern;
  }
  ++g.jobs;
  if (!day.empty()) {
    if (g.first_seen.empty() || day < g.first_seen) g.first_seen = day;
    if (g.last_seen.empty() || day > g.last_seen) g.last_seen = day;
  }
  // The examples: the first jobs by name, whatever order the results came in.
  keep_first(g.examples, Example{l.job, l.summary, l.report}, kExamples, [](const Example& a, const Example& b) { return a.job < b.job; });
  if (!l.node.empty() && !pseudonym(l.node) && g.nodes.count(l.node) == 0) {
    if (g.nodes.size() < kGroupNodes) g.nodes.insert(l.node);
    else ++g.more_nodes;
  }
  // What changed since the job's baseline: failed jobs grouped by the change its diff named.
  if (!l.compared) {
    ++s_.not_compared;
    return;
  }
  if (changes_.size() >= kMaxNodes && changes_.count(l.baseline_change) == 0) return;  // keys come from files anyone writes
  ChangeGroup& c = changes_[l.baseline_change];
  c.change = l.baseline_change;
  ++c.jobs;
  ++c.by_category[category];
  keep_first(c.examples, Example{l.job, l.summary, l.report}, kExamples, [](const Example& a, const Example& b) { return a.job < b.job; });
}

BadNode* Summarizer::node(const std::string& name, const std::string& device, std::size_t most) {
  const auto key = std::make_pair(name, device);
  if (auto it = nodes_.find(key); it != nodes_.end()) return &it->second;
  if (nodes_.size() >= most) {  // memory bound on results that name millions of nodes
    ++s_.nodes_not_ranked;
    return nullptr;
  }
  return &nodes_[key];
}

// Nodes that only ran jobs fill at most kMaxNodes places; culprits have kMaxNodes more, so that
// lines naming many innocent nodes cannot crowd them out.
void Summarizer::ran(const std::string& name) {
  if (BadNode* n = node(name, "", kMaxNodes)) ++n->ran;
}

Summary Summarizer::finish() {
  Summary s = std::move(s_);
  s.since = o_.since;
  s.until = o_.until;
  for (auto& [fp, g] : groups_) s.groups.push_back(std::move(g));
  groups_.clear();
  std::sort(s.groups.begin(), s.groups.end(), [](const Group& a, const Group& b) {
    if (a.jobs != b.jobs) return a.jobs > b.jobs;
    return a.fingerprint < b.fingerprint;
  });
  for (auto& [key, n] : nodes_) {
    if (n.culprit == 0) continue;
    n.node = key.first;
    n.device = key.second;
    if (n.device.empty()) s.bad_nodes.push_back(std::move(n));
    else s.bad_devices.push_back(std::move(n));
  }
  nodes_.clear();
  if (changes_.empty()) s.not_compared = 0;  // no scan with --baseline: nothing to say
  for (auto& [key, c] : changes_) s.changes.push_back(std::move(c));
  changes_.clear();
  std::stable_sort(s.changes.begin(), s.changes.end(), [](const ChangeGroup& a, const ChangeGroup& b) {
    if (a.jobs != b.jobs) return a.jobs > b.jobs;
    return a.change.empty() < b.change.empty();  // "no change" after the changes of as many jobs
  });
  for (auto* v : {&s.bad_nodes, &s.bad_devices})
    std::sort(v->begin(), v->end(), [](const BadNode& a, const BadNode& b) {
      if (a.culprit != b.culprit) return a.culprit > b.culprit;
      if (a.ran != b.ran) return a.ran < b.ran;  // 5 of 5 before 5 of 9
      return std::tie(a.node, a.device) < std::tie(b.node, b.device);
    });
  return s;
}

Summary summarize(const std::vector<ResultLine>& results, const SummaryOptions& o) {
  Summarizer s(o);
  for (const ResultLine& l : results) s.add(l);
  return s.finish();
}

namespace {

std::string jobs_word(std::uint64_t n) {
  return base::say(n == 1 ? base::Say::SummaryJobOne : base::Say::SummaryJobMany, {{"count", std::to_string(n)}});
}

std::string seen(const Group& g) {
  if (g.first_seen.empty()) return base::say(base::Say::SummaryUndated);
  return g.first_seen == g.last_seen ? g.first_seen : g.first_seen + " .. " + g.last_seen;
}

std::string pct(std::uint64_t part, std::uint64_t whole) {
  char b[16];
  std::snprintf(b, sizeof b, "%.0f%%", whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  return b;
}

std::vector<std::pair<std::string, std::uint64_t>> by_count(const std::map<std::string, std::uint64_t>& m) {
  std::vector<std::pair<std::string, std::uint64_t>> v(m.begin(), m.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return v;
}
std::vector<std::pair<std::string, std::uint64_t>> categories_by_count(const Summary& s) { return by_count(s.by_category); }

// "device-hardware-error 4, device-oom 1"
std::string counts_text(const std::map<std::string, std::uint64_t>& m) {
  std::string o;
  for (const auto& [k, n] : by_count(m)) o += (o.empty() ? "" : ", ") + k + " " + std::to_string(n);
  return o;
}

std::uint64_t total_of(const std::map<std::string, std::uint64_t>& m) {
  std::uint64_t t = 0;
  for (const auto& [k, n] : m) t += n;
  return t;
}

std::string nodes_of(const Group& g) {
  std::string o;
  for (const std::string& n : g.nodes) o += (o.empty() ? "" : ", ") + n;
  if (g.more_nodes != 0) o += base::say(base::Say::SummaryMoreAfterList, {{"count", std::to_string(g.more_nodes)}});
  return o;
}

// "5 of 7 jobs it ran", or "5 jobs" when the results do not list the nodes each job ran on.
std::string culprit_of(const BadNode& n) {
  if (n.ran >= n.culprit && n.device.empty())
    return base::say(base::Say::SummaryCulpritOf, {{"culprit", std::to_string(n.culprit)}, {"ran", std::to_string(n.ran)}});
  return jobs_word(n.culprit);
}
std::string node_name(const BadNode& n) {
  return n.device.empty() ? n.node : base::say(base::Say::SummaryNodeDevice, {{"node", n.node}, {"device", n.device}});
}

inline constexpr std::size_t kBadShown = 20;  // nodes and devices listed in text, Markdown and HTML

std::string change_name(const ChangeGroup& c) { return c.change.empty() ? base::say(base::Say::SummaryNoChange) : c.change; }
std::string example_jobs(const ChangeGroup& c) {
  std::string jobs;
  for (std::size_t i = 0; i < c.examples.size(); ++i) jobs += (i ? ", " : "") + c.examples[i].job;
  return jobs;
}

std::string md(const std::string& s) { return base::markdown_inline(s); }

// A fingerprint as results files should hold it (hex digits); any other text is shown escaped.
bool plain_fingerprint(const std::string& f) {
  return !f.empty() && f.size() <= 32 && std::all_of(f.begin(), f.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}


std::string filter_text(const Summary& s) {
  if (s.since.empty() && s.until.empty()) return "";
  return base::say(base::Say::SummaryFilter, {{"since", s.since.empty() ? std::string("...") : s.since},
                                              {"until", s.until.empty() ? std::string("...") : s.until},
                                              {"jobs", jobs_word(s.left_out)}});
}

}  // namespace

// Every string of a summary comes from results files, which anyone can write: text shows its
// control bytes (base::visible), Markdown escapes it, JSON writes the invisible ones as \uXXXX.
std::string render_summary_text(const Summary& s) {
  using base::visible;
  using base::Say;
  std::string o = base::say(Say::SummaryJobsLine, {{"count", std::to_string(s.jobs)}});
  for (const auto& [st, n] : s.by_status) o += "  " + visible(st) + " " + std::to_string(n);
  o += "\n";
  if (const std::string f = filter_text(s); !f.empty()) o += f + "\n";
  if (s.dated_by_files != 0) o += base::say(Say::SummaryDatedByFiles, {{"jobs", jobs_word(s.dated_by_files)}}) + "\n";
  o += "\n" + base::say(Say::SummaryCategories) + "\n";
  for (const auto& [cat, n] : categories_by_count(s)) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-28s %6llu  %s\n", visible(cat).c_str(), static_cast<unsigned long long>(n), pct(n, s.jobs).c_str());
    o += line;
  }
  o += "\n" + base::say(Say::SummaryRecurring) + "\n";
  const std::string job_word = base::say(Say::SummaryJobWord), jobs_word_ = base::say(Say::SummaryJobsWord);
  const std::size_t word_width = std::max(base::display_width(job_word), base::display_width(jobs_word_));
  for (const Group& g : s.groups) {
    char count[32];
    std::snprintf(count, sizeof count, "  %6llu ", static_cast<unsigned long long>(g.jobs));
    o += count + base::pad_columns(g.jobs == 1 ? job_word : jobs_word_, word_width) + "  [" + visible(g.category) + "] " +
         visible(g.fingerprint) + "  " + visible(g.rule) + "\n";
    o += "           " + visible(g.pattern) + "\n";
    // The pattern is English whatever the language (it is the group's key); the first job's own
    // sentence says it in the language of the scan.
    if (base::language() != base::Lang::En && !g.examples.empty() && !g.examples.front().summary.empty())
      o += "           " + visible(g.examples.front().summary) + "\n";
    o += "           " + base::say(Say::SummarySeen, {{"when", visible(seen(g))}});
    if (!g.nodes.empty()) o += base::say(Say::SummaryOnNodes, {{"nodes", visible(nodes_of(g))}});
    std::string jobs;
    for (std::size_t i = 0; i < g.examples.size(); ++i) jobs += (i ? ", " : "") + visible(g.examples[i].job);
    o += "\n           " + base::say(Say::SummaryExamples, {{"jobs", jobs}}) + "\n";
  }
  if (!s.bad_nodes.empty()) {
    o += "\n" + base::say(Say::SummaryBadNodes) + "\n";
    for (std::size_t i = 0; i < s.bad_nodes.size() && i < kBadShown; ++i) {
      const BadNode& n = s.bad_nodes[i];
      o += "  " + visible(n.node) + ": " + visible(culprit_of(n)) + " (" + visible(counts_text(n.by_category)) + ")\n";
    }
    if (s.bad_nodes.size() > kBadShown) o += "  " + base::say(Say::SummaryMoreNodes, {{"count", std::to_string(s.bad_nodes.size() - kBadShown)}}) + "\n";
  }
  if (!s.bad_devices.empty()) {
    o += "\n" + base::say(Say::SummaryBadDevices) + "\n";
    for (std::size_t i = 0; i < s.bad_devices.size() && i < kBadShown; ++i) {
      const BadNode& n = s.bad_devices[i];
      o += "  " + visible(node_name(n)) + ": " + visible(culprit_of(n)) + " (" + visible(counts_text(n.by_category)) + ")\n";
    }
    if (s.bad_devices.size() > kBadShown)
      o += "  " + base::say(Say::SummaryMoreDevices, {{"count", std::to_string(s.bad_devices.size() - kBadShown)}}) + "\n";
  }
  if (!s.changes.empty()) {
    o += "\n" + base::say(Say::SummaryChanges) + "\n";
    for (const ChangeGroup& c : s.changes) {
      char count[32];
      std::snprintf(count, sizeof count, "  %6llu ", static_cast<unsigned long long>(c.jobs));
      o += count + base::pad_columns(c.jobs == 1 ? job_word : jobs_word_, word_width) + "  " + visible(change_name(c)) + " (" +
           visible(counts_text(c.by_category)) + ")\n           " + base::say(Say::SummaryExamples, {{"jobs", visible(example_jobs(c))}}) + "\n";
    }
    if (s.not_compared != 0) o += "  " + base::say(Say::SummaryNotCompared, {{"jobs", jobs_word(s.not_compared)}}) + "\n";
  }
  if (!s.weeks.empty()) {
    o += "\n" + base::say(Say::SummaryWeeks) + "\n";
    for (const auto& [week, cats] : s.weeks) {
      const std::uint64_t total = total_of(cats);
      char head[64];
      std::snprintf(head, sizeof head, "  %-9s %6llu  ", visible(week).c_str(), static_cast<unsigned long long>(total));
      o += head + visible(counts_text(cats)) + "\n";
    }
    if (s.undated != 0) {
      char head[64];
      std::snprintf(head, sizeof head, " %6llu\n", static_cast<unsigned long long>(s.undated));
      o += "  " + base::pad_columns(base::say(Say::SummaryUndated), 9) + head;
    }
  }
  if (s.not_analysed_total != 0) {
    o += "\n" + base::say(Say::SummaryNotAnalysed, {{"count", std::to_string(s.not_analysed_total)}}) + "\n";
    for (const NotAnalysed& n : s.not_analysed) o += "  " + visible(n.job) + "  " + visible(n.status) + ": " + visible(n.reason) + "\n";
    if (s.not_analysed_total > s.not_analysed.size())
      o += "  " + base::say(Say::SummaryMore, {{"count", std::to_string(s.not_analysed_total - s.not_analysed.size())}}) + "\n";
  }
  return o;
}

namespace {
using ojson = nlohmann::ordered_json;
ojson text_or_null(const std::string& s) { return s.empty() ? ojson() : ojson(s); }
ojson bad_json(const std::vector<BadNode>& v) {
  ojson a = ojson::array();
  for (const BadNode& n : v) {
    ojson j{{"node", n.node}};
    if (!n.device.empty()) j["device"] = n.device;
    j["culprit_jobs"] = n.culprit;
    if (n.device.empty()) j["jobs_ran"] = n.ran;
    ojson cats = ojson::array();
    for (const auto& [c, k] : by_count(n.by_category)) cats.push_back({{"category", c}, {"jobs", k}});
    j["by_category"] = cats;
    a.push_back(j);
  }
  return a;
}
}  // namespace

std::string render_summary_json(const Summary& s) {
  ojson j;
  j["jobs"] = s.jobs;
  j["by_status"] = s.by_status;
  if (!s.since.empty() || !s.until.empty()) j["period"] = {{"since", text_or_null(s.since)}, {"until", text_or_null(s.until)}, {"left_out", s.left_out}};
  j["dated_by_files"] = s.dated_by_files;
  ojson cats = ojson::array();
  for (const auto& [cat, n] : categories_by_count(s)) cats.push_back({{"category", cat}, {"jobs", n}});
  j["by_category"] = cats;
  ojson groups = ojson::array();
  for (const Group& g : s.groups) {
    ojson ex = ojson::array();
    for (const Example& e : g.examples) {
      ojson x{{"job", e.job}, {"summary", e.summary}};
      if (!e.report.empty()) x["report"] = e.report;
      ex.push_back(x);
    }
    groups.push_back({{"fingerprint", g.fingerprint},
                      {"category", g.category},
                      {"rule", text_or_null(g.rule)},
                      {"pattern", g.pattern},
                      {"jobs", g.jobs},
                      {"first_seen", text_or_null(g.first_seen)},
                      {"last_seen", text_or_null(g.last_seen)},
                      {"nodes", g.nodes},
                      {"more_nodes", g.more_nodes},
                      {"examples", ex}});
  }
  j["causes"] = groups;
  j["bad_nodes"] = bad_json(s.bad_nodes);
  j["bad_devices"] = bad_json(s.bad_devices);
  if (!s.changes.empty()) {
    ojson changes = ojson::array();
    for (const ChangeGroup& c : s.changes) {
      ojson per = ojson::array(), ex = ojson::array();
      for (const auto& [cat, k] : by_count(c.by_category)) per.push_back({{"category", cat}, {"jobs", k}});
      for (const Example& e : c.examples) ex.push_back({{"job", e.job}, {"summary", e.summary}});
      changes.push_back({{"change", text_or_null(c.change)}, {"jobs", c.jobs}, {"by_category", per}, {"examples", ex}});
    }
    j["changes"] = {{"groups", changes}, {"not_compared", s.not_compared}};
  }
  ojson weeks = ojson::array();
  for (const auto& [week, c] : s.weeks) {
    std::uint64_t total = 0;
    ojson per = ojson::object();
    for (const auto& [cat, n] : by_count(c)) {
      per[cat] = n;
      total += n;
    }
    weeks.push_back({{"week", week}, {"jobs", total}, {"by_category", per}});
  }
  j["weeks"] = weeks;
  j["undated"] = s.undated;
  ojson na = ojson::array();
  for (const NotAnalysed& n : s.not_analysed) na.push_back({{"job", n.job}, {"status", n.status}, {"reason", n.reason}});
  j["not_analysed"] = {{"jobs", s.not_analysed_total}, {"listed", na}};
  std::string out = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  base::escape_spoofing_controls_in_json(out);
  return out;
}

namespace {
// An href for a report path as written: a relative path or a file name, escaped; anything with a
// scheme (javascript:, http:) is no link.
std::string href_of(const std::string& report) {
  if (report.empty() || report.find(':') != std::string::npos || report.rfind("//", 0) == 0 || report.find('\\') != std::string::npos) return "";
  std::string h;
  for (unsigned char c : report) {
    if (std::isalnum(c) || std::string_view("-._~/").find(static_cast<char>(c)) != std::string_view::npos) h += static_cast<char>(c);
    else {
      char b[4];
      std::snprintf(b, sizeof b, "%%%02X", c);
      h += b;
    }
  }
  return h;
}
// A job's name, linked to its report when scan --reports wrote one.
std::string md_job(const std::string& job, const std::string& report) {
  const std::string h = href_of(report);
  return h.empty() ? md(job) : "[" + md(job) + "](" + h + ")";
}
}  // namespace

std::string render_summary_markdown(const Summary& s) {
  using base::Say;
  using base::say;
  std::string o = "## " + md(say(Say::SumTitle, {{"count", std::to_string(s.jobs)}})) + "\n\n";
  for (const auto& [st, n] : s.by_status) o += "- " + md(st) + ": " + std::to_string(n) + "\n";
  if (const std::string f = filter_text(s); !f.empty()) o += "- " + md(f) + "\n";
  if (s.dated_by_files != 0) o += "- " + base::say(base::Say::SummaryDatedByFiles, {{"jobs", jobs_word(s.dated_by_files)}}) + "\n";
  o += "\n| " + say(Say::SumColCategory) + " | " + say(Say::SumColJobs) + " | " + say(Say::SumColShare) + " |\n|---|---:|---:|\n";
  for (const auto& [cat, n] : categories_by_count(s)) o += "| " + md(cat) + " | " + std::to_string(n) + " | " + pct(n, s.jobs) + " |\n";
  o += "\n### " + say(Say::SumRecurringHeading) + "\n\n| " + say(Say::SumColJobs) + " | " + say(Say::SumColCategory) + " | " + say(Say::SumColCause) +
       " | " + say(Say::SumColSeen) + " | " + say(Say::SumColExamples) + " |\n|---:|---|---|---|---|\n";
  for (const Group& g : s.groups) {
    o += "| " + std::to_string(g.jobs) + " | " + md(g.category) + " | " + md(g.pattern) + " (" + md(g.rule) + ", " +
         (plain_fingerprint(g.fingerprint) ? "`" + g.fingerprint + "`" : md(g.fingerprint)) + ") | " + md(seen(g)) +
         (g.nodes.empty() ? "" : md(say(Say::SumOn, {{"nodes", nodes_of(g)}}))) + " | ";
    for (std::size_t i = 0; i < g.examples.size(); ++i) o += (i ? ", " : "") + md_job(g.examples[i].job, g.examples[i].report);
    o += " |\n";
  }
  auto bad = [&](const std::vector<BadNode>& v, Say title, Say what) {
    if (v.empty()) return;
    o += "\n### " + say(title) + "\n\n| " + say(what) + " | " + say(Say::SumColCulpritJobs) + " | " + say(Say::SumColCategories) + " |\n|---|---|---|\n";
    for (std::size_t i = 0; i < v.size() && i < kBadShown; ++i)
      o += "| " + md(node_name(v[i])) + " | " + culprit_of(v[i]) + " | " + md(counts_text(v[i].by_category)) + " |\n";
    if (v.size() > kBadShown) o += "\n" + say(Say::SummaryMore, {{"count", std::to_string(v.size() - kBadShown)}}) + "\n";
  };
  bad(s.bad_nodes, Say::SumNodesHeading, Say::SumColNode);
  bad(s.bad_devices, Say::SumDevicesHeading, Say::SumColDevice);
  if (!s.changes.empty()) {
    o += "\n### " + say(Say::SumChangesHeading) + "\n\n| " + say(Say::SumColChange) + " | " + say(Say::SumColJobs) + " | " + say(Say::SumColCategories) +
         " | " + say(Say::SumColExamples) + " |\n|---|---:|---|---|\n";
    for (const ChangeGroup& c : s.changes) {
      o += "| " + md(change_name(c)) + " | " + std::to_string(c.jobs) + " | " + md(counts_text(c.by_category)) + " | ";
      for (std::size_t i = 0; i < c.examples.size(); ++i) o += (i ? ", " : "") + md_job(c.examples[i].job, c.examples[i].report);
      o += " |\n";
    }
    if (s.not_compared != 0) o += "\n" + md(say(Say::SummaryNotCompared, {{"jobs", jobs_word(s.not_compared)}})) + "\n";
  }
  if (!s.weeks.empty()) {
    o += "\n### " + say(Say::SumWeeksHeading) + "\n\n| " + say(Say::SumColWeek) + " | " + say(Say::SumColJobs) + " | " + say(Say::SumColCategories) +
         " |\n|---|---:|---|\n";
    for (const auto& [week, cats] : s.weeks) {
      const std::uint64_t total = total_of(cats);
      o += "| " + md(week) + " | " + std::to_string(total) + " | " + md(counts_text(cats)) + " |\n";
    }
    if (s.undated != 0) o += "| " + say(Say::SummaryUndated) + " | " + std::to_string(s.undated) + " | |\n";
  }
  if (s.not_analysed_total != 0) {
    o += "\n### " + say(Say::SumNotAnalysedHeading, {{"count", std::to_string(s.not_analysed_total)}}) + "\n\n| " + say(Say::SumColJob) + " | " +
         say(Say::SumColStatus) + " | " + say(Say::SumColReason) + " |\n|---|---|---|\n";
    for (const NotAnalysed& n : s.not_analysed) o += "| " + md(n.job) + " | " + md(n.status) + " | " + md(n.reason) + " |\n";
    if (s.not_analysed_total > s.not_analysed.size())
      o += "\n" + say(Say::SummaryMore, {{"count", std::to_string(s.not_analysed_total - s.not_analysed.size())}}) + "\n";
  }
  return o;
}

namespace {
std::string html_job(const std::string& job, const std::string& report) {
  const std::string h = href_of(report);
  if (h.empty()) return report::esc(job);
  return "<a href=\"" + h + "\">" + report::esc(job) + "</a>";
}
}  // namespace

std::string render_summary_html(const Summary& s) {
  using report::esc;
  using base::Say;
  using base::say;
  std::string o = std::string("<!doctype html>\n<html lang=\"") + (base::language() == base::Lang::Zh ? "zh-CN" : "en") +
                  "\"><head><meta charset=\"utf-8\">\n";
  o += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n";
  o += "<title>" + esc(say(Say::SumTitle, {{"count", std::to_string(s.jobs)}})) + "</title>\n<style>"
       "body{font:14px/1.45 \"DejaVu Sans\",\"Noto Sans CJK SC\",\"Source Han Sans SC\",\"Microsoft YaHei\",\"PingFang SC\",system-ui,sans-serif;margin:2em auto;max-width:90em;color:#222;padding:0 1em}"
       "table{border-collapse:collapse;width:100%;margin:1em 0;table-layout:auto}"
       "td,th{border-bottom:1px solid #ddd;padding:.3em .5em;text-align:left;vertical-align:top;overflow-wrap:anywhere}"
       "th{white-space:nowrap}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}td.c{white-space:nowrap}"
       "code{font-size:12px;color:#555}.bar{fill:#c0392b}.lbl{font-size:12px}svg{max-width:100%;height:auto}.legend span{margin-right:1em;white-space:nowrap;font-size:12px}"
       "</style></head>\n<body><main>\n";
  o += "<h1>" + esc(jobs_word(s.jobs)) + "</h1>\n<p>";
  bool first = true;
  for (const auto& [st, n] : s.by_status) {
    o += (first ? "" : " &middot; ") + esc(st) + " " + std::to_string(n);
    first = false;
  }
  o += "</p>\n";
  if (const std::string f = filter_text(s); !f.empty()) o += "<p>" + esc(f) + "</p>\n";
  if (s.dated_by_files != 0) o += "<p>" + esc(base::say(base::Say::SummaryDatedByFiles, {{"jobs", jobs_word(s.dated_by_files)}})) + "</p>\n";
  o += "<h2>" + esc(say(Say::SumCausesHeading)) + "</h2>\n";
  // The chart: one bar per category, as inline SVG (no script, nothing from outside).
  const auto cats = categories_by_count(s);
  std::uint64_t most = 1;
  for (const auto& [c, n] : cats) most = std::max(most, n);
  const int row = 22, label = 220, width = 460;
  o += "<svg role=\"img\" aria-label=\"" + esc(say(Say::SumChartCategories)) + "\" viewBox=\"0 0 " + std::to_string(label + width + 80) + " " +
       std::to_string(row * static_cast<int>(cats.size()) + 8) + "\" width=\"" + std::to_string(label + width + 80) + "\">\n";
  int y = 4;
  for (const auto& [cat, n] : cats) {
    const int w = std::max(1, static_cast<int>(static_cast<double>(width) * static_cast<double>(n) / static_cast<double>(most)));
    o += "<text class=\"lbl\" x=\"" + std::to_string(label - 6) + "\" y=\"" + std::to_string(y + 14) + "\" text-anchor=\"end\">" + esc(cat) +
         "</text><rect class=\"bar\" x=\"" + std::to_string(label) + "\" y=\"" + std::to_string(y + 2) + "\" width=\"" + std::to_string(w) +
         "\" height=\"" + std::to_string(row - 6) + "\"/><text class=\"lbl\" x=\"" + std::to_string(label + w + 6) + "\" y=\"" +
         std::to_string(y + 14) + "\">" + std::to_string(n) + " (" + pct(n, s.jobs) + ")</text>\n";
    y += row;
  }
  o += "</svg>\n<h2>" + esc(say(Say::SumRecurringHeading)) + "</h2>\n<table><tr><th>" + esc(say(Say::SumColJobs)) + "</th><th>" +
       esc(say(Say::SumColCategory)) + "</th><th>" + esc(say(Say::SumColCause)) + "</th><th>" + esc(say(Say::SumColSeen)) + "</th><th>" +
       esc(say(Say::SumColExamples)) + "</th></tr>\n";
  for (const Group& g : s.groups) {
    o += "<tr id=\"g-" + esc(g.fingerprint) + "\"><td class=\"n\">" + std::to_string(g.jobs) + "</td><td class=\"c\">" + esc(g.category) +
         "</td><td>" + esc(g.pattern) + "<br><code>" + esc(g.rule) + " " + esc(g.fingerprint) + "</code></td><td>" + esc(seen(g)) +
         (g.nodes.empty() ? "" : "<br><small>" + esc(say(Say::SumOnLine, {{"nodes", nodes_of(g)}})) + "</small>") + "</td><td>";
    for (std::size_t i = 0; i < g.examples.size(); ++i)
      o += (i ? "<br>" : "") + html_job(g.examples[i].job, g.examples[i].report) + (i == 0 ? "<br><small>" + esc(g.examples[i].summary) + "</small>" : "");
    o += "</td></tr>\n";
  }
  o += "</table>\n";
  auto bad = [&](const std::vector<BadNode>& v, Say title, Say what) {
    if (v.empty()) return;
    o += "<h2>" + esc(say(title)) + "</h2>\n<table><tr><th>" + esc(say(what)) + "</th><th>" + esc(say(Say::SumColCulpritJobs)) + "</th><th>" +
         esc(say(Say::SumColCategories)) + "</th></tr>\n";
    for (std::size_t i = 0; i < v.size() && i < kBadShown; ++i)
      o += "<tr><td class=\"c\">" + esc(node_name(v[i])) + "</td><td>" + esc(culprit_of(v[i])) + "</td><td>" + esc(counts_text(v[i].by_category)) + "</td></tr>\n";
    o += "</table>\n";
    if (v.size() > kBadShown) o += "<p>" + esc(say(Say::SummaryMore, {{"count", std::to_string(v.size() - kBadShown)}})) + "</p>\n";
  };
  bad(s.bad_nodes, Say::SumNodesHeading, Say::SumColNode);
  bad(s.bad_devices, Say::SumDevicesHeading, Say::SumColDevice);
  if (!s.changes.empty()) {
    o += "<h2>" + esc(say(Say::SumChangesHeading)) + "</h2>\n<table><tr><th>" + esc(say(Say::SumColChange)) + "</th><th>" + esc(say(Say::SumColJobs)) +
         "</th><th>" + esc(say(Say::SumColCategories)) + "</th><th>" + esc(say(Say::SumColExamples)) + "</th></tr>\n";
    for (const ChangeGroup& c : s.changes) {
      o += "<tr><td class=\"c\">" + esc(change_name(c)) + "</td><td class=\"n\">" + std::to_string(c.jobs) + "</td><td>" + esc(counts_text(c.by_category)) +
           "</td><td>";
      for (std::size_t i = 0; i < c.examples.size(); ++i) o += (i ? "<br>" : "") + html_job(c.examples[i].job, c.examples[i].report);
      o += "</td></tr>\n";
    }
    o += "</table>\n";
    if (s.not_compared != 0) o += "<p>" + esc(say(Say::SummaryNotCompared, {{"jobs", jobs_word(s.not_compared)}})) + "</p>\n";
  }
  if (!s.weeks.empty()) {
    // Weeks as stacked bars (one colour per category of the top ones) and a table with the counts.
    o += "<h2>" + esc(say(Say::SumWeeksHeading)) + "</h2>\n";
    std::uint64_t peak = 1;
    for (const auto& [w, c] : s.weeks) {
      peak = std::max(peak, total_of(c));
    }
    // Twelve colours told apart (Tableau's ten and two more), most jobs first (`cats`' order); those past
    // them share one grey, named once in the legend.
    static const char* kColours[] = {"#4e79a7", "#e15759", "#f28e2b", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
                                     "#ff9da7", "#9c755f", "#17becf", "#1f3a93", "#8c564b", "#bab0ac"};
    constexpr int kOther = 12;
    std::map<std::string, int> colour;
    for (const auto& [c, n] : cats) colour.emplace(c, static_cast<int>(std::min<std::size_t>(colour.size(), kOther)));
    const int bar = 28, height = 160, wide = static_cast<int>(s.weeks.size()) * (bar + 8) + 40;
    o += "<svg role=\"img\" aria-label=\"" + esc(say(Say::SumChartWeeks)) + "\" viewBox=\"0 0 " + std::to_string(wide) + " " + std::to_string(height + 40) +
         "\" width=\"" + std::to_string(wide) + "\">\n";
    int x = 30;
    for (const auto& [week, c] : s.weeks) {
      int top = height;
      for (const auto& [cat, all] : cats) {  // stacked in the order of the legend
        const auto it = c.find(cat);
        if (it == c.end()) continue;
        const std::uint64_t n = it->second;
        const int h = std::max(1, static_cast<int>(static_cast<double>(height) * static_cast<double>(n) / static_cast<double>(peak)));
        top -= h;
        o += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(top + 10) + "\" width=\"" + std::to_string(bar) + "\" height=\"" +
             std::to_string(h) + "\" fill=\"" + kColours[colour.count(cat) ? colour[cat] : kOther] + "\"><title>" + esc(week) + ": " + esc(cat) + " " +
             std::to_string(n) + "</title></rect>\n";
      }
      o += "<text class=\"lbl\" x=\"" + std::to_string(x + bar / 2) + "\" y=\"" + std::to_string(height + 26) + "\" text-anchor=\"middle\">" +
           esc(week.size() > 5 ? week.substr(5) : week) + "</text>\n";
      x += bar + 8;
    }
    o += "</svg>\n<p class=\"legend\">";
    auto swatch = [&](int c, const std::string& what) {
      return "<span><svg width=\"10\" height=\"10\" aria-hidden=\"true\"><rect width=\"10\" height=\"10\" fill=\"" +
             std::string(kColours[c]) + "\"/></svg> " + esc(what) + "</span> ";
    };
    std::size_t others = 0;
    for (const auto& [cat, n] : cats) {
      if (colour[cat] < kOther) o += swatch(colour[cat], cat);
      else ++others;
    }
    if (others != 0) o += swatch(kOther, say(Say::SumChartOther, {{"count", std::to_string(others)}}));
    o += "</p>\n<table><tr><th>" + esc(say(Say::SumColWeek)) + "</th><th>" + esc(say(Say::SumColJobs)) + "</th><th>" + esc(say(Say::SumColCategories)) +
         "</th></tr>\n";
    for (const auto& [week, c] : s.weeks) {
      const std::uint64_t total = total_of(c);
      o += "<tr><td class=\"c\">" + esc(week) + "</td><td class=\"n\">" + std::to_string(total) + "</td><td>" + esc(counts_text(c)) + "</td></tr>\n";
    }
    if (s.undated != 0) o += "<tr><td>" + esc(say(Say::SummaryUndated)) + "</td><td class=\"n\">" + std::to_string(s.undated) + "</td><td></td></tr>\n";
    o += "</table>\n";
  }
  if (s.not_analysed_total != 0) {
    o += "<h2>" + esc(say(Say::SumNotAnalysedHeading, {{"count", std::to_string(s.not_analysed_total)}})) + "</h2>\n<table><tr><th>" +
         esc(say(Say::SumColJob)) + "</th><th>" + esc(say(Say::SumColStatus)) + "</th><th>" + esc(say(Say::SumColReason)) + "</th></tr>\n";
    for (const NotAnalysed& n : s.not_analysed)
      o += "<tr><td>" + esc(n.job) + "</td><td class=\"c\">" + esc(n.status) + "</td><td>" + esc(n.reason) + "</td></tr>\n";
    o += "</table>\n";
    if (s.not_analysed_total > s.not_analysed.size())
      o += "<p>" + esc(say(Say::SummaryMore, {{"count", std::to_string(s.not_analysed_total - s.not_analysed.size())}})) + "</p>\n";
  }
  o += "</main></body></html>\n";
  return o;
}

std::string render_summary(const Summary& s, std::string_view format) {
  if (format == "json") return render_summary_json(s);
  if (format == "markdown") return render_summary_markdown(s);
  if (format == "html") return render_summary_html(s);
  return render_summary_text(s);
}

}  // namespace dtriage::batch
