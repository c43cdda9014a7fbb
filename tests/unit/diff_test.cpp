// dtriage diff: what changed between a run that worked and one that failed.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "diff/diff.hpp"
#include "test_util.hpp"

namespace dtriage::test {
namespace {

using nlohmann::json;

TEST(Diff, TemplatesMaskWhatDiffersAndKeepCodes) {
  EXPECT_EQ(diff::template_of("[rank3]: RuntimeError: CUDA error at ProcessGroupNCCL.cpp:1234 on gpu-a01 (pid 4711)"),
            "[<*>]: RuntimeError: CUDA error at ProcessGroupNCCL.cpp:<*> on <*> (pid <*>)");
  EXPECT_EQ(diff::template_of("EE8888: [PID: 51302] 2025-06-04-10:14:21.402.300 memcpy exception"),
            "EE8888: [PID: <*>] <*>:<*>:<*> memcpy exception");
  // glog's severity-and-day prefix is a date; runs of spaces are one.
  EXPECT_EQ(diff::template_of("I0603 09:02:01.118000 41170 api.py:188]   Starting"), diff::template_of("I0604 10:11:00.123000 51262 api.py:188] Starting"));
  EXPECT_EQ(diff::template_of(std::string(1000, 'x')).size(), diff::kTemplateMax);
  EXPECT_STREQ(diff::level_of_template("torch.distributed.DistNetworkError: The server socket has failed"), "error");
  EXPECT_STREQ(diff::level_of_template("[W] NCCL WARN something odd"), "warning");
  EXPECT_STREQ(diff::level_of_template("step <*>/<*> loss <*>"), "info");
  // A level word that is part of a file or option name says nothing about the line.
  EXPECT_STREQ(diff::level_of_template("Setting worker<*> reply file to: <*>/error.json"), "info");
  EXPECT_STREQ(diff::level_of_template("passing --error_file <*> to the worker"), "info");
  EXPECT_STREQ(diff::level_of_template("ValueError: bad value. Stopping"), "error");
  EXPECT_STREQ(diff::level_of_template("the step failed."), "error");
}

json run_diff(const std::string& good, const std::string& bad) {
  const RunResult r = run_dtriage("diff --format json '" + good + "' '" + bad + "'");
  EXPECT_LE(r.exit_code, 1) << r.err;
  return json::parse(r.out);
}

// The acceptance: the seed incident against its last good run (--nproc_per_node 16, made
// by the sample generator) names nproc_per_node 8 vs 16.
TEST(Diff, TheSeedIncidentAgainstItsGoodRunNamesNprocPerNode) {
  TempDir d;
  ASSERT_EQ(sh("python3 '" + std::string(DTRIAGE_SOURCE_DIR) + "/tools/make-samples.py' --seed-good '" + d.file("good") + "'"), 0);
  const json j = run_diff(d.file("good"), std::string(DTRIAGE_SOURCE_DIR) + "/samples/seed-nproc-sdma");
  EXPECT_EQ(j["relevant_change"], "nproc_per_node") << j.dump(2);
  const std::string s = j["sentence"];
  EXPECT_NE(s.find("nproc_per_node=8 on 16-device nodes; GOOD ran 16"), std::string::npos) << s;
  EXPECT_EQ(j["good"]["finished"], true);
  EXPECT_EQ(j["good"]["step"], 200);
  EXPECT_TRUE(j["bad"]["step"].is_null());
  EXPECT_GT(j["new_messages"]["templates"].get<int>(), 5);
  EXPECT_EQ(j["new_messages"]["first"][0]["level"], "error");
  bool done_gone = false;
  for (const auto& t : j["gone_messages"]["first"]) done_gone |= t["template"].get<std::string>().find("training done") != std::string::npos;
  EXPECT_TRUE(done_gone) << j["gone_messages"].dump(2);
}

// In Chinese: the same answer with the same values, its English beside it, the same change named,
// and the templates (log text) untouched.
TEST(Diff, SaysTheSameInChineseWithTheEnglishBeside) {
  TempDir d;
  ASSERT_EQ(sh("python3 '" + std::string(DTRIAGE_SOURCE_DIR) + "/tools/make-samples.py' --seed-good '" + d.file("good") + "'"), 0);
  const std::string bad = std::string(DTRIAGE_SOURCE_DIR) + "/samples/seed-nproc-sdma";
  const json en = run_diff(d.file("good"), bad);
  const RunResult r = run_dtriage("diff --lang zh --format json '" + d.file("good") + "' '" + bad + "'");
  ASSERT_LE(r.exit_code, 1) << r.err;
  const json zh = json::parse(r.out);
  EXPECT_EQ(zh["lang"], "zh");
  EXPECT_EQ(zh["sentence_en"], en["sentence"]);
  EXPECT_EQ(zh["relevant_change"], en["relevant_change"]);
  EXPECT_EQ(zh["new_messages"], en["new_messages"]);
  const std::string s = zh["sentence"];
  EXPECT_NE(s, en["sentence"].get<std::string>());
  for (const char* value : {"nproc_per_node=8", "16", "GOOD", "nproc-device-mismatch", "npu-a01", "51302", "60120"})
    EXPECT_NE(s.find(value), std::string::npos) << value << " in " << s;
  EXPECT_NE(s.find("设备"), std::string::npos) << s;
  // The other formats say their headings in Chinese too.
  const RunResult text = run_dtriage("diff --lang zh '" + d.file("good") + "' '" + bad + "'");
  EXPECT_NE(text.out.find("停止位置：GOOD 第 200 步（共 200 步）（已完成）"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("where they stopped"), std::string::npos) << text.out;
  const RunResult html = run_dtriage("diff --lang zh --format html '" + d.file("good") + "' '" + bad + "'");
  EXPECT_NE(html.out.find("<html lang=\"zh-CN\">"), std::string::npos);
  EXPECT_NE(html.out.find("与成功运行相比有什么变化"), std::string::npos);
}

// The same job twice with other pids, times and numbers: no change, no new error message.
TEST(Diff, TwoHealthyRunsOfOneJobShowNoChange) {
  TempDir d;
  auto run = [&](const std::string& dir, int pid, const std::string& day, int port) {
    for (int node = 0; node < 2; ++node) {
      std::string log = "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank " + std::to_string(node) +
                        " --master_addr 10.0.0.1 --master_port " + std::to_string(port) + " train.py\n";
      log += "NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0\n";
      for (int step = 10; step <= 100; step += 10)
        log += "[rank" + std::to_string(node * 2) + "]: " + day + " 10:0" + std::to_string(step % 7) + ":11 step " + std::to_string(step) +
               "/100 loss 0." + std::to_string(pid % 97 + step) + " (pid " + std::to_string(pid + node) + ")\n";
      d.write(dir + "/node-" + std::to_string(node) + "/train.log", log);
    }
  };
  run("a", 4100, "2026-11-30", 29500);
  run("b", 9921, "2026-12-01", 29500);
  const json j = run_diff(d.file("a"), d.file("b"));
  EXPECT_TRUE(j["changed"].empty()) << j.dump(2);
  EXPECT_TRUE(j["one_sided"].empty()) << j.dump(2);
  EXPECT_EQ(j["new_messages"]["templates"], 0) << j.dump(2);
  EXPECT_NE(j["sentence"].get<std::string>().find("No change"), std::string::npos) << j["sentence"];
  // One more node, another master port and another interface: each named.
  run("c", 5000, "2026-12-02", 29511);
  d.write("c/node-2/train.log", "+ torchrun --nnodes 3 --nproc_per_node 2 --node_rank 2 --master_addr 10.0.0.1 --master_port 29511 train.py\n"
                                "NCCL INFO NCCL_SOCKET_IFNAME set by environment to ib0\n"
                                "[rank4]: RuntimeError: Connection reset by peer\n");
  const json c = run_diff(d.file("a"), d.file("c"));
  std::set<std::string> keys;
  for (const auto& ch : c["changed"]) keys.insert(ch["key"].get<std::string>());
  EXPECT_TRUE(keys.count("master_port")) << c["changed"].dump();
  EXPECT_TRUE(keys.count("env NCCL_SOCKET_IFNAME")) << c["changed"].dump();
  EXPECT_EQ(c["nodes"]["added"], json::array({"node-2"})) << c["nodes"].dump();
  bool reset = false;
  for (const auto& t : c["new_messages"]["first"]) reset |= t["template"].get<std::string>().find("Connection reset by peer") != std::string::npos;
  EXPECT_TRUE(reset) << c["new_messages"].dump(2);
}

// analyze --baseline GOOD: the same comparison as a section of the report, in every format.
TEST(Diff, AnalyzeWithABaselineAddsTheSection) {
  TempDir d;
  ASSERT_EQ(sh("python3 '" + std::string(DTRIAGE_SOURCE_DIR) + "/tools/make-samples.py' --seed-good '" + d.file("good") + "'"), 0);
  const std::string bad = std::string(DTRIAGE_SOURCE_DIR) + "/samples/seed-nproc-sdma";
  const RunResult j = run_dtriage("analyze --format json --baseline '" + d.file("good") + "' '" + bad + "'");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const json r = json::parse(j.out);
  EXPECT_EQ(r["verdict"]["category"], "nproc-device-mismatch");
  EXPECT_EQ(r["baseline"]["relevant_change"], "nproc_per_node") << r["baseline"].dump(2);
  for (const char* f : {"text", "markdown", "html"}) {
    const RunResult o = run_dtriage(std::string("analyze --format ") + f + " --baseline '" + d.file("good") + "' '" + bad + "'");
    EXPECT_EQ(o.exit_code, 0) << f << o.err;
    EXPECT_NE(o.out.find("GOOD ran 16"), std::string::npos) << f;
  }
}

// --redact on a comparison: no host of either run shows in any format (nodes, master address,
// the lines of new messages, the sentence), the change named is the same, and analyze --baseline
// numbers BAD's nodes in its comparison as in its own redacted report.
TEST(Diff, RedactMasksBothRunsAndKeepsTheChange) {
  TempDir d;
  ASSERT_EQ(sh("python3 '" + std::string(DTRIAGE_SOURCE_DIR) + "/tools/make-samples.py' --seed-good '" + d.file("seed-good") + "'"), 0);
  const std::string pairs = std::string(DTRIAGE_SOURCE_DIR) + "/tests/lab/pairs/";
  const std::vector<std::pair<std::string, std::string>> runs = {
      {d.file("seed-good"), std::string(DTRIAGE_SOURCE_DIR) + "/samples/seed-nproc-sdma"},
      {pairs + "26003-port-busy/good/logs", pairs + "26003-port-busy/bad/logs"},
      {pairs + "28004-nodes/good/logs", pairs + "28004-nodes/bad/logs"}};
  for (const auto& [good, bad] : runs) {
    const json plain = run_diff(good, bad);
    std::set<std::string> hosts;
    for (const char* side : {"good", "bad"})
      for (const auto& n : plain[side]["nodes"]) hosts.insert(n.get<std::string>());
    for (const char* list : {"changed", "one_sided"})
      for (const auto& c : plain[list])
        if (c["key"] == "master_addr")
          for (const char* side : {"good", "bad"})
            if (c[side].is_string() && c[side] != "127.0.0.1" && c[side] != "localhost") hosts.insert(c[side].get<std::string>());
    ASSERT_FALSE(hosts.empty()) << plain.dump(1);
    const RunResult j = run_dtriage("diff --redact --format json '" + good + "' '" + bad + "'");
    ASSERT_LE(j.exit_code, 1) << j.err;
    const json masked = json::parse(j.out);
    EXPECT_EQ(masked["relevant_change"], plain["relevant_change"]) << bad;
    EXPECT_EQ(masked["new_messages"]["templates"], plain["new_messages"]["templates"]) << bad;
    EXPECT_EQ(masked["bad"]["nodes"].size(), plain["bad"]["nodes"].size()) << bad;
    EXPECT_FALSE(masked["sentence"].get<std::string>().empty());
    for (const char* f : {"text", "markdown", "html"}) {
      const RunResult o = run_dtriage(std::string("diff --redact --format ") + f + " '" + good + "' '" + bad + "'");
      for (const std::string& h : hosts) EXPECT_EQ(o.out.find(h), std::string::npos) << f << ": " << h << " shown, " << bad;
    }
    for (const std::string& h : hosts) EXPECT_EQ(j.out.find(h), std::string::npos) << h << " shown in " << j.out;
    // analyze --redact --baseline: the report and its comparison mask the same names alike.
    const RunResult a = run_dtriage("analyze --redact --format json --baseline '" + good + "' '" + bad + "'");
    ASSERT_LE(a.exit_code, 1) << a.err;
    for (const std::string& h : hosts) EXPECT_EQ(a.out.find(h), std::string::npos) << h << " shown, " << bad;
    const json r = json::parse(a.out);
    std::set<std::string> report_nodes, compared_nodes;
    for (const auto& n : r["nodes"])
      if (n["name"].is_string()) report_nodes.insert(n["name"].get<std::string>());
    for (const auto& n : r["baseline"]["bad"]["nodes"]) compared_nodes.insert(n.get<std::string>());
    EXPECT_EQ(report_nodes, compared_nodes) << a.out;
  }
}

// Real torchrun jobs from the lab (tests/lab/pairs): one seed run healthy, then with one fault; in
// the fault pairs the launcher's port was drawn anew for each run, so they also differ in
// master_port. A launch fault is named by its change; a worker's own failure is not pinned on the
// port. 26005 is one job run twice with its port fixed (run_case.py --port), as a job script with
// a fixed MASTER_PORT runs: no configuration change and no new error.
TEST(Diff, LabPairsNameTheirOneChange) {
  const std::string root = std::string(DTRIAGE_SOURCE_DIR) + "/tests/lab/pairs/";
  for (const std::string pair : {"26001-exception", "26002-wrong-port", "26003-port-busy", "26005-none"}) {
    const json truth = json::parse(read_file(root + pair + "/bad/TRUTH.json"));
    const json j = run_diff(root + pair + "/good/logs", root + pair + "/bad/logs");
    EXPECT_EQ(j["good"]["status"], "healthy") << pair;
    std::set<std::string> keys;
    for (const auto& c : j["changed"]) keys.insert(c["key"].get<std::string>());
    if (truth["status"] == "healthy") {
      EXPECT_TRUE(keys.empty()) << pair << ": " << j["changed"].dump();
      EXPECT_TRUE(j["relevant_change"].is_null()) << pair << ": " << j["sentence"];
      EXPECT_EQ(j["new_messages"]["templates"], 0) << pair;
      EXPECT_EQ(j["bad"]["status"], "healthy") << pair;
      for (const auto& t : j["new_messages"]["first"]) EXPECT_NE(t["level"], "error") << pair << ": " << t.dump();
      continue;
    }
    EXPECT_EQ(keys, std::set<std::string>{"master_port"}) << pair << ": " << j["changed"].dump();
    EXPECT_EQ(j["bad"]["category"], truth["category"]) << pair;
    const std::string s = j["sentence"];
    if (pair.find("port") != std::string::npos) {
      EXPECT_EQ(j["relevant_change"], "master_port") << pair << ": " << s;
    } else {
      EXPECT_TRUE(j["relevant_change"].is_null()) << pair << ": " << s;
      EXPECT_NE(s.find("no change the logs show is tied to worker-exception"), std::string::npos) << s;
      EXPECT_EQ(j["new_messages"]["first"][0]["level"], "error") << pair;
    }
  }
}

// Real pairs made after the diff code (run_case.py --nproc / --nodes / --env): one drawn healthy job
// run twice with one change; the master port is drawn anew each run, as many launch scripts do. The
// change made is the one named, ahead of the port.
TEST(Diff, LabPairsOfOneLaunchChangeNameItBeforeThePort) {
  const std::string root = std::string(DTRIAGE_SOURCE_DIR) + "/tests/lab/pairs/";
  const std::map<std::string, std::string> made = {{"28003-nproc", "nproc_per_node"}, {"28004-nodes", "nnodes"}, {"28002-env", "env CUDA_VERSION"}};
  for (const auto& [pair, key] : made) {
    const json j = run_diff(root + pair + "/good/logs", root + pair + "/bad/logs");
    EXPECT_EQ(j["good"]["status"], "healthy") << pair;
    EXPECT_EQ(j["bad"]["status"], "healthy") << pair;
    ASSERT_FALSE(j["changed"].empty()) << pair;
    EXPECT_EQ(j["changed"][0]["key"], key) << pair << ": " << j["changed"].dump();
    const std::string s = j["sentence"];
    EXPECT_EQ(s.rfind("The most relevant change: " + key + " ", 0), 0u) << pair << ": " << s;
    for (const auto& c : j["changed"]) {  // nothing else changed but what follows from it, and the port
      const std::string k = c["key"];
      EXPECT_TRUE(k == key || k == "master_port" || k == "world_size" || k == "nodes") << pair << ": " << k;
    }
    for (const auto& t : j["new_messages"]["first"]) EXPECT_NE(t["level"], "error") << pair << ": " << t.dump();
  }
}

// scan --baseline ROOT: each job with an entry of its name below ROOT carries what changed since;
// a job without one carries nothing; --redact keeps the change's key, not its sentence.
TEST(Diff, ScanComparesEachJobWithItsNamesake) {
  TempDir d;
  const std::string pairs = std::string(DTRIAGE_SOURCE_DIR) + "/tests/lab/pairs/";
  ASSERT_EQ(sh("mkdir -p '" + d.file("bad") + "' '" + d.file("good") + "' && cp -r '" + pairs + "26003-port-busy/bad/logs' '" + d.file("bad/j1") +
               "' && cp -r '" + pairs + "26003-port-busy/good/logs' '" + d.file("good/j1") + "' && cp -r '" + pairs +
               "26001-exception/bad/logs' '" + d.file("bad/j2") + "'"),
            0);
  for (const bool redact : {false, true}) {
    const RunResult r = run_dtriage(std::string("scan ") + (redact ? "--redact " : "") + "--baseline '" + d.file("good") + "' '" + d.file("bad") + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream in(r.out);
    std::string line;
    std::vector<json> lines;
    while (std::getline(in, line)) lines.push_back(json::parse(line));
    ASSERT_EQ(lines.size(), 2u) << r.out;
    const json& j1 = lines[0]["category"] == "port-in-use" ? lines[0] : lines[1];
    const json& j2 = lines[0]["category"] == "port-in-use" ? lines[1] : lines[0];
    EXPECT_EQ(j1["baseline"]["relevant_change"], "master_port") << j1.dump();
    EXPECT_FALSE(j1["baseline"]["sentence"].is_null()) << j1.dump();
    // redacted, the sentence names no host of either run (the pair's nodes are gpuNN)
    if (redact) {
      EXPECT_EQ(j1["baseline"]["sentence"].get<std::string>().find("gpu"), std::string::npos) << j1.dump();
    }
    EXPECT_FALSE(j2.contains("baseline")) << j2.dump();
  }
}

// summary over a scan with --baseline: the failed jobs grouped by the change each job's diff
// named (two master-port changes are one group), the jobs with no change and without a baseline counted.
TEST(Diff, SummaryGroupsFailedJobsByTheChangeNamed) {
  TempDir d;
  const std::string pairs = std::string(DTRIAGE_SOURCE_DIR) + "/tests/lab/pairs/";
  std::string copy = "mkdir -p '" + d.file("bad") + "' '" + d.file("good") + "'";
  for (const auto& [job, pair, with_good] : {std::tuple{"busy", "26003-port-busy", true}, std::tuple{"wrong", "26002-wrong-port", true},
                                             std::tuple{"raise", "26001-exception", true}, std::tuple{"alone", "26001-exception", false}}) {
    copy += " && cp -r '" + pairs + pair + "/bad/logs' '" + d.file(std::string("bad/") + job) + "'";
    if (with_good) copy += " && cp -r '" + pairs + pair + "/good/logs' '" + d.file(std::string("good/") + job) + "'";
  }
  ASSERT_EQ(sh(copy), 0);
  const RunResult scan = run_dtriage("scan --baseline '" + d.file("good") + "' -o '" + d.file("r.jsonl") + "' '" + d.file("bad") + "'");
  ASSERT_EQ(scan.exit_code, 0) << scan.err;
  const RunResult r = run_dtriage("summary --format json '" + d.file("r.jsonl") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_TRUE(j.contains("changes")) << r.out;
  const json& groups = j["changes"]["groups"];
  ASSERT_EQ(groups.size(), 2u) << r.out;
  EXPECT_EQ(groups[0]["change"], "master_port");
  EXPECT_EQ(groups[0]["jobs"], 2);
  EXPECT_EQ(groups[0]["examples"][0]["job"], "busy");
  EXPECT_TRUE(groups[1]["change"].is_null());
  EXPECT_EQ(groups[1]["examples"][0]["job"], "raise");
  EXPECT_EQ(j["changes"]["not_compared"], 1);
  for (const char* format : {"text", "markdown", "html"}) {
    const RunResult t = run_dtriage(std::string("summary --format ") + format + " '" + d.file("r.jsonl") + "'");
    EXPECT_NE(t.out.find(std::string(format) == "markdown" ? "master\\_port" : "master_port"), std::string::npos) << format << "\n" << t.out;
    EXPECT_NE(t.out.find("1 job without a baseline"), std::string::npos) << format << "\n" << t.out;
  }
  // "srun task 1" is a place in one job's allocation, not a node to rank across jobs.
  EXPECT_EQ(j["bad_nodes"].dump().find("srun task"), std::string::npos) << r.out;
  // A scan without --baseline says nothing of changes.
  const RunResult plain = run_dtriage("scan -o '" + d.file("p.jsonl") + "' '" + d.file("bad") + "'");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(json::parse(run_dtriage("summary --format json '" + d.file("p.jsonl") + "'").out).contains("changes"));
}

TEST(Diff, WantsTwoPathsNotStandardInput) {
  const std::string h = std::string(DTRIAGE_SOURCE_DIR) + "/samples/healthy-2node";
  const RunResult r = run_dtriage("diff '" + h + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("two PATHs"), std::string::npos) << r.err;
  // Each side is read twice: standard input cannot be.
  EXPECT_EQ(run_dtriage("diff '" + h + "' -", h + "/gpu-c01/console.log").exit_code, 2);
  EXPECT_EQ(run_dtriage("analyze --baseline '" + h + "' -", h + "/gpu-c01/console.log").exit_code, 2);
}

}  // namespace
}  // namespace dtriage::test
