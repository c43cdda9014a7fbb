#include "rules/loader.hpp"

#include <re2/re2.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "model/categories.hpp"

namespace dtriage::rules {


namespace {

std::string where(const std::string& file, const YAML::Node& n) {
  return file + ":" + std::to_string(n.Mark().line + 1);
}

std::vector<std::string> string_list(const YAML::Node& n) {
  std::vector<std::string> out;
  if (!n) return out;
  if (n.IsSequence()) {
    for (const auto& x : n) out.push_back(x.as<std::string>());
  } else {
    out.push_back(n.as<std::string>());
  }
  return out;
}

// "fact op value", "fact missing|exists", "fact matches|not matches 'RE2'".
bool parse_condition(const std::string& text, Condition& c, std::string& error) {
  static const re2::RE2 re(R"(^\s*([\w.]+)\s*(<=|>=|==|!=|<|>)\s*([\w.*-]+)\s*$)");
  static const re2::RE2 unary(R"(^\s*([\w.]+)\s+(missing|exists)\s*$)");
  static const re2::RE2 pattern(R"(^\s*([\w.]+)\s+(matches|not matches)\s+'(.*)'\s*$)");
  c.text = text;
  if (re2::RE2::FullMatch(text, unary, &c.lhs, &c.op)) return true;
  if (re2::RE2::FullMatch(text, pattern, &c.lhs, &c.op, &c.rhs)) {
    auto compiled = std::make_shared<re2::RE2>(c.rhs, re2::RE2::Quiet);
    if (!compiled->ok()) {
      error = "bad regex in '" + text + "': " + compiled->error();
      return false;
    }
    c.pattern = std::move(compiled);
    return true;
  }
  return re2::RE2::FullMatch(text, re, &c.lhs, &c.op, &c.rhs);
}

// node.* / job.* names a rule reads: in conditions, {placeholders} and its rank field.
std::vector<std::string> facts_named(const Rule& r) {
  std::vector<std::string> out;
  auto take = [&](const std::string& name) {
    if ((name.rfind("node.", 0) == 0 || name.rfind("job.", 0) == 0) &&
        std::find(out.begin(), out.end(), name) == out.end())
      out.push_back(name);
  };
  for (const Condition& c : r.when) {
    take(c.lhs);
    if (!c.pattern) take(c.rhs);
  }
  for (const std::string* t : {&r.summary, &r.remedy}) {
    static const re2::RE2 ph(R"(\{([\w.]+)\})");
    re2::StringPiece in(*t);
    std::string name;
    while (re2::RE2::FindAndConsume(&in, ph, &name)) take(name);
  }
  take(r.rank_field);
  if (r.scope == Scope::Job) take(r.node_field);
  return out;
}

// The first key of a rule mapping that is not a rule key, as a problem; "" when all are known.
std::string unknown_key(const YAML::Node& n) {
  static const std::set<std::string> known = {
      "id", "title", "description", "category", "severity", "role", "scope", "match", "when", "requires",
      "summary", "remedy", "references", "explains", "examples", "priority", "rank", "node", "reports", "defer", "phase", "zh"};
  for (const auto& kv : n) {
    const std::string key = kv.first.as<std::string>();
    if (known.count(key) == 0) return "unknown key '" + key + "'";
  }
  return "";
}

// What the rule is and how it counts: id, title, description, category, severity, role and scope.
// Returns the problem, or "" when they are read.
std::string read_identity(const YAML::Node& n, const std::string& file, Rule& r) {
  r.file = file;
  r.line = n.Mark().line + 1;
  r.id = n["id"] ? n["id"].as<std::string>() : "";
  if (r.id.empty()) return "missing id";
  r.title = n["title"] ? n["title"].as<std::string>() : r.id;
  r.description = n["description"] ? n["description"].as<std::string>() : "";
  r.category = n["category"] ? n["category"].as<std::string>() : "";
  if (!model::is_category(r.category)) return r.id + ": category '" + r.category + "' is not one of the contract's ids (docs/CONTRACT.md)";
  r.severity = n["severity"] ? n["severity"].as<std::string>() : "error";
  if (r.severity != "critical" && r.severity != "error" && r.severity != "warning" && r.severity != "info")
    return r.id + ": severity must be critical, error, warning or info";
  const std::string role = n["role"] ? n["role"].as<std::string>() : "cause";
  if (role == "cause") r.role = Role::Cause;
  else if (role == "symptom") r.role = Role::Symptom;
  else if (role == "warning") r.role = Role::Warning;
  else return r.id + ": role must be cause, symptom or warning";
  const std::string scope = n["scope"] ? n["scope"].as<std::string>() : "event";
  if (scope == "event") r.scope = Scope::Event;
  else if (scope == "node") r.scope = Scope::Node;
  else if (scope == "job") r.scope = Scope::Job;
  else return r.id + ": scope must be event, node or job";
  return "";
}

// The lines an event rule fires on: match.kind, code, regex, unless and fields. Returns the problem,
// or "" when they are read and the regexes compile.
std::string read_match(const YAML::Node& n, Rule& r) {
  if (const YAML::Node m = n["match"]) {
    for (const std::string& k : string_list(m["kind"])) {
      auto kind = model::kind_from_name(k);
      if (!kind) return r.id + ": match.kind: no log family '" + k + "' (the families are in `dtriage fields`)";
      r.kinds.push_back(*kind);
    }
    r.codes = string_list(m["code"]);
    if (m["regex"]) r.regex = m["regex"].as<std::string>();
    if (m["unless"]) r.unless = m["unless"].as<std::string>();
    if (const YAML::Node fl = m["fields"]) {
      for (const auto& kv : fl) r.fields.emplace_back(kv.first.as<std::string>(), kv.second.as<std::string>());
    }
  }
  for (const std::string* pattern : {&r.regex, &r.unless}) {
    if (pattern->empty()) continue;
    re2::RE2 re(*pattern, re2::RE2::Quiet);
    if (!re.ok()) return r.id + ": bad regex: " + re.error();
  }
  if (r.scope == Scope::Event && r.regex.empty() && r.codes.empty() && r.fields.empty())
    return r.id + ": an event rule needs match.regex, match.code or match.fields";
  return "";
}

// The facts a rule needs ('when') and the rules it builds on ('requires'). Returns the problem, or
// "" when they are read.
std::string read_conditions(const YAML::Node& n, Rule& r) {
  for (const std::string& c : string_list(n["when"])) {
    Condition cond;
    std::string error;
    if (!parse_condition(c, cond, error))
      return r.id + ": " + (error.empty() ? "cannot read condition '" + c + "' (expected: fact op value)" : error);
    r.when.push_back(cond);
  }
  if (r.scope != Scope::Event && r.when.empty() && n["requires"].IsNull()) return r.id + ": a node or job rule needs 'when' conditions";
  r.requires_rules = string_list(n["requires"]);
  return "";
}

// What a finding of the rule says and how it ranks: summary, remedy, references, explains,
// priority, rank and node fields, reports and defer. Returns the problem, or "" when they are read.
std::string read_finding(const YAML::Node& n, Rule& r) {
  r.summary = n["summary"] ? n["summary"].as<std::string>() : r.title;
  r.remedy = n["remedy"] ? n["remedy"].as<std::string>() : "";
  if (const YAML::Node zh = n["zh"]) {  // the Chinese of title, summary, remedy and description
    if (!zh.IsMap()) return r.id + ": zh must be a mapping of title, summary, remedy and description";
    for (const auto& kv : zh) {
      const std::string key = kv.first.as<std::string>();
      std::string* to = key == "title"         ? &r.zh.title
                        : key == "summary"     ? &r.zh.summary
                        : key == "remedy"      ? &r.zh.remedy
                        : key == "description" ? &r.zh.description
                                               : nullptr;
      if (to == nullptr) return r.id + ": unknown key 'zh." + key + "' (zh holds title, summary, remedy and description)";
      *to = kv.second.as<std::string>();
    }
    if (!n["summary"] && r.zh.summary.empty()) r.zh.summary = r.zh.title;  // as the English: the title
  }
  r.references = string_list(n["references"]);
  r.explains = string_list(n["explains"]);
  r.priority = n["priority"] ? n["priority"].as<int>() : 0;
  r.rank_field = n["rank"] ? n["rank"].as<std::string>() : "";
  r.node_field = n["node"] ? n["node"].as<std::string>() : "";
  r.reports = n["reports"] ? n["reports"].as<std::string>() : "";
  if (!r.reports.empty() && r.reports != "timeout" && r.reports != "peer-loss") return r.id + ": reports must be 'timeout' or 'peer-loss'";
  if (n["phase"]) {
    const std::string phase = n["phase"].as<std::string>();
    if (phase != "launch" && phase != "stop" && phase != "teardown") return r.id + ": phase must be 'launch', 'stop' or 'teardown'";
    r.launch_phase = phase == "launch";
    r.stop_phase = phase == "stop";
    r.teardown_phase = phase == "teardown";
  }
  if (n["defer"]) {
    if (n["defer"].as<std::string>() != "culprit") return r.id + ": defer must be 'culprit'";
    r.defers_to_culprit = true;
  }
  return "";
}

// One examples list. A string is one file, "example.log"; a mapping is a dump of files (path: text).
std::vector<Rule::Example> read_example_list(const YAML::Node& list) {
  std::vector<Rule::Example> all;
  if (!list) return all;
  for (const auto& item : list) {
    Rule::Example e;
    if (item.IsMap()) {
      for (const auto& kv : item) e.emplace_back(kv.first.as<std::string>(), kv.second.as<std::string>());
    } else {
      e.emplace_back("example.log", item.as<std::string>());
    }
    all.push_back(std::move(e));
  }
  return all;
}

// What the rule fires on and what it must not (examples.match, examples.no_match). Returns the
// problem, or "" when there is at least one match example.
std::string read_examples(const YAML::Node& n, Rule& r) {
  if (const YAML::Node ex = n["examples"]) {
    r.examples_match = read_example_list(ex["match"]);
    r.examples_no_match = read_example_list(ex["no_match"]);
  }
  if (r.examples_match.empty()) return r.id + ": a rule needs examples.match (a line, or a dump of files it fires on)";
  return "";
}

// The rule at n, part by part; the first problem stops it. Returns that problem, or "" when r
// holds the whole rule.
std::string read_rule(const YAML::Node& n, const std::string& file, Rule& r) {
  if (!n.IsMap()) return "a rule must be a mapping";
  if (std::string problem = unknown_key(n); !problem.empty()) return problem;
  if (std::string problem = read_identity(n, file, r); !problem.empty()) return problem;
  if (std::string problem = read_match(n, r); !problem.empty()) return problem;
  if (std::string problem = read_conditions(n, r); !problem.empty()) return problem;
  if (std::string problem = read_finding(n, r); !problem.empty()) return problem;
  r.facts_named = facts_named(r);
  return read_examples(n, r);
}

// Adds r to the set, or replaces the rule of that id an earlier directory gave. Returns the
// problem, or "" when it is in.
std::string add_rule(Rule r, RuleSet& out) {
  for (std::size_t k = 0; k < out.rules.size(); ++k) {
    Rule& existing = out.rules[k];
    if (existing.id != r.id) continue;
    // Within one directory given, an id is taken once; a later directory overrides an earlier one's.
    if (out.root_of[k] == out.loading_root) return r.id + ": duplicate id (also " + existing.file + ":" + std::to_string(existing.line) + ")";
    existing = std::move(r);
    out.root_of[k] = out.loading_root;
    return "";
  }
  out.rules.push_back(std::move(r));
  out.root_of.push_back(out.loading_root);
  return "";
}

// One rule of a file into out, or the problem that keeps it out, at the rule's line.
void load_one(const YAML::Node& n, const std::string& file, RuleSet& out) {
  const std::string at = where(file, n);
  Rule r;
  std::string problem = read_rule(n, file, r);
  if (problem.empty()) problem = add_rule(std::move(r), out);
  if (!problem.empty()) out.problems.push_back({at, problem});
}

// The documents of a YAML stream, split at "---" lines, each padded with the newlines before it so
// that marks keep their line numbers. (yaml-cpp 0.7's LoadAll never returns on some inputs, a lone
// "," among them; Load on each document does.)
std::vector<YAML::Node> load_documents(const std::string& text) {
  std::vector<YAML::Node> docs;
  std::string doc;
  std::size_t line = 0, first = 0;
  std::size_t start = 0;
  auto flush = [&] {
    if (doc.find_first_not_of(" \t\r\n") != std::string::npos) docs.push_back(YAML::Load(std::string(first, '\n') + doc));
    doc.clear();
  };
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    const std::string_view l(text.data() + start, nl - start);
    if (l == "---" || l.rfind("--- ", 0) == 0 || l == "..." || l == "---\r") {
      flush();
      first = line + 1;
    } else {
      doc.append(l);
      doc.push_back('\n');
    }
    ++line;
    start = nl + 1;
  }
  flush();
  return docs;
}

}  // namespace

