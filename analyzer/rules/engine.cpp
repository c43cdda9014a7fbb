#include "rules/engine.hpp"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <set>
#include <sstream>

#include "formats/pipeline.hpp"

namespace dtriage::rules {

struct Engine::Impl {
  std::unique_ptr<re2::RE2::Set> set;
  std::vector<int> set_to_rule;                     // set index -> rule index
  std::vector<std::unique_ptr<re2::RE2>> regexes;   // per rule (null when none)
  std::vector<int> regexless;                       // event rules matched by code/fields only
};

Engine::~Engine() = default;

base::Result<std::shared_ptr<Engine>> Engine::compile(std::vector<Rule> rules) {
  std::shared_ptr<Engine> eng(new Engine());
  eng->rules_ = std::move(rules);
  eng->impl_ = std::make_unique<Impl>();
  Impl& im = *eng->impl_;
  re2::RE2::Options opt;
  opt.set_log_errors(false);
  im.set = std::make_unique<re2::RE2::Set>(opt, re2::RE2::UNANCHORED);
  im.regexes.resize(eng->rules_.size());
  for (std::size_t i = 0; i < eng->rules_.size(); ++i) {
    const Rule& r = eng->rules_[i];
    if (r.scope != Scope::Event) continue;
    if (r.regex.empty()) {
      im.regexless.push_back(static_cast<int>(i));
      continue;
    }
    std::string err;
    if (im.set->Add(r.regex, &err) < 0) return base::err(r.file + ":" + std::to_string(r.line) + ": " + r.id + ": " + err);
    im.set_to_rule.push_back(static_cast<int>(i));
    im.regexes[i] = std::make_unique<re2::RE2>(r.regex, opt);
  }
  if (!im.set_to_rule.empty() && !im.set->Compile()) return base::err("the rule patterns do not compile together (too large?)");
  return eng;
}

namespace {

std::string subject_of(const model::Event& e) {
  std::string s = e.text;
  if (!e.message.empty() && e.text.find(e.message) == std::string::npos) {
    s += '\n';
    s += e.message;
  }
  for (const std::string& b : e.body) {
    s += '\n';
    s += b;
  }
  return s;
}

std::string value_str(const model::Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    std::ostringstream o;
    o << *d;
    return o.str();
  }
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return std::get<bool>(v) ? "true" : "false";
}

bool fields_match(const Rule& r, const model::Event& e) {
  if (!r.kinds.empty() && std::find(r.kinds.begin(), r.kinds.end(), e.kind) == r.kinds.end()) return false;
  if (!r.codes.empty() && std::find(r.codes.begin(), r.codes.end(), e.code) == r.codes.end()) return false;
  for (const auto& [k, want] : r.fields) {
    std::string have;
    if (k == "level") have = e.level;
    else if (k == "kind") have = e.kind;
    else if (k == "code") have = e.code;
    else if (const model::Value* v = e.get(k)) have = value_str(*v);
    else return false;
    if (!want.empty() && want.front() == '<' && want.size() > 1) {  // "<0": numeric less-than
      auto a = std::strtoll(have.c_str(), nullptr, 10);
      auto b = std::strtoll(want.c_str() + 1, nullptr, 10);
      if (!(a < b)) return false;
    } else if (have != want) {
      return false;
    }
  }
  return true;
}

std::string join_ints(const std::vector<std::int64_t>& v, std::size_t max = 8) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < max; ++i) {
    if (i) s += (i + 1 == v.size() || i + 1 == max) ? " and " : ", ";
    s += std::to_string(v[i]);
  }
  if (v.size() > max) s += " (+" + std::to_string(v.size() - max) + " more)";
  return s;
}

// Numeric and text facts a condition or a template may name.
struct FactView {
  const correlate::Facts& facts;
  const correlate::Node* node;  // for node scope
  const std::map<std::string, std::string>* event = nullptr;  // for event rules

