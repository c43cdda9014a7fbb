#include "report/view.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "base/json_escape.hpp"
#include "base/text.hpp"

namespace dtriage::report {
namespace {

// Where `part` (a view into `whole`) starts in whole's visible form.
std::size_t visible_offset(const std::string& whole, const char* part) {
  if (part < whole.data() || part > whole.data() + whole.size()) return 0;
  return base::visible(std::string_view(whole).substr(0, static_cast<std::size_t>(part - whole.data()))).size();
}

// Every piece of log text and every file name is made visible (base/text.hpp): what an input
// holds can then not drive the reader's terminal or start a line of its own in any format.
// `pattern` is the rule's that made the finding (null for none): the line of a block it matched
// is the block's key line, and where it matched is kept in view when a long line is clipped.
EvidenceItem item(const model::Event& e, const re2::RE2* pattern = nullptr) {
  EvidenceItem it{loc(e), base::visible(e.text), "", ""};
  if (auto at = e.get_int("exception_line")) {  // a traceback: its exception line says the most
    it.key_loc = base::visible(e.path) + ":" + std::to_string(*at);
    it.key_text = base::visible(e.get_str("exception_text"));
    return it;
  }
  if (pattern == nullptr) return it;
  re2::StringPiece m;
  if (pattern->Match(e.text, 0, e.text.size(), re2::RE2::UNANCHORED, &m, 1)) {
    it.focus = visible_offset(e.text, m.data());
    return it;
  }
  // A block (CANN error code, failure-table row, ...) whose first line is not what matched: the
  // body line that is. Its own number when the block's lines were one after the other.
  const bool contiguous = e.end_line == e.line + e.body.size();
  for (std::size_t k = 0; k < e.body.size(); ++k) {
    const std::string& b = e.body[k];
    if (!pattern->Match(b, 0, b.size(), re2::RE2::UNANCHORED, &m, 1)) continue;
    const std::size_t indent = std::min(b.find_first_not_of(" \t"), b.size());
    const std::string shown = b.substr(indent);
    it.key_loc = base::visible(e.path) + ":" + std::to_string(contiguous ? e.line + 1 + k : e.line);
    it.key_text = base::visible(shown);
    it.key_focus = visible_offset(shown, shown.data() + (static_cast<std::size_t>(m.data() - b.data()) - indent));
    break;
  }
  return it;
}

// -C N: the lines around event `i`'s first line, when they were read.
EvidenceItem with_context(const Report& r, correlate::EventIndex i, EvidenceItem it) {
  if (r.context == nullptr) return it;
  const auto c = r.context->find(i);
  if (c == r.context->end()) return it;
  it.path = base::visible(r.events[i].path);
  it.line = r.events[i].line;
  for (const auto& [n, text] : c->second.before) it.before.emplace_back(n, base::visible(text));
  for (const auto& [n, text] : c->second.after) it.after.emplace_back(n, base::visible(text));
  return it;
}

// Evidence lines near each other in one file share their context, as grep -C does: a line is shown
// once, and items whose lines follow on are not separated.
void merge_context(std::vector<EvidenceItem>& items) {
  for (std::size_t k = 1; k < items.size(); ++k) {
    EvidenceItem& prev = items[k - 1];
    EvidenceItem& cur = items[k];
    if (prev.path.empty() || prev.path != cur.path || prev.line >= cur.line) continue;
    std::erase_if(prev.after, [&](const auto& l) { return l.first >= cur.line; });
    const std::uint64_t last = prev.after.empty() ? prev.line : prev.after.back().first;
    std::erase_if(cur.before, [&](const auto& l) { return l.first <= last; });
  }
  for (std::size_t k = 1; k < items.size(); ++k) {
    const EvidenceItem& prev = items[k - 1];
    const EvidenceItem& cur = items[k];
    const bool follows_on = !prev.path.empty() && prev.path == cur.path &&
                            (cur.before.empty() ? cur.line : cur.before.front().first) ==
                                (prev.after.empty() ? prev.line : prev.after.back().first) + 1;
    items[k].separated = (!prev.path.empty() || !cur.path.empty()) && !follows_on;
  }
}

// Evidence lines of the same text (every node printing one line, a line repeated per step) are
// shown once, with where else they were.
void fold_repeats(std::vector<EvidenceItem>& items) {
  std::vector<EvidenceItem> out;
  std::map<std::string, std::size_t> first;  // text + key text -> its item in out
  for (EvidenceItem& it : items) {
    const std::string key = it.text + '\n' + it.key_text;
    if (auto f = first.find(key); f != first.end()) {
      out[f->second].also.push_back(std::move(it.loc));
      continue;
    }
    first.emplace(key, out.size());
    out.push_back(std::move(it));
  }
  items = std::move(out);
}

}  // namespace

std::string clip(const std::string& s, std::size_t max) { return base::clip_utf8(base::sanitize_utf8(s), max); }

std::string clip_at(const std::string& s, std::size_t max, std::size_t focus) {
  if (s.size() <= max || focus < max - max / 3 || focus >= s.size()) return clip(s, max);
  // The line's head (its time, process, code) and then a window from a little before the focus.
  const std::size_t head = max / 3, window = max - head - 5;
  std::size_t start = focus - std::min(focus, window / 4);
  if (start < head) return clip(s, max);
  while (start < s.size() && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) ++start;  // a character's start
  std::string out = base::clip_utf8(base::sanitize_utf8(s.substr(0, head)), head);
  if (out.size() > head) out.resize(out.size() - 3);  // clip_utf8's "..." comes below, once
  return out + " ... " + clip(s.substr(start), window);
}

std::string also_text(const EvidenceItem& it, std::size_t max_locs) {
  if (it.also.empty()) return "";
  std::string where;
  for (std::size_t k = 0; k < it.also.size() && k < max_locs; ++k) where += (k == 0 ? "" : ", ") + it.also[k];
  if (it.also.size() <= max_locs) return base::say(base::Say::EvidenceAlsoAt, {{"where", where}});
  return base::say(base::Say::EvidenceAlsoAtMore, {{"where", where}, {"count", std::to_string(it.also.size() - max_locs)}});
}

std::string loc(const model::Event& e) { return base::visible(e.path) + ":" + std::to_string(e.line); }

std::string ranks_text(const std::set<std::int64_t>& s, std::size_t max) {
  if (s.empty()) return "-";
  // Compress runs: 0-7,9
  std::string out;
  std::vector<std::int64_t> v(s.begin(), s.end());
  std::size_t shown = 0;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j > i + 1 ? std::to_string(v[i]) + "-" + std::to_string(v[j])
                     : (j == i + 1 ? std::to_string(v[i]) + "," + std::to_string(v[j]) : std::to_string(v[i]));
    i = j + 1;
    if (++shown >= max && i < v.size()) {
      out += ",...";
      break;
    }
  }
  return out;
}

