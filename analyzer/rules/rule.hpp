// A rule: which events it matches, which facts must hold, what it says, what it explains.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/sentences.hpp"
#include "model/event.hpp"

namespace re2 {
class RE2;
}

namespace dtriage::rules {

enum class Scope { Event, Node, Job };
enum class Role { Cause, Symptom, Warning };

struct Condition {
  std::string lhs;  // fact path or number
  std::string op;   // < <= > >= == !=
  std::string rhs;
  std::string text;  // as written, for messages
  std::shared_ptr<const re2::RE2> pattern;  // for `matches` / `not matches`
};

struct Rule {
  std::string id;
  std::string title;
  std::string description;
  std::string category;
  std::string severity = "error";  // critical | error | warning | info
  Role role = Role::Cause;
  Scope scope = Scope::Event;
  // match (events)
  std::vector<model::Kind> kinds;
  std::vector<std::string> codes;
  std::string regex;  // RE2, searched in the event's text, message and body
  std::string unless;  // RE2: an event whose text, message or body matches is not matched
  std::vector<std::pair<std::string, std::string>> fields;  // event field == value
  // facts
  std::vector<Condition> when;
  std::vector<std::string> requires_rules;  // findings of these rules must exist (same node for node scope)
  // output
  std::string summary;
  std::string remedy;
  // The same texts in Chinese (the rule's `zh:` mapping): the same placeholders and optional parts
  // (`rules lint` checks); "" where none is written (the English is said).
  struct Translation {
    std::string title, summary, remedy, description;
  };
  Translation zh;
  const std::string& title_in(base::Lang lang) const { return lang == base::Lang::Zh && !zh.title.empty() ? zh.title : title; }
  const std::string& summary_in(base::Lang lang) const { return lang == base::Lang::Zh && !zh.summary.empty() ? zh.summary : summary; }
  const std::string& remedy_in(base::Lang lang) const { return lang == base::Lang::Zh && !zh.remedy.empty() ? zh.remedy : remedy; }
  const std::string& description_in(base::Lang lang) const {
    return lang == base::Lang::Zh && !zh.description.empty() ? zh.description : description;
  }
  std::vector<std::string> references;
  std::vector<std::string> explains;  // rule ids (a trailing * matches a prefix)
  std::string reports;  // "timeout": events it matches report their rank's collective timed out
  // `defer: culprit`: this finding says where the job stopped waiting, not why; a failure of the
  // rank the lifecycle names as culprit (job.culprit_rank) is the better root.
  bool defers_to_culprit = false;
  // `phase: launch`: a failure of the launch itself, before any worker starts (a port in use, a
  // store that cannot be bound). Where workers of its node then ran, the launch went on (c10d
  // agents that do not host the store retry as clients): the run survived it, a warning.
  bool launch_phase = false;
  // `phase: stop`: the job was stopped from outside (SIGTERM to the launcher). After another
  // failure (a hang's timeouts, a rank's exception) it is how the stuck job ended, not its cause.
  bool stop_phase = false;
  // `phase: teardown`: what a launcher logs after its workers ended (torchrun's exit barrier): the
  // run's result stands; its lines are survived, never a cause.
  bool teardown_phase = false;
  std::vector<std::string> facts_named;  // node.* / job.* facts in when, summary, remedy and rank
  // self-check: each example is a small dump, one or more files (path -> text); an event rule's
  // example is usually one line, as the file "example.log"
  using Example = std::vector<std::pair<std::string, std::string>>;
  std::vector<Example> examples_match;
  std::vector<Example> examples_no_match;
  // where it came from
  std::string file;
  int line = 0;
  std::string rank_field;  // the event field that names the root rank (default: the event's rank)
  std::string node_field;  // the job fact that names the node (job rules)
  int priority = 0;  // tie-break between equally severe causes: higher wins

  int severity_rank() const;
  bool explains_rule(const std::string& other) const;
};

const char* role_name(Role r);
const char* scope_name(Scope s);

}  // namespace dtriage::rules
