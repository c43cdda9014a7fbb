#include "base/sentences.hpp"

#include <array>

namespace dtriage::base {
namespace {

struct Entry {
  Say key;
  std::string_view name;
  std::string_view text;
};

// One row per key, in the enum's order (a test checks it).
constexpr std::array<Entry, static_cast<std::size_t>(Say::kCount)> kEnglish = {{
    {Say::VerdictUnknownLead, "verdict.unknown-lead", "No rule names the cause; the earliest error is {where}: {message}"},
    {Say::VerdictUnknownLeadOnNode, "verdict.unknown-lead-on-node",
     "No rule names the cause; the earliest error is {where} on {node}: {message}"},
    {Say::VerdictNothingRecognised, "verdict.nothing-recognised", "No log line in the input was recognised."},
    {Say::VerdictStoppedBeforeTraining, "verdict.stopped-before-training",
     "torchrun was started on {nodes} node(s) but no worker wrote anything: the logs stop before training began (in "
     "rendezvous, or the job was stopped)"},
    {Say::VerdictHealthyLines, "verdict.healthy-lines", "No failure found in {count} lines."},
    {Say::VerdictHealthyEvents, "verdict.healthy-events", "No failure found in {count} events."},
    {Say::VerdictHealthyNcclWarnings, "verdict.healthy-nccl-warnings",
     " NCCL printed warnings that no rule ties to a failure (first: {where})."},
    {Say::VerdictRecovered, "verdict.recovered",
     "The run went on after a failure (a restart or a retry recovered it: no launcher gave up, and the workers kept printing "
     "after it): {what}"},
    {Say::FindingEarlierAttempt, "finding.earlier-attempt", " (in a restart attempt; the workers were started again after it)"},
    {Say::RankSignal, "rank.signal", "{signal}"},
    {Say::RankSignalOom, "rank.signal-oom", "{signal} from the kernel's OOM killer"},
    {Say::RankSignalCrash, "rank.signal-crash", "{signal} (a crash)"},
    {Say::RankExit, "rank.exit", "exit code {code}"},
    {Say::RankStopped, "rank.stopped", "{signal} from its launcher"},
    {Say::WhyFirst, "why.first", "Rank {rank} failed on its own first: {what}{when}"},
    {Say::WhyLater, "why.later", "{count} other rank(s) failed on their own later; the first of them, rank {rank}: {what}{when}"},
    {Say::WhyOnly, "why.only", "Rank {rank} is the only rank that failed on its own: {what}{when}"},
    {Say::WhyVictims, "why.victims", "{count} other rank(s) only timed out or lost a peer"},
    {Say::WhyDistinct, "why.distinct", "Rank {rank} ended with {what}; {count} other rank(s) failing at the same time ended with {common}"},
    {Say::WhyStronger, "why.stronger", "Rank {rank} ended with {what}, which says more than {others} at the same time"},
    {Say::WhySilentStopped, "why.silent-stopped",
     "{count} rank(s) timed out or lost a peer; rank {rank} never did: it was still busy when its launcher stopped it ({signal})"},
    {Say::WhySilentRunning, "why.silent-running",
     "{count} rank(s) timed out or lost a peer; rank {rank} never did: it was still running when the logs stop"},
    {Say::WhySilentAbsent, "why.silent-absent",
     "{count} rank(s) timed out or lost a peer; rank {rank} never did: the launch implies it, but no line of it is in the logs"},
    {Say::WhyLate, "why.late", "{count} rank(s) timed out waiting; rank {rank} lost its peers only after that: it reached the collective late"},
    {Say::WhyPlainVictims, "why.plain-victims",
     "{count} exit(s) on {node} follow timeout or lost-peer reports that no prefix ties to a rank: taken as victims"},
    {Say::WhyTie, "why.tie",
     "No rank named: ranks {ranks} failed on their own at the same time in the same way, and the logs do not say which came first"},
    {Say::WhyFirstObserved, "why.first-observed",
     "Ranks {ranks} failed in the same second in the same way; their launcher saw rank {rank} first (its Root Cause row), "
     "the only order the logs give"},
    {Say::HeadingEvidence, "heading.evidence", "Evidence"},
    {Say::HeadingConsequences, "heading.consequences", "Explained by the root cause"},
    {Say::HeadingNodes, "heading.nodes", "Nodes"},
    {Say::HeadingRanks, "heading.ranks", "Ranks"},
    {Say::HeadingOthers, "heading.others", "Other findings"},
    {Say::HeadingWhy, "heading.why", "Why this rank"},
    {Say::HeadingInputs, "heading.inputs", "Inputs"},
    {Say::LabelFix, "label.fix", "Fix"},
}};

const Entry& entry(Say key) { return kEnglish[static_cast<std::size_t>(key)]; }

}  // namespace

std::string_view say_name(Say key) { return entry(key).name; }
std::string_view say_template(Say key) { return entry(key).text; }

std::string say(Say key, std::initializer_list<Arg> args) {
  const std::string_view t = entry(key).text;
  std::string out;
  out.reserve(t.size() + 32);
  for (std::size_t i = 0; i < t.size();) {
    if (t[i] == '{') {
      const std::size_t close = t.find('}', i);
      if (close != std::string_view::npos) {
        const std::string_view name = t.substr(i + 1, close - i - 1);
        const Arg* hit = nullptr;
        for (const Arg& a : args)
          if (a.name == name) hit = &a;
        if (hit != nullptr) {
          out += hit->value;
          i = close + 1;
          continue;
        }
      }
    }
    out += t[i++];
  }
  return out;
}

}  // namespace dtriage::base
