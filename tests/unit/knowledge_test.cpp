// One home for each kind of knowledge: the bugs that came from knowledge spread over several places
// (evidence hard-wired per rule scope, policy in parsers, unchecked names and numbers), each pinned.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

#include "model/fields.hpp"
#include "rules/loader.hpp"
#include "test_util.hpp"

namespace dtriage::test {
namespace {

using nlohmann::json;

const json* finding(const json& report, const std::string& rule) {
  for (const auto& f : report["findings"])
    if (f["rule"] == rule) return &f;
  return nullptr;
}

std::string evidence_text(const json& f) {
  std::string all;
  for (const auto& e : f["evidence"]) all += e["text"].get<std::string>() + "\n";
  return all;
}

// A job rule cites the evidence of the facts it names: the two version lines, not whatever else
// the job had (comm init, watchdog timeouts).
TEST(Knowledge, VersionMismatchCitesTheVersionLines) {
  TempDir d;
  d.write("job/trn-a1/worker.log",
          "trn-a1:2211:2211 [0] NCCL INFO NCCL version 2.18.1+cuda12.1\n"
          "trn-a1:2211:2290 [0] NCCL INFO comm 0x7f3c rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE\n");
  d.write("job/trn-a2/worker.log",
          "trn-a2:3105:3105 [0] NCCL INFO NCCL version 2.20.5+cuda12.4\n"
          "trn-a2:3105:3190 [0] NCCL INFO comm 0x5e10 rank 1 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE\n"
          "[rank1]:[E1102 07:00:11.120000000 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation "
          "timeout: WorkNCCL(SeqNum=3, OpType=ALLGATHER, NumelIn=8, NumelOut=16, Timeout(ms)=600000) ran for 600321 "
          "milliseconds before timing out.\n");
  const json j = analyze_report(d.file("job"));
  ASSERT_EQ(j["verdict"]["rule"], "host.version-mismatch-across-nodes") << j["verdict"].dump();
  const json* f = finding(j, "host.version-mismatch-across-nodes");
  ASSERT_NE(f, nullptr);
  const std::string ev = evidence_text(*f);
  EXPECT_NE(ev.find("NCCL version 2.18.1"), std::string::npos) << ev;
  EXPECT_NE(ev.find("NCCL version 2.20.5"), std::string::npos) << ev;
  EXPECT_EQ(ev.find("Watchdog"), std::string::npos) << ev;
  EXPECT_EQ(ev.find("Init COMPLETE"), std::string::npos) << ev;
}

TEST(Knowledge, TorchNpuVersionsThatDifferAreAMismatch) {
  TempDir d;
  d.write("job/npu-h1/env.log", "torch version: 2.1.0\ntorch_npu version: 2.1.0.post3\n");
  d.write("job/npu-h2/env.log", "torch version: 2.1.0\ntorch_npu version: 2.1.0.post8\n");
  const json j = analyze_report(d.file("job"));
  EXPECT_EQ(j["verdict"]["category"], "env-version-mismatch") << j["verdict"].dump();
  EXPECT_NE(j["verdict"]["summary"].get<std::string>().find("torch_npu_version"), std::string::npos);
}

std::string npu_smi(const std::string& health_of_device_1) {
  std::string t = kNpuSmi910Header;
  for (int d = 0; d < 2; ++d) {
    const std::string health = d == 1 ? health_of_device_1 : "OK";
    t += "| " + std::to_string(d) + "     910B2               | " + health + std::string(14 - health.size(), ' ') +
         "| 95.0        38                0    / 0             |\n";
    t += "| 0                         | 0000:C" + std::to_string(d) +
         ":00.0  | 0           0    / 0          3402 / 65536         |\n";
    t += "+---------------------------+---------------+----------------------------------------------------+\n";
  }
  return t;
}

// The parser reports health; the rule pack decides what it means: a Warning NPU is a warning on a
// healthy run, a Critical one is a failure.
TEST(Knowledge, WarningNpuOnAHealthyRunStaysHealthy) {
  TempDir d;
  d.write("job/n1/npu-smi.txt", npu_smi("Warning"));
  d.write("job/n1/train.log", "step 100 loss 2.31\nstep 200 loss 2.05\ntraining finished\n");
  json j = analyze_report(d.file("job"));
  EXPECT_EQ(j["verdict"]["status"], "healthy") << j["verdict"].dump();
  const json* w = finding(j, "ascend.unhealthy-device");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ((*w)["role"], "warning");

  TempDir c;
  c.write("job/n1/npu-smi.txt", npu_smi("Critical"));
  j = analyze_report(c.file("job"));
  EXPECT_EQ(j["verdict"]["status"], "failed");
  EXPECT_EQ(j["verdict"]["category"], "device-hardware-error");
}

TEST(Knowledge, IntegersTooLargeForTheirFieldAreLeftOut) {
  TempDir d;
  d.write("x.log",
          "[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: "
          "WorkNCCL(SeqNum=99999999999999999999, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600003 milliseconds "
          "before timing out.\n");
  int code = -1;
  const std::string out = events_jsonl({d.file("x.log")}, &code);
  ASSERT_EQ(code, 0);
  const json e = json::parse(out.substr(0, out.find('\n')));
  EXPECT_EQ(e["code"], "watchdog-timeout");
  EXPECT_FALSE(e.contains("seq")) << e.dump();
  EXPECT_EQ(e["timeout_ms"], 600000);
}

TEST(Knowledge, LinkTableRowsWithAnyPadding) {
  TempDir d;
  d.write("plog-7001_20250301101010123.log",
          "[ERROR] HCCL(7001,python3):2025-03-01-10:10:11.000.001 [hccl_communicator.cc:99][7001]|  10.8.1.12(3) | "
          "10.8.1.14(5) |  client | time out |\n"
          "[ERROR] HCCL(7001,python3):2025-03-01-10:10:11.000.002 [hccl_communicator.cc:99][7001]|10.8.1.12(3)|"
          "10.8.1.15(6)|client|no connect|\n");
  const std::string out = events_jsonl({d.file("plog-7001_20250301101010123.log")});
  std::istringstream in(out);
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    const json e = json::parse(line);
    if (e["code"] != "hccl-link-error") continue;
    ++rows;
    EXPECT_EQ(e["dest_rank"], 3);
  }
  EXPECT_EQ(rows, 2) << out;
}

TEST(Knowledge, AFailedWriteIsAnError) {
  const std::string sample = std::string(DTRIAGE_SOURCE_DIR) + "/samples/seed-nproc-sdma";
  for (const std::string cmd : {"analyze", "events", "scan"}) {
    const std::string target = cmd == "scan" ? std::string(DTRIAGE_SOURCE_DIR) + "/samples" : sample;
    const int code = sh(std::string(DTRIAGE_BINARY) + " " + cmd + " '" + target + "' > /dev/full 2>/dev/null");
    EXPECT_EQ(code, 2) << cmd;
  }
  for (const std::string action : {"list", "show torch.watchdog-timeout", "patterns", "fields", "test"}) {
    const int code = sh(std::string(DTRIAGE_BINARY) + " rules " + action + " > /dev/full 2>/dev/null");
    EXPECT_EQ(code, 2) << "rules " << action;
  }
}

// The `scan` command's --format text and --redact reach every line (a test of the command line:
// the only one that runs scan with these flags).
TEST(Knowledge, ScanTextWithRedactIsTextAndRedacted) {
  const RunResult r = run_dtriage(std::string("scan --format text --redact '") + DTRIAGE_SOURCE_DIR + "/samples'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('{'), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("npu-a01"), std::string::npos) << r.out;
  // Job names are the customer's: each is job-HASH, one per job.
  EXPECT_EQ(r.out.find("seed-nproc-sdma"), std::string::npos) << r.out;
  std::set<std::string> names;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("job-", 0) == 0) names.insert(line.substr(0, line.find(' ')));
  EXPECT_EQ(names.size(), 4u) << r.out;
  EXPECT_NE(r.out.find("node#1"), std::string::npos) << r.out;
}

// torchrun's exit barrier (`phase: teardown`): an agent whose workers finished logs "Error waiting on
// exit barrier" and a traceback ending in "Connection reset by peer" when the store's host left
// first. The run's result stands: healthy, with it as a warning. The same traceback on its own (no
// teardown line before it) is still a lost peer.
TEST(Knowledge, AnExitBarrierErrorAfterTheWorkersFinishedIsTeardown) {
  const std::string barrier_traceback =
      "Traceback (most recent call last):\n"
      "  File \"/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/agent/server/api.py\", line 906, in _exit_barrier\n"
      "    store_util.barrier(\n"
      "  File \"/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/utils/store.py\", line 42, in get_all\n"
      "    store.get(f\"{prefix}{node_rank}.FIN\")\n"
      "RuntimeError: Connection reset by peer\n";
  const std::string steps = "[rank1]: step 98/100 loss 0.31\n[rank1]: step 99/100 loss 0.30\n[rank1]: training finished\n";
  for (const bool with_line : {true, false}) {
    TempDir d;
    d.write("job/trn-b07/train.log", "[rank0]: step 99/100 loss 0.30\n[rank0]: training finished\n");
    d.write("job/trn-b08/train.log",
            steps + (with_line ? "E1105 02:11:09.512000 140211 torch/distributed/elastic/agent/server/api.py:940] Error waiting on exit barrier. "
                                 "Elapsed: 0.0123 seconds\n"
                               : "") + barrier_traceback);
    const auto v = verdict_of(d.file("job"));
    if (with_line) {
      EXPECT_EQ(v["status"], "healthy") << v.dump();
    } else {
      EXPECT_EQ(v["status"], "failed") << v.dump();
    }
  }
}

// Each kind of typo in a rule file is caught by lint, with its file and what is wrong.
TEST(Knowledge, LintCatchesEveryKindOfTypo) {
  TempDir d;
  const std::string ok_match = "examples: {match: ['needle 1']}\n";
  d.write("r/site/fact-typo.yaml", "id: site.fact-typo\ncategory: unknown\nscope: job\nwhen: ['job.wrold_size > 1']\n"
                                   "examples: {match: [{a/x.log: 'x'}]}\n");
  d.write("r/site/field-typo.yaml", "id: site.field-typo\ncategory: unknown\nmatch: {regex: 'needle'}\n"
                                    "when: ['event.exitcod < 0']\n" + ok_match);
  d.write("r/site/placeholder-typo.yaml", "id: site.placeholder-typo\ncategory: unknown\nmatch: {regex: 'needle'}\n"
                                          "summary: 'needle on {nodee}'\n" + ok_match);
  d.write("r/site/shadow.yaml", "id: site.shadow\ncategory: unknown\nmatch: {regex: 'needle (?P<count>\\d+)'}\n"
                                "summary: 'range [0, {count})'\nexamples: {match: ['needle 1']}\n");
  d.write("r/site/wildcard.yaml", "id: site.wildcard\ncategory: unknown\nmatch: {regex: 'needle'}\n"
                                  "explains: [nosuchfamily.*]\n" + ok_match);
  d.write("r/site/wrong-name.yaml", "id: site.other-name\ncategory: unknown\nmatch: {regex: 'needle'}\n" + ok_match);
  d.write("r/site/zh-placeholder.yaml", "id: site.zh-placeholder\ncategory: unknown\nmatch: {regex: 'needle'}\n"
                                        "summary: 'needle[[ on {node}]]'\nzh: {title: 针, summary: '发现 needle'}\n" + ok_match);
  d.write("r/site/zh-missing.yaml", "id: site.zh-missing\ncategory: unknown\nmatch: {regex: 'needle'}\nsummary: 'needle'\n"
                                    "remedy: 'remove it'\ndescription: 'A needle.'\nzh: {title: 针, summary: 针}\n" + ok_match);
  d.write("r/site/dup-a.yaml", "id: site.dup-a\ncategory: unknown\nmatch: {regex: 'needle'}\n" + ok_match);
  d.write("r/site/dup-b.yaml", "id: site.dup-a\ncategory: unknown\nmatch: {regex: 'needle'}\n" + ok_match);
  // What `rules lint --no-default-rules --rules r` reports: the load problems ("WHERE: MESSAGE"),
  // each example that fails and lint's own findings; any of them makes it exit 1. (The command's
  // output and exit code: Analyze.RulesTestFailsOnABrokenExample, Hostile.DuplicateRuleIdsInOneDirectoryAreReported.)
  auto book = analysis::RuleBook::load({d.file("r")});
  ASSERT_TRUE(book) << book.error();
  std::vector<std::string> failures = analysis::check_examples(*book);
  for (std::string& m : rules::lint(book->engine->rules())) failures.push_back(std::move(m));
  for (const auto& p : book->set.problems) failures.push_back(p.where + ": " + p.message);
  EXPECT_FALSE(failures.empty());
  std::string all;
  for (const auto& f : failures) all += f + "\n";
  EXPECT_NE(all.find("fact-typo.yaml:1: site.fact-typo: unknown fact 'job.wrold_size'"), std::string::npos) << all;
  EXPECT_NE(all.find("unknown event field 'event.exitcod'"), std::string::npos) << all;
  EXPECT_NE(all.find("placeholder {nodee}"), std::string::npos) << all;
  EXPECT_NE(all.find("site.shadow: capture (?P<count>) shadows the engine's {count}"), std::string::npos) << all;
  EXPECT_NE(all.find("explains wildcard 'nosuchfamily.*' matches no rule"), std::string::npos) << all;
  EXPECT_NE(all.find("id does not match its file (expected site.wrong-name)"), std::string::npos) << all;
  EXPECT_NE(all.find("site.dup-a: duplicate id"), std::string::npos) << all;
  // The Chinese texts: the same placeholders and optional parts as the English, none missing.
  EXPECT_NE(all.find("site.zh-placeholder: zh.summary lacks the placeholder {node} of its English"), std::string::npos) << all;
  EXPECT_NE(all.find("site.zh-placeholder: zh.summary has 0 optional part(s)"), std::string::npos) << all;
  EXPECT_NE(all.find("site.zh-missing: no Chinese remedy (zh.remedy)"), std::string::npos) << all;
  EXPECT_NE(all.find("site.zh-missing: no Chinese description (zh.description)"), std::string::npos) << all;
  EXPECT_NE(all.find("site.shadow: no Chinese summary"), std::string::npos) << all;
}

// Every name the registry lists is documented for rule authors (docs/rules.md's list is this table).
TEST(Knowledge, RuleDocsListEveryFieldAndFact) {
  const std::string readme = read_file(std::string(DTRIAGE_SOURCE_DIR) + "/docs/rules.md");
  for (const auto& f : model::fact_fields())
    EXPECT_NE(readme.find("`" + std::string(f.name) + "`"), std::string::npos) << f.name;
  for (const auto& f : model::event_fields())
    EXPECT_NE(readme.find("`" + std::string(f.name) + "`"), std::string::npos) << f.name;
}

}  // namespace
}  // namespace dtriage::test