namespace {

// A time with `digits` fraction digits (cut or padded), its zone kept: one precision down a column.
std::string time_at(const model::Time& t, std::uint8_t digits) {
  if (!t.valid || t.text.size() < 19) return t.text;
  std::size_t end = 19;
  std::string frac;
  if (end < t.text.size() && (t.text[end] == '.' || t.text[end] == ',')) {
    ++end;
    while (end < t.text.size() && t.text[end] >= '0' && t.text[end] <= '9') frac += t.text[end++];
  }
  frac.resize(digits, '0');
  return t.text.substr(0, 19) + (digits != 0 ? "." + frac : std::string()) + t.text.substr(end);
}

// The node table's first errors, their times at one precision: the finest the rows have, at most ms.
std::uint8_t first_error_digits(const Report& r) {
  std::uint8_t d = 0;
  for (const correlate::Node& n : r.facts.nodes)
    if (n.first_error && r.events[*n.first_error].time.valid) d = std::max(d, r.events[*n.first_error].time.digits);
  return std::min<std::uint8_t>(d, 3);
}

}  // namespace

std::string first_error_text(const Report& r, const correlate::Node& n, std::uint8_t digits) {
  if (!n.first_error) return "-";
  const model::Event& e = r.events[*n.first_error];
  return base::visible((e.time.empty() ? std::string() : time_at(e.time, digits) + " ") + (e.code.empty() ? std::string(model::kind_name(e.kind)) : e.code) + " " + e.path + ":" +
                       std::to_string(e.line));
}

