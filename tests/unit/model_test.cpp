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

namespace dtriage {
namespace {

TEST(ModelTime, ReadsTheShapesTheParsersWrite) {
  const model::Time plain = model::Time::parse("2025-03-21T10:17:31");
  ASSERT_TRUE(plain.valid);
  EXPECT_EQ(plain.digits, 0);
  EXPECT_FALSE(plain.zone_known);
  EXPECT_EQ(plain.second(), 1742552251);  // date -u -d 2025-03-21T10:17:31 +%s

  const model::Time nanos = model::Time::parse("2024-05-01T02:00:00.123456789Z");
  ASSERT_TRUE(nanos.valid);
  EXPECT_EQ(nanos.digits, 9);
  EXPECT_TRUE(nanos.zone_known);
  EXPECT_EQ(nanos.zone_minutes, 0);
  EXPECT_EQ(nanos.micros % 1'000'000, 123456);

  const model::Time zoned = model::Time::parse("2024-05-01T10:00:00.5+08:00");
  ASSERT_TRUE(zoned.valid);
  EXPECT_EQ(zoned.zone_minutes, 480);
  EXPECT_EQ(zoned.digits, 1);
  EXPECT_EQ(model::Time::parse("2024-05-01T10:00:00-0530").zone_minutes, -330);

  const model::Time inferred = model::Time::parse(model::time_with_year("2026", "3-21", "10:17:31.123"), true);
  EXPECT_EQ(inferred.text, "2026-03-21T10:17:31.123");
  EXPECT_TRUE(inferred.valid);
  EXPECT_TRUE(inferred.year_inferred);

  EXPECT_FALSE(model::Time::parse("10:17:31").valid);
  EXPECT_FALSE(model::Time::parse("2025-13-01T10:17:31").valid);
  // A zeroed stamp is no clock: it neither orders first nor stretches a timeline.
  EXPECT_FALSE(model::Time::parse("0000-01-01T00:00:00").valid);
  EXPECT_FALSE(model::Time::parse("1969-12-31T23:59:59").valid);
  EXPECT_TRUE(model::Time::parse("1970-01-01T00:00:05").valid);
  EXPECT_FALSE(model::Time::parse("").valid);
  EXPECT_EQ(model::Time::parse("yesterday").text, "yesterday");
}

TEST(ModelTime, ComparesInstantsNotText) {
  auto t = [](const char* s) { return model::Time::parse(s); };
  // As text, 'Z' sorts after '.', so a UTC stamp of the same second looked later than its
  // fractions; as instants it is the start of that second.
  EXPECT_LT(t("2024-05-01T10:00:00Z"), t("2024-05-01T10:00:00.500"));
  EXPECT_LT(t("2024-05-01T10:00:00.5"), t("2024-05-01T10:00:00.75"));
  EXPECT_LT(t("2024-12-31T23:59:59.999"), t("2025-01-01T00:00:00"));
  // The clock as printed: the zone is kept, not applied.
  EXPECT_LT(t("2024-05-01T09:00:00+08:00"), t("2024-05-01T10:00:00"));
  // One instant in two spellings: ordered by text, never equal-and-different.
  EXPECT_LT(t("2024-05-01T10:00:00"), t("2024-05-01T10:00:00.000"));
  EXPECT_FALSE(t("2024-05-01T10:00:00.000") < t("2024-05-01T10:00:00"));
  // Texts that are no date come after every date.
  EXPECT_LT(t("2099-01-01T00:00:00"), t("1999 somewhere"));
}

TEST(ModelTime, EarlierPutsUndatedEventsLast) {
  model::Event a, b, c;
  a.set_time("2024-05-01T10:00:00Z");
  b.set_time("2024-05-01T10:00:00.250");
  c.path = "a.log";
  EXPECT_TRUE(model::earlier(a, b));
  EXPECT_FALSE(model::earlier(b, a));
  EXPECT_TRUE(model::earlier(b, c));
  EXPECT_FALSE(model::earlier(c, a));
}

}  // namespace
}  // namespace dtriage
