#include "formats/gate.hpp"

#include <algorithm>

#include "formats/families.hpp"

namespace dtriage::formats {
namespace {

constexpr int kFact = 0, kMarker = 1, kRule = 2;

// Lines that open a block, or change how the next lines are read.
constexpr std::string_view kBlockOpeners[] = {"Traceback (most recent call last)", "Root Cause", "Failures:", "npu-smi",
                                              "Starting elastic_operator with launch configs", "Ascend Error Message"};

}  // namespace

Gate::Gate(RuleLiterals rules) : rules_(std::move(rules)) {
  std::vector<std::string> lits;
  std::vector<int> groups;
  auto add = [&](std::string_view s, int g) {
    lits.emplace_back(s);
    groups.push_back(g);
  };
  for (std::string_view t : message_triggers()) add(t, kFact);
  for (std::string_view d : device_markers()) add(d, kFact);
  for (std::string_view b : kBlockOpeners) add(b, kFact);
  for (const Family& f : single_line_families())
    for (std::string_view m : f.markers) add(m, kMarker);
  rule_base_ = static_cast<int>(lits.size());
  for (const std::string& a : rules_.atoms) add(a, kRule);
  matcher_ = base::LiteralMatcher(lits, groups);
}

Gate::Look Gate::look(std::string_view line, std::vector<int>& ids) const {
  ids.clear();
  const base::LiteralMatcher::Groups g = matcher_.search(line, 0xff, &ids);
  if (g & (1u << kFact)) return Look::Parse;
  if (g & (1u << kRule)) {
    // Rule atoms, as indices into rules_.atoms, each once.
    std::vector<int> atoms;
    for (int id : ids)
      if (id >= rule_base_) atoms.push_back(id - rule_base_);
    std::sort(atoms.begin(), atoms.end());
    atoms.erase(std::unique(atoms.begin(), atoms.end()), atoms.end());
    if (!rules_.may_match || rules_.may_match(atoms)) return Look::Parse;
  }
  return (g & (1u << kMarker)) ? Look::Marked : Look::Plain;
}

bool Gate::open(std::string_view kind) const {
  return std::any_of(rules_.open_kinds.begin(), rules_.open_kinds.end(),
                     [&](const std::string& k) { return k == "*" || k == kind; });
}

}  // namespace dtriage::formats