  std::optional<std::string> get(const std::string& path) const {
    if (path.rfind("event.", 0) == 0) {
      if (event == nullptr) return std::nullopt;
      auto it = event->find(path.substr(6));
      if (it == event->end()) return std::nullopt;
      return it->second;
    }
    if (path.rfind("node.", 0) == 0) {
      if (node == nullptr) return std::nullopt;
      const std::string k = path.substr(5);
      if (k == "name") return node->name.empty() ? std::string("this host") : node->name;
      if (k == "chip") return node->chip.empty() ? std::nullopt : std::optional(node->chip);
      if (k == "devices") return node->devices ? std::optional(std::to_string(*node->devices)) : std::nullopt;
      if (k == "nproc_per_node") return node->nproc_per_node ? std::optional(std::to_string(*node->nproc_per_node)) : std::nullopt;
      if (k == "processes") return std::to_string(node->processes());
      if (k == "pids") return std::to_string(node->pids.size());
      if (k == "errors") return std::to_string(node->errors);
      if (k == "unhealthy_devices") return std::to_string(node->unhealthy_devices.size());
      if (k == "shared_devices") {
        std::int64_t n = 0;
        for (const auto& [d, p] : node->device_pids) n += p.size() >= 2 ? 1 : 0;
        return std::to_string(n);
      }
      if (k == "shared_device") {
        if (auto d = node->shared_device()) return std::to_string(*d);
        return std::nullopt;
      }
      if (k == "shared_pids") {
        if (auto d = node->shared_device()) {
          const auto& s = node->device_pids.at(*d);
          return join_ints(std::vector<std::int64_t>(s.begin(), s.end()));
        }
        return std::nullopt;
      }
      if (k == "max_device") {
        if (node->device_pids.empty()) return std::nullopt;
        return std::to_string(node->device_pids.rbegin()->first);
      }
      return std::nullopt;
    }
    if (path.rfind("job.", 0) == 0) {
      const std::string k = path.substr(4);
      const correlate::Job& j = facts.job;
      if (k == "world_size") return j.world_size ? std::optional(std::to_string(*j.world_size)) : std::nullopt;
      if (k == "nodes") {
        std::int64_t n = 0;
        for (const auto& nd : facts.nodes) n += nd.name.empty() ? 0 : 1;
        return std::to_string(n);
      }
      if (k == "expected_nodes") return j.expected_nodes ? std::optional(std::to_string(*j.expected_nodes)) : std::nullopt;
      if (k == "nproc_variants") return std::to_string(j.nproc_values.size());
      if (k == "nproc_values") return join_ints(std::vector<std::int64_t>(j.nproc_values.begin(), j.nproc_values.end()));
      if (k == "timeout_ranks") return std::to_string(j.ranks_with_timeout.size());
      if (k == "missing_timeout_ranks") return std::to_string(facts.ranks_without_timeout().size());
      if (k == "missing_ranks") return join_ints(facts.ranks_without_timeout());
      if (k == "timeout_op") return j.timeout_op.empty() ? std::nullopt : std::optional(j.timeout_op);
      if (k == "timeout_seq") return j.timeout_seq ? std::optional(std::to_string(*j.timeout_seq)) : std::nullopt;
      if (k == "timeout_s") return j.timeout_ms ? std::optional(std::to_string(*j.timeout_ms / 1000)) : std::nullopt;
      if (k == "ranks_known") return std::to_string(facts.ranks.size());
      if (k == "notify_index_variants" || k == "notify_tag_variants") {
        std::set<std::string> vals;
        if (k == "notify_tag_variants")
          for (const auto& [r, t] : j.notify_tag) vals.insert(t);
        else
          for (const auto& [r, ix] : j.notify_index) vals.insert(std::to_string(ix));
        return std::to_string(vals.size());
      }
      if (k == "lagging_rank" || k == "lagging_index" || k == "leading_index") {
        if (j.notify_index.empty()) return std::nullopt;
        std::int64_t lo = INT64_MAX, hi = INT64_MIN, who = -1;
        int at_lo = 0;
        for (const auto& [r, ix] : j.notify_index) {
          if (ix < lo) { lo = ix; who = r; at_lo = 1; }
          else if (ix == lo) ++at_lo;
          hi = std::max(hi, ix);
        }
        if (k == "lagging_index") return std::to_string(lo);
        if (k == "leading_index") return std::to_string(hi);
        if (at_lo != 1) return std::nullopt;
        return std::to_string(who);
      }
      if (k == "version_conflicts" || k == "version_conflict") {
        // The same version key with different values on different nodes.
        std::map<std::string, std::map<std::string, std::vector<std::string>>> seen;  // key -> value -> nodes
        for (const auto& nd : facts.nodes)
          for (const auto& [key, value] : nd.versions) seen[key][value].push_back(nd.name.empty() ? "this host" : nd.name);
        std::size_t conflicts = 0;
        std::string first;
        for (const auto& [key, values] : seen) {
          if (values.size() < 2) continue;
          ++conflicts;
          if (!first.empty()) continue;
          first = key + " differs across nodes:";
          std::size_t shown = 0;
          for (const auto& [value, nodes] : values) {
            if (shown++ == 3) {
              first += ", ...";
              break;
            }
            first += (shown > 1 ? ", " : " ") + value + " on " + nodes.front() +
                     (nodes.size() > 1 ? " (+" + std::to_string(nodes.size() - 1) + ")" : "");
          }
        }
        if (k == "version_conflicts") return std::to_string(conflicts);
        return first.empty() ? std::nullopt : std::optional(first);
      }
      if (k == "wait_chain_end") {
        // Follow "r waits on w" from every waiting rank; where the walks stop (a rank that waits on
        // nobody, or on its own local work) is the rank the others waited for.
        std::map<std::int64_t, int> ends;
        for (const auto& [start, unused] : j.waits_on) {
          std::int64_t cur = start;
          bool looped = true;
          for (int step = 0; step < 64; ++step) {
            auto next = j.waits_on.find(cur);
            if (next == j.waits_on.end()) {
              looped = false;
              break;
            }
            char* end = nullptr;
            const long long w = std::strtoll(next->second.c_str(), &end, 10);
            if (end == next->second.c_str() || *end != '\0') {  // waits on "local" work: it is the end
              looped = false;
              break;
            }
            cur = w;
          }
          if (!looped) ends[cur]++;
        }
        if (ends.empty()) return std::nullopt;
        return std::to_string(std::max_element(ends.begin(), ends.end(), [](const auto& a, const auto& b) {
                                return a.second < b.second;
                              })->first);
      }
      if (k == "wait_cycle" || k == "wait_cycle_ranks") {
        // Follow "rank r waits on rank w" edges; a walk that comes back to a rank is a cycle.
        for (const auto& [start, unused] : j.waits_on) {
          std::vector<std::int64_t> walk;
          std::int64_t cur = start;
          for (int step = 0; step < 64; ++step) {
            auto it = std::find(walk.begin(), walk.end(), cur);
            if (it != walk.end()) {
              if (k == "wait_cycle") return std::string("1");
              return join_ints(std::vector<std::int64_t>(it, walk.end()));
            }
            walk.push_back(cur);
            auto next = j.waits_on.find(cur);
            if (next == j.waits_on.end()) break;
            char* end = nullptr;
            const long long w = std::strtoll(next->second.c_str(), &end, 10);
            if (end == next->second.c_str() || *end != '\0') break;  // "local", "unknown"
            cur = w;
          }
        }
        return k == "wait_cycle" ? std::optional<std::string>("0") : std::nullopt;
      }
      if (k == "odd_tag_rank" || k == "odd_tag" || k == "common_tag") {
        std::map<std::string, std::vector<std::int64_t>> by;
        for (const auto& [r, t] : j.notify_tag) by[t].push_back(r);
        if (by.size() < 2) return std::nullopt;
        std::string odd, common;
        for (const auto& [t, rs] : by) {
          if (rs.size() == 1 && odd.empty()) odd = t;
          if (common.empty() || rs.size() > by[common].size()) common = t;
        }
        if (k == "common_tag") return common;
        if (odd.empty() || odd == common) return std::nullopt;
        if (k == "odd_tag") return odd;
        return std::to_string(by[odd].front());
      }
      return std::nullopt;
    }
    return std::nullopt;
  }
};

