// The typed model: log families and levels are enums, named only at the edges (rules, output).
#include <gtest/gtest.h>

#include "model/event.hpp"
#include "rules/loader.hpp"

namespace dtriage {
namespace {

using model::Kind;
using model::Level;

TEST(ModelKind, EveryKindHasOneNameAndReadsBack) {
  for (int i = 1; i < model::kKindCount; ++i) {
    const Kind k = static_cast<Kind>(i);
    const std::string_view name = model::kind_name(k);
    ASSERT_FALSE(name.empty()) << i;
    ASSERT_EQ(model::kind_from_name(name), k) << name;
  }
  EXPECT_EQ(model::kind_name(Kind::None), "");
  EXPECT_EQ(model::kind_from_name("npu-smi"), Kind::NpuSmi);
  EXPECT_EQ(model::kind_from_name("hccl"), std::nullopt);
  EXPECT_EQ(model::kind_from_name(""), std::nullopt);
}

TEST(ModelLevel, LogWordsMapToLevels) {
  // glog letters, Python logging names, plog brackets, vLLM / Ray words, as logs spell them.
  EXPECT_EQ(model::level_from_word("E"), Level::Error);
  EXPECT_EQ(model::level_from_word("F"), Level::Error);
  EXPECT_EQ(model::level_from_word("CRITICAL"), Level::Error);
  EXPECT_EQ(model::level_from_word("Error"), Level::Error);
  EXPECT_EQ(model::level_from_word("W"), Level::Warning);
  EXPECT_EQ(model::level_from_word("WARN"), Level::Warning);
  EXPECT_EQ(model::level_from_word("warning"), Level::Warning);
  EXPECT_EQ(model::level_from_word("I"), Level::Info);
  EXPECT_EQ(model::level_from_word("DEBUG"), Level::Debug);
  EXPECT_EQ(model::level_from_word("EVENT"), Level::Event);
  EXPECT_EQ(model::level_from_word("NOTICE"), Level::None);
  EXPECT_EQ(model::level_from_word(""), Level::None);
  EXPECT_EQ(model::level_name(Level::Warning), "warning");
  EXPECT_EQ(model::level_from_name("trace"), Level::Trace);
}

TEST(ModelKind, ARuleNamingNoFamilyIsAProblem) {
  rules::RuleSet set;
  rules::load_rules_text(R"(id: test.odd-kind
title: odd kind
category: unknown
severity: error
scope: event
summary: "x"
match:
  kind: [plog, hccl-log]
  regex: "boom"
examples:
  match: ["boom"]
)",
                         "odd.yaml", set);
  ASSERT_EQ(set.problems.size(), 1u);
  EXPECT_NE(set.problems[0].message.find("hccl-log"), std::string::npos) << set.problems[0].message;

  rules::RuleSet good;
  rules::load_rules_text(R"(id: test.plog-kind
title: plog kind
category: unknown
severity: error
scope: event
summary: "x"
match:
  kind: [plog, npu-smi]
  regex: "boom"
examples:
  match: ["boom"]
)",
                         "good.yaml", good);
  ASSERT_TRUE(good.problems.empty()) << good.problems[0].message;
  ASSERT_EQ(good.rules.size(), 1u);
  EXPECT_EQ(good.rules[0].kinds, (std::vector<Kind>{Kind::Plog, Kind::NpuSmi}));
}

}  // namespace
}  // namespace dtriage
