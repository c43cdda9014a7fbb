// `dtriage rules list | show ID | test | lint | fields | patterns | literals`.
#include <re2/re2.h>

#include <cstdio>
#include <span>

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
                r.line, r.title.c_str(), r.category.c_str(), r.severity.c_str(), rules::role_name(r.role), rules::scope_name(r.scope));
    if (!r.regex.empty()) std::printf("regex: %s\n", r.regex.c_str());
    for (const auto& c : r.when) std::printf("when: %s\n", c.text.c_str());
    std::printf("summary: %s\nremedy: %s\n", r.summary.c_str(), r.remedy.c_str());
    for (const auto& e : r.explains) std::printf("explains: %s\n", e.c_str());
    if (!r.description.empty()) std::printf("\n%s\n", r.description.c_str());
    return 0;
  }
  std::fprintf(stderr, "dtriage: no rule with id '%s'\n", id.c_str());
  return 2;
}

}  // namespace

int cmd_rules(const std::string& action, const Config& config, const std::string& id) {
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
    for (const auto& r : rs) std::printf("%-40s %-26s %-8s %s\n", r.id.c_str(), r.category.c_str(), r.severity.c_str(), r.title.c_str());
    std::printf("%zu rules\n", rs.size());
    return problems.empty() ? 0 : 1;
  }
  if (action == "show") return show_rule(rs, id);
  // test and lint: examples must behave (each through the whole analysis); lint also checks
  // explains targets.
  std::vector<std::string> failures = analysis::check_examples(*book);
  if (action == "lint")
    for (std::string& m : rules::lint(rs)) failures.push_back(std::move(m));
  for (const auto& f : failures) std::printf("FAIL %s\n", f.c_str());
  std::size_t examples = 0;
  for (const auto& r : rs) examples += r.examples_match.size() + r.examples_no_match.size();
  std::printf("%zu rules, %zu examples: %zu passed, %zu failed\n", rs.size(), examples, examples - std::min(examples, failures.size()),
              failures.size() + problems.size());
  return failures.empty() && problems.empty() ? 0 : 1;
}

}  // namespace dtriage::cli