std::string yaml_expansion_problem(const YAML::Node& doc, std::size_t text_size) {
  const std::uint64_t max_bytes = std::max<std::uint64_t>(16ull * text_size, 1ull << 20);
  constexpr std::uint64_t kMaxNodes = 1'000'000;
  std::uint64_t bytes = 0, nodes = 0;
  std::vector<YAML::Node> todo{doc};
  while (!todo.empty()) {
    const YAML::Node n = todo.back();
    todo.pop_back();
    if (++nodes > kMaxNodes || bytes > max_bytes) break;
    if (n.IsScalar()) {
      bytes += n.Scalar().size();
    } else if (n.IsSequence()) {
      for (const auto& c : n) todo.push_back(c);
    } else if (n.IsMap()) {
      for (const auto& kv : n) {
        todo.push_back(kv.first);
        todo.push_back(kv.second);
      }
    }
  }
  if (nodes <= kMaxNodes && bytes <= max_bytes) return "";
  return "aliases expand this document beyond " + std::to_string(max_bytes >> 10) + " KiB or " +
         std::to_string(kMaxNodes) + " nodes; it was not loaded";
}

void load_rules_text(const std::string& text, const std::string& file, RuleSet& out) {
  try {
    const std::vector<YAML::Node> docs = load_documents(text);
    for (const YAML::Node& doc : docs) {
      if (!doc || doc.IsNull()) continue;
      if (std::string p = yaml_expansion_problem(doc, text.size()); !p.empty()) {
        out.problems.push_back({where(file, doc), std::move(p)});
        continue;
      }
      if (doc.IsSequence()) {
        for (const auto& r : doc) load_one(r, file, out);
      } else {
        load_one(doc, file, out);
      }
    }
  } catch (const YAML::Exception& e) {
    out.problems.push_back({file + ":" + std::to_string(e.mark.line + 1), e.msg});
  } catch (const std::exception& e) {
    out.problems.push_back({file, e.what()});
  }
}

