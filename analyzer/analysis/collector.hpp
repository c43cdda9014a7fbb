// The sink that turns a job's texts into the events the analysis keeps (analysis.cpp uses it).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/inventory.hpp"
#include "formats/gate.hpp"
#include "ingest/ingest.hpp"
#include "model/event.hpp"
#include "rules/engine.hpp"

namespace dtriage::analysis {

// Parses every source and keeps the events that a parser recognised or a rule matches, each with
// the rules it matched (matched here, once).
//
// Memory stays proportional to what matters, not to the input: errors, warnings, recognised facts
// and rule matches are kept; an informational line is kept only when it ties a process to a
// device or rank that no kept line did (millions of "TaskFinished" INFO lines become one), and a
// row of an npu-smi / nvidia-smi table only when no kept row said the same (a monitor loop prints
// the same devices and processes every few seconds: what changes, memory in use, nothing reads).
//
// Floods are folded: a line that comes again and again (a loop logging its error on every step, a
// watchdog's warning every second, a million copies piped in) is kept kFoldAfter times, then as one
// more event, the last copy, whose `folded` counts the copies between; "the same" is the same file,
// process, kind, level, code, parsed fields and rules matched, and a text the same but for its
// numbers (timestamps, addresses, counters). What is stored of a kept line is cut to kStoredLine
// bytes (rules have seen it whole). The events kept share one memory budget (`max_event_bytes`,
// over every fork); past it, events are counted as dropped, not kept.
class Collector final : public ingest::ForkableSink {
 public:
  // `inv`: the job's inventory; null for a fork, which counts in its own. `gate` may be null.
  Collector(const rules::Engine& engine, const formats::Gate* gate, std::size_t max_line, std::uint64_t max_event_bytes,
            base::Inventory* inv);

  static constexpr std::uint64_t kFoldAfter = 8;      // copies of one line kept as they are
  static constexpr std::size_t kStoredLine = 8192;    // bytes of a kept line's text, message, body line

  // A fork collects one file on a worker thread, with counters of its own; join() appends its
  // events in walk order and applies the "first line of each binding" choice again across files,
  // so that the result is the one a single thread gives.
  std::unique_ptr<ingest::Sink> fork() override;
  void join(std::unique_ptr<ingest::Sink> sink) override;
  void on_text(const ingest::Source& source, ingest::ByteReader& text) override;

  std::vector<model::Event>& events() { return events_; }
  rules::Hits& hits() { return hits_; }
  std::vector<std::string>& sources() { return sources_; }
  std::uint64_t unparsed_lines() const { return unparsed_; }
  std::vector<model::Sighting>& sightings() { return sightings_; }
  // Of each file that ends with a line no parser knew and no rule matched, that line (at most
  // kMaxTails, in walk order).
  std::vector<model::Event>& tails() { return tails_; }
  static constexpr std::size_t kMaxTails = 256;

 private:
  bool keep(const model::Event& e, std::vector<int>& hits, bool& binding_only);
  static bool binds(const model::Event& e) { return e.pid || e.rank || e.local_rank; }
  const std::string& binding_key(const model::Event& e);  // what ties a process to its node, device, rank
  static void append_binding(std::string& out, const model::Event& e);
  static void append_value(std::string& out, const model::Value& v);  // as model::value_text
  // An informational smi table row that no rule matched: kept as the first of its row_key.
  static bool table_row(const model::Event& e, const std::vector<int>& hits);
  const std::string& row_key(const model::Event& e);  // its file, table, code, binding and fields but memory in use
  const std::string& first_key(const model::Event& e) { return table_row(e, {}) ? row_key(e) : binding_key(e); }
  // Stores a kept event (cut, folded, within the budget); false when it was not stored as a new one.
  bool store(model::Event&& e, const std::vector<int>& hits);
  std::uint64_t fold_key(const model::Event& e, const std::vector<int>& hits);

  struct Fold {
    std::uint64_t copies = 0;  // seen so far
    std::size_t last = 0;      // index in events_ of the event that holds the latest, past kFoldAfter
  };

  const rules::Engine& engine_;
  const formats::Gate* gate_;
  std::size_t max_line_;
  base::Inventory own_inv_;  // a fork's counters
  base::Inventory& inv_;     // the job's inventory, or own_inv_ in a fork
  bool forked_ = false;
  bool last_row_ = false;  // keep()'s last event was a table row (ParseOptions::row_kept_once)
  std::vector<std::size_t> binding_only_;  // a fork's events kept only as the first of their binding (or row)
  std::string key_;
  std::vector<model::Event> events_;
  rules::Hits hits_;                  // hits_[i]: the rules events_[i] matched
  std::vector<std::string> sources_;  // every file read, for the dump's structure
  std::uint64_t unparsed_ = 0;        // lines no parser knew
  std::vector<model::Sighting> sightings_;  // ranks the lines named, kept or not (first line per file)
  std::vector<model::Event> tails_;
  std::unordered_set<std::string> seen_;  // membership only
  std::unordered_map<std::uint64_t, Fold> folds_;  // by fold_key
  std::uint64_t max_event_bytes_;
  std::shared_ptr<std::atomic<std::uint64_t>> event_bytes_;  // the run's, shared with forks
};

}  // namespace dtriage::analysis
