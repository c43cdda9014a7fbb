#include "rules/engine.hpp"

#include <re2/re2.h>
#include <re2/filtered_re2.h>
#include <re2/set.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <set>

#include "base/sentences.hpp"
#include "formats/util.hpp"
#include "rules/catalogue.hpp"


namespace dtriage::rules {

struct Engine::Impl {
  std::unique_ptr<re2::RE2::Set> set;
  std::vector<int> set_to_rule;                     // set index -> rule index
  std::vector<std::unique_ptr<re2::RE2>> regexes;   // per rule (null when none)
  std::vector<int> regexless;                       // event rules matched by code/fields only
  std::vector<std::unique_ptr<re2::RE2>> unless;    // per rule: events whose text matches are not matched
  // Per rule: the conditions of its `when` that name only the event's own parsed fields (and
  // literals). The event alone decides them, so match() asks them: an event that fails one can give
  // the rule no finding (event_findings keeps only events that satisfy every condition), and an
  // informational row a rule would keep for nothing (every snapshot's `Health OK` row, for a rule on
  // unhealthy devices) stays a quiet row. Fields correlation may still fill (node, rank, device,
  // pid) are left to event_findings.
  std::vector<std::vector<const Condition*>> own_when;
};

Engine::~Engine() = default;

const char* role_name(FindingRole r) {
  switch (r) {
    case FindingRole::RootCause: return "root-cause";
    case FindingRole::Consequence: return "consequence";
    case FindingRole::Related: return "related";
    case FindingRole::Warning: return "warning";
  }
  return "related";
}

const char* status_name(Status s) {
  switch (s) {
    case Status::Failed: return "failed";
    case Status::Healthy: return "healthy";
    case Status::Inconclusive: return "inconclusive";
  }
  return "inconclusive";
}

namespace {

// A condition the event alone decides: each side an event field or a literal, at least one an
// event field, and none a field correlation may still fill in or change.
bool decided_by_event(const Condition& c) {
  auto side = [](const std::string& s, bool& names_event) {
    if (s.rfind("node.", 0) == 0 || s.rfind("job.", 0) == 0) return false;
    if (s.rfind("event.", 0) != 0) return true;
    static constexpr std::string_view kLater[] = {"node", "rank", "local_rank", "device", "pid", "time"};
    const std::string_view field = std::string_view(s).substr(6);
    names_event = true;
    return std::find(std::begin(kLater), std::end(kLater), field) == std::end(kLater);
  };
  bool names_event = false;
  return side(c.lhs, names_event) && (c.pattern != nullptr || side(c.rhs, names_event)) && names_event;
}

// How much an atom is worth keeping in a rule's cover: longer, and more letters, is rarer in log
// text (" in ", "137", "): 95" sit in every other line of INFO traffic).
int atom_worth(const std::string& a) {
  int w = 0;
  for (char c : a) w += (c >= 'a' && c <= 'z') ? 2 : 1;
  return w;
}

// A few of `atoms` of which every match of the rule's regex holds at least one. RE2's prefilter
// for the regex (AND / OR of atoms, asked through `alone.AllPotentials`) is true for a set of atoms
// present when the regex may match; starting from all atoms, the least worth are dropped one at a
// time while the regex still cannot match without the rest. The cover is an OR: any of its atoms
// in a line sends the line to the parsers, a superset of the tree's answer. Empty when the regex
// may match with no atom at all.
std::vector<std::string> necessary_atoms(re2::FilteredRE2& alone, const std::vector<std::string>& atoms) {
  auto may_match_with = [&](const std::vector<int>& present) {
    std::vector<int> potential;
    alone.AllPotentials(present, &potential);
    return !potential.empty();
  };
  if (may_match_with({})) return {};
  std::vector<int> order(atoms.size());
  for (std::size_t i = 0; i < atoms.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return atom_worth(atoms[static_cast<std::size_t>(a)]) < atom_worth(atoms[static_cast<std::size_t>(b)]);
  });
  std::vector<bool> kept(atoms.size(), true);
  for (int drop : order) {
    kept[static_cast<std::size_t>(drop)] = false;
    std::vector<int> outside;  // every atom not in the cover: present in some line
    for (std::size_t i = 0; i < atoms.size(); ++i)
      if (!kept[i]) outside.push_back(static_cast<int>(i));
    if (may_match_with(outside)) kept[static_cast<std::size_t>(drop)] = true;  // still needed
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < atoms.size(); ++i)
    if (kept[i]) out.push_back(atoms[i]);
  return out;
}

// The literals each event rule needs (see Engine::literals): RE2's own literal extraction, one
// rule at a time, cut to a cover each match holds one of (necessary_atoms); a rule without any
// leaves its kinds open.
Engine::Literals required_literals(const std::vector<Rule>& rules) {
  Engine::Literals out;
  std::set<std::string> open, atoms;
  re2::RE2::Options opt;
  opt.set_log_errors(false);
  for (const Rule& r : rules) {
    if (r.scope != Scope::Event) continue;
    std::vector<std::string> mine;
    if (!r.regex.empty()) {
      re2::FilteredRE2 alone(3);
      int id = 0;
      if (alone.Add(r.regex, opt, &id) == re2::RE2::NoError) {
        std::vector<std::string> all;
        alone.Compile(&all);
        if (!all.empty()) mine = necessary_atoms(alone, all);
      }
    } else if (!r.codes.empty()) {
      continue;  // codes come from parsers, which see every line their literals mark
    }
    if (mine.empty()) {
      if (r.kinds.empty()) open.insert("*");
      for (model::Kind k : r.kinds) open.insert(std::string(model::kind_name(k)));
      continue;
    }
    atoms.insert(mine.begin(), mine.end());
  }
  out.atoms.assign(atoms.begin(), atoms.end());
  out.open_kinds.assign(open.begin(), open.end());
  return out;
}

}  // namespace

base::Result<std::shared_ptr<Engine>> Engine::compile(std::vector<Rule> rules, std::vector<std::pair<std::string, std::string>>* skipped) {
  std::shared_ptr<Engine> eng(new Engine());
  eng->rules_ = std::move(rules);
  eng->impl_ = std::make_unique<Impl>();
  Impl& im = *eng->impl_;
  re2::RE2::Options opt;
  opt.set_log_errors(false);
  im.set = std::make_unique<re2::RE2::Set>(opt, re2::RE2::UNANCHORED);
  im.regexes.resize(eng->rules_.size());
  im.unless.resize(eng->rules_.size());
  im.own_when.resize(eng->rules_.size());
  for (std::size_t i = 0; i < eng->rules_.size(); ++i) {
    const Rule& r = eng->rules_[i];
    if (r.scope != Scope::Event) continue;
    if (!r.unless.empty()) im.unless[i] = std::make_unique<re2::RE2>(r.unless, opt);
    for (const Condition& c : r.when)
      if (decided_by_event(c)) im.own_when[i].push_back(&c);
    if (r.regex.empty()) {
      im.regexless.push_back(static_cast<int>(i));
      continue;
    }
    std::string err;
    auto alone = std::make_unique<re2::RE2>(r.regex, opt);
    if (!alone->ok() || im.set->Add(r.regex, &err) < 0) {
      // One broken rule is reported and left out, like any other broken rule; the rest run.
      if (skipped) skipped->emplace_back(r.file + ":" + std::to_string(r.line), r.id + ": regex left out: " + (err.empty() ? alone->error() : err));
      continue;
    }
    im.set_to_rule.push_back(static_cast<int>(i));
    im.regexes[i] = std::move(alone);
  }
  if (!im.set_to_rule.empty() && !im.set->Compile()) {
    // The patterns do not compile together (the combined program is too large): add them again one
    // at a time, leaving out (and reporting) each one that breaks the set.
    std::vector<int> keep;
    for (int rule : im.set_to_rule) {
      re2::RE2::Set trial(opt, re2::RE2::UNANCHORED);
      for (int k : keep) trial.Add(eng->rules_[static_cast<std::size_t>(k)].regex, nullptr);
      trial.Add(eng->rules_[static_cast<std::size_t>(rule)].regex, nullptr);
      if (trial.Compile()) {
        keep.push_back(rule);
      } else {
        const Rule& r = eng->rules_[static_cast<std::size_t>(rule)];
        if (skipped) skipped->emplace_back(r.file + ":" + std::to_string(r.line), r.id + ": regex left out: it does not compile together with the other rules' (too large)");
        im.regexes[static_cast<std::size_t>(rule)].reset();
      }
    }
    im.set = std::make_unique<re2::RE2::Set>(opt, re2::RE2::UNANCHORED);
    for (int k : keep) im.set->Add(eng->rules_[static_cast<std::size_t>(k)].regex, nullptr);
    im.set_to_rule = keep;
    if (!im.set_to_rule.empty() && !im.set->Compile()) return base::err("the rule patterns do not compile together");
  }
  eng->literals_ = required_literals(eng->rules_);
  return eng;
}