bool compare(const std::string& a, const std::string& op, const std::string& b) {
  char* ea = nullptr;
  char* eb = nullptr;
  const double x = std::strtod(a.c_str(), &ea);
  const double y = std::strtod(b.c_str(), &eb);
  const bool numeric = !a.empty() && !b.empty() && *ea == '\0' && *eb == '\0';
  if (numeric) {
    if (op == "<") return x < y;
    if (op == "<=") return x <= y;
    if (op == ">") return x > y;
    if (op == ">=") return x >= y;
    if (op == "==") return x == y;
    if (op == "!=") return x != y;
  }
  if (op == "==") return a == b;
  if (op == "!=") return a != b;
  return false;
}

bool holds(const Condition& c, const FactView& fv) {
  auto side = [&](const std::string& s) -> std::optional<std::string> {
    if (s.rfind("node.", 0) == 0 || s.rfind("job.", 0) == 0 || s.rfind("event.", 0) == 0) return fv.get(s);
    return s;
  };
  const auto a = side(c.lhs);
  if (c.op == "missing") return !a.has_value();
  if (c.op == "exists") return a.has_value();
  const auto b = side(c.rhs);
  if (!a || !b) return false;  // an unknown fact never satisfies a condition
  return compare(*a, c.op, *b);
}

// Fills {name} placeholders: captures, event fields, facts.
std::string fill(const std::string& tmpl, const std::map<std::string, std::string>& vars, const FactView& fv) {
  std::string out;
  for (std::size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] == '{') {
      const std::size_t close = tmpl.find('}', i);
      if (close != std::string::npos) {
        const std::string name = tmpl.substr(i + 1, close - i - 1);
        std::optional<std::string> v;
        if (auto it = vars.find(name); it != vars.end()) v = it->second;
        else v = fv.get(name);
        out += v ? *v : "?";
        i = close;
        continue;
      }
    }
    out.push_back(tmpl[i]);
  }
  return out;
}