RuleSet load_rules(const std::vector<std::string>& dirs) {
  RuleSet out;
  for (std::size_t d = 0; d < dirs.size(); ++d) {
    const std::string& dir = dirs[d];
    out.loading_root = d;
    std::error_code ec;
    if (!std::filesystem::exists(dir, ec)) {
      out.problems.push_back({dir, "no such rules directory"});
      continue;
    }
    std::vector<std::pair<std::string, std::string>> problems;
    const std::vector<YamlFile> files = read_yaml_files(dir, problems);
    for (auto& [path, reason] : problems) out.problems.push_back({std::move(path), std::move(reason)});
    for (const YamlFile& f : files) load_rules_text(f.text, f.path, out);
  }
  return out;
}

std::vector<YamlFile> read_yaml_files(const std::string& path, std::vector<std::pair<std::string, std::string>>& problems) {
  std::error_code ec;
  std::vector<std::string> files;
  if (std::filesystem::is_regular_file(path, ec)) {
    files.push_back(path);
  } else {
    for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      const std::string ext = it->path().extension().string();
      if (it->is_regular_file(ec) && (ext == ".yaml" || ext == ".yml")) files.push_back(it->path().string());
    }
    if (ec) problems.emplace_back(path, ec.message());
  }
  std::sort(files.begin(), files.end());
  std::vector<YamlFile> out;
  for (const std::string& f : files) {
    std::ifstream in(f);
    if (!in) {
      problems.emplace_back(f, "cannot read");
      continue;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    out.push_back({f, ss.str()});
  }
  return out;
}

std::string data_dir(const char* env_var, const char* name, const char* source_tree) {
  if (const char* env = std::getenv(env_var)) return env;
  // Next to the executable: <prefix>/bin/dtriage -> <prefix>/share/dtriage/<name>; in a build tree
  // fall back to the source tree the binary was configured from.
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    buf[n] = '\0';
    const std::filesystem::path exe(buf);
    const auto installed = exe.parent_path().parent_path() / "share" / "dtriage" / name;
    if (std::filesystem::is_directory(installed)) return installed.string();
  }
  return source_tree;
}

std::string default_rules_dir() {
#ifdef DTRIAGE_SOURCE_RULES
  return data_dir("DTRIAGE_RULES_DIR", "rules", DTRIAGE_SOURCE_RULES);
#else
  return data_dir("DTRIAGE_RULES_DIR", "rules", "rules");
#endif
}

}  // namespace dtriage::rules
