#include "formats/gate.hpp"

#include <algorithm>

#include "formats/families.hpp"

namespace dtriage::formats {
namespace {

constexpr int kFact = 0, kRule = 1;

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
    listed_.emplace_back(g == kFact ? "fact" : "rule", std::string(s));
  };
  for (std::string_view t : message_triggers()) add(t, kFact);
  for (std::string_view d : device_markers()) add(d, kFact);
  for (std::string_view b : kBlockOpeners) add(b, kFact);
  rule_base_ = static_cast<int>(lits.size());
  for (const std::string& a : rules_.atoms) add(a, kRule);
  matcher_ = base::LiteralMatcher(lits, groups);
  open_nccl_ = open_listed("nccl");
  open_plog_ = open_listed("plog");
  open_line_ = open_listed("line");
  std::vector<std::string> marks;
  for (const Family& f : single_line_families())
    for (std::string_view m : f.markers) {
      marks.emplace_back(m);
      listed_.emplace_back("marker", std::string(m));
    }
  markers_ = base::LiteralMatcher(marks, std::vector<int>(marks.size(), 0));
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
  return Look::Quiet;
}

namespace {

// True when each line starts right after the previous one's "\n" or "\r\n".
bool contiguous(const std::vector<std::string_view>& lines) {
  for (std::size_t k = 1; k < lines.size(); ++k) {
    const char* end = lines[k - 1].data() + lines[k - 1].size();
    const char* next = lines[k].data();
    if (next == end + 1 && *end == '\n') continue;
    if (next == end + 2 && end[0] == '\r' && end[1] == '\n') continue;
    return false;
  }
  return true;
}

}  // namespace

void Gate::look_many(const std::vector<std::string_view>& lines, std::vector<Look>& looks, Scratch& scratch) const {
  scratch.groups.assign(lines.size(), 0);
  if (scratch.ids.size() < lines.size()) scratch.ids.resize(lines.size());
  for (std::size_t k = 0; k < lines.size(); ++k) scratch.ids[k].clear();
  if (!lines.empty() && contiguous(lines)) {
    const char* start = lines.front().data();
    const std::string_view region(start, static_cast<std::size_t>(lines.back().data() + lines.back().size() - start));
    scratch.hits.clear();
    matcher_.search_lines(region, scratch.hits);
    std::size_t k = 0;
    for (const auto& h : scratch.hits) {
      while (k < lines.size() && static_cast<std::size_t>(lines[k].data() - start) + lines[k].size() <= h.end) ++k;
      if (k == lines.size()) break;
      if (h.end < static_cast<std::size_t>(lines[k].data() - start)) continue;  // between lines
      scratch.groups[k] |= matcher_.group_of(h.id);
      scratch.ids[k].push_back(h.id);
    }
  } else {  // after a cut line: one at a time
    for (std::size_t k = 0; k < lines.size(); ++k) scratch.groups[k] = matcher_.search(lines[k], 0xff, &scratch.ids[k]);
  }
  looks.resize(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) looks[i] = decide(scratch.groups[i], scratch.ids[i], scratch.atoms);
}

std::vector<std::pair<std::string, std::string>> Gate::literals() const { return listed_; }

bool Gate::open_listed(std::string_view kind) const {
  return std::any_of(rules_.open_kinds.begin(), rules_.open_kinds.end(),
                     [&](const std::string& k) { return k == "*" || k == kind; });
}

}  // namespace dtriage::formats
