// The JSON report (dtriage.report/1, docs/report.schema.json): everything, for scripts.
#include <nlohmann/json.hpp>

#include "base/json_escape.hpp"
#include "base/sentences.hpp"
#include "report/report.hpp"

namespace dtriage::report {
namespace {

using nlohmann::json;
constexpr std::size_t kMaxEvidence = 10;

json or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }
json or_null(const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); }

// The lines around event `i` (-C N): {"line": N, "text": ...} each, before and after it.
void add_context(json& j, const Report& r, correlate::EventIndex i) {
  if (r.context == nullptr) return;
  const auto c = r.context->find(i);
  if (c == r.context->end()) return;
  auto lines = [](const std::vector<std::pair<std::uint64_t, std::string>>& in) {
    json a = json::array();
    for (const auto& [n, text] : in) a.push_back({{"line", n}, {"text", base::sanitize_utf8(text)}});
    return a;
  };
  j["before"] = lines(c->second.before);
  j["after"] = lines(c->second.after);
}

json evidence_json(const model::Event& e) {
  json j{{"path", base::sanitize_utf8(e.path)}, {"line", e.line}, {"text", base::sanitize_utf8(e.text)}};
  if (auto at = e.get_int("exception_line")) {  // a traceback: its exception line says the most
    j["key_line"] = *at;
    j["key_text"] = base::sanitize_utf8(e.get_str("exception_text"));
  }
  if (!e.time.empty()) j["time"] = e.time.text;
  if (e.time.year_inferred) j["time_inferred"] = true;  // the year (or date) came from elsewhere
  if (!e.node.empty()) j["node"] = e.node;
  return j;
}

json time_of(const Report& r, const std::optional<correlate::EventIndex>& i) {
  return i && !r.events[*i].time.empty() ? json(r.events[*i].time.text) : json(nullptr);
}

// The rank table: every rank, who it was and how it ended.
json ranks_json(const Report& r) {
  json out = json::array();
  for (const correlate::RankRecord& k : r.facts.rank_table) {
    json rank{{"rank", k.rank},
              {"node", or_null(k.node)},
              {"local_rank", or_null(k.local_rank)},
              {"device", or_null(k.device)},
              {"pids", k.pids},
              {"first_time", time_of(r, k.first)},
              {"last_time", time_of(r, k.last)},
              {"last_completed", or_null(k.last_completed)},
              {"ending", correlate::ending_name(k.ending)},
              {"detail", or_null(base::sanitize_utf8(k.detail))},
              {"signal", or_null(k.signal)},
              {"sent_by", or_null(k.sent_by)},
              {"exit_code", or_null(k.exit_code)},
              {"peer", or_null(k.peer)},
              {"evidence", k.evidence ? evidence_json(r.events[*k.evidence]) : json(nullptr)}};
    if (!k.attempts.empty()) {  // its pids per restart attempt, earliest first
      json attempts = json::array();
      for (const correlate::RankAttempt& a : k.attempts) {
        json aj{{"pids", a.pids}, {"replaced", a.replaced}};
        if (a.number) aj["attempt"] = *a.number;
        attempts.push_back(std::move(aj));
      }
      rank["attempts"] = std::move(attempts);
    }
    if (!k.launcher.empty()) rank["launcher"] = base::sanitize_utf8(k.launcher);
    if (k.progress) {  // its last progress print
      const correlate::RankProgress& p = *k.progress;
      json step{{"step", p.step}, {"steps", or_null(p.steps)}, {"path", base::sanitize_utf8(p.path)}, {"line", p.line}, {"text", base::sanitize_utf8(p.text)}};
      if (!p.time.empty()) step["time"] = p.time.text;
      rank["last_step"] = std::move(step);
    }
    out.push_back(std::move(rank));
  }
  return out;
}

}  // namespace

