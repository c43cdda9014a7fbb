#include "report/report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "base/json_escape.hpp"

namespace dtriage::report {
namespace {

using nlohmann::json;
constexpr std::size_t kMaxEvidence = 10;

json or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }
json or_null(const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); }

json evidence_json(const model::Event& e) {
  json j{{"path", base::sanitize_utf8(e.path)}, {"line", e.line}, {"text", base::sanitize_utf8(e.text)}};
  if (auto at = e.get_int("exception_line")) {  // a traceback: its exception line says the most
    j["key_line"] = *at;
    j["key_text"] = base::sanitize_utf8(e.get_str("exception_text"));
  }
  if (!e.time.empty()) j["time"] = e.time;
  if (e.time_inferred) j["time_inferred"] = true;  // the year (or date) came from elsewhere
  if (!e.node.empty()) j["node"] = e.node;
  return j;
}

}  // namespace

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
  return (e.time.empty() ? std::string() : e.time + " ") + (e.code.empty() ? e.kind : e.code) + " " + e.path + ":" +
         std::to_string(e.line);
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
    if (f.role != "consequence" || f.events.empty()) continue;
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

std::string render_json(const Report& r) {
  const rules::Verdict& v = r.analysis.verdict;
  json j;
  j["schema"] = "dtriage.report/1";
  j["verdict"] = {{"status", v.status},
                  {"category", v.status == "healthy" || v.category.empty() ? json(nullptr) : json(v.category)},
                  {"summary", base::sanitize_utf8(v.summary)},
                  {"remedy", or_null(v.remedy)},
                  {"node", or_null(v.node)},
                  {"rank", or_null(v.rank)},
                  {"rule", or_null(v.rule)}};
  if (v.lead) j["verdict"]["evidence"] = json::array({evidence_json(r.events[*v.lead])});
  json findings = json::array();
  for (const rules::Finding& f : r.analysis.findings) {
    json fj{{"rule", f.rule->id},
            {"title", f.rule->title},
            {"category", f.rule->category},
            {"severity", f.rule->severity},
            {"role", f.role},
            {"summary", base::sanitize_utf8(f.summary)},
            {"node", or_null(f.node)},
            {"rank", or_null(f.rank)},
            {"time", or_null(f.time)},
            {"count", f.count}};
    if (!f.remedy.empty()) fj["remedy"] = base::sanitize_utf8(f.remedy);
    if (!f.explained_by.empty()) fj["explained_by"] = f.explained_by;
    json ev = json::array();
    for (std::size_t k = 0; k < f.events.size() && k < kMaxEvidence; ++k) ev.push_back(evidence_json(r.events[f.events[k]]));
    fj["evidence"] = ev;
    findings.push_back(fj);
  }
  j["findings"] = findings;
  json nodes = json::array();
  for (const correlate::Node& n : r.facts.nodes) {
    json nj{{"name", or_null(n.name)},
            {"processes", n.processes()},
            {"devices", or_null(n.devices)},
            {"nproc_per_node", or_null(n.nproc_per_node)},
            {"pids", n.pids.size()},
            {"ranks", json(std::vector<std::int64_t>(n.ranks.begin(), n.ranks.end()))},
            {"errors", n.errors}};
    if (auto d = n.shared_device()) {
      nj["shared_device"] = *d;
      const auto& pids = n.device_pids.at(*d);
      nj["shared_device_pids"] = std::vector<std::int64_t>(pids.begin(), pids.end());
    }
    if (!n.versions.empty()) nj["versions"] = n.versions;
    nj["first_error"] = n.first_error ? evidence_json(r.events[*n.first_error]) : json(nullptr);
    nodes.push_back(nj);
  }
  j["nodes"] = nodes;
  json job{{"world_size", or_null(r.facts.job.world_size)},
           {"expected_nodes", or_null(r.facts.job.expected_nodes)},
           {"master_addr", or_null(r.facts.job.master_addr)},
           {"master_port", or_null(r.facts.job.master_port)},
           {"ranks_with_timeout", std::vector<std::int64_t>(r.facts.job.ranks_with_timeout.begin(),
                                                            r.facts.job.ranks_with_timeout.end())}};
  j["job"] = job;
  json unreadable = json::array();
  for (const auto& p : r.inventory.unreadable) unreadable.push_back({{"path", base::sanitize_utf8(p.path)}, {"reason", p.reason}});
  json skipped = json::array();
  for (const auto& p : r.inventory.skipped) skipped.push_back({{"path", base::sanitize_utf8(p.path)}, {"reason", p.reason}});
  j["inputs"] = {{"files", r.inventory.files},   {"bytes", r.inventory.bytes},   {"lines", r.inventory.lines},
                 {"lines_cut", r.inventory.lines_cut}, {"events", r.events.size()},
                 {"events_not_kept", r.inventory.events_not_kept}, {"unreadable", unreadable},
                 {"skipped", skipped}};
  json problems = json::array();
  for (const auto& p : r.rule_problems) problems.push_back({{"where", p.where}, {"message", p.message}});
  j["rules"] = {{"loaded", r.rules_loaded}, {"problems", problems}};
  j["dtriage"] = r.version;
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string render_text(const Report& r, bool color) {
  const char* bold = color ? "\x1b[1m" : "";
  const char* red = color ? "\x1b[1;31m" : "";
  const char* green = color ? "\x1b[1;32m" : "";
  const char* dim = color ? "\x1b[2m" : "";
  const char* reset = color ? "\x1b[0m" : "";
  const rules::Verdict& v = r.analysis.verdict;
  std::string o;
  const char* status_color = v.status == "failed" ? red : v.status == "healthy" ? green : bold;
  o += std::string(status_color) + "verdict: " + v.status + reset;
  if (!v.category.empty() && v.status != "healthy") o += std::string("  [") + v.category + "]";
  o += "\n  " + std::string(bold) + v.summary + reset + "\n";
  if (!v.remedy.empty()) o += "  fix: " + v.remedy + "\n";
  auto evidence_lines = [&](const std::vector<correlate::EventIndex>& idx, std::size_t max) {
    std::string s;
    for (std::size_t k = 0; k < idx.size() && k < max; ++k) {
      const model::Event& e = r.events[idx[k]];
      std::string text = base::sanitize_utf8(e.text);
      if (text.size() > 220) text = text.substr(0, 217) + "...";
      s += std::string("    ") + dim + e.path + ":" + std::to_string(e.line) + reset + "  " + text + "\n";
      if (auto at = e.get_int("exception_line")) {
        std::string key = base::sanitize_utf8(e.get_str("exception_text"));
        if (key.size() > 220) key = key.substr(0, 217) + "...";
        s += std::string("    ") + dim + e.path + ":" + std::to_string(*at) + reset + "  " + key + "\n";
      }
    }
    if (idx.size() > max) s += "    ... " + std::to_string(idx.size() - max) + " more\n";
    return s;
  };
  if (v.root >= 0) {
    const rules::Finding& root = r.analysis.findings[static_cast<std::size_t>(v.root)];
    o += "\nevidence (" + root.rule->id + "):\n" + evidence_lines(root.events, 8);
  } else if (v.lead) {
    o += "\nevidence:\n" + evidence_lines({*v.lead}, 1);
  }
  // Consequences, grouped by rule.
  const auto groups = consequence_groups(r);
  if (!groups.empty()) {
    o += "\nexplained by the root cause:\n";
    for (const ConsequenceGroup& g : groups) {
      const model::Event& e = r.events[g.first];
      o += "  - " + g.title + ": " + g.describe() + std::string("  ") + dim + "(first: " + e.path + ":" +
           std::to_string(e.line) + ")" + reset + "\n";
    }
  }
  // Node table.
  if (!r.facts.nodes.empty()) {
    o += "\nnodes:\n";
    char buf[512];
    std::snprintf(buf, sizeof buf, "  %-22s %5s %7s %6s %-12s %s\n", "node", "procs", "devices", "errors", "ranks", "first error");
    o += buf;
    for (const correlate::Node& n : r.facts.nodes) {
      const std::string first = first_error_text(r, n);
      std::snprintf(buf, sizeof buf, "  %-22s %5lld %7s %6llu %-12s %s\n",
                    n.name.empty() ? "(unnamed)" : n.name.c_str(), static_cast<long long>(n.processes()),
                    n.devices ? std::to_string(*n.devices).c_str() : "?", static_cast<unsigned long long>(n.errors),
                    ranks_text(n.ranks, 4).c_str(), first.c_str());
      o += buf;
    }
  }
  // Other findings.
  bool header = false;
  for (const rules::Finding& f : r.analysis.findings) {
    if (f.role != "related" && f.role != "warning") continue;
    if (!header) {
      o += "\nother findings:\n";
      header = true;
    }
    o += "  - [" + f.role + "] " + f.summary + "  " + dim + "(" + f.rule->id + ", " + std::to_string(f.count) + " line" +
         (f.count == 1 ? "" : "s") + ")" + reset + "\n";
  }
  // Inputs.
  const base::Inventory& inv = r.inventory;
  o += "\ninputs: " + std::to_string(inv.files) + " files, " + std::to_string(inv.bytes) + " bytes, " +
       std::to_string(inv.lines) + " lines, " + std::to_string(r.events.size()) + " events";
  if (inv.events_not_kept) o += " (+" + std::to_string(inv.events_not_kept) + " informational ones that added no fact)";
  if (inv.lines_cut) o += ", " + std::to_string(inv.lines_cut) + " long lines cut";
  o += "\n";
  for (const auto& p : inv.unreadable) o += "  unreadable: " + base::sanitize_utf8(p.path) + ": " + p.reason + "\n";
  for (const auto& p : inv.skipped) o += "  skipped: " + base::sanitize_utf8(p.path) + ": " + p.reason + "\n";
  for (const auto& p : r.rule_problems) o += "  rule problem: " + p.where + ": " + p.message + "\n";
  return o;
}

}  // namespace dtriage::report