namespace {

// A rule whose finding is a failure (not a warning, severity error or worse).
bool failure_rule(const Rule& r) { return r.role != Role::Warning && r.severity_rank() >= 2; }

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

bool fields_match(const Rule& r, const model::Event& e) {
  if (!r.kinds.empty() && std::find(r.kinds.begin(), r.kinds.end(), e.kind) == r.kinds.end()) return false;
  if (!r.codes.empty() && std::find(r.codes.begin(), r.codes.end(), e.code) == r.codes.end()) return false;
  for (const auto& [k, want] : r.fields) {
    std::string have;
    if (k == "level") have = model::level_name(e.level);
    else if (k == "kind") have = model::kind_name(e.kind);
    else if (k == "code") have = e.code;
    else if (const model::Value* v = e.get(k)) have = model::value_text(*v);
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

// The node a rank ran on: where its lines were, else the node whose launch range holds it.
std::string node_of_rank(const correlate::Facts& facts, std::int64_t rank) {
  if (auto it = facts.ranks.find(rank); it != facts.ranks.end() && !it->second.node.empty()) return it->second.node;
  for (const correlate::Node& n : facts.nodes)
    if (n.holds_rank(rank)) return n.name;
  return "";
}

// Numeric and text facts a condition or a template may name: event.x (the event's fields), node.x
// and job.x (derived once in correlate/, with their evidence).
struct FactView {
  const correlate::Facts& facts;
  const correlate::Node* node;  // for node scope
  const std::map<std::string, std::string>* event = nullptr;  // for event rules

  // A value a condition compares: its words, and its number when it is one (a fact typed as a
  // number; an event field or a literal that reads whole as one).
  struct Operand {
    std::string text;
    std::optional<double> number;
  };
  static Operand literal(std::string text) {
    char* end = nullptr;
    const double x = std::strtod(text.c_str(), &end);
    const bool whole = !text.empty() && *end == '\0';
    return {std::move(text), whole ? std::optional<double>(x) : std::nullopt};
  }
  std::optional<Operand> operand(const std::string& path) const {
    if (path.rfind("event.", 0) == 0) {
      if (event == nullptr) return std::nullopt;
      auto it = event->find(path.substr(6));
      if (it == event->end()) return std::nullopt;
      return literal(it->second);
    }
    if (const correlate::Fact* f = facts.get(node, path)) {
      if (auto n = f->number()) return Operand{f->text(), static_cast<double>(*n)};
      return literal(f->text());
    }
    return std::nullopt;
  }
  std::optional<std::string> get(const std::string& path) const {
    if (auto o = operand(path)) return std::move(o->text);
    return std::nullopt;
  }
};

bool compare(const FactView::Operand& a, const std::string& op, const FactView::Operand& b) {
  if (a.number && b.number) {
    const double x = *a.number, y = *b.number;
    if (op == "<") return x < y;
    if (op == "<=") return x <= y;
    if (op == ">") return x > y;
    if (op == ">=") return x >= y;
    if (op == "==") return x == y;
    if (op == "!=") return x != y;
  }
  if (op == "==") return a.text == b.text;
  if (op == "!=") return a.text != b.text;
  return false;
}

bool holds(const Condition& c, const FactView& fv) {
  if (c.pattern) {
    const auto a = fv.get(c.lhs);
    const bool m = a && re2::RE2::PartialMatch(*a, *c.pattern);
    return c.op == "matches" ? m : !m;
  }
  auto side = [&](const std::string& s) -> std::optional<FactView::Operand> {
    if (s.rfind("node.", 0) == 0 || s.rfind("job.", 0) == 0 || s.rfind("event.", 0) == 0) return fv.operand(s);
    return FactView::literal(s);
  };
  const auto a = side(c.lhs);
  if (c.op == "missing") return !a.has_value();
  if (c.op == "exists") return a.has_value();
  const auto b = side(c.rhs);
  if (!a || !b) return false;  // an unknown fact never satisfies a condition
  return compare(*a, c.op, *b);
}

// Fills {name} placeholders: captures, event fields, facts. A segment in [[ ]] is kept only when
// every placeholder in it is known ("port in use[[ on {node}]]"), so a summary states what is known
// and leaves out what is not. `unknown` counts placeholders outside such segments with no value.
std::string fill(const std::string& tmpl, const std::map<std::string, std::string>& vars, const FactView& fv,
                 int* unknown = nullptr) {
  std::string out;
  int missing = 0;
  for (std::size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl.compare(i, 2, "[[") == 0) {
      const std::size_t close = tmpl.find("]]", i + 2);
      if (close != std::string::npos) {
        int inner_missing = 0;
        const std::string inner = fill(tmpl.substr(i + 2, close - i - 2), vars, fv, &inner_missing);
        if (inner_missing == 0) out += inner;
        i = close + 1;
        continue;
      }
    }
    if (tmpl[i] == '{') {
      const std::size_t close = tmpl.find('}', i);
      if (close != std::string::npos) {
        const std::string name = tmpl.substr(i + 1, close - i - 1);
        std::optional<std::string> v;
        if (auto it = vars.find(name); it != vars.end()) v = it->second;
        else v = fv.get(name);
        if (v && v->empty()) v.reset();
        if (!v) ++missing;
        out += v ? *v : "?";  // outside [[ ]]: lint asks for a name that is always known there
        i = close;
        continue;
      }
    }
    out.push_back(tmpl[i]);
  }
  if (unknown != nullptr) *unknown += missing;
  return out;
}

std::map<std::string, std::string> event_vars(const model::Event& e) {
  std::map<std::string, std::string> v;
  v["kind"] = model::kind_name(e.kind);
  v["code"] = e.code;
  v["level"] = model::level_name(e.level);
  v["time"] = e.time.text;
  if (!e.node.empty()) v["node"] = e.node;
  v["message"] = e.message;
  v["path"] = e.path;
  v["line"] = std::to_string(e.line);
  if (e.pid) v["pid"] = std::to_string(*e.pid);
  if (e.rank) v["rank"] = std::to_string(*e.rank);
  if (e.local_rank) v["local_rank"] = std::to_string(*e.local_rank);
  if (e.device) v["device"] = std::to_string(*e.device);
  for (const auto& [k, val] : e.fields) v[k] = model::value_text(val);
  return v;
}

}  // namespace

std::vector<int> Engine::match(const model::Event& e) const {
  std::vector<int> out;
  const Impl& im = *impl_;
  std::optional<std::map<std::string, std::string>> vars;  // the event's fields, made once if a rule asks
  if (!im.set_to_rule.empty()) {
    const std::string subject = subject_of(e);
    std::vector<int> hits;
    if (im.set->Match(subject, &hits)) {
      for (int h : hits) {
        const int ri = im.set_to_rule[static_cast<std::size_t>(h)];
        if (fields_match(rules_[static_cast<std::size_t>(ri)], e) && !excluded(ri, subject) && own_when_holds(ri, e, vars)) out.push_back(ri);
      }
    }
  }
  regexless_matches(e, vars, out);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> Engine::match_fields(const model::Event& e) const {
  std::vector<int> out;
  std::optional<std::map<std::string, std::string>> vars;
  regexless_matches(e, vars, out);
  std::sort(out.begin(), out.end());
  return out;
}

void Engine::regexless_matches(const model::Event& e, std::optional<std::map<std::string, std::string>>& vars,
                               std::vector<int>& out) const {
  const Impl& im = *impl_;
  for (int ri : im.regexless)
    if (fields_match(rules_[static_cast<std::size_t>(ri)], e) && (!im.unless[static_cast<std::size_t>(ri)] || !excluded(ri, subject_of(e))) &&
        own_when_holds(ri, e, vars))
      out.push_back(ri);
}

bool Engine::own_when_holds(int rule, const model::Event& e, std::optional<std::map<std::string, std::string>>& vars) const {
  const auto& when = impl_->own_when[static_cast<std::size_t>(rule)];
  if (when.empty()) return true;
  static const correlate::Facts kNoFacts;  // the conditions asked here read the event alone
  if (!vars) vars = event_vars(e);
  const FactView fv{kNoFacts, nullptr, &*vars};
  return std::all_of(when.begin(), when.end(), [&](const Condition* c) { return holds(*c, fv); });
}

bool Engine::excluded(int rule, const std::string& subject) const {
  const auto& re = impl_->unless[static_cast<std::size_t>(rule)];
  return re && re2::RE2::PartialMatch(subject, *re);
}

std::vector<std::uint8_t> Engine::reports(const Hits& hits) const {
  std::vector<std::uint8_t> out(hits.size(), 0);
  for (std::size_t i = 0; i < hits.size(); ++i)
    for (int ri : hits[i]) {
      const std::string& what = rules_[static_cast<std::size_t>(ri)].reports;
      if (what == "timeout") out[i] |= correlate::kReportsTimeout;
      else if (what == "peer-loss") out[i] |= correlate::kReportsPeerLoss;
    }
  return out;
}

namespace {
std::optional<std::int64_t> culprit_rank(const correlate::Facts& facts);
}  // namespace

// Event rules: one pass over the events, grouped per (rule, node).
void Engine::event_findings(const std::vector<model::Event>& events, const Hits& hits, const correlate::Facts& facts,
                            Analysis& a) const {
  // By rule and node; an error rule's lines of a restart attempt a later one replaced apart from the
  // rest: the run went on after them (the last attempt decides).
  // (0: the deciding attempt's, 1: a replaced attempt's, 2: a last attempt cut short's: Facts::cut_short)
  std::map<std::tuple<int, std::string, int>, std::vector<correlate::EventIndex>> groups;
  const std::optional<std::int64_t> culprit = culprit_rank(facts);
  for (correlate::EventIndex i = 0; i < events.size() && i < hits.size(); ++i)
    for (int ri : hits[i]) {
      const Rule& r = rules_[static_cast<std::size_t>(ri)];
      const bool error_rule = failure_rule(r);
      const int attempt = !error_rule || !facts.is_replaced(i) ? 0 : facts.is_cut_short(i) ? 2 : 1;
      groups[{ri, events[i].node, attempt}].push_back(i);
    }
  for (auto& [key3, idx] : groups) {
    const std::pair<int, std::string> key{std::get<0>(key3), std::get<1>(key3)};
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
    // The line the summary is filled from: the earliest, or the line of the rank that failed on
    // its own when the group holds one (a failure table lists the victims' rows first).
    const model::Event* chosen = &events[idx.front()];
    if (culprit)
      for (auto i : idx)
        if (events[i].rank == culprit) {
          chosen = &events[i];
          break;
        }
    const model::Event& rep = *chosen;
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
      // The capture that names the rank (`rank:`), when the summary's line lacks it: from the
      // earliest line of the group that has it (a launcher's "worker exited" line, then its
      // "timed out nodes are ['3']").
      if (const auto gi = re.NamedCapturingGroups().find(r.rank_field);
          !r.rank_field.empty() && gi != re.NamedCapturingGroups().end() && vars.count(r.rank_field) == 0)
        for (auto i : idx) {
          const std::string s = subject_of(events[i]);
          if (re.Match(s, 0, s.size(), re2::RE2::UNANCHORED, sub.data(), static_cast<int>(sub.size())) &&
              !sub[static_cast<std::size_t>(gi->second)].empty()) {
            vars[r.rank_field] = std::string(sub[static_cast<std::size_t>(gi->second)]);
            break;
          }
        }
    }
    std::set<std::string> nodes_seen;
    for (auto i : idx) nodes_seen.insert(events[i].node);
    std::size_t lines = 0;  // an event stands for itself and the copies folded into it
    for (auto i : idx) lines += 1 + events[i].folded;
    vars["count"] = std::to_string(lines);
    Finding f;
    f.rule = &r;
    f.node = key.second;
    f.rank = rep.rank;
    if (r.rank_field.rfind("job.", 0) == 0) {  // the rank the job's facts point at
      f.rank.reset();
      if (auto v = fv.get(r.rank_field)) {
        f.rank = std::strtoll(v->c_str(), nullptr, 10);
        if (std::string owner = node_of_rank(facts, *f.rank); !owner.empty()) f.node = std::move(owner);
      }
    } else if (!r.rank_field.empty()) {
      f.rank.reset();
      if (auto it = vars.find(r.rank_field); it != vars.end()) {
        char* end = nullptr;
        const long long v = std::strtoll(it->second.c_str(), &end, 10);
        if (end != it->second.c_str() && *end == '\0') f.rank = v;
      }
    }
    // A host the line itself names ("srun: error: gpu-a03: task 5: Killed", a raylet's "IP: 10.4.0.7"):
    // as the logs spell it, or the node of the job it is another spelling of (a short name, an FQDN).
    if (!r.node_field.empty())
      if (auto it = vars.find(r.node_field); it != vars.end() && !it->second.empty()) {
        f.node = it->second;
        for (const correlate::Node& n : facts.nodes)
          if (!n.name.empty() && formats::same_host(n.name, f.node)) {
            f.node = n.name;
            break;
          }
        vars["node"] = f.node;
      }
    f.time = events[idx.front()].time;
    f.earlier_attempt = std::get<2>(key3) != 0;
    const base::Say attempt_said = std::get<2>(key3) == 2 ? base::Say::FindingCutShort : base::Say::FindingEarlierAttempt;
    f.count = lines;
    f.events = idx;
    f.summary = fill(r.summary_in(base::language()), vars, fv);
    if (vars.count("rank") != 0 && r.summary_in(base::language()).find("{rank}") != std::string::npos) {
      auto unranked = vars;
      unranked.erase("rank");
      f.summary_unranked = fill(r.summary_in(base::language()), unranked, fv);
      if (f.earlier_attempt) f.summary_unranked += base::say(attempt_said, {});
    }
    if (f.earlier_attempt) f.summary += base::say(attempt_said, {});
    f.remedy = fill(r.remedy_in(base::language()), vars, fv);
    a.findings.push_back(std::move(f));
  }
}

// Node and job rules: conditions over the facts.
void Engine::fact_findings(const std::vector<model::Event>& events, const correlate::Facts& facts, Analysis& a) const {
  const FactView job_view{facts, nullptr};
  // The findings so far by rule id and by (rule id, node), kept up to date as findings are added:
  // a node rule is checked on every node, so a scan of all findings per node would be quadratic.
  std::map<std::string, std::vector<std::size_t>, std::less<>> by_id;
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> by_id_node;
  auto index = [&](std::size_t k) {
    by_id[a.findings[k].rule->id].push_back(k);
    by_id_node[{a.findings[k].rule->id, a.findings[k].node}].push_back(k);
  };
  for (std::size_t k = 0; k < a.findings.size(); ++k) index(k);
  auto findings_of = [&](const std::string& id, const std::string* node) -> const std::vector<std::size_t>* {
    if (node == nullptr) {
      auto it = by_id.find(id);
      return it == by_id.end() ? nullptr : &it->second;
    }
    auto it = by_id_node.find({id, *node});
    return it == by_id_node.end() ? nullptr : &it->second;
  };
  auto requires_ok = [&](const Rule& r, const std::string* node) {
    for (const std::string& need : r.requires_rules)
      if (findings_of(need, node) == nullptr) return false;
    return true;
  };
  // A node or job rule's evidence is the evidence of the facts it names, and the first evidence of
  // the findings it requires.
  auto fact_evidence = [&](const Rule& r, const correlate::Node* node, const std::string* node_name) {
    std::vector<correlate::EventIndex> ev;
    for (const std::string& name : r.facts_named)
      if (const correlate::Fact* fact = facts.get(node, name)) ev.insert(ev.end(), fact->evidence.begin(), fact->evidence.end());
    std::vector<std::size_t> required;
    for (const std::string& need : r.requires_rules)
      if (const auto* ks = findings_of(need, node_name)) required.insert(required.end(), ks->begin(), ks->end());
    std::sort(required.begin(), required.end());  // in the order the findings were made, as before
    required.erase(std::unique(required.begin(), required.end()), required.end());
    for (std::size_t k : required)
      if (!a.findings[k].events.empty()) ev.push_back(a.findings[k].events.front());
    std::sort(ev.begin(), ev.end(), [&](auto x, auto y) { return model::earlier(events[x], events[y]); });
    ev.erase(std::unique(ev.begin(), ev.end()), ev.end());
    return ev;
  };
  auto finish = [&](Finding& f, const Rule& r, const FactView& fv, std::vector<correlate::EventIndex> ev) {
    f.events = std::move(ev);
    f.count = f.events.size();
    for (auto i : f.events)
      if (!events[i].time.empty() && (f.time.empty() || events[i].time < f.time)) f.time = events[i].time;
    const std::map<std::string, std::string> vars;
    f.summary = fill(r.summary_in(base::language()), vars, fv);
    f.remedy = fill(r.remedy_in(base::language()), vars, fv);
    a.findings.push_back(std::move(f));
    index(a.findings.size() - 1);
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
        finish(f, r, fv, fact_evidence(r, &n, &n.name));
      }
    } else if (r.scope == Scope::Job) {
      bool ok = requires_ok(r, nullptr);
      for (const Condition& c : r.when) ok = ok && holds(c, job_view);
      if (!ok) continue;
      Finding f;
      f.rule = &r;
      std::optional<std::string> rank_text;
      if (!r.rank_field.empty()) {
        rank_text = job_view.get(r.rank_field);
      } else if (std::find(r.facts_named.begin(), r.facts_named.end(), "job.missing_ranks") != r.facts_named.end()) {
        const auto missing = facts.ranks_without_timeout();  // the one rank that never reported the timeout
        if (missing.size() == 1) rank_text = std::to_string(missing.front());
      }
      if (rank_text) {
        f.rank = std::strtoll(rank_text->c_str(), nullptr, 10);
        f.node = node_of_rank(facts, *f.rank);
      }
      if (!r.node_field.empty())
        if (auto node = job_view.get(r.node_field)) f.node = *node;
      finish(f, r, job_view, fact_evidence(r, nullptr, nullptr));
    }
  }

}

