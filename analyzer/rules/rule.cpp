#include "rules/rule.hpp"

namespace dtriage::rules {

int Rule::severity_rank() const {
  if (severity == "critical") return 3;
  if (severity == "error") return 2;
  if (severity == "warning") return 1;
  return 0;
}

bool Rule::explains_rule(const std::string& other) const {
  for (const std::string& x : explains) {
    if (!x.empty() && x.back() == '*') {
      if (other.compare(0, x.size() - 1, x, 0, x.size() - 1) == 0) return true;
    } else if (x == other) {
      return true;
    }
  }
  return false;
}

const char* role_name(Role r) {
  switch (r) {
    case Role::Cause: return "cause";
    case Role::Symptom: return "symptom";
    case Role::Warning: return "warning";
  }
  return "?";
}

const char* scope_name(Scope s) {
  switch (s) {
    case Scope::Event: return "event";
    case Scope::Node: return "node";
    case Scope::Job: return "job";
  }
  return "?";
}

}  // namespace dtriage::rules
