#include "report/view.hpp"

#include <map>
#include <set>

#include "base/json_escape.hpp"
#include "base/text.hpp"

namespace dtriage::report {
namespace {

// Every piece of log text and every file name is made visible (base/text.hpp): what an input
// holds can then not drive the reader's terminal or start a line of its own in any format.
EvidenceItem item(const model::Event& e) {
  EvidenceItem it{loc(e), base::visible(e.text), "", ""};
  if (auto at = e.get_int("exception_line")) {  // a traceback: its exception line says the most
    it.key_loc = base::visible(e.path) + ":" + std::to_string(*at);
    it.key_text = base::visible(e.get_str("exception_text"));
  }
  return it;
}

}  // namespace

std::string clip(const std::string& s, std::size_t max) { return base::clip_utf8(base::sanitize_utf8(s), max); }

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

std::string first_error_text(const Report& r, const correlate::Node& n) {
  if (!n.first_error) return "-";
  const model::Event& e = r.events[*n.first_error];
  return base::visible((e.time.empty() ? std::string() : e.time.text + " ") + (e.code.empty() ? std::string(model::kind_name(e.kind)) : e.code) + " " + e.path + ":" +
                       std::to_string(e.line));
}

std::string ConsequenceGroup::describe() const {
  std::string s = std::to_string(lines) + (lines == 1 ? " line" : " lines");
  if (nodes > 0) s += " on " + std::to_string(nodes) + (nodes == 1 ? " node" : " nodes");
  if (!devices.empty()) s += (devices.find(',') == std::string::npos ? ", device " : ", devices ") + devices;
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
      out.push_back(ConsequenceGroup{f.rule->title, 0, 0, "", f.events.front()});
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
    parts += (parts.empty() ? "" : ", ") + std::to_string(ranks.size()) + " " + correlate::ending_name(ending) + " (ranks " +
             ranks_text(ranks, 6) + ")";
  }
  if (hidden > 0) v.ranks_rest = std::to_string(hidden) + " more: " + parts;
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
  v.category = verdict.status == rules::Status::Healthy ? "" : verdict.category;
  v.summary = base::visible(verdict.summary);
  v.remedy = base::visible(verdict.remedy);
  v.rule = verdict.rule;
  v.rank = verdict.rank;
  for (const std::string& w : verdict.why) v.why.push_back(base::visible(w));
  if (verdict.root >= 0) {
    const rules::Finding& root = r.analysis.findings[static_cast<std::size_t>(verdict.root)];
    v.evidence_rule = root.rule->id;
    for (auto i : root.events) v.evidence.push_back(item(r.events[i]));
  } else if (verdict.lead) {
    v.evidence.push_back(item(r.events[*verdict.lead]));
  }
  v.consequences = consequence_groups(r);
  for (const ConsequenceGroup& g : v.consequences) v.consequence_first.push_back(item(r.events[g.first]));
  for (const correlate::Node& n : r.facts.nodes)
    v.nodes.push_back(NodeRow{n.name.empty() ? kUnnamedNode : base::visible(n.name), n.processes(),
                              n.devices ? std::to_string(*n.devices) : "-", n.errors, ranks_text(n.ranks),
                              ranks_text(n.ranks, 4), first_error_text(r, n)});
  rank_rows(r, v);
  for (const rules::Finding& f : r.analysis.findings)
    if (f.role == rules::FindingRole::Related || f.role == rules::FindingRole::Warning)
      v.others.push_back(OtherFinding{rules::role_name(f.role), base::visible(f.summary), f.rule->id, f.count});
  v.inputs = &r.inventory;
  v.events = r.events.size();
  v.rule_problems = &r.rule_problems;
  v.version = r.version;
  return v;
}

}  // namespace dtriage::report