std::map<std::string, std::string> event_vars(const model::Event& e) {
  std::map<std::string, std::string> v;
  v["kind"] = e.kind;
  v["code"] = e.code;
  v["level"] = e.level;
  v["time"] = e.time;
  v["node"] = e.node.empty() ? "this host" : e.node;
  v["message"] = e.message;
  v["path"] = e.path;
  v["line"] = std::to_string(e.line);
  if (e.pid) v["pid"] = std::to_string(*e.pid);
  if (e.rank) v["rank"] = std::to_string(*e.rank);
  if (e.local_rank) v["local_rank"] = std::to_string(*e.local_rank);
  if (e.device) v["device"] = std::to_string(*e.device);
  for (const auto& [k, val] : e.fields) v[k] = value_str(val);
  return v;
}

}  // namespace

std::vector<int> Engine::match(const model::Event& e) const {
  std::vector<int> out;
  const Impl& im = *impl_;
  if (!im.set_to_rule.empty()) {
    const std::string subject = subject_of(e);
    std::vector<int> hits;
    if (im.set->Match(subject, &hits)) {
      for (int h : hits) {
        const int ri = im.set_to_rule[static_cast<std::size_t>(h)];
        if (fields_match(rules_[static_cast<std::size_t>(ri)], e)) out.push_back(ri);
      }
    }
  }
  for (int ri : im.regexless)
    if (fields_match(rules_[static_cast<std::size_t>(ri)], e)) out.push_back(ri);
  std::sort(out.begin(), out.end());
  return out;
}

