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
    listed_.emplace_back(g == kFact ? "fact" : g == kMarker ? "marker" : "rule", std::string(s));
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

Gate::Look Gate::decide(base::LiteralMatcher::Groups g, const std::vector<int>& ids, std::vector<int>& atoms) const {
  if (g & (1u << kFact)) return Look::Parse;
  if (g & (1u << kRule)) {
    // Rule atoms, as indices into rules_.atoms, each once.
    atoms.clear();
    for (int id : ids)
      if (id >= rule_base_) atoms.push_back(id - rule_base_);
    std::sort(atoms.begin(), atoms.end());
    atoms.erase(std::unique(atoms.begin(), atoms.end()), atoms.end());
    if (!rules_.may_match || rules_.may_match(atoms)) return Look::Parse;
  }
  return (g & (1u << kMarker)) ? Look::Marked : Look::Plain;
}

Gate::Look Gate::look(std::string_view line, std::vector<int>& ids) const {
  ids.clear();
  std::vector<int> atoms;
  return decide(matcher_.search(line, 0xff, &ids), ids, atoms);
}

void Gate::look_many(const std::vector<std::string_view>& lines, std::vector<Look>& looks, Scratch& scratch) const {
  matcher_.search_many(lines, scratch.groups, scratch.ids);
  looks.resize(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) looks[i] = decide(scratch.groups[i], scratch.ids[i], scratch.atoms);
}

std::vector<std::pair<std::string, std::string>> Gate::literals() const { return listed_; }

bool Gate::open(std::string_view kind) const {
  return std::any_of(rules_.open_kinds.begin(), rules_.open_kinds.end(),
                     [&](const std::string& k) { return k == "*" || k == kind; });
}

}  // namespace dtriage::formats