namespace {

// Explanations, the root cause, roles and the order of the findings.
bool cites_rank(const Finding& f, const std::vector<model::Event>& events, std::int64_t rank) {
  return std::any_of(f.events.begin(), f.events.end(), [&](auto i) { return events[i].rank && *events[i].rank == rank; });
}

// How many of the tied ranks the finding's lines name.
std::size_t cites_tied_ranks(const Finding& f, const std::vector<model::Event>& events, const std::vector<std::int64_t>& tied) {
  std::set<std::int64_t> cited;
  for (const auto i : f.events)
    if (events[i].rank && std::find(tied.begin(), tied.end(), *events[i].rank) != tied.end()) cited.insert(*events[i].rank);
  return cited.size();
}

std::optional<std::int64_t> culprit_rank(const correlate::Facts& facts) {
  if (const correlate::Fact* c = facts.get(nullptr, "job.culprit_rank")) return c->number();
  return std::nullopt;
}

// Is x a better root than y? Causes before symptoms, then severity, priority, the earlier, the id.
bool better_root(const Finding& x, const Finding& y) {
  const bool xc = x.rule->role == Role::Cause, yc = y.rule->role == Role::Cause;
  if (xc != yc) return xc;
  if (x.rule->severity_rank() != y.rule->severity_rank()) return x.rule->severity_rank() > y.rule->severity_rank();
  if (x.rule->priority != y.rule->priority) return x.rule->priority > y.rule->priority;
  if (x.time.empty() != y.time.empty()) return !x.time.empty();
  if (x.time != y.time) return x.time < y.time;
  return x.rule->id < y.rule->id;
}

void defer_to_culprit(const std::vector<model::Event>& events, const correlate::Facts& facts, Analysis& a) {
  // A finding that only says where the job stopped waiting (a collective timeout naming the rank
  // that never arrived) is explained by that rank's own failure: the best finding of the rank the
  // lifecycle names as culprit, other than reports of waiting or losing a peer.
  if (const auto culprit = culprit_rank(facts)) {
    for (Finding& y : a.findings) {
      if (!y.rule->defers_to_culprit) continue;
      const Finding* best = nullptr;
      for (const Finding& x : a.findings)
        if (&x != &y && !x.rule->defers_to_culprit && x.rule->scope == Scope::Event && x.rule->reports.empty() &&
            failure_rule(*x.rule) && cites_rank(x, events, *culprit) &&
            (best == nullptr || better_root(x, *best)))
          best = &x;
      if (best != nullptr) y.explained_by = best->rule->id;
    }
  }
}

// The culprit reached the collective late (correlate/culprit.cpp: the others timed out waiting, and
// it alone lost its peers): the peers it lost were those that had given up. Its report of a lost
// peer follows their timeouts, whatever the order of the lines in a shared, undated stream.
void late_peer_loss_follows_timeouts(const std::vector<model::Event>& events, const correlate::Facts& facts, Analysis& a) {
  if (!facts.culprit || facts.culprit->basis != correlate::CulpritBasis::LateArrival) return;
  const std::int64_t late = facts.culprit->rank;
  const Finding* timeout = nullptr;
  for (const Finding& f : a.findings)
    if (f.rule->reports == "timeout" && !f.earlier_attempt && (timeout == nullptr || better_root(f, *timeout))) timeout = &f;
  if (timeout == nullptr) return;
  for (Finding& f : a.findings)
    if (f.rule->reports == "peer-loss" && f.explained_by.empty() && !f.events.empty() &&
        std::all_of(f.events.begin(), f.events.end(), [&](auto i) { return events[i].rank && *events[i].rank == late; }))
      f.explained_by = timeout->rule->id;
}

// The culprit failed on its own before (or more tellingly than) other ranks that also failed on
// their own: findings about those others only are passed over as the root; they stay as related
// findings, and the verdict's "why" says which rank came first.
// Only when the root the findings would otherwise have is itself such a finding: a cause of the
// whole job (a launch setting) stays the root, with every rank's failure its consequence.
// Returns whether any finding was passed over.
bool pass_over_later_failures(const std::vector<model::Event>& events, const correlate::Facts& facts, Analysis& a, int root) {
  // The culprit, or the ranks of a tie the policy passed the others over for (an untied traceback's).
  std::vector<std::int64_t> chosen;
  std::string chosen_node;
  std::set<std::int64_t> others;
  if (facts.culprit && facts.culprit->own_failure()) {
    chosen = {facts.culprit->rank};
    chosen_node = facts.culprit->node;
    others.insert(facts.culprit->passed_over.begin(), facts.culprit->passed_over.end());
  } else if (!facts.culprit && !facts.culprit_tie.empty()) {
    chosen = facts.culprit_tie;
    chosen_node = facts.culprit_node;
    others.insert(facts.culprit_tie_passed.begin(), facts.culprit_tie_passed.end());
  }
  if (others.empty() || root < 0) return false;
  // A line no rank is tied to (plain output) is about the others when its node ran only them.
  std::map<std::string, bool> only_others;  // node -> every rank it ran was passed over
  for (const correlate::RankRecord& r : facts.rank_table) {
    auto [it, fresh] = only_others.emplace(r.node, true);
    it->second = it->second && others.count(r.rank) != 0;
  }
  auto of_others = [&](const model::Event& e) {
    if (e.rank) return others.count(*e.rank) != 0;
    if (e.node.empty() || e.node == chosen_node) return false;
    const auto it = only_others.find(e.node);
    return it != only_others.end() && it->second;
  };
  auto about_others = [&](const Finding& y) {
    const bool cites_chosen = std::any_of(chosen.begin(), chosen.end(), [&](std::int64_t r) { return cites_rank(y, events, r); });
    return y.rule->scope == Scope::Event && y.rule->reports.empty() && !cites_chosen &&
           std::any_of(y.events.begin(), y.events.end(), [&](auto i) { return of_others(events[i]); });
  };
  if (!about_others(a.findings[static_cast<std::size_t>(root)])) return false;
  for (Finding& y : a.findings)
    if (about_others(y)) y.passed_over = true;
  return true;
}

// Under c10d rendezvous every agent whose endpoint names its own host tries to host the store; all
// but the first fail to bind (EADDRINUSE) and join it as clients. The rules whose lines some
// launcher of such a job did not print (it hosted the store): a launcher is a node, or one srun
// task's lines where no host is known. When the endpoint is a host name that is one of the
// launchers' nodes, that agent alone tries to host (torch's _matches_machine_hostname: the others
// see another host's name): a bind failure there is no client's, the port is held outside the job.
std::set<const Rule*> c10d_clients(const std::vector<model::Event>& events, const Analysis& a) {
  std::set<std::string> launchers, endpoints;
  bool c10d = false;
  auto launcher = [](const model::Event& e) { return e.node.empty() ? e.task : e.node; };
  for (const model::Event& e : events)
    if (e.code == "launch-command" || e.code == "launch-config") {
      launchers.insert(launcher(e));
      c10d = c10d || e.get_str("rdzv_backend") == "c10d";
      if (std::string host = e.get_str("master_addr"); !host.empty()) endpoints.insert(std::move(host));
    }
  std::set<const Rule*> out;
  if (!c10d || launchers.size() < 2) return out;
  if (endpoints.size() == 1 && !formats::loopback_host(*endpoints.begin()) &&
      std::any_of(launchers.begin(), launchers.end(), [&](const std::string& l) { return formats::same_host(l, *endpoints.begin()); }))
    return out;
  std::map<const Rule*, std::set<std::string>> printed;
  for (const Finding& f : a.findings)
    if (f.rule->launch_phase)
      for (auto i : f.events) printed[f.rule].insert(launcher(events[i]));
  for (const auto& [rule, by] : printed) {
    const std::set<std::string>& seen = by;  // clang before 16 cannot capture a structured binding
    if (std::any_of(launchers.begin(), launchers.end(), [&](const std::string& l) { return seen.count(l) == 0; })) out.insert(rule);
  }
  return out;
}

// Launch failures (`phase: launch`) on a node whose workers then ran: the launch went on. Its
// workers ran when a line names one of them (a rank, a local rank), or when the file the failure
// is in goes on with prints no parser knows (at least 5, after the failure's last line). Under
// c10d rendezvous, one that another launcher of the job did not print: it joined as a client.
void mark_survived(const std::vector<model::Event>& events, const correlate::Facts& facts, Analysis& a) {
  const std::set<const Rule*> clients = c10d_clients(events, a);
  // Teardown (`phase: teardown`): survived, and so is a finding made only of the lines that follow
  // one of its lines (the traceback a logger.exception prints under its message).
  std::set<std::pair<std::string_view, std::uint64_t>> after_teardown;
  for (Finding& f : a.findings)
    if (f.rule->teardown_phase) {
      f.survived = true;
      for (auto i : f.events) after_teardown.emplace(events[i].path, std::max(events[i].line, events[i].end_line) + 1);
    }
  if (!after_teardown.empty())
    for (Finding& f : a.findings)
      if (!f.events.empty() && std::all_of(f.events.begin(), f.events.end(), [&](correlate::EventIndex i) {
            return after_teardown.count({events[i].path, events[i].line}) != 0;
          }))
        f.survived = true;
  for (Finding& f : a.findings) {
    if (!f.rule->launch_phase) continue;
    if (clients.count(f.rule) != 0) {
      f.survived = true;
      continue;
    }
    // No host known, and the failure is one srun task's (its launcher's lines in a file all the
    // tasks share): the node's lines are every task's. Its workers ran when a worker's line of the
    // same task comes after the failure.
    if (f.node.empty() && !f.events.empty() &&
        std::all_of(f.events.begin(), f.events.end(), [&](correlate::EventIndex i) { return !events[i].task.empty(); })) {
      bool ran = false;
      for (std::size_t k = 0; k < f.events.size() && k < 8 && !ran; ++k) {  // a few: each is a pass over the events
        const model::Event& fe = events[f.events[k]];
        ran = ran || std::any_of(events.begin(), events.end(), [&](const model::Event& w) {
                return w.task == fe.task && w.path == fe.path && w.line > std::max(fe.line, fe.end_line) &&
                       (w.rank || w.local_rank) && w.kind != model::Kind::Torchrun;
              });
      }
      f.survived = f.survived || ran;
      continue;
    }
    const correlate::Node* n = facts.node(f.node);
    if (n == nullptr) continue;
    bool ran = n->workers_seen || std::any_of(facts.rank_table.begin(), facts.rank_table.end(), [&](const correlate::RankRecord& r) {
      return r.ending != correlate::Ending::NeverHeardFrom && r.node == f.node;
    });
    // After the failure's last line in that file (its report may go on over several records: an
    // error handler's JSON, then the traceback inside it).
    std::map<std::string_view, std::uint64_t> last_in;
    for (auto i : f.events) {
      std::uint64_t& last = last_in[events[i].path];
      last = std::max({last, events[i].line, events[i].end_line});
    }
    for (const auto& [path, last] : last_in) {
      if (ran) break;
      const auto tail = n->plain_tail.find(path);
      ran = tail != n->plain_tail.end() && tail->second.second >= 5 && tail->second.first > last;
    }
    f.survived = f.survived || ran;
  }
}

// Stops from outside (`phase: stop`) that came after another error finding: what the stop ended
// had already failed. "After": both lines dated and later, or later in the same file (undated, or
// of the same instant).
// Also "after": a failure of a worker's own (not a report of waiting or of a lost peer) in a stream
// (a file, or one srun task's or pod's lines in it) that no stop reached: the stop reaches every
// launcher still running, so that one had ended on its own before it. And a timeout reported by a
// worker the stopped launcher then signalled (waited_before_stop).
void mark_late_stops(const std::vector<model::Event>& events, Analysis& a) {
  auto before = [&](correlate::EventIndex x, correlate::EventIndex y) {
    const model::Event& ex = events[x];
    const model::Event& ey = events[y];
    // Dated lines by their time; lines of one instant (a collector's stamp) or undated by their
    // order in one file.
    if (!ex.time.empty() && !ey.time.empty() && !(ex.time == ey.time)) return ex.time < ey.time;
    return ex.path == ey.path && ex.line < ey.line;
  };
  using Stream = std::pair<std::string_view, std::string_view>;  // path, task
  std::map<Stream, std::uint64_t> stopped;  // each stream a stop reached -> the line of its first stop
  for (const Finding& s : a.findings)
    if (s.rule->stop_phase)
      for (auto i : s.events) {
        auto [it, fresh] = stopped.emplace(Stream{events[i].path, events[i].task}, events[i].line);
        if (!fresh) it->second = std::min(it->second, events[i].line);
      }
  auto ended_unstopped = [&](const Finding& o, correlate::EventIndex i) {
    return o.rule->reports.empty() && !o.rule->defers_to_culprit && !o.earlier_attempt &&
           stopped.count({events[i].path, events[i].task}) == 0;
  };
  // The workers a stopped launcher then signalled ("Sending process P closing signal", after its
  // death signal in the same stream), by node and pid. A timeout that one of them reported came
  // before the stop: a worker stopped from outside is gone (SIGTERM ends a Python process), and a
  // timeout is the end of a wait of seconds to minutes, not what a stop leads to.
  std::set<std::pair<std::string_view, std::int64_t>> reached;
  if (!stopped.empty())
    for (const model::Event& e : events) {
      if (e.code != "closing-signal") continue;
      const auto at = stopped.find({e.path, e.task});
      if (at == stopped.end() || e.line < at->second) continue;
      if (const auto pid = e.get_int("target_pid")) reached.emplace(e.node, *pid);
    }
  auto waited_before_stop = [&](const Finding& o, correlate::EventIndex i) {
    const model::Event& e = events[i];
    if (o.rule->reports != "timeout" || o.earlier_attempt || !e.pid) return false;
    if (reached.count({e.node, *e.pid}) != 0) return true;
    if (!e.node.empty()) return false;
    // A line that names no node (a driver's forwarded worker output): its pid on any node.
    return std::any_of(reached.begin(), reached.end(), [&](const auto& r) { return r.second == *e.pid; });
  };
  for (Finding& s : a.findings) {
    if (!s.rule->stop_phase || s.events.empty()) continue;
    for (const Finding& o : a.findings) {
      if (&o == &s || o.rule->stop_phase || o.survived || o.rule->role == Role::Warning || o.rule->severity_rank() < 2) continue;
      if (std::any_of(o.events.begin(), o.events.end(), [&](auto i) { return before(i, s.events.front()) || ended_unstopped(o, i) || waited_before_stop(o, i); })) {
        s.late_stop = true;
        break;
      }
    }
  }
  // A stop from outside (a scheduler's time limit, an operator's scancel) reaches every node of the
  // job at once: when it came late on one node, it came late on all, even where the node's own
  // lines give no order (the hung rank's node printed nothing before it).
  std::set<const Rule*> late;
  for (const Finding& s : a.findings)
    if (s.late_stop) late.insert(s.rule);
  for (Finding& s : a.findings)
    if (s.rule->stop_phase && late.count(s.rule) != 0) s.late_stop = true;
}

void link_explanations(Analysis& a) {
  const std::size_t n = a.findings.size();
  auto same_scope = [&](const Finding& x, const Finding& y) {
    return x.node == y.node || x.node.empty() || y.node.empty() || x.rule->scope == Scope::Job;
  };
  // x explains y, unless y also explains x and is the better root (mutual edges: the better wins).
  // The candidates y of each x are found through indexes (rule -> rule it explains; rule and node
  // -> findings), so the cost grows with the findings, not with their square (a job of 30,000
  // one-line hosts has a finding per host). For one x the order of its y does not matter; x are
  // taken in order, as before.
  std::map<const Rule*, std::vector<std::size_t>> of_rule;
  std::map<std::pair<const Rule*, std::string_view>, std::vector<std::size_t>> of_rule_node;
  for (std::size_t k = 0; k < n; ++k) {
    of_rule[a.findings[k].rule].push_back(k);
    of_rule_node[{a.findings[k].rule, a.findings[k].node}].push_back(k);
  }
  std::map<const Rule*, std::vector<const Rule*>> explains_of;
  for (const auto& [rx, xs] : of_rule)
    for (const auto& [ry, ys] : of_rule)
      if (rx->explains_rule(ry->id)) explains_of[rx].push_back(ry);
  auto consider = [&](std::size_t i, std::size_t j) {
    if (i == j) return;
    Finding& x = a.findings[i];
    Finding& y = a.findings[j];
    if (!y.explained_by.empty() || x.explained_by == y.rule->id || !same_scope(x, y)) return;
    if (x.survived || x.passed_over || x.late_stop) return;  // none is the cause of anything
    if (y.rule->explains_rule(x.rule->id) && better_root(y, x)) return;
    y.explained_by = x.rule->id;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const Finding& x = a.findings[i];
    auto it = explains_of.find(x.rule);
    if (it == explains_of.end()) continue;
    for (const Rule* ry : it->second) {
      if (x.node.empty() || x.rule->scope == Scope::Job) {
        for (std::size_t j : of_rule[ry]) consider(i, j);
        continue;
      }
      if (auto own = of_rule_node.find({ry, x.node}); own != of_rule_node.end())
        for (std::size_t j : own->second) consider(i, j);
      if (auto none = of_rule_node.find({ry, std::string_view()}); none != of_rule_node.end())
        for (std::size_t j : none->second) consider(i, j);
    }
  }
}

// The root: the best finding that nothing explains (or whose chain of explanations loops); -1
// when none is an error. Its own explanation, if any, is dropped.
int choose_root(const std::vector<model::Event>& events, Analysis& a) {
  const std::size_t n = a.findings.size();
  // A chain of explanations must end at an unexplained finding; one that loops (a -> b -> c -> a)
  // explains nothing, and its members stay root candidates.
  std::map<std::string_view, std::size_t> first_of_id;  // rule id -> its first finding
  for (std::size_t k = 0; k < n; ++k) first_of_id.emplace(a.findings[k].rule->id, k);
  auto chain_ends = [&](std::size_t i) {
    std::string by = a.findings[i].explained_by;
    for (int depth = 0; depth < 32 && !by.empty(); ++depth) {
      auto f = first_of_id.find(by);
      if (f == first_of_id.end() || a.findings[f->second].explained_by.empty()) return true;
      by = a.findings[f->second].explained_by;
    }
    return by.empty();
  };
  int root = -1;
  for (std::size_t i = 0; i < n; ++i) {
    const Finding& f = a.findings[i];
    if ((!f.explained_by.empty() && chain_ends(i)) || f.rule->severity_rank() < 2 || f.rule->role == Role::Warning || f.passed_over || f.survived || f.late_stop) continue;
    if (root < 0 || better_root(f, a.findings[static_cast<std::size_t>(root)])) {
      root = static_cast<int>(i);
      continue;
    }
    // Equal but for where: the one whose first line a shared file (an srun or kubectl stream)
    // shows first, not the one whose node sorts first by name.
    const Finding& r = a.findings[static_cast<std::size_t>(root)];
    if (better_root(r, f) || f.events.empty() || r.events.empty()) continue;
    const model::Event& fe = events[f.events.front()];
    const model::Event& re = events[r.events.front()];
    if (fe.path == re.path && fe.line < re.line && !fe.time.valid && !re.time.valid) root = static_cast<int>(i);
  }
  if (root >= 0) a.findings[static_cast<std::size_t>(root)].explained_by.clear();
  return root;
}

// Each finding's role: the root, what follows from it, warnings, and the rest (related).
void assign_roles(Analysis& a, int root) {
  const std::size_t n = a.findings.size();
  // Whether a finding's chain of explanations leads to the root; answered once per rule id.
  std::map<std::string_view, std::vector<std::size_t>> of_id;
  for (std::size_t k = 0; k < n; ++k) of_id[a.findings[k].rule->id].push_back(k);
  std::map<std::string, int> leads;  // rule id -> 1 leads to the root, 0 not, -1 being worked out
  std::function<bool(const std::string&, int)> id_leads = [&](const std::string& by, int depth) -> bool {
    if (root < 0 || depth > 16 || by.empty()) return false;
    if (by == a.findings[static_cast<std::size_t>(root)].rule->id) return true;
    auto [it, fresh] = leads.emplace(by, -1);
    if (!fresh) return it->second == 1;
    bool yes = false;
    if (auto ks = of_id.find(by); ks != of_id.end())
      for (std::size_t k : ks->second)
        if (id_leads(a.findings[k].explained_by, depth + 1)) {
          yes = true;
          break;
        }
    leads[by] = yes ? 1 : 0;
    return yes;
  };
  auto explained_by_root = [&](std::size_t i, int) { return id_leads(a.findings[i].explained_by, 0); };
  for (std::size_t i = 0; i < n; ++i) {
    Finding& f = a.findings[i];
    const bool same_as_root = root >= 0 && f.explained_by.empty() && !f.passed_over && !f.survived && !f.late_stop &&
                              f.rule == a.findings[static_cast<std::size_t>(root)].rule;
    if (static_cast<int>(i) == root || same_as_root) f.role = FindingRole::RootCause;
    else if (f.rule->role == Role::Warning || f.rule->severity_rank() < 2 || f.survived) f.role = FindingRole::Warning;
    else if (f.passed_over) f.role = FindingRole::Related;
    else if (f.late_stop && root >= 0) {
      f.role = FindingRole::Consequence;
      if (f.explained_by.empty()) f.explained_by = a.findings[static_cast<std::size_t>(root)].rule->id;
    }
    else if (explained_by_root(i, 0)) f.role = FindingRole::Consequence;
    else if (root >= 0 && f.rule->role == Role::Symptom &&
             a.findings[static_cast<std::size_t>(root)].rule->role == Role::Cause) {
      f.role = FindingRole::Consequence;
      if (f.explained_by.empty()) f.explained_by = a.findings[static_cast<std::size_t>(root)].rule->id;
    } else {
      f.role = FindingRole::Related;
    }
  }
}

void order_findings(const std::vector<model::Event>& events, Analysis& a) {
  const std::size_t n = a.findings.size();
  // Order: root first, then consequences, related, warnings; each by time.
  auto rank_of = [](FindingRole role) {
    return static_cast<int>(role);
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
    // Undated: where their first lines are (a shared srun or kubectl stream in its order), not
    // by the names of their nodes.
    if (fx.time.empty() && !fx.events.empty() && !fy.events.empty()) {
      const model::Event& ex = events[fx.events.front()];
      const model::Event& ey = events[fy.events.front()];
      if (ex.path != ey.path) return ex.path < ey.path;
      if (ex.line != ey.line) return ex.line < ey.line;
    }
    return fx.node < fy.node;
  });
  std::vector<Finding> sorted;
  for (std::size_t i : order) sorted.push_back(std::move(a.findings[i]));
  a.findings = std::move(sorted);
}

