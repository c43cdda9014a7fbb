// Many literals searched in one pass over a line. Where Vectorscan (the portable Hyperscan, Debian's
// libvectorscan-dev) runs on this CPU, a batch of lines is searched by its literal engines (FDR /
// Teddy: SIMD filters that skip most bytes, several GB/s on log text); the automaton below is the
// fallback, and always answers `search`. An Aho-Corasick automaton over the first kPrefix
// (ASCII-folded) bytes of each literal, with the transitions of every state filled in, stays small
// enough for the second-level cache (about a thousand states, one 32-bit load per byte); where such
// a prefix ends, the rest of each literal that starts with it is compared in place. Eight bytes
// are long enough that ordinary log text rarely ends a prefix. Each literal
// belongs to a group; a search returns the groups whose literals occur. Used by the line gate
// (formats/gate.hpp) to tell, before any parser runs, whether a line holds anything a parser or a
// rule could use.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace dtriage::base {

class LiteralMatcher {
 public:
  using Groups = std::uint8_t;  // bit i: a literal of group i occurs

  LiteralMatcher() = default;
  // Which engine search_lines uses: Best is Vectorscan where it was built in and this CPU runs it
  // (hs_valid_platform), else the automaton; Automaton forces the fallback (tests compare the two).
  enum class Engine { Best, Automaton };
  // `literals[i]` belongs to group `groups[i]` (0..7). Empty literals are ignored. Matching is
  // ASCII case-insensitive: a superset of any case-sensitive search for the same literals.
  LiteralMatcher(const std::vector<std::string>& literals, const std::vector<int>& groups,
                 Engine engine = Engine::Best);
  // True when search_lines runs on Vectorscan.
  bool accelerated() const { return accel_ != nullptr; }

  // The groups with a literal in `text`; stops early once every group in `want` was seen. With
  // `ids`, also appends the index of every literal found (once per place it ends; duplicates
  // possible) and reads the whole text.
  Groups search(std::string_view text, Groups want = 0xff, std::vector<int>* ids = nullptr) const;

  // Every literal in `text`, searched as one text in four lanes split at line ends (no literal
  // holds a '\n'; a byte no literal holds sends the automaton back to its root, so lines do not
  // run into each other): the lanes' chains of loads interleave, and no work is spent per line.
  // Appends (offset of the literal's last byte, literal index) in increasing offset. Both engines
  // give the same hits in the same order.
  struct Hit {
    std::size_t end;
    int id;
  };
  void search_lines(std::string_view text, std::vector<Hit>& hits) const;
  Groups group_of(int id) const { return group_[static_cast<std::size_t>(id)]; }

  std::size_t states() const { return outs_.size(); }

 private:
  static constexpr std::size_t kPrefix = 8;  // bytes of each literal in the automaton
  struct Out {
    int id;
    Groups group;
    bool verify;  // longer than kPrefix: compare the rest after the prefix
  };
  std::uint8_t cls_[256] = {};           // byte -> class (0: a byte no prefix holds)
  std::size_t classes_ = 1;
  // (state * classes_ + class) -> next state's row offset (state * classes_), with kHasOut set when
  // that state has outputs: one load per byte, no multiply, in the loop's dependency chain.
  static constexpr std::uint32_t kHasOut = 0x80000000u;
  std::vector<std::uint32_t> next_;
  std::vector<std::vector<Out>> outs_;   // per state: literals whose prefix (or whole) ends here
  std::uint64_t inverse_ = 0;            // row / classes_ as (row * inverse_) >> 32: rows are multiples
  std::vector<std::string> tails_;       // per literal: its folded bytes after the prefix
  std::vector<Groups> group_;            // per literal: its group bit
  struct Accel;                          // the compiled Vectorscan database (literals.cpp)
  std::shared_ptr<const Accel> accel_;   // null: the automaton searches lines too
  void search_lines_automaton(std::string_view text, std::vector<Hit>& hits) const;

  // True when the rest of literal `id` after its prefix is at text[at] (folded).
  bool tail_at(int id, const unsigned char* text, std::size_t n, std::size_t at) const;
  // The literals of state `row` ending at text[i]: verified, added to `seen` (and `ids`).
  void outputs(std::size_t row, const unsigned char* text, std::size_t n, std::size_t i, Groups& seen,
               std::vector<int>* ids) const;
  // The literals of state `row` ending at text[i], verified, as hits.
  void hits_at(std::size_t row, const unsigned char* text, std::size_t n, std::size_t i, std::vector<Hit>& hits) const;
};

}  // namespace dtriage::base