std::string ConsequenceGroup::describe() const {
  using base::Say;
  std::string s = base::say(lines == 1 ? Say::DescribeLine : Say::DescribeLines, {{"count", std::to_string(lines)}});
  if (nodes > 0) s += base::say(nodes == 1 ? Say::DescribeOnNode : Say::DescribeOnNodes, {{"count", std::to_string(nodes)}});
  if (!devices.empty()) s += base::say(devices.find(',') == std::string::npos ? Say::DescribeDevice : Say::DescribeDevices, {{"devices", devices}});
  return s;
}

std::vector<ConsequenceGroup> consequence_groups(const Report& r) {
  std::vector<ConsequenceGroup> out;
  std::map<std::string, std::size_t> at;
  std::vector<std::set<std::string>> nodes;
  std::vector<std::set<std::int64_t>> devices;
  for (const rules::Finding& f : r.analysis.findings) {
    if (f.role != rules::FindingRole::Consequence || f.events.empty()) continue;
    auto it = at.find(f.rule->id);
    if (it == at.end()) {
      it = at.emplace(f.rule->id, out.size()).first;
      out.push_back(ConsequenceGroup{f.rule->title_in(base::language()), 0, 0, "", f.events.front(), f.rule->id});
      nodes.emplace_back();
      devices.emplace_back();
    }
    const std::size_t g = it->second;
    out[g].lines += f.count;
    if (!f.node.empty()) nodes[g].insert(f.node);
    for (auto i : f.events)
      if (r.events[i].device) devices[g].insert(*r.events[i].device);
  }
  for (std::size_t g = 0; g < out.size(); ++g) {
    out[g].nodes = nodes[g].size();
    std::size_t shown = 0;
    for (auto d : devices[g]) {
      if (shown++ == 6) {
        out[g].devices += ",...";
        break;
      }
      out[g].devices += (out[g].devices.empty() ? "" : ",") + std::to_string(d);
    }
  }
  return out;
}

namespace {

RankRow rank_row(const Report& r, const correlate::RankRecord& k) {
  RankRow row;
  row.rank = k.rank;
  row.node = k.node.empty() ? "-" : base::visible(k.node);
  row.local_rank = k.local_rank ? std::to_string(*k.local_rank) : "-";
  row.device = k.device ? std::to_string(*k.device) : "-";
  if (k.attempts.size() > 1) {  // restarted: each attempt's first pid, the replaced ones first ("101->202")
    for (std::size_t i = 0; i < k.attempts.size() && i < 3; ++i)
      row.pids += (i == 0 ? "" : "->") + (k.attempts[i].pids.empty() ? std::string("-") : std::to_string(k.attempts[i].pids.front()));
    if (k.attempts.size() > 3) row.pids += "->+" + std::to_string(k.attempts.size() - 3);
  } else {
    for (std::size_t i = 0; i < k.pids.size() && i < 2; ++i) row.pids += (i == 0 ? "" : ",") + std::to_string(k.pids[i]);
    if (k.pids.size() > 2) row.pids += ",+" + std::to_string(k.pids.size() - 2);
  }
  if (row.pids.empty()) row.pids = "-";
  row.step = !k.progress ? "-" : std::to_string(k.progress->step) + (k.progress->steps ? "/" + std::to_string(*k.progress->steps) : "");
  row.ending = correlate::ending_name(k.ending);
  row.detail = clip(base::visible(k.detail), 120);
  if (k.evidence) row.where = loc(r.events[*k.evidence]);
  return row;
}

// Every rank of a small job; of a large one, the ranks whose ending at most a few share (the one
// that died among many that timed out) and the verdict's rank, the rest counted by ending.
void rank_rows(const Report& r, View& v) {
  const auto& table = r.facts.rank_table;
  if (table.size() < 2) return;
  std::map<correlate::Ending, std::set<std::int64_t>> by_ending;
  for (const auto& k : table) by_ending[k.ending].insert(k.rank);
  const std::size_t few = 8;
  std::map<correlate::Ending, std::set<std::int64_t>> rest;
  for (const auto& k : table) {
    const bool shown = table.size() <= kAllRankRows || by_ending[k.ending].size() <= few || (v.rank && *v.rank == k.rank);
    if (shown) {
      v.ranks.push_back(rank_row(r, k));
      v.rank_steps = v.rank_steps || k.progress;
    } else {
      rest[k.ending].insert(k.rank);
    }
  }
  std::size_t hidden = 0;
  std::string parts;
  for (const auto& [ending, ranks] : rest) {
    hidden += ranks.size();
    parts += (parts.empty() ? "" : ", ") + base::say(base::Say::RanksRestPart, {{"count", std::to_string(ranks.size())},
                                                                                {"ending", correlate::ending_name(ending)},
                                                                                {"ranks", ranks_text(ranks, 6)}});
  }
  if (hidden > 0) v.ranks_rest = base::say(base::Say::RanksRest, {{"count", std::to_string(hidden)}, {"parts", parts}});
}

}  // namespace

