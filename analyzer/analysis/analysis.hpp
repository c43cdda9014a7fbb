// The analysis of one job, as one call: read every input (ingest), parse it into events behind the
// line gate (formats), keep what matters and match the rules once per event (collector), correlate
// (facts, the rank table), judge (findings, verdict). The CLI, `scan`, the rules' examples, the
// fuzzers and the tests all call `analyze`; none assembles the stages itself.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/inventory.hpp"
#include "base/result.hpp"
#include "base/sentences.hpp"
#include "correlate/facts.hpp"
#include "formats/gate.hpp"
#include "ingest/ingest.hpp"
#include "lines/line_reader.hpp"
#include "model/context.hpp"
#include "model/event.hpp"
#include "rules/catalogue.hpp"
#include "rules/engine.hpp"
#include "rules/loader.hpp"

namespace dtriage::analysis {

// The rule pack, compiled once per run: its rules (with their load problems), the engine that
// matches them, and the line gate built from the engine's literals.
struct RuleBook {
  rules::RuleSet set;
  std::shared_ptr<const rules::Engine> engine;
  std::shared_ptr<const formats::Gate> gate;
  std::shared_ptr<const rules::CatalogueShelf> catalogue;  // leads a failure no rule names; null: none

  // Loads and compiles the rules of `dirs` (later ones add to or replace earlier ones). A rule that
  // does not compile is left out and listed in set.problems; an error only when nothing can run.
  // The catalogues of `catalogue_dir` come with them, read when a verdict first needs them
  // (`rules lint` and `rules test` read them and report their problems).
  static base::Result<RuleBook> load(const std::vector<std::string>& dirs, const std::string& catalogue_dir = rules::default_catalogue_dir());
  // The same for rules already loaded (tests, fuzzers).
  static base::Result<RuleBook> compile(rules::RuleSet set);
};

// What to read and how.
struct Inputs {
  std::vector<std::string> paths;                              // files, folders, archives, "-"
  std::vector<std::pair<std::string, std::string>> texts;      // in-memory files (path, content)
  ingest::NodeHints hints;                                     // --node-from-path
};

struct Options {
  ingest::Limits limits;
  std::size_t max_line = lines::LineReader::kDefaultMaxLine;
  // Memory for the events kept (their text, fields, body), over the whole run: events past it are
  // counted (inventory.events_dropped), not kept. Repeats fold first (analysis/collector.hpp).
  std::uint64_t max_event_bytes = 128ull << 20;
  bool gate = true;      // skip lines nothing can use (formats/gate.hpp); false: parse every line
  unsigned threads = 1;  // files read in parallel (the result does not depend on it)
  // The language of the analysis's sentences (verdict, findings, the rank table's details, why);
  // nullopt: the thread's (base::language()). In any other than English, the verdict's and each
  // finding's summary_en keep their English.
  std::optional<base::Lang> lang;
};


// One job, analysed: what every report is rendered from.
struct Analysis {
  base::Inventory inventory;
  std::vector<model::Event> events;  // kept events, in walk order
  rules::Hits hits;                  // hits[i]: the event rules events[i] matched
  correlate::Facts facts;            // per node, per rank (the rank table), per job
  rules::Analysis outcome;           // findings and the verdict
  bool read_anything = false;
};

// Never throws on input: every problem is in the inventory. (Out of memory propagates.)
std::unique_ptr<Analysis> analyze(Inputs inputs, const RuleBook& book, const Options& options = {});

// `analyze -C N`: the N lines before and after the first line of each of `events`' `wanted`, read
// in a second pass over the same inputs (only the files those events came from are read to their
// last wanted line; the rest are skipped). Standard input cannot be read twice: its events get none.
// Context lines longer than kMaxContextLine bytes are cut.
constexpr std::size_t kMaxContextLine = 4096;
model::Context read_context(const Inputs& inputs, const Options& options, const std::vector<model::Event>& events,
                            const std::vector<std::size_t>& wanted, unsigned n);

// Runs every rule's examples through `analyze` (gate, parsers, correlation, every rule), each as a
// job of its own. One message per failed example ("file:line: rule id: should match: ..."),
// empty when all pass.
std::vector<std::string> check_examples(const RuleBook& book);

}  // namespace dtriage::analysis