// Findings of a restart attempt a later one replaced: the run went on after them, so they are not
// the root. Yet a cause of the whole job or a node (a launch setting, a device) was there in every
// attempt: what it explains in the earlier attempts is its consequence too.
void earlier_attempts_follow(Analysis& a, int root) {
  if (root < 0) return;
  const Finding& r = a.findings[static_cast<std::size_t>(root)];
  if (r.rule->scope == Scope::Event) return;
  for (Finding& f : a.findings)
    if (f.earlier_attempt && (r.rule->explains_rule(f.rule->id) || f.rule->role == Role::Symptom)) {
      f.survived = false;
      f.explained_by = r.rule->id;
    }
}

void rank_findings(const std::vector<model::Event>& events, const correlate::Facts& facts, Analysis& a) {
  for (Finding& f : a.findings) f.survived = f.survived || f.earlier_attempt;
  defer_to_culprit(events, facts, a);
  late_peer_loss_follows_timeouts(events, facts, a);
  mark_survived(events, facts, a);
  mark_late_stops(events, a);
  std::vector<std::string> deferred;
  for (const Finding& f : a.findings) deferred.push_back(f.explained_by);
  link_explanations(a);
  int root = choose_root(events, a);
  if (pass_over_later_failures(events, facts, a, root)) {  // link again without the passed-over findings
    for (std::size_t i = 0; i < a.findings.size(); ++i) a.findings[i].explained_by = deferred[i];
    link_explanations(a);
    root = choose_root(events, a);
  }
  earlier_attempts_follow(a, root);
  assign_roles(a, root);
  order_findings(events, a);
}

