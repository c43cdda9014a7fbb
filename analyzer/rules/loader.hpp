// Loads rule files (rules/<family>/<slug>.yaml) and checks them.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "rules/rule.hpp"

namespace dtriage::rules {

struct LoadProblem {
  std::string where;  // file:line
  std::string message;
};

struct RuleSet {
  std::vector<Rule> rules;
  std::vector<LoadProblem> problems;
  std::vector<std::size_t> root_of;  // rules[i] came from the i-th directory given (load_rules)
  std::size_t loading_root = 0;      // the directory being loaded
};

// Loads every *.yaml / *.yml below each directory (sorted), later directories adding to (or, with
// the same id, replacing) earlier ones. A broken file or rule becomes a problem, never a crash.
RuleSet load_rules(const std::vector<std::string>& dirs);

// Parses rules from YAML text (tests). `file` names it in problems.
void load_rules_text(const std::string& text, const std::string& file, RuleSet& out);

// Each YAML file (*.yaml, *.yml) of `path` (a file itself, or every one below a folder), sorted,
// with its text; a file that cannot be read, or a folder walk that fails, is a (path, reason) problem.
struct YamlFile {
  std::string path, text;
};
std::vector<YamlFile> read_yaml_files(const std::string& path, std::vector<std::pair<std::string, std::string>>& problems);

// What a YAML document's aliases would make of it, read whole: "" when its scalars, counting every
// alias each time it is used, come to at most max(16 x `text_size`, 1 MiB) bytes in at most 1M
// nodes; else the problem ("aliases expand ..."). A rule file's 1 MB anchor used 2,000 times
// would be read as 2 GB of strings (or a nest of aliases, exponentially more).
std::string yaml_expansion_problem(const YAML::Node& doc, std::size_t text_size);

// $env_var, else <prefix>/share/dtriage/<name> beside the running executable when installed, else
// `source_tree` (a build runs on the source tree's data).
std::string data_dir(const char* env_var, const char* name, const char* source_tree);
// The directory of the installed rule pack, or the source tree's rules/ when run from a build.
std::string default_rules_dir();

// What `rules lint` finds beyond loading: unknown fields, facts, placeholders and rules, wildcards
// that match nothing, ids that do not match their file. One message per problem ("file:line: id: ...").
std::vector<std::string> lint(const std::vector<Rule>& rules);

}  // namespace dtriage::rules
