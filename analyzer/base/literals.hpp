// Many literals searched in one pass over a line: an Aho-Corasick automaton over ASCII-folded
// bytes, with the transitions of every state filled in (one table load per byte, no failure links
// at search time). Each literal belongs to a group; a search returns the groups whose literals
// occur. Used by the line gate (formats/gate.hpp) to tell, before any parser runs, whether a
// line holds anything a parser or a rule could use.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dtriage::base {

class LiteralMatcher {
 public:
  using Groups = std::uint8_t;  // bit i: a literal of group i occurs

  LiteralMatcher() = default;
  // `literals[i]` belongs to group `groups[i]` (0..7). Empty literals are ignored. Matching is
  // ASCII case-insensitive: a superset of any case-sensitive search for the same literals.
  LiteralMatcher(const std::vector<std::string>& literals, const std::vector<int>& groups);

  // The groups with a literal in `text`; stops early once every group in `want` was seen. With
  // `ids`, also appends the index of every literal found (each once per place it ends) and reads
  // the whole text.
  Groups search(std::string_view text, Groups want = 0xff, std::vector<int>* ids = nullptr) const;

  std::size_t states() const { return accept_.size(); }

 private:
  std::uint8_t cls_[256] = {};          // byte -> class (0: a byte no literal holds)
  int classes_ = 1;
  std::vector<std::uint32_t> next_;     // state * classes_ + class -> state
  std::vector<Groups> accept_;          // per state: groups of the literals that end here
  std::vector<std::vector<int>> ends_;  // per state: the literals that end here (with the failure chain's)
};

}  // namespace dtriage::base