std::string render_json(const Report& r) {
  const rules::Verdict& v = r.analysis.verdict;
  json j;
  j["schema"] = "dtriage.report/1";
  j["verdict"] = {{"status", rules::status_name(v.status)},
                  {"category", v.status == rules::Status::Healthy || v.category.empty() ? json(nullptr) : json(v.category)},
                  {"summary", base::sanitize_utf8(v.summary)},
                  {"remedy", or_null(v.remedy)},
                  {"node", or_null(v.node)},
                  {"rank", or_null(v.rank)},
                  {"rule", or_null(v.rule)}};
  if (base::language() != base::Lang::En) {  // the sentence in the language asked for, and in English
    j["lang"] = base::language_name(base::language());
    j["verdict"]["summary_en"] = base::sanitize_utf8(v.english());
  }
  if (!v.tied.empty()) j["verdict"]["ranks_tied"] = v.tied;  // no rank named: one of these
  if (!v.repeated.empty()) j["verdict"]["repeated"] = base::sanitize_utf8(v.repeated);
  if (!v.why.empty()) {
    json why = json::array();
    for (const std::string& w : v.why) why.push_back(base::sanitize_utf8(w));
    j["verdict"]["why"] = std::move(why);
  }
  if (v.lead) {
    json e = evidence_json(r.events[*v.lead]);
    add_context(e, r, *v.lead);
    j["verdict"]["evidence"] = json::array({std::move(e)});
  }
  if (!v.catalogue.empty()) j["verdict"]["catalogue"] = v.catalogue;
  json findings = json::array();
  for (const rules::Finding& f : r.analysis.findings) {
    json fj{{"rule", f.rule->id},
            {"title", f.rule->title},
            {"category", f.rule->category},
            {"severity", f.rule->severity},
            {"role", rules::role_name(f.role)},
            {"summary", base::sanitize_utf8(f.summary)},
            {"node", or_null(f.node)},
            {"rank", or_null(f.rank)},
            {"time", or_null(f.time.text)},
            {"count", f.count}};
    if (!f.summary_en.empty()) fj["summary_en"] = base::sanitize_utf8(f.summary_en);
    if (!f.remedy.empty()) fj["remedy"] = base::sanitize_utf8(f.remedy);
    if (!f.explained_by.empty()) fj["explained_by"] = f.explained_by;
    json ev = json::array();
    for (std::size_t k = 0; k < f.events.size() && (r.full || k < kMaxEvidence); ++k) {
      json e = evidence_json(r.events[f.events[k]]);
      add_context(e, r, f.events[k]);
      ev.push_back(std::move(e));
    }
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
    if (!n.named_by.empty()) nj["named_by"] = n.named_by;  // content, folder or path
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
  j["ranks"] = ranks_json(r);
  json unreadable = json::array();
  for (const auto& p : r.inventory.unreadable) unreadable.push_back({{"path", base::sanitize_utf8(p.path)}, {"reason", p.reason}});
  json skipped = json::array();
  for (const auto& p : r.inventory.skipped) skipped.push_back({{"path", base::sanitize_utf8(p.path)}, {"reason", p.reason}});
  j["inputs"] = {{"files", r.inventory.files},   {"bytes", r.inventory.bytes},   {"lines", r.inventory.lines},
                 {"lines_cut", r.inventory.lines_cut}, {"events", r.events.size()},
                 {"events_not_kept", r.inventory.events_not_kept}, {"events_folded", r.inventory.events_folded},
                 {"events_dropped", r.inventory.events_dropped}, {"unreadable", unreadable},
                 {"skipped", skipped}};
  json problems = json::array();
  for (const auto& p : r.rule_problems) problems.push_back({{"where", p.where}, {"message", p.message}});
  j["rules"] = {{"loaded", r.rules_loaded}, {"problems", problems}};
  j["dtriage"] = r.version;
  std::string out = j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  base::escape_spoofing_controls_in_json(out);
  return out;
}

}  // namespace dtriage::report
