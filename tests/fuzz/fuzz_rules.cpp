// Fuzz target: the rule loader and compiler. The input is one rule file (YAML); whatever it holds
// must load as rules or problems, compile or be left out, and match a few real lines without a crash.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "correlate/facts.hpp"
#include "model/event.hpp"
#include "rules/engine.hpp"
#include "rules/loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dtriage;
  rules::RuleSet set;
  rules::load_rules_text(std::string(reinterpret_cast<const char*>(data), size), "site/fuzz.yaml", set);
  std::vector<std::pair<std::string, std::string>> skipped;
  auto engine = rules::Engine::compile(set.rules, &skipped);
  if (!engine) return 0;
  std::vector<model::Event> events(3);
  events[0].text = events[0].message = "[rank3]: RuntimeError: CUDA error: out of memory";
  events[0].kind = "python";
  events[0].rank = 3;
  events[0].node = "gpu-a01";
  events[1].text = events[1].message = "gpu-a02:12:12 [0] NCCL WARN Duplicate GPU detected";
  events[1].kind = "nccl";
  events[1].node = "gpu-a02";
  events[2].text = events[2].message = "[ERROR] RUNTIME(51302,python3):2025-06-04-10:14:21.402.118 EE8888";
  events[2].kind = "plog";
  events[2].pid = 51302;
  for (const auto& e : events) (void)engine.value()->match(e);
  const correlate::Facts facts = correlate::correlate(events, correlate::Inputs{engine.value()->reports(events), {}, 0});
  (void)engine.value()->analyze(events, facts);
  return 0;
}