Analysis Engine::analyze(const std::vector<model::Event>& events, const correlate::Facts& facts) const {
  Analysis a;
  const FactView job_view{facts, nullptr};
  // ---- event rules: one pass over the events, grouped per (rule, node)
  std::map<std::pair<int, std::string>, std::vector<correlate::EventIndex>> groups;
  for (correlate::EventIndex i = 0; i < events.size(); ++i)
    for (int ri : match(events[i])) groups[{ri, events[i].node}].push_back(i);
  for (auto& [key, idx] : groups) {
    const Rule& r = rules_[static_cast<std::size_t>(key.first)];
    std::sort(idx.begin(), idx.end(), [&](auto x, auto y) { return model::earlier(events[x], events[y]); });
    const correlate::Node* node = facts.node(key.second);
    // Conditions on event rules name the event's fields (event.x) or its node's facts; the
    // finding keeps the events that satisfy them.
    if (!r.when.empty()) {
      std::vector<correlate::EventIndex> kept;
      for (auto i : idx) {
        const auto ev = event_vars(events[i]);
        const FactView efv{facts, node, &ev};
        bool ok = true;
        for (const Condition& c : r.when) ok = ok && holds(c, efv);
        if (ok) kept.push_back(i);
      }
      if (kept.empty()) continue;
      idx = kept;
    }
    const model::Event& rep = events[idx.front()];
    const FactView fv{facts, node};
    auto vars = event_vars(rep);
    if (impl_->regexes[static_cast<std::size_t>(key.first)]) {
      const re2::RE2& re = *impl_->regexes[static_cast<std::size_t>(key.first)];
      const std::string subject = subject_of(rep);
      std::vector<re2::StringPiece> sub(static_cast<std::size_t>(re.NumberOfCapturingGroups() + 1));
      if (re.Match(subject, 0, subject.size(), re2::RE2::UNANCHORED, sub.data(), static_cast<int>(sub.size()))) {
        for (const auto& [name, gi] : re.NamedCapturingGroups())
          if (!sub[static_cast<std::size_t>(gi)].empty()) vars[name] = std::string(sub[static_cast<std::size_t>(gi)]);
      }
    }
    std::set<std::string> nodes_seen;
    for (auto i : idx) nodes_seen.insert(events[i].node);
    vars["count"] = std::to_string(idx.size());
    Finding f;
    f.rule = &r;
    f.node = key.second;
    f.rank = rep.rank;
    if (r.rank_field.rfind("job.", 0) == 0) {  // the rank the job's facts point at
      f.rank.reset();
      if (auto v = fv.get(r.rank_field)) {
        f.rank = std::strtoll(v->c_str(), nullptr, 10);
        if (auto it = facts.ranks.find(*f.rank); it != facts.ranks.end() && !it->second.node.empty()) f.node = it->second.node;
      }
    } else if (!r.rank_field.empty()) {
      f.rank.reset();
      if (auto it = vars.find(r.rank_field); it != vars.end()) {
        char* end = nullptr;
        const long long v = std::strtoll(it->second.c_str(), &end, 10);
        if (end != it->second.c_str() && *end == '\0') f.rank = v;
      }
    }
    f.time = rep.time;
    f.count = idx.size();
    f.events = idx;
    f.summary = fill(r.summary, vars, fv);
    f.remedy = fill(r.remedy, vars, fv);
    a.findings.push_back(std::move(f));
  }
  // ---- node and job rules
  auto requires_ok = [&](const Rule& r, const std::string* node) {
    for (const std::string& need : r.requires_rules) {
      bool found = false;
      for (const Finding& f : a.findings)
        if (f.rule->id == need && (node == nullptr || f.node == *node)) found = true;
      if (!found) return false;
    }
    return true;
  };
  for (const Rule& r : rules_) {
    if (r.scope == Scope::Node) {
      for (const correlate::Node& n : facts.nodes) {
        const FactView fv{facts, &n};
        bool ok = requires_ok(r, &n.name);
        for (const Condition& c : r.when) ok = ok && holds(c, fv);
        if (!ok) continue;
        Finding f;
        f.rule = &r;
        f.node = n.name;
        std::vector<correlate::EventIndex> ev;
        ev.insert(ev.end(), n.nproc_evidence.begin(), n.nproc_evidence.end());
        ev.insert(ev.end(), n.device_evidence.begin(), n.device_evidence.end());
        if (auto d = n.shared_device()) {
          for (auto pid : n.device_pids.at(*d))
            if (auto it = n.device_pid_evidence_first.find(pid); it != n.device_pid_evidence_first.end()) ev.push_back(it->second);
        }
        for (const Finding& other : a.findings)  // the required findings' first evidence
          if (std::find(r.requires_rules.begin(), r.requires_rules.end(), other.rule->id) != r.requires_rules.end() &&
              other.node == n.name && !other.events.empty())
            ev.push_back(other.events.front());
        std::sort(ev.begin(), ev.end());
        ev.erase(std::unique(ev.begin(), ev.end()), ev.end());
        f.events = ev;
        f.count = ev.size();
        for (auto i : ev)
          if (!events[i].time.empty() && (f.time.empty() || events[i].time < f.time)) f.time = events[i].time;
        std::map<std::string, std::string> vars;
        f.summary = fill(r.summary, vars, fv);
        f.remedy = fill(r.remedy, vars, fv);
        a.findings.push_back(std::move(f));
      }
    } else if (r.scope == Scope::Job) {
      bool ok = requires_ok(r, nullptr);
      for (const Condition& c : r.when) ok = ok && holds(c, job_view);
      if (!ok) continue;
      Finding f;
      f.rule = &r;
      std::vector<correlate::EventIndex> ev(facts.job.timeout_evidence.begin(), facts.job.timeout_evidence.end());
      ev.insert(ev.end(), facts.job.notify_evidence.begin(), facts.job.notify_evidence.end());
      const auto missing = facts.ranks_without_timeout();
      if (!r.rank_field.empty()) {
        if (auto v = job_view.get(r.rank_field)) {
          f.rank = std::strtoll(v->c_str(), nullptr, 10);
          if (auto it = facts.ranks.find(*f.rank); it != facts.ranks.end()) f.node = it->second.node;
        }
      } else if (missing.size() == 1) {
        f.rank = missing.front();
        if (auto it = facts.ranks.find(missing.front()); it != facts.ranks.end()) {
          f.node = it->second.node;
          if (it->second.first_error) ev.insert(ev.begin(), *it->second.first_error);
        }
      }
      ev.insert(ev.end(), facts.job.world_size_evidence.begin(), facts.job.world_size_evidence.end());
      std::sort(ev.begin(), ev.end(), [&](auto x, auto y) { return model::earlier(events[x], events[y]); });
      ev.erase(std::unique(ev.begin(), ev.end()), ev.end());
      f.events = ev;
      f.count = ev.size();
      if (!ev.empty()) f.time = events[ev.front()].time;
      std::map<std::string, std::string> vars;
      f.summary = fill(r.summary, vars, job_view);
      f.remedy = fill(r.remedy, vars, job_view);
      a.findings.push_back(std::move(f));
    }
  }

  // ---- explanations and the root cause
  const std::size_t n = a.findings.size();
  auto same_scope = [&](const Finding& x, const Finding& y) {
    return x.node == y.node || x.node.empty() || y.node.empty() || x.rule->scope == Scope::Job;
  };
  auto better = [&](const Finding& x, const Finding& y) {  // is x a better root than y?
    const bool xc = x.rule->role == Role::Cause, yc = y.rule->role == Role::Cause;
    if (xc != yc) return xc;
    if (x.rule->severity_rank() != y.rule->severity_rank()) return x.rule->severity_rank() > y.rule->severity_rank();
    if (x.rule->priority != y.rule->priority) return x.rule->priority > y.rule->priority;
    if (x.time.empty() != y.time.empty()) return !x.time.empty();
    if (x.time != y.time) return x.time < y.time;
    return x.rule->id < y.rule->id;
  };
  // x explains y, unless y also explains x and is the better root (mutual edges: the better wins).
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      Finding& x = a.findings[i];
      Finding& y = a.findings[j];
      if (!y.explained_by.empty() || !x.rule->explains_rule(y.rule->id) || !same_scope(x, y)) continue;
      if (y.rule->explains_rule(x.rule->id) && better(y, x)) continue;
      y.explained_by = x.rule->id;
    }
  }
  // A chain of explanations must end at an unexplained finding; one that loops (a -> b -> c -> a)
  // explains nothing, and its members stay root candidates.
  auto chain_ends = [&](std::size_t i) {
    std::string by = a.findings[i].explained_by;
    for (int depth = 0; depth < 32 && !by.empty(); ++depth) {
      std::string next;
      bool found = false;
      for (const Finding& f : a.findings)
        if (f.rule->id == by) {
          next = f.explained_by;
          found = true;
          break;
        }
      if (!found || next.empty()) return true;
      by = next;
    }
    return by.empty();
  };
  int root = -1;
  for (std::size_t i = 0; i < n; ++i) {
    const Finding& f = a.findings[i];
    if ((!f.explained_by.empty() && chain_ends(i)) || f.rule->severity_rank() < 2 || f.rule->role == Role::Warning) continue;
    if (root < 0 || better(f, a.findings[static_cast<std::size_t>(root)])) root = static_cast<int>(i);
  }
  if (root >= 0) a.findings[static_cast<std::size_t>(root)].explained_by.clear();
  // Roles.
  std::function<bool(std::size_t, int)> explained_by_root = [&](std::size_t i, int depth) -> bool {
    if (root < 0 || depth > 16) return false;
    const std::string& by = a.findings[i].explained_by;
    if (by.empty()) return false;
    if (by == a.findings[static_cast<std::size_t>(root)].rule->id) return true;
    for (std::size_t k = 0; k < n; ++k)
      if (a.findings[k].rule->id == by && explained_by_root(k, depth + 1)) return true;
    return false;
  };
  for (std::size_t i = 0; i < n; ++i) {
    Finding& f = a.findings[i];
    const bool same_as_root = root >= 0 && f.explained_by.empty() &&
                              f.rule == a.findings[static_cast<std::size_t>(root)].rule;
    if (static_cast<int>(i) == root || same_as_root) f.role = "root-cause";
    else if (f.rule->role == Role::Warning || f.rule->severity_rank() < 2) f.role = "warning";
    else if (explained_by_root(i, 0)) f.role = "consequence";
    else if (root >= 0 && f.rule->role == Role::Symptom &&
             a.findings[static_cast<std::size_t>(root)].rule->role == Role::Cause) {
      f.role = "consequence";
      if (f.explained_by.empty()) f.explained_by = a.findings[static_cast<std::size_t>(root)].rule->id;
    } else {
      f.role = "related";
    }
  }
  // Order: root first, then consequences, related, warnings; each by time.
  auto rank_of = [](const std::string& role) {
    return role == "root-cause" ? 0 : role == "consequence" ? 1 : role == "related" ? 2 : 3;
  };
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const Finding& fx = a.findings[x];
    const Finding& fy = a.findings[y];
    if (rank_of(fx.role) != rank_of(fy.role)) return rank_of(fx.role) < rank_of(fy.role);
    if (fx.time.empty() != fy.time.empty()) return !fx.time.empty();
    if (fx.time != fy.time) return fx.time < fy.time;
    if (fx.rule->id != fy.rule->id) return fx.rule->id < fy.rule->id;
    return fx.node < fy.node;
  });
  std::vector<Finding> sorted;
  for (std::size_t i : order) sorted.push_back(std::move(a.findings[i]));
  a.findings = std::move(sorted);

  Verdict& v = a.verdict;
  if (!a.findings.empty() && a.findings.front().role == "root-cause") {
    const Finding& f = a.findings.front();
    v.status = "failed";
    v.category = f.rule->category;
    v.summary = f.summary;
    std::vector<std::string> also;
    for (std::size_t i = 1; i < a.findings.size(); ++i)
      if (a.findings[i].role == "root-cause" && !a.findings[i].node.empty() && a.findings[i].node != f.node)
        also.push_back(a.findings[i].node);
    if (!also.empty()) {
      v.summary += " (the same on " + (also.size() <= 3 ? std::string() : std::to_string(also.size()) + " nodes: ");
      for (std::size_t k = 0; k < also.size() && k < 3; ++k) v.summary += (k ? ", " : "") + also[k];
      if (also.size() > 3) v.summary += ", ...";
      v.summary += ")";
    }
    v.remedy = f.remedy;
    v.node = f.node;
    v.rank = f.rank;
    v.rule = f.rule->id;
    v.root = 0;
  } else if (facts.job.first_error) {
    const model::Event& e = events[*facts.job.first_error];
    v.status = "failed";
    v.category = "unknown";
    v.summary = "No rule names the cause; the earliest error is " + e.path + ":" + std::to_string(e.line) +
                (e.node.empty() ? "" : " on " + e.node) + ": " + (e.message.empty() ? e.text : e.message);
    v.node = e.node;
    v.rank = e.rank;
    v.lead = facts.job.first_error;
  } else if (events.empty()) {
    v.status = "inconclusive";
    v.summary = "No log line in the input was recognised.";
  } else {
    v.status = "healthy";
    v.summary = "No failure found in " + std::to_string(events.size()) + " events.";
  }
  return a;
}