std::string heading(base::Say key) { return base::say(key); }

std::string label(base::Say key) {
  std::string s = base::say(key);
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z') s[0] = static_cast<char>(s[0] - 'A' + 'a');
  return s;
}

View make_view(const Report& r) {
  View v;
  const rules::Verdict& verdict = r.analysis.verdict;
  v.status = rules::status_name(verdict.status);
  v.status_word = base::say(verdict.status == rules::Status::Failed    ? base::Say::ReportStatusFailed
                            : verdict.status == rules::Status::Healthy ? base::Say::ReportStatusHealthy
                                                                       : base::Say::ReportStatusInconclusive);
  v.category = verdict.status == rules::Status::Healthy ? "" : verdict.category;
  v.summary = base::visible(verdict.summary);
  v.remedy = base::visible(verdict.remedy);
  v.rule = verdict.rule;
  v.rank = verdict.rank;
  v.node = verdict.node.empty() ? "" : base::visible(verdict.node);
  for (const std::string& w : verdict.why) v.why.push_back(base::visible(w));
  v.repeated = base::visible(verdict.repeated);
  if (verdict.root >= 0) {
    const rules::Finding& root = r.analysis.findings[static_cast<std::size_t>(verdict.root)];
    v.evidence_rule = root.rule->id;
    std::unique_ptr<re2::RE2> pattern;
    if (!root.rule->regex.empty()) pattern = std::make_unique<re2::RE2>(root.rule->regex, re2::RE2::Quiet);
    const re2::RE2* re = pattern != nullptr && pattern->ok() ? pattern.get() : nullptr;
    for (auto i : root.events) v.evidence.push_back(with_context(r, i, item(r.events[i], re)));
    fold_repeats(v.evidence);
    merge_context(v.evidence);
  } else if (verdict.lead) {
    v.evidence.push_back(with_context(r, *verdict.lead, item(r.events[*verdict.lead])));
  }
  v.consequences = consequence_groups(r);
  for (const ConsequenceGroup& g : v.consequences) v.consequence_first.push_back(item(r.events[g.first]));
  const std::uint8_t digits = first_error_digits(r);
  for (const correlate::Node& n : r.facts.nodes)
    v.nodes.push_back(NodeRow{n.name.empty() ? kUnnamedNode : base::visible(n.name), n.processes(),
                              n.devices ? std::to_string(*n.devices) : "-", n.errors, ranks_text(n.ranks),
                              ranks_text(n.ranks, 4), first_error_text(r, n, digits)});
  rank_rows(r, v);
  for (const rules::Finding& f : r.analysis.findings)
    if (f.role == rules::FindingRole::Related || f.role == rules::FindingRole::Warning)
      v.others.push_back(OtherFinding{rules::role_name(f.role), base::visible(f.summary), f.rule->id, f.count,
                                      f.events.empty() ? std::nullopt : std::optional<EvidenceItem>(item(r.events[f.events.front()]))});
  v.inputs = &r.inventory;
  v.events = r.events.size();
  v.rule_problems = &r.rule_problems;
  v.version = r.version;
  return v;
}

}  // namespace dtriage::report
