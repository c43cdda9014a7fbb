// `dtriage rules list | show ID | test | lint | fields | patterns | literals | coverage [SOURCE]`.
#include <re2/re2.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <span>

#include "base/sentences.hpp"
#include "analysis/coverage.hpp"
#include "cli/commands.hpp"
#include "model/fields.hpp"
#include "rules/loader.hpp"

namespace dtriage::cli {
namespace {

void print_fields(const char* title, std::span<const model::FieldInfo> fields) {
  std::printf("%s\n\n| name | type | meaning |\n|---|---|---|\n", title);
  for (const auto& f : fields)
    std::printf("| `%.*s` | %s | %.*s |\n", static_cast<int>(f.name.size()), f.name.data(), model::type_name(f.type),
                static_cast<int>(f.meaning.size()), f.meaning.data());
  std::printf("\n");
}

// Every event rule's regex, one per line, for `rg -f` / `grep -P -f`: named groups become plain
// groups (one combined regex cannot repeat a name), and rules without a literal (matched by their
// event kind, such as npu-smi table rows) are left out: alone they match every line.
void print_patterns(const std::vector<rules::Rule>& rs) {
  static const re2::RE2 named(R"(\(\?P<\w+>)");
  for (const auto& r : rs) {
    if (r.scope != rules::Scope::Event || r.regex.empty() || r.regex == "." || r.regex == ".*") continue;
    std::string plain = r.regex;
    re2::RE2::GlobalReplace(&plain, named, "(");
    std::printf("%s\n", plain.c_str());
  }
}

int show_rule(const std::vector<rules::Rule>& rs, const std::string& id) {
  for (const auto& r : rs) {
    if (r.id != id) continue;
    std::printf("id: %s\nfile: %s:%d\ntitle: %s\ncategory: %s\nseverity: %s\nrole: %s\nscope: %s\n", r.id.c_str(), r.file.c_str(),
                r.line, r.title_in(base::language()).c_str(), r.category.c_str(), r.severity.c_str(), rules::role_name(r.role), rules::scope_name(r.scope));
    if (!r.regex.empty()) std::printf("regex: %s\n", r.regex.c_str());
    for (const auto& c : r.when) std::printf("when: %s\n", c.text.c_str());
    std::printf("summary: %s\nremedy: %s\n", r.summary_in(base::language()).c_str(), r.remedy_in(base::language()).c_str());
    for (const auto& e : r.explains) std::printf("explains: %s\n", e.c_str());
    if (const std::string& d = r.description_in(base::language()); !d.empty()) std::printf("\n%s\n", d.c_str());
    return 0;
  }
  std::fprintf(stderr, "dtriage: no rule with id '%s'\n", id.c_str());
  return 2;
}

// The catalogues' figures per source; with a source, each of its entries and what met it.
int print_coverage(const analysis::RuleBook& book, const std::string& source) {
  if (!book.catalogue || book.catalogue->get().entries().empty()) {
    std::fprintf(stderr, "dtriage: no catalogue entries (catalogues/ beside the rules, or $DTRIAGE_CATALOGUE_DIR)\n");
    return 2;
  }
  const analysis::Coverage c = analysis::coverage(book);
  if (source.empty()) {
    std::printf("%-18s %7s %10s %8s %8s %12s %7s %8s\n", "source", "entries", "classified", "by-rule", "verdict", "rule-example", "benign",
                "healthy");
    for (const auto& s : c.sources)
      std::printf("%-18s %7zu %10zu %8zu %8zu %12zu %7zu %8zu\n", s.source.c_str(), s.entries, s.classified, s.by_rule, s.by_verdict,
                  s.rule_example, s.benign, s.quiet);
    std::printf("\nclassified: a cause or consequence with a category (not unknown); by-rule: a rule of that category fires on one of\n"
                "its examples; verdict: an example alone gets that category as the verdict's; rule-example: a rule's\n"
                "own examples hold such a line; healthy: benign entries whose examples alone leave the job healthy.\n");
    return book.catalogue->get().problems().empty() ? 0 : 1;
  }
  bool any = false;
  for (const auto& e : c.entries) {
    if (e.entry->source != source) continue;
    any = true;
    const bool benign = e.entry->role == rules::EntryRole::Benign;
    std::printf("%-46s %-11s %-24s %-8s %s\n", e.entry->id.c_str(), rules::role_name(e.entry->role), e.entry->category.c_str(),
                benign ? (e.quiet ? "healthy" : "FAILS") : e.by_rule ? "rule" : e.by_verdict ? "verdict" : "-",
                benign ? "" : e.by_rule ? e.rule.c_str() : e.verdict.c_str());
  }
  if (!any) {
    std::fprintf(stderr, "dtriage: no catalogue source '%s'\n", source.c_str());
    return 2;
  }
  return 0;
}

int rules_action(const std::string& action, const Config& config, const std::string& id) {
  const auto book = load_rules(config, "");
  if (!book) return 2;
  const auto& problems = book->set.problems;
  const auto& rs = book->engine->rules();
  if (action == "fields") {  // the registry, as the README's tables
    print_fields("Event fields (`event.NAME` in conditions, `{NAME}` in event rules' summaries):", model::event_fields());
    print_fields("Facts (`node.*` per node, `job.*` per job; in conditions and summaries):", model::fact_fields());
    return 0;
  }
  if (action == "patterns") {
    print_patterns(rs);
    return 0;
  }
  if (action == "literals") {  // what the line gate looks for (rules' atoms, then the parsers')
    for (const auto& [group, lit] : book->gate->literals()) std::printf("%s\t%s\n", group.c_str(), lit.c_str());
    for (const auto& k : book->engine->literals().open_kinds) std::printf("open-kind\t%s\n", k.c_str());
    return 0;
  }
  if (action == "list") {
    for (const auto& r : rs) std::printf("%-40s %-26s %-8s %s\n", r.id.c_str(), r.category.c_str(), r.severity.c_str(), r.title_in(base::language()).c_str());
    std::printf("%zu rules\n", rs.size());
    return problems.empty() ? 0 : 1;
  }
  if (action == "show") return show_rule(rs, id);
  if (action == "coverage") return print_coverage(*book, id);
  // test and lint: examples must behave (each through the whole analysis); lint also checks
  // explains targets.
  std::vector<std::string> failures = analysis::check_examples(*book);
  if (book->catalogue)
    for (const auto& p : book->catalogue->get().problems()) failures.push_back(p.where + ": catalogue: " + p.message);
  if (action == "lint")
    for (std::string& m : rules::lint(rs)) failures.push_back(std::move(m));
  for (const auto& f : failures) std::printf("FAIL %s\n", f.c_str());
  std::size_t examples = 0;
  for (const auto& r : rs) examples += r.examples_match.size() + r.examples_no_match.size();
  std::printf("%zu rules, %zu examples: %zu passed, %zu failed\n", rs.size(), examples, examples - std::min(examples, failures.size()),
              failures.size() + problems.size());
  return failures.empty() && problems.empty() ? 0 : 1;
}

}  // namespace

int cmd_rules(const std::string& action, const Config& config, const std::string& id) {
  const int code = rules_action(action, config, id);
  // What was printed must have been written (`rules list > /dev/full` is a failure, not a 0).
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    std::fprintf(stderr, "dtriage: could not write the output: %s\n", std::strerror(errno));
    return 2;
  }
  return code;
}

}  // namespace dtriage::cli
