// The lines around an evidence line (`analyze -C N`), read in a second pass over the inputs once
// the verdict says which lines are its evidence: nothing is kept for the lines that are not.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dtriage::model {

struct ContextLines {
  std::vector<std::pair<std::uint64_t, std::string>> before, after;  // (line number, text), in file order
};

// Event index (into the analysis's events) -> the lines around its first line.
using Context = std::map<std::size_t, ContextLines>;

}  // namespace dtriage::model
