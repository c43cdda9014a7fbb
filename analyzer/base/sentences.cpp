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
    {Say::RankSignal, "rank.signal", "{signal}"},
    {Say::RankSignalOom, "rank.signal-oom", "{signal} from the kernel's OOM killer"},
    {Say::RankSignalCrash, "rank.signal-crash", "{signal} (a crash)"},
    {Say::RankExit, "rank.exit", "exit code {code}"},
    {Say::RankStopped, "rank.stopped", "{signal} from its launcher"},
    {Say::HeadingEvidence, "heading.evidence", "Evidence"},
    {Say::HeadingConsequences, "heading.consequences", "Explained by the root cause"},
    {Say::HeadingNodes, "heading.nodes", "Nodes"},
    {Say::HeadingRanks, "heading.ranks", "Ranks"},
    {Say::HeadingOthers, "heading.others", "Other findings"},
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
