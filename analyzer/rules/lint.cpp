// `dtriage rules lint`: names a rule uses must exist (registry fields and facts, regex captures,
// rule ids), its id must match its file, its wildcards must match something.
#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

#include "model/fields.hpp"
#include "rules/loader.hpp"

namespace dtriage::rules {
namespace {

std::set<std::string> captures(const Rule& r) {
  std::set<std::string> out;
  if (r.regex.empty()) return out;
  re2::RE2 re(r.regex, re2::RE2::Quiet);
  for (const auto& [name, index] : re.NamedCapturingGroups()) out.insert(name);
  return out;
}

bool is_fact_path(const std::string& s) { return s.rfind("node.", 0) == 0 || s.rfind("job.", 0) == 0; }

// A text's {placeholders}, each once.
std::set<std::string> placeholders(const std::string& text) {
  static const re2::RE2 ph(R"(\{([^{}]*)\})");
  std::set<std::string> out;
  re2::StringPiece in(text);
  std::string name;
  while (re2::RE2::FindAndConsume(&in, ph, &name)) out.insert(name);
  return out;
}

std::size_t count_of(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The rule's Chinese texts: each English one has one, with the same placeholders and as many
// optional parts (a sentence that names other values than its English would be another claim).
void check_translation(const Rule& r, const std::function<void(const std::string&)>& bad) {
  const struct {
    const char* name;
    const std::string& en;
    const std::string& zh;
  } texts[] = {{"title", r.title, r.zh.title},
               {"summary", r.summary, r.zh.summary},
               {"remedy", r.remedy, r.zh.remedy},
               {"description", r.description, r.zh.description}};
  for (const auto& t : texts) {
    if (t.en.empty() && !t.zh.empty()) bad(std::string("zh.") + t.name + " has no English " + t.name + " beside it");
    if (t.en.empty() || (t.zh.empty() && t.en == r.id)) continue;
    if (t.zh.empty()) {
      bad(std::string("no Chinese ") + t.name + " (zh." + t.name + "): every rule of the pack speaks both languages");
      continue;
    }
    const std::set<std::string> en = placeholders(t.en), zh = placeholders(t.zh);
    for (const std::string& p : en)
      if (zh.count(p) == 0) bad(std::string("zh.") + t.name + " lacks the placeholder {" + p + "} of its English");
    for (const std::string& p : zh)
      if (en.count(p) == 0) bad(std::string("zh.") + t.name + " has the placeholder {" + p + "} its English does not");
    if (count_of(t.en, "[[") != count_of(t.zh, "[["))
      bad(std::string("zh.") + t.name + " has " + std::to_string(count_of(t.zh, "[[")) + " optional part(s) [[...]], its English " +
          std::to_string(count_of(t.en, "[[")));
  }
}

}  // namespace

std::vector<std::string> lint(const std::vector<Rule>& rules) {
  std::vector<std::string> out;
  for (const Rule& r : rules) {
    const std::string at = r.file + ":" + std::to_string(r.line) + ": " + r.id + ": ";
    auto bad = [&](const std::string& m) { out.push_back(at + m); };
    const std::set<std::string> caps = captures(r);
    // The engine's own placeholders, set after the captures: a capture of that name would be
    // overwritten (a device range's "count" shown as the number of lines matched).
    for (const char* builtin : {"count"})
      if (caps.count(builtin) != 0)
        bad(std::string("capture (?P<") + builtin + ">) shadows the engine's {" + builtin + "} (the lines matched): rename it");
    // Names a condition may use: event.<field> in event rules, node.* / job.* facts anywhere.
    auto check_name = [&](const std::string& name, const char* where) {
      if (is_fact_path(name)) {
        if (model::find_fact(name) == nullptr) bad(std::string("unknown fact '") + name + "' in " + where);
        else if (name.rfind("node.", 0) == 0 && r.scope == Scope::Job) bad("job rule names node fact '" + name + "'");
      } else if (name.rfind("event.", 0) == 0) {
        if (r.scope != Scope::Event) bad(std::string("a ") + scope_name(r.scope) + " rule has no event: '" + name + "'");
        else if (model::find_event_field(name.substr(6)) == nullptr) bad("unknown event field '" + name + "' in " + where);
      } else {
        return false;
      }
      return true;
    };
    for (const Condition& c : r.when) {
      if (!check_name(c.lhs, "when")) bad("condition '" + c.text + "' does not name a fact (event.*, node.*, job.*)");
      if (!c.pattern) check_name(c.rhs, "when");
    }
    for (const auto& [k, v] : r.fields)
      if (model::find_event_field(k) == nullptr) bad("unknown event field '" + k + "' in match.fields");
    for (const std::string* t : {&r.summary, &r.remedy}) {  // an optional segment needs a placeholder
      static const re2::RE2 seg(R"(\[\[((?:[^\]]|\][^\]])*)\]\])");
      re2::StringPiece in(*t);
      std::string inner;
      while (re2::RE2::FindAndConsume(&in, seg, &inner))
        if (inner.find('{') == std::string::npos) bad("[[" + inner + "]] holds no placeholder: it is always shown");
    }
    // Placeholders: facts, or (event rules) the event's fields and the regex's named captures.
    for (const std::string* t : {&r.summary, &r.remedy}) {
      static const re2::RE2 ph(R"(\{([^{}]*)\})");
      re2::StringPiece in(*t);
      std::string name;
      while (re2::RE2::FindAndConsume(&in, ph, &name)) {
        if (check_name(name, "a placeholder")) continue;
        if (r.scope == Scope::Event && (model::find_event_field(name) != nullptr || caps.count(name) != 0)) continue;
        bad("placeholder {" + name + "} names no " +
            (r.scope == Scope::Event ? std::string("event field, capture or fact") : std::string("fact")));
      }
    }
    check_translation(r, bad);
    if (!r.rank_field.empty() && !check_name(r.rank_field, "rank") &&
        !(r.scope == Scope::Event && (model::find_event_field(r.rank_field) != nullptr || caps.count(r.rank_field) != 0)))
      bad("rank '" + r.rank_field + "' names no field, capture or fact");
    if (!r.node_field.empty() && !(r.scope == Scope::Job && model::find_fact(r.node_field) != nullptr) &&
        !(r.scope == Scope::Event && (caps.count(r.node_field) != 0 || model::find_event_field(r.node_field) != nullptr)))
      bad("node '" + r.node_field + "' names no " + (r.scope == Scope::Event ? "capture or event field" : "job fact"));
    // Rules it explains or requires must exist; a wildcard must match at least one rule.
    for (const std::string& x : r.explains) {
      if (x.empty()) {
        bad("empty entry in explains");
        continue;
      }
      bool found = false;
      for (const Rule& o : rules) found = found || (&o != &r && (x == o.id || (x.back() == '*' && r.explains_rule(o.id))));
      if (!found) bad(x.back() == '*' ? "explains wildcard '" + x + "' matches no rule" : "explains unknown rule " + x);
    }
    for (const std::string& x : r.requires_rules)
      if (std::none_of(rules.begin(), rules.end(), [&](const Rule& o) { return o.id == x; })) bad("requires unknown rule " + x);
    // The id is <family>.<slug>, the file rules/<family>/<slug>.yaml.
    const std::filesystem::path file(r.file);
    const std::string want = file.parent_path().filename().string() + "." + file.stem().string();
    if (r.file.find(".yaml") != std::string::npos && r.id != want) bad("id does not match its file (expected " + want + ")");
  }
  return out;
}

}  // namespace dtriage::rules
