// The catalogues (catalogues/*.yaml): well formed, every classified entry shown in a real line's
// shape, the entry a line gets, and the lead they give a failure no rule names.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <re2/re2.h>

#include "analysis/coverage.hpp"
#include "rules/catalogue.hpp"
#include "test_util.hpp"

namespace dtriage::test {
namespace {

const rules::Catalogue& shipped() {
  static const rules::Catalogue c = rules::Catalogue::load(std::string(DTRIAGE_SOURCE_DIR) + "/catalogues");
  return c;
}

TEST(Catalogue, ShippedFilesLoadWithoutProblems) {
  const auto& c = shipped();
  for (const auto& p : c.problems()) ADD_FAILURE() << p.where << ": " << p.message;
  EXPECT_GE(c.sources().size(), 8u);
  for (const auto& s : c.sources()) {
    EXPECT_FALSE(s.title.empty()) << s.file;
    EXPECT_FALSE(s.origin.empty()) << s.file;
  }
}

// Every entry that maps to a category has a line in a shape other than the source's format string:
// real values (no printf / fmt placeholders left) and more than the matched piece alone. Every
// example is matched by its own entry.
TEST(Catalogue, EveryClassifiedEntryHasARealLine) {
  static const re2::RE2 placeholder(R"(%\d*(?:l{1,2}|z)?[sdiuxXpfgc]\b|\{\}|\{:[^}]*\})");
  for (const auto& e : shipped().entries()) {
    if (e.role != rules::EntryRole::Benign) {
      EXPECT_FALSE(e.examples.empty()) << e.file << ": " << e.id;
    }
    bool real = false;
    for (const std::string& x : e.examples) {
      EXPECT_TRUE(e.matches(x)) << e.file << ": " << e.id << ": its match does not find: " << x;
      EXPECT_FALSE(re2::RE2::PartialMatch(x, placeholder)) << e.file << ": " << e.id << ": a placeholder is left: " << x;
      real = real || x.size() > (e.match.empty() ? 0 : e.match.size());
    }
    if (e.role != rules::EntryRole::Benign) {
      EXPECT_TRUE(real) << e.file << ": " << e.id << ": no example shows more than the matched piece";
    }
  }
}

TEST(Catalogue, ClassifyPrefersACauseThenTheLongerMatch) {
  rules::Catalogue c;
  c.load_text(R"(source: demo
title: Demo
origin: written for this test
entries:
  - id: demo.closed
    match: "connection closed"
    meaning: "a peer went away"
    role: consequence
    category: network-transport-error
    of: "a peer's death"
    examples: ["w3: connection closed by 10.1.2.3"]
  - id: demo.closed-reset
    match: "connection closed: reset by peer"
    meaning: "the peer's host reset the link"
    role: consequence
    category: network-transport-error
    of: "a reboot"
    examples: ["w3: connection closed: reset by peer 10.1.2.3"]
  - id: demo.oom
    regex: 'out of (device )?memory'
    meaning: "device memory exhausted"
    role: cause
    category: device-oom
    examples: ["rank 4: out of device memory, tried 2 GiB"]
  - id: demo.retry
    match: "retrying"
    meaning: "a retry"
    role: benign
    examples: ["connect failed, retrying in 1 s"]
)", "demo.yaml");
  ASSERT_TRUE(c.problems().empty()) << c.problems().front().message;
  ASSERT_EQ(c.entries().size(), 4u);
  EXPECT_EQ(c.classify("x connection closed: reset by peer y")->id, "demo.closed-reset");
  EXPECT_EQ(c.classify("connection closed after out of memory")->id, "demo.oom");
  EXPECT_EQ(c.classify("connect failed, retrying")->id, "demo.retry");
  EXPECT_EQ(c.classify("all good"), nullptr);
}

TEST(Catalogue, BrokenEntriesAreProblemsNotCrashes) {
  rules::Catalogue c;
  c.load_text(R"(source: demo
entries:
  - id: demo.bad-regex
    regex: '(unclosed'
    meaning: m
    role: cause
    category: device-oom
  - id: demo.bad-category
    match: x
    meaning: m
    role: cause
    category: sunspots
  - id: other.prefix
    match: x
    meaning: m
    role: benign
  - id: demo.no-role
    match: x
    meaning: m
  - id: demo.both
    match: x
    regex: y
    meaning: m
    role: benign
  - id: demo.ok
    match: fine
    meaning: m
    role: benign
  - id: demo.ok
    match: again
    meaning: m
    role: benign
)", "demo.yaml");
  EXPECT_EQ(c.entries().size(), 1u);
  EXPECT_EQ(c.problems().size(), 6u);
  rules::Catalogue none;
  none.load_text("[1, 2", "broken.yaml");
  EXPECT_EQ(none.problems().size(), 1u);
  EXPECT_TRUE(rules::Catalogue::load("/nonexistent/catalogues").entries().empty());
}

// A failure no rule names is led by the earliest error a catalogue calls a cause, with its
// category and what it means, not by the earliest error of all.
TEST(Catalogue, LeadsAFailureNoRuleNames) {
  TempDir d;
  d.write("cat/demo.yaml", R"(source: demo
title: Demo
origin: written for this test
entries:
  - id: demo.flux
    match: "flux coupler overheated"
    meaning: "the coupler's thermal limit was crossed"
    role: cause
    category: device-hardware-error
    examples: ["[ERROR] DRV(4411,python3):2025-01-01-00:00:07.000.000 flux coupler overheated on chip 2"]
)");
  d.write("job/node9/plog/plog-77_20250101000000000.log",
          "[ERROR] RUNTIME(77,python3):2025-01-01-00:00:05.000.000 [x.cc:1]77 Frobnicate:the widget stalled\n"
          "[ERROR] RUNTIME(77,python3):2025-01-01-00:00:07.000.000 [x.cc:2]77 Frobnicate:flux coupler overheated on chip 2\n");
  auto book = analysis::RuleBook::load({std::string(DTRIAGE_SOURCE_DIR) + "/rules"}, d.file("cat"));
  ASSERT_TRUE(book);
  const auto a = analysis::analyze(analysis::Inputs{{d.file("job")}, {}, {}}, book.value());
  const nlohmann::json j = nlohmann::json::parse(json_report(*a, book.value()));
  const auto& v = j["verdict"];
  EXPECT_EQ(v["status"], "failed");
  EXPECT_EQ(v["category"], "device-hardware-error");
  EXPECT_EQ(v["catalogue"], "demo.flux");
  EXPECT_EQ(v["evidence"][0]["line"], 2);
  EXPECT_NE(v["summary"].get<std::string>().find("thermal limit"), std::string::npos) << v["summary"];
  // Without the catalogue the same job is unknown, led by its first error.
  auto bare = analysis::RuleBook::load({std::string(DTRIAGE_SOURCE_DIR) + "/rules"}, "");
  ASSERT_TRUE(bare);
  const auto b = analysis::analyze(analysis::Inputs{{d.file("job")}, {}, {}}, bare.value());
  EXPECT_EQ(b->outcome.verdict.category, "unknown");
  EXPECT_EQ(b->events[*b->outcome.verdict.lead].line, 1u);
}

// A generic rule (an uncaught exception) names the cause, and the catalogues know the culprit's
// error as a cause of a sharper category: the verdict takes it and says why; a message they do not
// know leaves the rule's category.
TEST(Catalogue, RefinesAGenericRulesCategory) {
  TempDir d;
  d.write("cat/demo.yaml", R"Y(source: demo
title: Demo
origin: written for this test
entries:
  - id: demo.lens
    match: "lens calibration table is stale"
    meaning: "the optics driver is older than the firmware"
    role: cause
    category: env-version-mismatch
    examples: ["ValueError: lens calibration table is stale (driver 3.1, firmware 4.0)"]
)Y");
  auto book = analysis::RuleBook::load({std::string(DTRIAGE_SOURCE_DIR) + "/rules"}, d.file("cat"));
  ASSERT_TRUE(book);
  auto job = [&](const std::string& message) {
    d.write("job/gpu-k12/rank5.log", "[rank5]: Traceback (most recent call last):\n"
                                     "[rank5]:   File \"/opt/run.py\", line 31, in <module>\n"
                                     "[rank5]:     cam.open()\n"
                                     "[rank5]: ValueError: " + message + "\n");
    return analysis::analyze(analysis::Inputs{{d.file("job")}, {}, {}}, book.value());
  };
  const auto a = job("lens calibration table is stale (driver 2.9, firmware 4.2)");
  const rules::Verdict& v = a->outcome.verdict;
  EXPECT_EQ(v.rule, "python.uncaught-exception");
  EXPECT_EQ(v.category, "env-version-mismatch");
  EXPECT_EQ(v.catalogue, "demo.lens");
  EXPECT_EQ(v.rank, 5);
  ASSERT_FALSE(v.why.empty());
  EXPECT_NE(v.why.back().find("older than the firmware"), std::string::npos) << v.why.back();
  const auto b = job("shard 17 has no rows");
  EXPECT_EQ(b->outcome.verdict.category, "worker-exception");
  EXPECT_TRUE(b->outcome.verdict.catalogue.empty());
}

// The figures add up, and lines the rule pack has long known are counted as known.
TEST(Catalogue, CoverageCountsWhatTheRulesKnow) {
  const analysis::Coverage c = analysis::coverage(rule_pack());
  ASSERT_GE(c.sources.size(), 2u);
  const auto& all = c.sources.back();
  EXPECT_EQ(all.source, "all");
  std::size_t entries = 0, classified = 0;
  for (std::size_t i = 0; i + 1 < c.sources.size(); ++i) {
    entries += c.sources[i].entries;
    classified += c.sources[i].classified;
    EXPECT_LE(c.sources[i].by_rule, c.sources[i].classified) << c.sources[i].source;
  }
  EXPECT_EQ(entries, all.entries);
  EXPECT_EQ(classified, all.classified);
  EXPECT_EQ(c.entries.size(), all.entries);
  // A watchdog timeout and a CUDA out-of-memory: the rules name both, whatever line shape the
  // catalogue shows them in.
  std::size_t known = 0;
  for (const auto& e : c.entries) {
    const std::string& ex = e.entry->examples.empty() ? std::string() : e.entry->examples.front();
    if ((ex.find("Watchdog caught collective operation timeout") != std::string::npos && e.entry->category == "collective-timeout") ||
        (ex.find("CUDA out of memory. Tried to allocate") != std::string::npos && e.entry->category == "device-oom")) {
      EXPECT_TRUE(e.by_rule) << e.entry->id;
      ++known;
    }
  }
  EXPECT_GE(known, 2u);
}

}  // namespace
}  // namespace dtriage::test