// The errors (not NCCL WARNs, unless asked for) that no finding of a failure the run survived
// cites, when the run did not recover: what an unknown failure leads with, the job's first hard
// error first, then the rest earliest first. The store's "failed to listen on any local network address" closes the bind
// failures before it in the same file: survived with them.
std::vector<correlate::EventIndex> unexplained_errors(const std::vector<model::Event>& events, const correlate::Facts& facts,
                                                      const Analysis& a, bool nccl_warnings = false) {
  std::vector<correlate::EventIndex> out;
  if (!facts.job.first_hard_error || facts.recovered) return out;
  std::set<correlate::EventIndex> survived;
  std::set<std::string_view> survived_in;  // files they are in
  for (const Finding& f : a.findings)
    if (f.survived)
      for (auto i : f.events) {
        survived.insert(i);
        survived_in.insert(events[i].path);
      }
  const correlate::EventIndex hard = *facts.job.first_hard_error;
  const model::Event& first = events[hard];
  if (survived.count(hard) == 0 && !facts.is_replaced(hard) && !(first.code == "listen-failed" && survived_in.count(first.path) != 0))
    out.push_back(hard);
  const std::size_t rest = out.size();
  for (correlate::EventIndex i = 0; i < events.size(); ++i) {
    const model::Event& e = events[i];
    if (i == hard && rest == 1) continue;
    const bool nccl_warning = e.kind == model::Kind::Nccl && e.level == model::Level::Warning;
    if (!(correlate::is_error(e) || (nccl_warnings && nccl_warning)) || (nccl_warning && !nccl_warnings) || survived.count(i) != 0 ||
        facts.is_replaced(i))
      continue;
    if (e.code == "listen-failed" && survived_in.count(e.path) != 0) continue;
    out.push_back(i);
  }
  std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(rest), out.end(),
                   [&](correlate::EventIndex x, correlate::EventIndex y) { return model::earlier(events[x], events[y]); });
  return out;
}

