// Compiles rules into one matcher and turns events + facts into findings and a verdict.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "correlate/facts.hpp"
#include "model/event.hpp"
#include "rules/rule.hpp"

namespace dtriage::rules {

class Catalogue;
class CatalogueShelf;

// What a finding is to the verdict; the order is the order reports list them in.
enum class FindingRole : std::uint8_t { RootCause, Consequence, Related, Warning };
const char* role_name(FindingRole r);  // root-cause, consequence, related, warning

enum class Status : std::uint8_t { Failed, Healthy, Inconclusive };
const char* status_name(Status s);  // failed, healthy, inconclusive

struct Finding {
  const Rule* rule = nullptr;
  std::string node;
  std::optional<std::int64_t> rank;
  std::string summary;
  std::string summary_en;                       // the summary in English, when said in another language
  std::string summary_unranked;                 // the summary without its {rank}, when it has one
  std::string remedy;
  model::Time time;                             // earliest evidence time, empty when undated
  std::vector<correlate::EventIndex> events;    // evidence, earliest first
  std::size_t count = 0;                        // events the rule matched
  FindingRole role = FindingRole::Related;
  std::string explained_by;                     // rule id of the finding that explains it
  bool passed_over = false;                     // another rank's own failure, the culprit's came first
  bool survived = false;                        // the run went on after it: a launch failure its node's
                                                // workers ran after, or a restart attempt a later one replaced
  bool earlier_attempt = false;                 // its lines are of a restart attempt a later one replaced
  bool late_stop = false;                       // a stop from outside after another failure had been reported
};

struct Verdict {
  Status status = Status::Inconclusive;
  std::string category;  // "" when healthy
  std::string summary;
  std::string summary_en;  // in English, when said in another language ("" otherwise: summary is)
  std::string remedy;
  std::string node;
  std::optional<std::int64_t> rank;
  std::string rule;
  int root = -1;                                  // index into findings
  std::optional<correlate::EventIndex> lead;      // the earliest error when no rule names the cause
  std::string catalogue;                          // the catalogue entry that classified the lead (its id)
  std::vector<std::string> why;                   // why this rank: the facts that decided (the culprit policy)
  std::vector<std::int64_t> tied;                 // no rank named: the ranks the logs cannot tell apart (on `node`)
  std::string repeated;                           // the same failure ended an earlier restart attempt: where, said
  bool nothing_failed = false;                    // healthy or inconclusive because no line said a failure (no rule, no error)


  // The summary in English whatever the language (what groups jobs reads it).
  const std::string& english() const { return summary_en.empty() ? summary : summary_en; }
};

struct Analysis {
  std::vector<Finding> findings;
  Verdict verdict;
};

// A run in which nothing said it failed (`Verdict::nothing_failed`), whose logs end with lines
// that a catalogue calls a failure (`candidates`, earliest first: warnings and unparsed lines after
// which their files went on with nothing): the verdict is the failure the first cause among them
// says, else the first consequence, as for a failure no rule names. False, and `v` unchanged, when
// no candidate classifies.
bool lead_with_catalogue(const std::vector<model::Event>& events, const std::vector<correlate::EventIndex>& candidates,
                         const Catalogue& catalogue, Verdict& v);

// Per event, the indices of the event rules that match it (Engine::match), computed once when the
// event is read and kept beside it: correlation and the findings read them, never match again.
using Hits = std::vector<std::vector<int>>;

class Engine {
 public:
  // Compiles the rules. A rule whose regex does not compile (alone, or together with the others)
  // is left out and listed in `skipped` (where, what); the rest run.
  static base::Result<std::shared_ptr<Engine>> compile(std::vector<Rule> rules,
                                                       std::vector<std::pair<std::string, std::string>>* skipped = nullptr);
  ~Engine();

  const std::vector<Rule>& rules() const { return rules_; }
  // Indices of the event rules that match `e`: kind, code, fields, regex and `unless`, and those of
  // its `when` conditions the event alone decides (its own parsed fields against literals).
  std::vector<int> match(const model::Event& e) const;
  // match(e) for an event whose text holds none of literals()'s atoms (the line gate found none)
  // and whose kind no regex rule matches without one: only the rules without a regex can match.
  std::vector<int> match_fields(const model::Event& e) const;
  // `hits[i]`: match(events[i]), as the collector kept it.
  // With the catalogues, a failure no rule names is led by the earliest error line they classify
  // (they are read only then).
  Analysis analyze(const std::vector<model::Event>& events, const Hits& hits, const correlate::Facts& facts,
                   const CatalogueShelf* catalogues = nullptr) const;
  // What a line must hold for an event rule to match it: a line that some rule's regex matches
  // holds one of `atoms` (lower case: a few of RE2's literal extraction per rule, of which every
  // match holds one), except for the rules of `open_kinds` ("*": any kind), which can match lines
  // of those kinds without any literal (the line gate never skips such lines).
  struct Literals {
    std::vector<std::string> atoms;
    std::vector<std::string> open_kinds;
  };
  const Literals& literals() const { return literals_; }
  // What each event reports about its rank (rules with `reports:`): correlate::kReports* bits.
  std::vector<std::uint8_t> reports(const Hits& hits) const;

  struct Impl;

 private:
  Engine() = default;
  bool excluded(int rule, const std::string& subject) const;  // the rule's `unless` matches
  // The rule's conditions that the event alone decides hold (`vars`: its fields, made on first need).
  bool own_when_holds(int rule, const model::Event& e, std::optional<std::map<std::string, std::string>>& vars) const;
  void regexless_matches(const model::Event& e, std::optional<std::map<std::string, std::string>>& vars, std::vector<int>& out) const;
  void event_findings(const std::vector<model::Event>& events, const Hits& hits, const correlate::Facts& facts, Analysis& a) const;
  void fact_findings(const std::vector<model::Event>& events, const correlate::Facts& facts, Analysis& a) const;
  std::vector<Rule> rules_;
  Literals literals_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dtriage::rules
