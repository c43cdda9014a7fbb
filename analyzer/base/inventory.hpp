// Accounts for every input: what was read, what could not be, and why.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dtriage::base {

struct InputProblem {
  std::string path;    // origin path as shown in reports (archive members as a.tar.gz!x/y)
  std::string reason;  // one line, human readable
};

struct Inventory {
  std::uint64_t files = 0;      // sources whose text was read (fully or up to an error)
  std::uint64_t bytes = 0;      // uncompressed bytes of text read
  std::uint64_t lines = 0;      // lines read
  std::uint64_t lines_cut = 0;  // lines longer than the limit, cut to it
  std::uint64_t events_not_kept = 0;  // informational events that added no fact (analyze only)
  std::uint64_t events_folded = 0;    // repeats of a kept event, counted in its `folded` (analyze only)
  std::uint64_t events_dropped = 0;   // events not kept: the memory for kept events was used up
  bool timed_out = false;             // reading stopped at the time budget (ingest::Limits::deadline)
  std::uint64_t stopped_by_limit = 0; // inputs a limit stopped before their end (listed in unreadable)
  std::vector<InputProblem> unreadable;  // could not be read (fully); exit code 1
  std::vector<InputProblem> skipped;     // deliberately not read (symlink loop, duplicate)

  void add_unreadable(std::string path, std::string reason) {
    unreadable.push_back({std::move(path), std::move(reason)});
  }
  void add_skipped(std::string path, std::string reason) {
    skipped.push_back({std::move(path), std::move(reason)});
  }
  // Adds another part's counts and problems after this one's (parts read in parallel, joined in order).
  void absorb(Inventory&& part) {
    files += part.files;
    bytes += part.bytes;
    lines += part.lines;
    lines_cut += part.lines_cut;
    events_not_kept += part.events_not_kept;
    events_folded += part.events_folded;
    events_dropped += part.events_dropped;
    timed_out = timed_out || part.timed_out;
    stopped_by_limit += part.stopped_by_limit;
    for (auto& p : part.unreadable) unreadable.push_back(std::move(p));
    for (auto& p : part.skipped) skipped.push_back(std::move(p));
  }
};

}  // namespace dtriage::base
