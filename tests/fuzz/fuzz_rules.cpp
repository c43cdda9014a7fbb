// Fuzz target: the rule loader and compiler. The input is one rule file (YAML); whatever it holds
// must load as rules or problems, compile or be left out, and match a few real lines without a crash.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analysis.hpp"
#include "rules/loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dtriage;
  rules::RuleSet set;
  rules::load_rules_text(std::string(reinterpret_cast<const char*>(data), size), "site/fuzz.yaml", set);
  auto book = analysis::RuleBook::compile(std::move(set));
  if (!book) return 0;
  // A few real lines through the whole analysis: the gate built from these rules, the parsers,
  // correlation, the findings and the verdict.
  analysis::Inputs in;
  in.texts = {{"gpu-a01/train.log", "[rank3]: RuntimeError: CUDA error: out of memory\n"},
              {"gpu-a02/train.log", "gpu-a02:12:12 [0] NCCL WARN Duplicate GPU detected\n"},
              {"npu-b01/plog/plog-51302_20250604101405123.log",
               "[ERROR] RUNTIME(51302,python3):2025-06-04-10:14:21.402.118 EE8888 memcpy exception\n"}};
  (void)analysis::analyze(std::move(in), *book);
  return 0;
}
