// The catalogue of what dtriage says in words of its own: built-in verdict sentences, what the rank
// table says of an ending, report headings. Each sentence has a key and a template with named
// placeholders ({node}, {count}); code asks for it by key and fills it in, so that no stage holds
// the wording and a translation (a second table) changes no code. Rule summaries live in the rule
// pack; check messages and input error reasons are still written where they are made (to move).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace dtriage::base {

enum class Say : std::uint16_t {
  // verdicts no rule wrote
  VerdictUnknownLead,        // {where} {message}
  VerdictUnknownLeadOnNode,  // {where} {node} {message}
  VerdictNothingRecognised,
  VerdictStoppedBeforeTraining,  // {nodes}
  VerdictHealthyLines,           // {count}
  VerdictHealthyEvents,          // {count}
  VerdictHealthyNcclWarnings,    // {where}
  VerdictRecovered,              // {what}
  FindingEarlierAttempt,         // (appended to a finding's summary)
  // how a rank ended (the rank table's detail)
  RankSignal,          // {signal}
  RankSignalOom,       // {signal}
  RankSignalCrash,     // {signal}
  RankExit,            // {code}
  RankStopped,         // {signal}
  // why the culprit is the culprit (correlate/culprit.cpp)
  WhyFirst,            // {rank} {what} {when}
  WhyLater,            // {count} {rank} {what} {when}
  WhyOnly,             // {rank} {what} {when}
  WhyVictims,          // {count}
  WhyDistinct,         // {rank} {what} {count} {common}
  WhyStronger,         // {rank} {what} {others}
  WhySilentStopped,    // {count} {rank} {signal}
  WhySilentRunning,    // {count} {rank}
  WhySilentAbsent,     // {count} {rank}
  WhyLate,             // {count} {rank}
  WhyPlainVictims,     // {count} {node}
  WhyTie,              // {ranks}
  WhyFirstObserved,    // {ranks} {rank}
  // report headings and labels
  HeadingEvidence,
  HeadingConsequences,
  HeadingNodes,
  HeadingRanks,
  HeadingOthers,
  HeadingWhy,
  HeadingInputs,
  LabelFix,
  kCount  // not a sentence
};

struct Arg {
  std::string_view name;
  std::string value;
};

// The sentence for `key` with each {name} replaced by its argument's value (a placeholder with no
// argument is left as it is, so that a test finds it).
std::string say(Say key, std::initializer_list<Arg> args = {});
// The key's name ("verdict.unknown-lead") and its template, for tests and translators.
std::string_view say_name(Say key);
std::string_view say_template(Say key);

}  // namespace dtriage::base
