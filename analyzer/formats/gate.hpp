// The line gate: tells, before any parser runs, that a line holds nothing a parser or a rule could
// use, so that it is counted and skipped. Most lines of a big job are informational traffic (NCCL
// INFO per collective, plog INFO per task, step prints); parsing each of them costs ten times
// reading it.
//
// One pass over the raw line (Vectorscan, or the fallback automaton: base/literals.hpp) looks for
// two kinds of literal, any of which sends the line to the parsers:
// - facts: the trigger literals of every message-fact row, the device words, block openers;
// - rule atoms: for every event rule's regex, a few literals of which each match holds one
//   (rules::Engine::literals).
// Literals that hold another one are not searched (least_literals in gate.cpp).
// The same pass finds the families' markers (Family::markers, case kept): a family with markers
// recognises no line without one.
// The pipeline then skips a line with no literal (gate use in pipeline.cpp, skip and skip_plain):
// NCCL INFO lines and plog INFO / DEBUG / TRACE lines of a process already seen, and a line of any
// other shape with no marker and no record glued inside it, after the families without markers
// (plog, glog, smi rows, ...) had their try; a progress print's step is noted all the same.
// `--no-gate` turns it off; a test compares every corpus case, sample and lab job with and
// without it.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "base/literals.hpp"

#include "model/event.hpp"

namespace dtriage::formats {

// What the rule pack needs (rules::Engine::literals).
struct RuleLiterals {
  std::vector<std::string> atoms;
  std::vector<std::string> open_kinds;  // kinds some rule matches without any literal ("*": all)
};

class Gate {
 public:
  explicit Gate(RuleLiterals rules);

  enum class Look {
    Parse,  // a fact literal or a rule atom occurs: the line goes to the parsers
    Quiet,  // neither: an informational line of a known family, or a plain print, may be skipped
    Marked,  // neither, but a family marker in its case somewhere in the line (marked() on the
             // line's rest tells whether a family may read it)
  };
  // The look at each of `lines`: looks[i] for lines[i]. Lines that lie one after the other in
  // memory (a line reader's batch) are searched as one text (LiteralMatcher::search_lines).
  struct Scratch {
    std::vector<base::LiteralMatcher::Hit> hits;
  };
  void look_many(const std::vector<std::string_view>& lines, std::vector<Look>& looks, Scratch& scratch) const;
  // True when some rule matches events of `kind` without needing a literal: never skip those.
  bool open(model::Kind kind) const { return open_[static_cast<int>(kind)]; }
  // True when `rest` (a line after its outer prefixes) holds a family marker (Family::markers).
  // Markers are matched in their case ("Fault" is not in "default"), but for the error-print
  // family's, whose lines are read in any case ("Error: ", "FATAL: ").
  bool marked(std::string_view rest) const;
  // Every literal with its group (fact, marker, rule), for `dtriage rules literals`.
  std::vector<std::pair<std::string, std::string>> literals() const;
  // The literals the gate searches (folded; none holds another), for benchmarks.
  const std::vector<std::string>& searched() const { return searched_; }

 private:
  std::array<bool, model::kKindCount> open_{};  // per kind: a rule matches it without a literal ("*": all)

  std::vector<std::string> searched_;
  base::LiteralMatcher matcher_;  // searched_ (group 0), then the family markers (group 1), folded
  // Per marker literal of matcher_ (its id less searched_.size()): the markers it stands for, as
  // written, and whether their case counts not (the error-print family's).
  std::vector<std::vector<std::pair<std::string, bool>>> marker_forms_;
  bool marker_at(std::string_view text, std::size_t last, int id) const;  // `last`: the hit's last byte
  base::LiteralMatcher markers_;  // family markers (folded), over a line's rest
  base::LiteralMatcher loose_markers_;  // the markers whose case does not count
  std::vector<std::string> exact_markers_;  // the others, found in their case
  std::vector<std::pair<std::string, std::string>> listed_;
  RuleLiterals rules_;
};

}  // namespace dtriage::formats
