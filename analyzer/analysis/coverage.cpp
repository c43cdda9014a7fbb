#include "analysis/coverage.hpp"

#include <algorithm>
#include <map>

#include "rules/rule.hpp"

namespace dtriage::analysis {
namespace {

// The lines of every rule's match examples, split at newlines.
std::vector<std::string> rule_example_lines(const rules::Engine& engine) {
  std::vector<std::string> out;
  for (const rules::Rule& r : engine.rules())
    for (const auto& ex : r.examples_match)
      for (const auto& [path, text] : ex) {
        std::size_t at = 0;
        while (at <= text.size()) {
          const std::size_t nl = std::min(text.find('\n', at), text.size());
          if (nl > at) out.emplace_back(text.substr(at, nl - at));
          at = nl + 1;
        }
      }
  return out;
}

EntryCoverage cover(const rules::CatalogueEntry& e, const RuleBook& book, const std::vector<std::string>& lines) {
  EntryCoverage c;
  c.entry = &e;
  c.quiet = e.role == rules::EntryRole::Benign;
  for (std::size_t k = 0; k < e.examples.size(); ++k) {
    Inputs in;
    in.texts.emplace_back("n01/train.log", e.examples[k] + "\n");
    const auto a = analyze(std::move(in), book);
    const rules::Verdict& v = a->outcome.verdict;
    const std::string failed = v.status == rules::Status::Failed ? v.category : std::string();
    if (k == 0) c.verdict = failed;
    if (!failed.empty()) c.quiet = false;
    if (!e.classifies()) continue;
    if (failed == e.category) c.by_verdict = true;
    for (const rules::Finding& f : a->outcome.findings)
      if (!c.by_rule && f.rule->category == e.category && f.rule->severity_rank() >= 2) {
        c.by_rule = true;
        c.rule = f.rule->id;
      }
  }
  if (e.classifies()) {
    c.rule_example = std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return e.matches(l); });
  }
  return c;
}

}  // namespace

Coverage coverage(const RuleBook& book) {
  Coverage out;
  if (!book.catalogue) return out;
  const std::vector<std::string> lines = rule_example_lines(*book.engine);
  std::map<std::string, std::size_t> at;
  SourceCoverage all;
  all.source = "all";
  all.title = "all sources";
  const rules::Catalogue& catalogue = book.catalogue->get();
  for (const rules::CatalogueSource& s : catalogue.sources()) {
    at[s.id] = out.sources.size();
    out.sources.push_back({s.id, s.title});
  }
  for (const rules::CatalogueEntry& e : catalogue.entries()) {
    EntryCoverage c = cover(e, book, lines);
    for (SourceCoverage* s : {&out.sources[at[e.source]], &all}) {
      ++s->entries;
      if (e.role == rules::EntryRole::Benign) {
        ++s->benign;
        s->quiet += c.quiet ? 1 : 0;
        continue;
      }
      if (!e.classifies()) continue;
      ++s->classified;
      s->by_rule += c.by_rule ? 1 : 0;
      s->by_verdict += c.by_verdict ? 1 : 0;
      s->rule_example += c.rule_example ? 1 : 0;
    }
    out.entries.push_back(std::move(c));
  }
  out.sources.push_back(std::move(all));
  return out;
}

}  // namespace dtriage::analysis