// A failure no rule names: led by the earliest of `leads` (or of `known`: they and NCCL's WARN lines)
// that a catalogue entry calls a cause (its category and what it means), else a consequence (still
// unknown, with what it usually follows), else by the first of `leads`, as unknown.
void decide_unknown(const std::vector<model::Event>& events, const std::vector<correlate::EventIndex>& leads,
                    const std::vector<correlate::EventIndex>& known, const Catalogue* catalogue, Verdict& v) {
  correlate::EventIndex lead = leads.front();
  const CatalogueEntry* entry = nullptr;
  std::string said;  // the further line of the lead's message the entry matched, if that is what it matched
  if (catalogue != nullptr)
    for (const EntryRole want : {EntryRole::Cause, EntryRole::Consequence}) {
      for (const correlate::EventIndex i : known) {
        const model::Event& e = events[i];
        const CatalogueEntry* c = catalogue->classify(e, &said);
        if (c != nullptr && c->role == want && c->classifies()) {
          lead = i;
          entry = c;
          break;
        }
      }
      if (entry != nullptr) break;
    }
  const model::Event& e = events[lead];
  v.status = Status::Failed;
  // A consequence names no cause of its own: the category is that of the failure it usually
  // reports (catalogues/README.md), and the sentence says so ("usually a consequence of ...").
  v.category = entry != nullptr ? entry->category : "unknown";
  const std::string where = e.path + ":" + std::to_string(e.line);
  const std::string message = Catalogue::quoted(e, said);
  if (entry != nullptr) {
    const std::string at = e.node.empty() ? where : base::say(base::Say::WhereOnNode, {{"where", where}, {"node", e.node}});
    const base::Lang lang = base::language();
    v.summary = entry->role == EntryRole::Cause
                    ? base::say(base::Say::VerdictCatalogueCause, {{"where", at}, {"message", message}, {"meaning", entry->meaning_in(lang)}})
                    : base::say(base::Say::VerdictCatalogueConsequence, {{"where", at}, {"message", message}, {"of", entry->of_in(lang)}});
    v.catalogue = entry->id;
  } else {
    v.summary = e.node.empty() ? base::say(base::Say::VerdictUnknownLead, {{"where", where}, {"message", message}})
                               : base::say(base::Say::VerdictUnknownLeadOnNode, {{"where", where}, {"node", e.node}, {"message", message}});
  }
  v.node = e.node;
  v.rank = e.rank;
  if (v.rank) v.why.push_back(base::say(base::Say::WhyLeadLineRank, {{"where", where}, {"rank", std::to_string(*v.rank)}}));
  v.lead = lead;
}