std::vector<std::string> check_examples(const Engine& engine) {
  std::vector<std::string> problems;
  for (std::size_t ri = 0; ri < engine.rules().size(); ++ri) {
    const Rule& r = engine.rules()[ri];
    if (r.scope != Scope::Event) continue;
    auto matches = [&](const std::string& example) {
      ingest::Source src{"example.log", ""};
      bool hit = false;
      ingest::MemoryReader mem(example);
      formats::parse_stream(mem, src, formats::ParseOptions{true, false}, lines::LineReader::kDefaultMaxLine,
                            [&](model::Event&& e) {
                              const auto m = engine.match(e);
                              if (std::find(m.begin(), m.end(), static_cast<int>(ri)) == m.end()) return;
                              // Conditions on the event itself apply; node and job facts do not exist for one line.
                              const auto vars = event_vars(e);
                              const correlate::Facts none;
                              const FactView fv{none, nullptr, &vars};
                              for (const Condition& c : r.when)
                                if (c.lhs.rfind("event.", 0) == 0 && !holds(c, fv)) return;
                              hit = true;
                            });
      return hit;
    };
    for (const std::string& ex : r.examples_match)
      if (!matches(ex)) problems.push_back(r.file + ":" + std::to_string(r.line) + ": " + r.id + ": should match: " + ex);
    for (const std::string& ex : r.examples_no_match)
      if (matches(ex)) problems.push_back(r.file + ":" + std::to_string(r.line) + ": " + r.id + ": should not match: " + ex);
  }
  return problems;
}

}  // namespace dtriage::rules