// Why the verdict names the rank the root finding gave it, where the culprit policy's reasons
// (correlate/culprit.cpp) are not for that rank: the one rank that never reported a timeout, the
// rank the job's facts point at, or the rank the root's own line names.
std::string finding_rank_why(const Finding& f, const std::vector<model::Event>& events, const correlate::Facts& facts, std::int64_t rank) {
  const std::string r = std::to_string(rank);
  const auto& named = f.rule->facts_named;
  if (f.rank == rank && f.rule->rank_field.empty() && std::find(named.begin(), named.end(), "job.missing_ranks") != named.end()) {
    return base::say(base::Say::WhyOnlyMissingTimeout, {{"count", std::to_string(facts.job.ranks_with_timeout.size())}, {"rank", r}});
  }
  const auto line = std::find_if(f.events.begin(), f.events.end(), [&](auto i) { return events[i].rank && *events[i].rank == rank; });
  if (line == f.events.end() || f.rule->rank_field.rfind("job.", 0) == 0)
    return base::say(base::Say::WhyRuleRank, {{"rank", r}, {"title", f.rule->title_in(base::language())}});
  const model::Event& e = events[*line];
  return base::say(base::Say::WhyRootLineRank, {{"where", e.path + ":" + std::to_string(e.line)}, {"rank", r}});
}

// A failed job whose first finding is a root cause: its sentence, the other nodes with the same
// cause, and the rank: the culprit policy's, a tie's node, or the node's first observed failure.
void decide_failed(const std::vector<model::Event>& events, const correlate::Facts& facts, Analysis& a) {
  Verdict& v = a.verdict;
  const Finding& f = a.findings.front();
  v.status = Status::Failed;
  v.category = f.rule->category;
  v.summary = f.summary;
  // The other nodes with a root-cause finding: "the same" where its words are the root's but for
  // the node (one rule can match different failures: a ZeroDivisionError here, the peers' store
  // timeouts there; numbers aside: each process has its own pid, rank, device), else other failures.
  const auto words = [](const Finding& x) {
    static const re2::RE2 number(R"(\d+)");
    std::string s = x.summary;
    if (!x.node.empty())
      for (std::size_t at = s.find(x.node); at != std::string::npos; at = s.find(x.node, at + 1)) s.replace(at, x.node.size(), "\x01");
    re2::RE2::GlobalReplace(&s, number, "N");
    return s;
  };
  const std::string root_words = words(f);
  std::vector<std::string> same, other;
  for (std::size_t i = 1; i < a.findings.size(); ++i)
    if (a.findings[i].role == FindingRole::RootCause && !a.findings[i].node.empty() && a.findings[i].node != f.node) {
      std::vector<std::string>& to = a.findings[i].rule == f.rule && words(a.findings[i]) == root_words ? same : other;
      if (std::find(to.begin(), to.end(), a.findings[i].node) == to.end()) to.push_back(a.findings[i].node);
    }
  other.erase(std::remove_if(other.begin(), other.end(), [&](const std::string& n) { return std::find(same.begin(), same.end(), n) != same.end(); }),
              other.end());
  const auto listed = [](const std::vector<std::string>& nodes) {
    std::string out;
    for (std::size_t k = 0; k < nodes.size() && k < 3; ++k) out += (k ? ", " : "") + nodes[k];
    if (nodes.size() > 3) out += ", ...";
    return out;
  };
  if (!same.empty())
    v.summary += same.size() <= 3 ? base::say(base::Say::VerdictSameOn, {{"nodes", listed(same)}})
                                  : base::say(base::Say::VerdictSameOnMany, {{"count", std::to_string(same.size())}, {"nodes", listed(same)}});
  if (!other.empty()) v.summary += base::say(base::Say::VerdictOtherFailuresOn, {{"count", std::to_string(other.size())}, {"nodes", listed(other)}});
  v.remedy = f.remedy;
  v.node = f.node;
  v.rank = f.rank;
  // A line that reports its own rank's timeout or lost peer (`reports:`) names a rank that waited:
  // not the root's. Unless the rule points at another rank (`rank:`), the verdict names none.
  if (!f.rule->reports.empty() && f.rule->rank_field.empty()) v.rank.reset();
  // No host known, and a launch failure's lines are all one srun task's launcher's (srun -l, one
  // torchrun per node): that task is as far as the logs name its node (task N runs on the
  // allocation's N-th node), as a launch option's odd launcher is named.
  if (v.node.empty() && f.rule->launch_phase && !f.events.empty()) {
    const std::string& task = events[f.events.front()].task;
    if (!task.empty() && facts.job.task_launches.count(task) != 0 &&
        std::all_of(f.events.begin(), f.events.end(), [&](correlate::EventIndex i) { return events[i].task == task; }))
      v.node = task;
  }
  // The same failure, word for word but for process ids (each attempt starts new processes), ended
  // an earlier restart attempt: restarting did not clear it (a bug in the code or the data, a bad
  // node), which tells the reader what a restart policy will do.
  auto without_pids = [](std::string s) {
    static const re2::RE2 pid(R"((?i)(\bpid:? |\bpid=|\bprocess )\d+)");
    re2::RE2::GlobalReplace(&s, pid, "\\1N");
    return s;
  };
  const std::string earlier = without_pids(f.summary + base::say(base::Say::FindingEarlierAttempt, {}));
  for (const Finding& e : a.findings)
    if (e.earlier_attempt && e.rule == f.rule && e.node == f.node && !e.events.empty() && without_pids(e.summary) == earlier) {
      const model::Event& first = events[e.events.front()];
      v.repeated = base::say(base::Say::VerdictRepeated, {{"where", first.path + ":" + std::to_string(first.line)}});
      break;
    }
  // The restart after it was stopped from outside before it showed anything (Facts::cut_short):
  // it did not show the failure cleared.
  if (facts.cut_short_stop) {
    const model::Event& stop = events[*facts.cut_short_stop];
    v.repeated += (v.repeated.empty() ? "" : "; ") +
                  base::say(base::Say::VerdictCutShort, {{"where", stop.path + ":" + std::to_string(stop.line)}});
  }
  // The rank the culprit policy chose (correlate/culprit.cpp) is the verdict's when the root
  // cites it, when the root is a victim's report (a timeout, a lost peer: the culprit is whom
  // they waited for), or when the root is a line of no rank on the culprit's node.
  if (const correlate::Culprit* c = facts.culprit ? &*facts.culprit : nullptr) {
    const bool victim_root = !f.rule->reports.empty() || f.rule->defers_to_culprit;
    const bool event_root = f.rule->scope == Scope::Event;  // a job's settings name no rank of their own
    const bool unranked_here = !v.rank && (v.node.empty() || v.node == c->node);
    if (victim_root || (event_root && (cites_rank(f, events, c->rank) || unranked_here))) {
      v.rank = c->rank;
      if (!c->node.empty()) v.node = c->node;
    }
    if (v.rank && *v.rank == c->rank) v.why = c->why;
  } else if (!facts.culprit_tie.empty() && (v.node.empty() || v.node == facts.culprit_node) &&
             (!v.rank || cites_tied_ranks(f, events, facts.culprit_tie) > 1)) {
    // A finding whose lines are several tied ranks' (one failure table's rows of one signal) names
    // none of them by its first line: the tie is said.
    if (v.rank && !f.summary_unranked.empty() && v.summary.compare(0, f.summary.size(), f.summary) == 0)
      v.summary = f.summary_unranked + v.summary.substr(f.summary.size());
    v.rank.reset();
    if (v.node.empty()) v.node = facts.culprit_node;
    v.tied = facts.culprit_tie;
    v.why.push_back(facts.culprit_tie_why.empty() ? base::say(base::Say::WhyTie, {{"ranks", correlate::join_ints(facts.culprit_tie)}})
                                                  : facts.culprit_tie_why);
  } else if (!facts.culprit_tie.empty() && !v.rank && facts.culprit_node.empty() && f.rule->scope == Scope::Event) {
    // Ranks of several nodes tied, and the root's line (no rank of its own) is from one of them:
    // it is the line of that node's one rank that failed on its own, when that rank is tied.
    std::vector<std::int64_t> own_here;
    for (const correlate::RankRecord& r : facts.rank_table)
      if (r.node == v.node && (r.ending == correlate::Ending::Signal || r.ending == correlate::Ending::Exception ||
                               r.ending == correlate::Ending::Exited))
        own_here.push_back(r.rank);
    if (own_here.size() == 1 && std::count(facts.culprit_tie.begin(), facts.culprit_tie.end(), own_here.front()) == 1) {
      v.rank = own_here.front();
      v.why.push_back(base::say(base::Say::WhyOnlyOneOnRootNode, {{"ranks", correlate::join_ints(facts.culprit_tie)},
                                                                  {"node", v.node},
                                                                  {"rank", std::to_string(own_here.front())}}));
    }
  }
  // Last resort for a worker's own failure whose output no rank prefix marks: the launcher's
  // "Root Cause (first observed failure)" row on the same node, when it is the first to fail there:
  // the node's only failed rank, or one that failed a second or more before the others. (Within one
  // second the row is the lowest local rank, an order of numbering, not of time.)
  if (!v.rank && !v.node.empty() && f.rule->scope == Scope::Event && facts.culprit_tie.empty()) {
    std::optional<std::int64_t> first, first_at;
    int rows = 0;
    std::vector<std::optional<std::int64_t>> others;  // the other failed ranks' seconds
    for (const model::Event& e : events) {
      if (e.code != "failure-row" || e.node != v.node || !e.rank || e.get_str("signal") == "SIGTERM") continue;
      if (e.get("root_cause") != nullptr && std::get<bool>(*e.get("root_cause"))) {
        first = e.rank;
        first_at = e.time.second();
        ++rows;
      } else {
        others.push_back(e.time.second());
      }
    }
    const bool before_others = std::all_of(others.begin(), others.end(), [&](const auto& t) { return first_at && t && *first_at < *t; });
    if (rows == 1 && before_others) {
      v.rank = first;
      v.why.push_back(base::say(others.empty() ? base::Say::WhyRootCauseRowOnly : base::Say::WhyRootCauseRowFirst,
                                {{"node", v.node}, {"rank", std::to_string(*first)}}));
    }
  }
  if (v.rank && v.why.empty()) v.why.push_back(finding_rank_why(f, events, facts, *v.rank));
  v.rule = f.rule->id;
  v.root = 0;
}

void decide(const std::vector<model::Event>& events, const correlate::Facts& facts, const CatalogueShelf* shelf, Analysis& a) {
  Verdict& v = a.verdict;
  // The rank that ended on its own (correlate/culprit.cpp).
  const std::optional<std::int64_t> culprit = culprit_rank(facts);
  // The same root rule on several nodes: lead with the one whose lines include the culprit rank,
  // not merely the earliest.
  if (culprit && !a.findings.empty()) {
    for (std::size_t i = 1; i < a.findings.size() && a.findings[i].role == FindingRole::RootCause; ++i) {
      if (a.findings[i].rule != a.findings.front().rule) continue;
      if (cites_rank(a.findings[i], events, *culprit)) {
        std::rotate(a.findings.begin(), a.findings.begin() + static_cast<std::ptrdiff_t>(i),
                    a.findings.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        break;
      }
    }
  }
  // A stop from outside after the training loop had reached its last step ended no work.
  const bool stopped_after_steps = !a.findings.empty() && a.findings.front().role == FindingRole::RootCause &&
                                   a.findings.front().rule->category == "external-termination" && !facts.steps_done.empty();
  if (!a.findings.empty() && a.findings.front().role == FindingRole::RootCause && (facts.recovered || stopped_after_steps)) {
    // A failure the run survived is not a cause: healthy, with it as a warning.
    v.status = Status::Healthy;
    v.summary = facts.recovered ? base::say(base::Say::VerdictRecovered, {{"what", a.findings.front().summary}})
                                : base::say(base::Say::VerdictStoppedAfterSteps, {{"steps", facts.steps_done}, {"what", a.findings.front().summary}});
    for (Finding& f : a.findings)
      if (f.role == FindingRole::RootCause) f.role = FindingRole::Warning;
  } else if (!a.findings.empty() && a.findings.front().role == FindingRole::RootCause) {
    decide_failed(events, facts, a);
  } else if (const auto leads = unexplained_errors(events, facts, a); !leads.empty()) {
    // The catalogues are read here, the first time a run needs them.
    const Catalogue* catalogue = shelf != nullptr ? &shelf->get() : nullptr;
    decide_unknown(events, leads, catalogue != nullptr ? unexplained_errors(events, facts, a, true) : leads, catalogue, v);
  } else if (events.empty() && facts.job.worker_lines == 0) {
    v.status = Status::Inconclusive;
    v.summary = base::say(base::Say::VerdictNothingRecognised);
    v.nothing_failed = true;
  } else if (const correlate::Fact* launched = facts.get(nullptr, "job.launched_nodes");
             launched != nullptr && launched->number().value_or(0) != 0 && facts.job.worker_lines == 0) {
    // "Healthy" needs a run to have happened: launchers that started and no worker that wrote a
    // line means the logs stop before training (in rendezvous, or cut short).
    v.status = Status::Inconclusive;
    v.summary = base::say(base::Say::VerdictStoppedBeforeTraining, {{"nodes", launched->text()}});
    v.nothing_failed = true;
  } else if (const auto survived = std::find_if(a.findings.begin(), a.findings.end(),
                                                [](const Finding& f) { return f.earlier_attempt && failure_rule(*f.rule); });
             survived != a.findings.end()) {
    // Every failure was in a restart attempt a later one replaced, and the later one ran on.
    v.status = Status::Healthy;
    v.summary = base::say(base::Say::VerdictRecovered, {{"what", survived->summary}});
  } else {
    // No error, or only NCCL WARN lines no rule knows (network plugins retrying, fallbacks) on a
    // run where nothing failed.
    v.status = Status::Healthy;
    v.nothing_failed = true;
    v.summary = events.empty() ? base::say(base::Say::VerdictHealthyLines, {{"count", std::to_string(facts.job.worker_lines)}})
                               : base::say(base::Say::VerdictHealthyEvents, {{"count", std::to_string(events.size())}});
    if (facts.job.first_error) {
      const model::Event& w = events[*facts.job.first_error];
      v.summary += base::say(base::Say::VerdictHealthyNcclWarnings, {{"where", w.path + ":" + std::to_string(w.line)}});
    }
  }
}

}  // namespace

bool lead_with_catalogue(const std::vector<model::Event>& events, const std::vector<correlate::EventIndex>& candidates,
                         const Catalogue& catalogue, Verdict& v) {
  const bool any = std::any_of(candidates.begin(), candidates.end(), [&](correlate::EventIndex i) {
    const CatalogueEntry* c = catalogue.classify(events[i]);
    return c != nullptr && c->classifies();
  });
  if (!any) return false;
  Verdict led;
  decide_unknown(events, candidates, candidates, &catalogue, led);
  led.nothing_failed = false;
  v = std::move(led);
  return true;
}

Analysis Engine::analyze(const std::vector<model::Event>& events, const Hits& hits, const correlate::Facts& facts,
                         const CatalogueShelf* catalogues) const {
  Analysis a;
  event_findings(events, hits, facts, a);
  fact_findings(events, facts, a);
  rank_findings(events, facts, a);
  decide(events, facts, catalogues, a);
  return a;
}

}  // namespace dtriage::rules
