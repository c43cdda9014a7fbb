// dtriage analyze end to end: verdicts on the bundled samples and on small dumps written here.
#include <gtest/gtest.h>

#include <regex>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

#include "batch/scan.hpp"
#include "formats/families.hpp"
#include "report/report.hpp"
#include "report/view.hpp"
#include "test_util.hpp"

namespace dtriage::test {
namespace {

using nlohmann::json;

const json* finding(const json& report, const std::string& rule) {
  for (const auto& f : report["findings"])
    if (f["rule"] == rule) return &f;
  return nullptr;
}

TEST(Analyze, SeedIncidentNamesNprocAndTheSharedDevice) {
  int code = -1;
  const json j = analyze_report(std::string(DTRIAGE_SOURCE_DIR) + "/samples/seed-nproc-sdma", &code);
  EXPECT_EQ(code, 0);
  const auto& v = j["verdict"];
  EXPECT_EQ(v["status"], "failed");
  EXPECT_EQ(v["category"], "nproc-device-mismatch");
  const std::string summary = v["summary"];
  EXPECT_NE(summary.find("nproc_per_node=8"), std::string::npos) << summary;
  EXPECT_NE(summary.find("16-device node npu-a01"), std::string::npos) << summary;
  EXPECT_NE(summary.find("51302 and 60120"), std::string::npos) << summary;
  EXPECT_NE(summary.find("device 0"), std::string::npos) << summary;
  EXPECT_EQ(v["node"], "npu-a01");
  EXPECT_NE(v["remedy"].get<std::string>().find("--nproc_per_node 16"), std::string::npos);
  // The root finding carries evidence lines with paths relative to the sample and 1-based lines.
  const json* root = finding(j, "launcher.nproc-below-devices");
  ASSERT_NE(root, nullptr);
  EXPECT_EQ((*root)["role"], "root-cause");
  bool plog_51302 = false, launcher_line = false;
  for (const auto& ev : (*root)["evidence"]) {
    EXPECT_GE(ev["line"].get<int>(), 1);
    const std::string path = ev["path"];
    plog_51302 |= path.find("plog-51302_") != std::string::npos;
    launcher_line |= path == "npu-a01/train.log" && ev["text"].get<std::string>().find("--nproc_per_node 8") != std::string::npos;
  }
  EXPECT_TRUE(plog_51302 && launcher_line);
  // The SDMA / memcpy errors are consequences, not the cause.
  const json* sdma = finding(j, "ascend.sdma-error");
  ASSERT_NE(sdma, nullptr);
  EXPECT_EQ((*sdma)["role"], "consequence");
  EXPECT_EQ(j["nodes"].size(), 2u);
  EXPECT_EQ(j["nodes"][0]["devices"], 16);
  EXPECT_EQ(j["nodes"][0]["processes"], 8);
}

TEST(Analyze, OomOnOneRankExplainsTimeoutsOnTheOthers) {
  TempDir d;
  // Written for this test in the real formats: rank 2 on node gpu-b02 runs out of memory; the
  // ranks on gpu-b01 time out in the next all-reduce a few minutes later.
  d.write("job/gpu-b01/train.log",
          "[rank0]:[E1104 10:20:00.100000000 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation "
          "timeout: WorkNCCL(SeqNum=88, OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024, Timeout(ms)=600000) ran for "
          "600012 milliseconds before timing out.\n"
          "[rank1]:[E1104 10:20:00.200000000 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective operation "
          "timeout: WorkNCCL(SeqNum=88, OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024, Timeout(ms)=600000) ran for "
          "600010 milliseconds before timing out.\n");
  d.write("job/gpu-b02/train.log",
          "[rank2]: Traceback (most recent call last):\n"
          "[rank2]:   File \"train.py\", line 10, in <module>\n"
          "[rank2]:     loss.backward()\n"
          "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total "
          "capacity of 79.15 GiB of which 1.00 GiB is free.\n"
          "gpu-b02:4411:4490 [2] NCCL INFO [Service thread] Connection closed by localRank 2\n");
  const json j = analyze_report(d.file("job"));
  const auto& v = j["verdict"];
  EXPECT_EQ(v["category"], "device-oom");
  EXPECT_EQ(v["rank"], 2);
  EXPECT_EQ(v["node"], "gpu-b02");
  const json* wd = finding(j, "torch.watchdog-timeout");
  ASSERT_NE(wd, nullptr);
  EXPECT_EQ((*wd)["role"], "consequence");
  const json* closed = finding(j, "nccl.peer-closed");
  ASSERT_NE(closed, nullptr);
  EXPECT_EQ((*closed)["role"], "consequence");
}

TEST(Analyze, TimeoutOnAllRanksButOnePointsAtTheSilentRank) {
  TempDir d;
  std::string log;
  for (int r : {0, 1, 3})
    log += "[rank" + std::to_string(r) + "]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank " + std::to_string(r) +
           "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=4, "
           "NumelOut=4, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.\n";
  log += "gpu01:100:100 [0] NCCL INFO comm 0x55 rank 0 nranks 4 cudaDev 0 busId 1000 - Init COMPLETE\n";
  d.write("job/console.log", log);
  const json j = analyze_report(d.file("job"));
  EXPECT_EQ(j["verdict"]["category"], "collective-timeout");
  EXPECT_EQ(j["verdict"]["rank"], 2);
  EXPECT_NE(j["verdict"]["summary"].get<std::string>().find("rank(s) 2 never reported"), std::string::npos);
}

TEST(Analyze, HealthyJobAndWarningsOnly) {
  TempDir d;
  d.write("job/node1/train.log",
          "+ torchrun --nproc_per_node 8 --nnodes 2 train.py\n"
          "gpu01:100:100 [0] NCCL INFO comm 0x55 rank 0 nranks 16 cudaDev 0 busId 1000 - Init COMPLETE\n"
          "epoch 1 loss 0.3\n");
  d.write("job/node2/train.log", "+ torchrun --nproc_per_node 4 --nnodes 2 train.py\nepoch 1 loss 0.3\n");
  int code = -1;
  const json j = analyze_report(d.file("job"), &code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(j["verdict"]["status"], "healthy");
  EXPECT_TRUE(j["verdict"]["category"].is_null());
  const json* w = finding(j, "launcher.nproc-unequal-across-nodes");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ((*w)["role"], "warning");
}

TEST(Analyze, ErrorNoRuleKnowsIsUnknownWithTheEarliestErrorAsLead) {
  TempDir d;
  d.write("job/node1/plog/plog-77_20250101000000000.log",
          "[ERROR] RUNTIME(77,python3):2025-01-01-00:00:05.000.000 [x.cc:1]77 Frobnicate:the flux capacitor failed\n"
          "[ERROR] RUNTIME(77,python3):2025-01-01-00:00:09.000.000 [x.cc:2]77 Frobnicate:again\n");
  const json j = analyze_report(d.file("job"));
  EXPECT_EQ(j["verdict"]["status"], "failed");
  EXPECT_EQ(j["verdict"]["category"], "unknown");
  ASSERT_TRUE(j["verdict"].contains("evidence"));
  EXPECT_EQ(j["verdict"]["evidence"][0]["line"], 1);
  EXPECT_EQ(j["verdict"]["node"], "node1");
}

TEST(Analyze, UserRulesAddToThePackAndBadOnesAreReported) {
  TempDir d;
  d.write("job/a.log", "my-trainer: FATAL disk quota exceeded on /ckpt\n");
  d.write("rules/site/quota.yaml",
          "id: site.disk-quota\n"
          "title: Checkpoint disk quota exceeded\n"
          "category: worker-exception\n"
          "severity: critical\n"
          "match:\n"
          "  regex: 'disk quota exceeded on (?P<mount>\\S+)'\n"
          "summary: \"Disk quota exceeded on {mount}\"\n"
          "examples:\n"
          "  match: ['my-trainer: FATAL disk quota exceeded on /x']\n");
  d.write("rules/site/broken.yaml", "id: site.broken\ncategory: not-a-category\nmatch: {regex: 'x'}\n");
  d.write("rules/site/garbage.yaml", "id: [unclosed\n");
  // As `dtriage analyze --rules DIR` loads them: the pack first, then DIR. (That the command line
  // says the problems on stderr is Hostile.ARuleThatBreaksTheCombinedSetIsSkipped's to check.)
  auto book = analysis::RuleBook::load({std::string(DTRIAGE_SOURCE_DIR) + "/rules", d.file("rules")});
  ASSERT_TRUE(book) << book.error();
  const auto a = analysis::analyze({{d.file("job")}, {}, {}}, *book);
  EXPECT_EQ(exit_code_of(*a), 0);
  const json j = json::parse(json_report(*a, *book));
  EXPECT_EQ(j["verdict"]["rule"], "site.disk-quota");
  EXPECT_EQ(j["verdict"]["summary"], "Disk quota exceeded on /ckpt");
  EXPECT_EQ(book->set.rules.size(), rule_pack().set.rules.size() + 1);  // added to the pack, none replaced
  std::string problems;  // as the command line says them: "WHERE: MESSAGE"
  for (const auto& p : book->set.problems) problems += p.where + ": " + p.message + "\n";
  ASSERT_EQ(book->set.problems.size(), 2u) << problems;
  EXPECT_NE(problems.find("broken.yaml:1: "), std::string::npos) << problems;
  EXPECT_NE(problems.find("not-a-category"), std::string::npos) << problems;
  EXPECT_NE(problems.find("garbage.yaml"), std::string::npos) << problems;
  EXPECT_EQ(j["rules"]["problems"].size(), 2u);
}

// Two analyses of one job, each with a rule pack loaded on its own and a different number of
// threads, give the same report byte for byte (JSON and text).
TEST(Analyze, ReportIsDeterministic) {
  const std::string sample = std::string(DTRIAGE_SOURCE_DIR) + "/samples/seed-nproc-sdma";
  auto other_book = analysis::RuleBook::load({std::string(DTRIAGE_SOURCE_DIR) + "/rules"});
  ASSERT_TRUE(other_book) << other_book.error();
  analysis::Options two_threads;
  two_threads.threads = 2;
  const auto a = analyze_path(sample);
  const auto b = analysis::analyze({{sample}, {}, {}}, *other_book, two_threads);
  const std::string ja = json_report(*a), jb = json_report(*b, *other_book);
  EXPECT_NE(ja.find("nproc-device-mismatch"), std::string::npos) << ja.substr(0, 400);
  EXPECT_EQ(ja, jb);
  EXPECT_EQ(report::render_text(report_view(*a), false), report::render_text(report_view(*b, *other_book), false));
}

// The `rules test` command itself: its exit code and the line it prints for a failed example.
TEST(Analyze, RulesTestFailsOnABrokenExample) {
  TempDir d;
  d.write("r/x.yaml",
          "id: x.never\ncategory: unknown\nmatch: {regex: 'needle'}\nexamples: {match: ['haystack only']}\n");
  const RunResult r = run_dtriage("rules test --no-default-rules --rules '" + d.file("r") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("x.yaml:1: x.never: should match: haystack only"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

// The report in `format`, as `dtriage analyze --color never --format FORMAT` renders it.
std::string render_as(const report::Report& r, const std::string& format) {
  if (format == "json") return report::render_json(r);
  if (format == "markdown") return report::render_markdown(r);
  if (format == "html") return report::render_html(r);
  EXPECT_EQ(format, "text");
  return report::render_text(r, false);
}

TEST(Analyze, RedactMasksHostsAddressesHomesAndSecretsInEveryFormat) {
  TempDir d;
  d.write("job/gpu-zeta7/train.log",
          "[2025-11-04 10:20:00] gpu-zeta7:100:100 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from "
          "peer 10.9.8.7<53249> with error 12, opcode 0, len 0, vendor err 129\n"
          "[rank0]: RuntimeError: could not read /home/alice/ckpt/model.pt token=hf_AbCdEfGhIjKlMnOpQrStUvWx123 "
          "password=hunter2 on 10.1.2.3\n");
  d.write("job/gpu-zeta8/train.log",
          "Root Cause (first observed failure):\n[0]:\n  time      : 2025-11-04_10:21:00\n"
          "  host      : gpu-zeta8.corp.example.com\n  rank      : 1 (local_rank: 0)\n  exitcode  : 1 (pid: 4242)\n"
          "  error_file: /home/alice/err.json\n  traceback : To enable traceback see: https://pytorch.org/\n");
  const std::vector<std::string> secrets = {"gpu-zeta7", "gpu-zeta8", "corp.example.com", "10.9.8.7", "10.1.2.3",
                                            "alice", "hf_AbCdEfGhIjKlMnOpQrStUvWx123", "hunter2"};
  // As `dtriage analyze --redact` does it: the analysis is masked once, then each format renders it.
  const auto a = analyze_path(d.file("job"));
  ASSERT_EQ(exit_code_of(*a), 0);
  const report::Report full = report_view(*a);
  const report::RedactedReport masked = report::redact(full);
  for (const std::string fmt : {"text", "json", "markdown", "html"}) {
    const std::string plain = render_as(full, fmt), red = render_as(masked.view(), fmt);
    // The originals are in the plain report (so the check below means something) ...
    for (const char* must : {"gpu-zeta7", "10.9.8.7"})
      EXPECT_NE(plain.find(must), std::string::npos) << fmt << " plain report lacks " << must;
    // ... and none survives redaction.
    for (const std::string& s : secrets) EXPECT_EQ(red.find(s), std::string::npos) << fmt << " leaks " << s;
    EXPECT_NE(red.find("node#1"), std::string::npos) << fmt;
    EXPECT_NE(red.find("ip#1"), std::string::npos) << fmt;
    if (fmt == "json") {
      EXPECT_TRUE(nlohmann::json::accept(red));  // still valid JSON
    }
  }
}

TEST(Analyze, MarkdownAndHtmlEscapeLogText) {
  TempDir d;
  d.write("job/a.log", "[rank0]: RuntimeError: bad | pipe <b>bold</b> ``` fence\n");
  const auto a = analyze_path(d.file("job"));
  const std::string md = report::render_markdown(report_view(*a));
  EXPECT_NE(md.find("bad \\| pipe"), std::string::npos) << md;
  EXPECT_NE(md.find("````text"), std::string::npos) << "a fence inside the evidence needs a longer fence";
  const std::string html = report::render_html(report_view(*a));
  EXPECT_EQ(html.find("<b>bold"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;bold&lt;/b&gt;"), std::string::npos);
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

// Every bundled sample has its expected verdict in tests/samples_expected.json, and every sample
// directory must be listed there.
TEST(Analyze, EverySampleGivesItsExpectedVerdict) {
  const json expected = json::parse(read_file(std::string(DTRIAGE_SOURCE_DIR) + "/tests/samples_expected.json"));
  std::size_t samples = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(DTRIAGE_SOURCE_DIR) + "/samples")) {
    if (!entry.is_directory()) continue;
    ++samples;
    const std::string name = entry.path().filename().string();
    ASSERT_TRUE(expected.contains(name)) << "samples/" << name << " has no entry in tests/samples_expected.json";
    const json& want = expected[name];
    int code = -1;
    const json j = analyze_report(entry.path().string(), &code);
    EXPECT_EQ(code, 0) << name;
    const json& v = j["verdict"];
    for (const char* k : {"status", "category", "node", "rank", "rule"}) EXPECT_EQ(v[k], want[k]) << name << ": " << k;
    for (const auto& part : want["summary_has"])
      EXPECT_NE(v["summary"].get<std::string>().find(part.get<std::string>()), std::string::npos)
          << name << ": summary lacks '" << part << "': " << v["summary"];
  }
  EXPECT_EQ(samples, expected.size());
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

TEST(Scan, OneLinePerJobInNameOrderWithTheSameVerdictsAsAnalyze) {
  const json expected = json::parse(read_file(std::string(DTRIAGE_SOURCE_DIR) + "/tests/samples_expected.json"));
  TempDir d;
  // The samples plus one unreadable job and one job packed as a single tar.gz.
  ASSERT_EQ(sh("cp -r '" + std::string(DTRIAGE_SOURCE_DIR) + "/samples/.' '" + d.file("jobs") + "/' 2>/dev/null || (mkdir -p '" +
               d.file("jobs") + "' && cp -r '" + std::string(DTRIAGE_SOURCE_DIR) + "/samples/.' '" + d.file("jobs") + "/')"),
            0);
  ASSERT_EQ(sh("cd '" + d.file("jobs") + "' && tar czf zz-oom.tar.gz gpu-oom-2node"), 0);
  d.write("jobs/zz-broken.gz", std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8));
  // As `dtriage scan -j 2 JOBS` runs it (the command adds flags, output files and --resume).
  batch::ScanSettings settings;
  settings.jobs = 2;
  std::string out;
  const int code = batch::scan({d.file("jobs")}, settings, rule_pack(), [&out](const std::string& lines) {
    out += lines;
    return true;
  });
  EXPECT_EQ(code, 1);  // one job could not be read
  std::vector<json> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) lines.push_back(json::parse(line));
  ASSERT_EQ(lines.size(), expected.size() + 2);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const std::string name = lines[i]["job"];
    ASSERT_TRUE(expected.contains(name)) << name;
    EXPECT_EQ(lines[i]["category"], expected[name]["category"]) << name;
    EXPECT_EQ(lines[i]["rank"], expected[name]["rank"]) << name;
  }
  EXPECT_EQ(lines[expected.size()]["job"], "zz-broken.gz");
  // Nothing of it could be read: an error with the reason, not a verdict (issue 26).
  EXPECT_EQ(lines[expected.size()]["status"], "error");
  EXPECT_NE(lines[expected.size()]["error"].get<std::string>().find("zz-broken.gz"), std::string::npos) << lines[expected.size()].dump();
  EXPECT_EQ(lines[expected.size() + 1]["job"], "zz-oom.tar.gz");
  EXPECT_EQ(lines[expected.size() + 1]["category"], "device-oom");
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

// HCCL wait graphs written for this test: each rank's failed Notify Wait names the rank it waited on.
std::string hccl_rank_log(int pid, int rank, const std::string& waits_on, int index) {
  const std::string p = std::to_string(pid);
  return "[INFO] HCCL(" + p + ",python3):2024-04-07-18:35:53.395.735 [topoinfo_detect.cc:208][" + p +
         "][HCCL_TRACE]SetupAgent rankNum[3], rank[" + std::to_string(rank) +
         "], rootInfo identifier[10.0.0.1%eth0_60000_0_1], server[10.0.0.1%eth0], logicDevId[" + std::to_string(rank) + "]\n" +
         "[ERROR] HCCL(" + p + ",python3):2024-04-08-02:55:04.900.605 [task_exception_handler.cc:452][" + p +
         "][TaskExceptionHandler][Callback]Task run failed, base information is streamID:[3], taskID[7], taskType[Notify Wait], "
         "tag[AllReduce_10.0.0.1%eth0_60000_0_1], index[" + std::to_string(index) + "].\n" +
         "[ERROR] HCCL(" + p + ",python3):2024-04-08-02:55:04.900.624 [task_exception_handler.cc:454][" + p +
         "][TaskExceptionHandler][Callback]Task run failed, para information is notify id:[0x48], stage:[ffffffff], remote rank:[" +
         waits_on + "].\n";
}

TEST(Analyze, HcclWaitGraph) {
  {  // 0 -> 1 -> 2 -> 0: a cycle, same index everywhere: a mismatch in collective order
    TempDir d;
    for (int r = 0; r < 3; ++r) d.write("job/w_1/plog-" + std::to_string(100 + r) + ".log", hccl_rank_log(100 + r, r, std::to_string((r + 1) % 3), 3));
    const json j = analyze_report(d.file("job"));
    EXPECT_EQ(j["verdict"]["category"], "collective-mismatch");
    EXPECT_EQ(j["verdict"]["rule"], "hccl.notify-wait-cycle");
  }
  {  // 0 -> 1 -> 2 -> local: rank 2 was stuck in its own work
    TempDir d;
    d.write("job/w_1/plog-100.log", hccl_rank_log(100, 0, "1", 3));
    d.write("job/w_1/plog-101.log", hccl_rank_log(101, 1, "2", 3));
    d.write("job/w_1/plog-102.log", hccl_rank_log(102, 2, "local", 3));
    const json j = analyze_report(d.file("job"));
    EXPECT_EQ(j["verdict"]["category"], "collective-timeout");
    EXPECT_EQ(j["verdict"]["rank"], 2);
  }
  {  // one rank a collective behind the others
    TempDir d;
    d.write("job/w_1/plog-100.log", hccl_rank_log(100, 0, "1", 3));
    d.write("job/w_1/plog-101.log", hccl_rank_log(101, 1, "2", 2));
    d.write("job/w_1/plog-102.log", hccl_rank_log(102, 2, "1", 3));
    const json j = analyze_report(d.file("job"));
    EXPECT_EQ(j["verdict"]["rule"], "hccl.notify-index-lag");
    EXPECT_EQ(j["verdict"]["rank"], 1);
  }
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

TEST(Analyze, VersionsThatDifferAcrossNodes) {
  TempDir d;
  d.write("job/gpu-v01/nccl.log", "NCCL version 2.18.3+cuda12.2\ngpu-v01:10:10 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 - Init START\n");
  d.write("job/gpu-v02/nccl.log", "NCCL version 2.21.5+cuda12.4\ngpu-v02:10:10 [0] NCCL INFO comm 0x1 rank 1 nranks 2 cudaDev 0 busId 1000 - Init START\n"
          "[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, "
          "OpType=BROADCAST, Timeout(ms)=600000) ran for 600100 milliseconds before timing out.\n");
  const json j = analyze_report(d.file("job"));
  EXPECT_EQ(j["verdict"]["category"], "env-version-mismatch");
  const std::string summary = j["verdict"]["summary"];
  EXPECT_NE(summary.find("nccl_version differs across nodes"), std::string::npos) << summary;
  EXPECT_NE(summary.find("2.18.3+cuda12.2 on gpu-v01"), std::string::npos) << summary;
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

TEST(Analyze, InformationalLinesThatAddNoFactAreCountedNotKept) {
  TempDir d;
  std::string log;
  for (int i = 0; i < 5000; ++i)
    log += "[INFO] RUNTIME(51302,python3):2025-06-04-10:00:00.000.000 [logger.cc:159] 51302 TaskFinished: device_id=0, "
           "stream_id=3, task_id=" + std::to_string(i) + "\n";
  log += "[INFO] RUNTIME(51303,python3):2025-06-04-10:00:01.000.000 [logger.cc:159] 51303 TaskFinished: device_id=1, stream_id=3\n";
  d.write("job/node1/plog/plog-51302_20250604100000000.log", log);
  const json j = analyze_report(d.file("job"));
  EXPECT_EQ(j["inputs"]["lines"], 5001);
  EXPECT_EQ(j["inputs"]["events"], 2);  // one line per (pid, device) is enough for the facts
  EXPECT_EQ(j["inputs"]["events_not_kept"], 4999);
  EXPECT_EQ(j["verdict"]["status"], "healthy");
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

TEST(Analyze, TransportInitChainEndsAtTheRankThatNeverSetUpItsLinks) {
  TempDir d;
  const char* ips[] = {"10.0.0.1", "10.0.0.2", "10.0.0.3"};
  for (int r = 0; r < 3; ++r) {
    const std::string pid = std::to_string(700 + r);
    const std::string dir = "job/worker-" + std::to_string(r) + "/";
    d.write(dir + "run/plog/plog-" + pid + "_20250619092715212.log",
            "[INFO] HCCL(" + pid + ",python3):2025-06-19-09:27:26.620.939 [topoinfo_detect.cc:506] [" + pid +
                "][HCCL_TRACE]SetupAgent rankNum[3], rank[" + std::to_string(r) + "], rootInfo identifier[x], server[" +
                ips[r] + "%eth0], logicDevId[" + std::to_string(r) + "], phydevId[" + std::to_string(r) + "]\n");
    if (r == 0) continue;  // rank 0 never set up its links: no error of its own
    d.write(dir + "debug/plog/plog-" + pid + "_20250619092939806.log",
            "[ERROR] HCCL(" + pid + ",python3):2025-06-19-09:36:56.167.730 [transport_manager.cc:777] [1][Create][DestLink]"
            "Transport init error! createLink para:rank[" + std::to_string(r) + "]-localUserrank[" + std::to_string(r) +
                "]-localIpAddr[], dst_rank[" + std::to_string(r - 1) + "]-remoteUserrank[" + std::to_string(r - 1) +
                "]-remoteIpAddr[" + ips[r - 1] + "/" + std::to_string(r - 1) + "], machineType[1]\n");
  }
  const json j = analyze_report(d.file("job"));
  EXPECT_EQ(j["verdict"]["category"], "network-transport-error");
  EXPECT_EQ(j["verdict"]["rank"], 0);
  EXPECT_EQ(j["verdict"]["node"], "worker-0");
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

// One `watch npu-smi info` dump: healthy devices whose AICore %, power, temperature and HBM in use
// change every snapshot. A rule on unhealthy devices asks about every device row, but its condition
// (health not OK) is the row's own: a healthy row is a quiet table row, kept once per device, not
// once per snapshot (a monitor loop over a day kept every row and grew without bound).
std::string npu_smi_snapshot(int snap, const std::string& health_of_4) {
  auto pad = [](std::string s, std::size_t w) { return s.size() < w ? s + std::string(w - s.size(), ' ') : s; };
  std::string t = kNpuSmi910Header;
  for (int d = 0; d < 8; ++d) {
    const std::string health = d == 4 ? health_of_4 : "OK";
    t += "| " + pad(std::to_string(d) + "     910B2", 26) + "| " + pad(health, 14) + "| " +
         pad(std::to_string(180 + (snap * 7 + d * 13) % 120) + ".4       " + std::to_string(40 + (snap + d) % 20) + "                0    / 0", 51) + "|\n";
    t += "| 0                         | 0000:" + std::to_string(41 + d) + ":00.0  | " +
         pad(std::to_string((snap * 31 + d) % 100) + "          0    / 0          " + std::to_string(30000 + (snap * 977 + d * 331) % 30000) + " / 65536", 51) + "|\n";
    t += "+===========================+===============+====================================================+\n";
  }
  return t;
}

TEST(Analyze, AMonitorsHealthyRowsAreKeptOncePerDevice) {
  TempDir d;
  std::string log;
  for (int s = 0; s < 300; ++s) log += "Wed Jul  2 14:" + std::to_string(10 + s / 60) + ":" + std::to_string(10 + s % 50) + " 2025\n" + npu_smi_snapshot(s, "OK");
  d.write("job/gx-117/monitor/npu-smi-watch.log", log);
  json j = analyze_report(d.file("job"));
  EXPECT_EQ(j["verdict"]["status"], "healthy");
  // 8 device rows and the inventory, each once, whatever the number of snapshots
  EXPECT_LE(j["inputs"]["events"].get<int>(), 9 + 2);
  EXPECT_GE(j["inputs"]["events_not_kept"].get<int>(), 299 * 8);

  log += "Wed Jul  2 14:16:01 2025\n" + npu_smi_snapshot(300, "Critical");  // the row's own condition holds
  d.write("job/gx-117/monitor/npu-smi-watch.log", log);
  j = analyze_report(d.file("job"));
  EXPECT_EQ(j["verdict"]["category"], "device-hardware-error") << j["verdict"].dump();
  EXPECT_NE(j["verdict"]["summary"].get<std::string>().find("device 4"), std::string::npos) << j["verdict"].dump();
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

// The evidence is the line that says what happened: a block's body line the rule's pattern found
// (with its own line number), a long line cut around the matched field, a repeated line once.
TEST(Evidence, TheLineThatSaysWhatHappenedInEveryFormat) {
  analysis::Inputs in;
  in.texts.push_back({"job/npu-k17/device3-pid70313.stdout.log",
                      "[ERROR] DEVICE(70313,ffff9c,python):2026-03-02-11:40:07.120.331 [graph_executor.cc:512] RunGraph] Run "
                      "task for graph:kernel_graph_4 error! Ascend Error Message:EI0002: The wait execution of the Notify "
                      "register times out.\n"
                      "there are(is) 1 abnormal device(s):\n"
                      "        serverId[192.168.7.41], deviceId[5], Heartbeat Lost Occurred, Possible Reason: 1. Process has exited\n"
                      "]\n"});
  const auto a = analysis::analyze(std::move(in), rule_pack());
  const report::Report r = report_view(*a);
  for (const std::string format : {"text", "markdown", "html"}) {
    const std::string out = render_as(r, format);
    const std::string between = format == "html" ? "</span>  " : "  ";
    EXPECT_NE(out.find("device3-pid70313.stdout.log:3" + between + "serverId[192.168.7.41], deviceId[5], Heartbeat Lost Occurred"),
              std::string::npos)
        << format << "\n" << out;
  }
}

TEST(Evidence, ALongLineIsCutAroundTheFieldThatDecided) {
  const std::string head = "E0302 11:40:07.120331 7031 ProcessGroupNCCL.cpp:1200] [Rank 12] Watchdog caught collective operation timeout: ";
  const std::string filler(300, 'x');
  const std::string line = head + filler + " Timeout(ms)=600000 and more after it";
  const std::size_t focus = line.find("Timeout(ms)");
  const std::string shown = report::clip_at(line, 220, focus);
  EXPECT_LE(shown.size(), 220u);
  EXPECT_EQ(shown.rfind("E0302 11:40:07", 0), 0u) << shown;  // the head stays
  EXPECT_NE(shown.find("Timeout(ms)=600000"), std::string::npos) << shown;
  EXPECT_NE(shown.find(" ... "), std::string::npos) << shown;
  // A focus inside the head's part, or a short line: the usual clip.
  EXPECT_EQ(report::clip_at(line, 220, 10), report::clip(line, 220));
  EXPECT_EQ(report::clip_at("short", 220, 3), "short");
}

TEST(Evidence, TheSameLineSeenManyTimesIsShownOnce) {
  std::string log;
  for (int k = 0; k < 5; ++k)
    log += "Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 "
           "(world_size=4, worker_count=8, timeout=0:30:00)\n";
  analysis::Inputs in;
  in.texts.push_back({"run7/console.txt", log});
  const auto a = analysis::analyze(std::move(in), rule_pack());
  const std::string out = render_as(report_view(*a), "text");
  std::size_t shown = 0;
  for (std::size_t at = out.find("Waiting in store based barrier"); at != std::string::npos;
       at = out.find("Waiting in store based barrier", at + 1))
    ++shown;
  EXPECT_EQ(shown, 1u) << out;
  EXPECT_NE(out.find("the same line also at run7/console.txt:2, run7/console.txt:3, run7/console.txt:4 and 1 more"),
            std::string::npos)
      << out;
}

// --lang zh: the same analysis in other words. Every sample's verdict and findings are the same
// (category, rule, rank, node, order); each sentence is Chinese, its English kept beside it is the
// English run's sentence, and the values (hosts, pids, numbers) are in both.
TEST(Analyze, ChineseSaysTheSameAnalysisWithItsEnglishBeside) {
  for (const char* sample : {"seed-nproc-sdma", "gpu-oom-2node", "port-in-use-archives", "healthy-2node"}) {
    const std::string path = std::string(DTRIAGE_SOURCE_DIR) + "/samples/" + sample;
    analysis::Options zh_options;
    zh_options.lang = base::Lang::Zh;
    const auto en = analyze_path(path);
    const auto zh = analyze_path(path, zh_options);
    const rules::Verdict &ve = en->outcome.verdict, &vz = zh->outcome.verdict;
    EXPECT_EQ(ve.category, vz.category) << sample;
    EXPECT_EQ(ve.rule, vz.rule) << sample;
    EXPECT_EQ(ve.rank, vz.rank) << sample;
    EXPECT_EQ(ve.node, vz.node) << sample;
    EXPECT_TRUE(ve.summary_en.empty()) << sample;
    EXPECT_EQ(vz.summary_en, ve.summary) << sample;
    EXPECT_EQ(vz.english(), ve.summary) << sample;
    EXPECT_NE(vz.summary, ve.summary) << sample;
    EXPECT_EQ(ve.why.size(), vz.why.size()) << sample;
    ASSERT_EQ(en->outcome.findings.size(), zh->outcome.findings.size()) << sample;
    for (std::size_t i = 0; i < en->outcome.findings.size(); ++i) {
      const rules::Finding &fe = en->outcome.findings[i], &fz = zh->outcome.findings[i];
      EXPECT_EQ(fe.rule, fz.rule) << sample;
      EXPECT_EQ(fz.summary_en, fe.summary) << sample;
    }
    // Every number and host name of the English sentence is in the Chinese one.
    static const std::regex value(R"([0-9][0-9.]*|[a-z]+-[a-z0-9]+\b)");
    const std::string& s = ve.summary;
    for (std::sregex_iterator it(s.begin(), s.end(), value), end; it != end; ++it) {
      if (it->str().find('-') != std::string::npos && it->str().find("npu-") != 0 && it->str().find("gpu-") != 0) continue;
      EXPECT_NE(vz.summary.find(it->str()), std::string::npos) << sample << ": " << it->str() << " missing in " << vz.summary;
    }
  }
  EXPECT_EQ(base::language(), base::Lang::En);  // the analysis's scope ended with it
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

// A torchrun line prefix of the user's template (TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE: "[${role_name}
// ${rank}|${local_rank}]:", "[${rank}]:", ...) is peeled as a stream's prefix, so that what follows it
// is read; "[0]:" alone still opens a failure-table row, and a level in brackets stays a level.
TEST(Analyze, TemplatedLinePrefixesArePeeled) {
  for (const std::string prefix : {"[trainer0|0]:", "[7]:", "[worker-2/1]: ", "[r12_l3]:"}) {
    TempDir d;
    d.write("job/c4-n19/train.log", prefix + "Traceback (most recent call last):\n" + prefix + "  File \"fit.py\", line 3, in <module>\n" +
                                        prefix + "KeyError: 'label_ids'\n");
    const json j = analyze_report(d.file("job"));
    EXPECT_EQ(j["verdict"]["category"], "worker-exception") << prefix << j.dump();
    EXPECT_NE(j["verdict"]["summary"].get<std::string>().find("KeyError"), std::string::npos) << prefix;
  }
  TempDir d;
  d.write("job/n1/train.log", "[ERROR]: loader stalled\n");
  const std::string ev = events_jsonl({d.file("job")});
  EXPECT_NE(ev.find("\"text\":\"[ERROR]: loader stalled\""), std::string::npos) << ev;
}

// An exception's message of several lines is one message: NCCL's reason after "Last error:" under
// a DistBackendError (or after an ncclInternalError line) is what the catalogues classify, so the
// verdict's category is the reason's, not a generic worker exception's.
TEST(Analyze, TheReasonInAnExceptionsFurtherLinesDecides) {
  const std::string reasons[][2] = {
      {"Bootstrap : no socket interface found", "network-transport-error"},
      {"ncclSocketInit: connecting to address  with family 46112 is neither AF_INET(2) nor AF_INET6(10)", "network-transport-error"},
  };
  for (const auto& [reason, category] : reasons) {
    for (const std::string prefix : {"[rank3]: ", "", "[default1]:"}) {
      TempDir d;
      d.write("job/hpc-b07/out.log",
              prefix + "Traceback (most recent call last):\n" + prefix + "  File \"/srv/train/main.py\", line 88, in setup\n" + prefix +
                  "    dist.barrier()\n" + prefix +
                  "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, internal "
                  "error - please report this issue to the NCCL developers, NCCL version 2.20.5\n" +
                  prefix + "ncclInternalError: Internal check failed.\n" + prefix + "Last error:\n" + prefix + reason + "\n");
      const json j = analyze_report(d.file("job"));
      EXPECT_EQ(j["verdict"]["category"], category) << prefix << reason << "\n" << j["verdict"].dump();
      const std::string said = j["verdict"].value("summary", std::string()) + j["verdict"].value("why", json::array()).dump();
      EXPECT_NE(said.find(reason.substr(0, 20)), std::string::npos) << said;
    }
  }
  // Exception lines alone, one after the other, are a loop's prints: each its own event.
  TempDir d;
  std::string log;
  for (int i = 0; i < 5; ++i) log += "2026-03-01 08:00:0" + std::to_string(i) + ",000 [rank2]: RuntimeError: CUDA error: an illegal memory access was encountered\n";
  d.write("job/g1/train.log", log);
  std::size_t events = 0;
  const std::string ev = events_jsonl({d.file("job")});
  for (std::size_t at = ev.find("RuntimeError"); at != std::string::npos; at = ev.find("\"line\":", at + 1)) ++events;
  EXPECT_GE(events, 5u) << ev;
}

// torch's fingerprint check names the two ranks and what each ran: the sentence says them.
TEST(Analyze, ACollectiveMismatchSaysWhichRanksRanWhat) {
  TempDir d;
  d.write("job/a100-x3/train.log",
          "2026-05-02 09:41:07,330 [rank6]: RuntimeError: Detected mismatch between collectives on ranks. Rank 6 is running collective: "
          "CollectiveFingerPrint(SequenceNumber=311, OpType=ALLREDUCE, TensorShape=[4096], TensorDtypes=BFloat16, "
          "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda)), but Rank 2 is running collective: "
          "CollectiveFingerPrint(SequenceNumber=311, OpType=BROADCAST, TensorShape=[1], TensorDtypes=Long, "
          "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda)).Collectives differ in the following aspects: \t Op type: "
          "ALLREDUCEvs BROADCAST\n");
  const json j = analyze_report(d.file("job"));
  EXPECT_EQ(j["verdict"]["category"], "collective-mismatch");
  EXPECT_NE(j["verdict"]["summary"].get<std::string>().find("rank 6's ALLREDUCE does not match rank 2's BROADCAST"), std::string::npos)
      << j["verdict"]["summary"];
}

// "Exception ignored in ..." then a traceback: Python printed an exception it swallowed (a
// DataLoader iterator's __del__ at exit) and went on. A run whose only traceback is that is
// healthy, also when processes sharing a stream interleave the lines of theirs.
TEST(Analyze, AnExceptionPythonIgnoredIsNoFailure) {
  auto ignored = [](const std::string& addr) {
    return "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at " + addr + ">\n";
  };
  const std::string frames =
      "  File \"/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py\", line 1478, in __del__\n"
      "    self._shutdown_workers()\n";
  const std::string tail = "AssertionError: can only test a child process\n";
  TempDir d;
  d.write("job/w-0/train.log", "step 9/10 loss 0.21\nrank 0: done\n" + ignored("0x7f3a01c2e8b0") + "Traceback (most recent call last):\n" + frames + tail);
  // two processes of one node at once, no prefixes: the second header comes between the first's lines
  d.write("job/w-1/train.log", "step 9/10 loss 0.19\n" + ignored("0x7f10") + "Traceback (most recent call last):\n" + ignored("0x7f11") +
                                   frames + "Traceback (most recent call last):\n" + tail + frames + tail);
  // one after the other, a print between: the next "Exception ignored" is no line of the first's message
  d.write("job/w-2/train.log", ignored("0x7f20") + "Traceback (most recent call last):\n" + frames + tail + "rank 5: training finished\n" +
                                   ignored("0x7f21") + "Traceback (most recent call last):\n" + frames + tail);
  // two headers at once (two processes' loaders collected together), then both tracebacks in turn
  d.write("job/w-3/train.log", "rank 6: training finished\n" + ignored("0x7f30") + ignored("0x7f31") + "Traceback (most recent call last):\n" +
                                   frames + tail + "Traceback (most recent call last):\n" + frames + tail);
  const json j = analyze_report(d.file("job"));
  EXPECT_EQ(j["verdict"]["status"], "healthy") << j["verdict"].dump();
  // The same traceback without the "ignored" header is a failure.
  TempDir e;
  e.write("job/w-0/train.log", "step 9/10 loss 0.21\nTraceback (most recent call last):\n" + frames + tail);
  EXPECT_EQ(analyze_report(e.file("job"))["verdict"]["category"], "worker-exception");
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

// The verdict of a job made of one log file at `path` (under job/): its folder names its node.
json verdict_of_log(const std::string& path, const std::string& log) {
  TempDir d;
  d.write("job/" + path, log);
  return analyze_report(d.file("job"))["verdict"];
}

// Lines as users paste them and older versions print them, read for what they say: an NCCL line
// whose header was cut, NCCL's older InfiniBand completion wording, the old TCPStore's bare
// "Address already in use".
TEST(Analyze, LinesWithoutTheirUsualHeadersOrInOlderWordings) {
  const std::pair<std::string, std::string> cases[] = {
      {"NCCL WARN NET/IB : Got completion with error 12, opcode 0, len 0, vendor err 129\n", "network-transport-error"},
      {"[1,4]<stdout>:NCCL WARN NET/IB : Got completion with error 5, opcode 1, len 4096, vendor err 244\n", "network-transport-error"},
      {"Traceback (most recent call last):\n  File \"/opt/conda/lib/python3.8/site-packages/torch/distributed/rendezvous.py\", line 142, in "
       "_tcp_rendezvous_handler\n    store = TCPStore(result.hostname, result.port, world_size, start_daemon, timeout)\n"
       "RuntimeError: Address already in use\n",
       "port-in-use"},
  };
  for (const auto& [log, category] : cases) {
    const json v = verdict_of_log("trn-07/out.log", log);
    EXPECT_EQ(v["category"], category) << log << v.dump();
  }
}

// Launchers and signal handlers other than torchrun's: DeepSpeed's per-node launcher ending its
// workers after one exited non-zero (the --local_rank it prints is the last worker it started: no
// rank is taken from it), a signal handler's SIGBUS with BUS_ADRERR (a mapped page with no memory
// behind it: /dev/shm full), the CANN runtime rejecting a device id in another call than SetDevice.
TEST(Analyze, OtherLaunchersAndSignalHandlersWords) {
  struct Case {
    std::string log, category;
  };
  const Case cases[] = {
      {"[2026-01-20 02:11:40,551] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 20431\n"
       "[2026-01-20 02:11:40,553] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'pretrain_gpt.py', "
       "'--local_rank=5', '--zero-stage', '2'] exits with return code = 2\n",
       "worker-exception"},
      {"sm-node4: [2026-01-20 02:11:40,553] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'sft.py', "
       "'--local_rank=1'] exits with return code = -11\n",
       "worker-signal"},
      {"[a100-r2-n6:40991:0:41002] Caught signal 7 (Bus error: nonexistent physical address)\n"
       "==== backtrace (tid:  41002) ====\n 0 0x0000000000042520 __sigaction()  ???:0\n"
       "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n",
       "shm-insufficient"},
      {"[rank6]: EE9999: Inner Error!\n"
       "[rank6]: EE9999: [PID: 3310] 2026-04-01-10:02:33.117.004 get error: phyid:6 realDeviceId:6 is err:0x7010003"
       "[FUNC:GetDeviceIndexByPhyId][FILE:api_error.cc][LINE:1920]\n"
       "[rank6]:        rtGetDeviceIndexByPhyId execute failed, reason=[device id error][FUNC:FuncErrorReason]"
       "[FILE:error_message_manage.cc][LINE:53]\n",
       "device-visibility-config"},
  };
  for (const Case& c : cases) {
    const json v = verdict_of_log("host-x/out.log", c.log);
    EXPECT_EQ(v["category"], c.category) << c.log << v.dump();
    if (c.log.find("local_rank=") != std::string::npos) {
      EXPECT_TRUE(v["rank"].is_null()) << v.dump();
    }
  }
}

// An error the catalogues call a consequence leads a failure no rule names: its category is that
// of what it usually follows. A launcher's line that a worker exited, naming no rank, takes the
// category of the error its workers printed before it.
TEST(Analyze, AConsequenceGivesTheCategoryOfWhatItFollows) {
  const std::pair<std::string, std::string> cases[] = {
      {"epoch 3: NCCL error in: /opt/torch/lib/c10d/ProcessGroupNCCL.cpp:514, unhandled system error, NCCL version 2.7.8\n",
       "network-transport-error"},
      {"RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191, unhandled system error, NCCL version 2.18.1\n"
       "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n"
       "E0410 07:21:15.118000 3111 torch/distributed/elastic/multiprocessing/api.py:881] failed (exitcode: 1) local_rank: 0 (pid: 3120) of "
       "binary: /usr/bin/python3\n",
       "network-transport-error"},
  };
  for (const auto& [log, category] : cases) {
    const json v = verdict_of_log("a100-x9/out.log", log);
    EXPECT_EQ(v["status"], "failed") << log;
    EXPECT_EQ(v["category"], category) << log << v.dump();
  }
}

// TCPStore's client warns at each failed connection while it retries: a process that printed
// nothing after it stalled in rendezvous; one that went on to train connected in the end.
TEST(Analyze, AStoreClientThatNeverConnectedStalledTheJob) {
  const std::string refused =
      "[W1105 14:20:31.118226903 socket.cpp:752] [c10d] The client socket has failed to connect to [r3-n5.example]:23456 "
      "(errno: 110 - Connection timed out).\n";
  EXPECT_EQ(verdict_of_log("r3-n9/out.log", refused)["category"], "rendezvous-failure");
  const json v = verdict_of_log("r3-n9/out.log", refused + "[rank3]: epoch 0 step 40/900 loss 3.02\n[rank3]: epoch 0 step 80/900 loss 2.87\n");
  EXPECT_EQ(v["status"], "healthy") << v.dump();
}

// Nothing said the run failed, yet its logs end with words a catalogue calls a failure: the last
// warning NCCL printed before the process hung, or a line of a shape no parser knows that quotes
// NCCL's reason (another framework's wrapper, a header the paste lost). They name the failure;
// the same lines followed by training steps, or in a stderr file beside a stdout that trains on,
// were outlived.
TEST(Analyze, LastWordsACatalogueKnowsNameAFailureNothingElseSaid) {
  const std::pair<std::string, std::string> cases[] = {
      {"dgx-b12:40711:40711 [3] NCCL INFO Bootstrap : Using ib0:10.4.0.12<0>\n"
       "dgx-b12:40711:40711 [3] bootstrap.cc:61 NCCL WARN Bootstrap : no socket interface found\n",
       "network-transport-error"},
      {"2026-03-02 11:40:07.310 worker_main.cc:212] collective setup failed: ncclCommInitRank returned 2 "
       "(Last NCCL warning(error): 'NET/Socket : No usable listening interface found')\n",
       "network-transport-error"},
      {"misc/socket.cc:473 WARN Net : Socket creation failed : Address family not supported by protocol\n",
       "network-transport-error"},
      {"[1,7]<stderr>:trn4:9921:9990 [7] init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls "
       "at and around rank 12. You can use NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to see the collective logs\n",
       "collective-mismatch"},
  };
  for (const auto& [log, category] : cases) {
    const json v = verdict_of_log("node-q3/run.log", log);
    EXPECT_EQ(v["status"], "failed") << log << v.dump();
    EXPECT_EQ(v["category"], category) << log << v.dump();
  }
  // Outlived: steps follow in the same file, or in the process's stdout beside its stderr.
  const std::string warn = "dgx-b12:40711:40711 [3] bootstrap.cc:61 NCCL WARN Bootstrap : no socket interface found\n";
  const json went_on = verdict_of_log("node-q3/run.log", warn + "[rank3]: iteration 100/ 5000 | lm loss: 3.1E+00 |\n"
                                                                  "[rank3]: iteration 200/ 5000 | lm loss: 2.9E+00 |\n");
  EXPECT_EQ(went_on["status"], "healthy") << went_on.dump();
  TempDir d;
  d.write("job/node-q3/attempt_0/3/stderr.log", warn);
  d.write("job/node-q3/attempt_0/3/stdout.log", "step 10/40 loss 0.61\nstep 20/40 loss 0.52\nstep 30/40 loss 0.47\n");
  const json beside = analyze_report(d.file("job"))["verdict"];
  EXPECT_EQ(beside["status"], "healthy") << beside.dump();
}

// torchelastic's error handler logs its record as pretty-printed JSON, the launcher's traceback
// inside it with escaped newlines: the rendezvous failure it reports is the launcher's (not a worker
// exception), and its JSON lines are no worker going on after it.
TEST(Analyze, TheElasticErrorHandlersJsonRecordIsTheLaunchersFailure) {
  TempDir d;
  std::string log = "[INFO] 2022-03-08 14:02:11,902 run: Using nproc_per_node=4.\n"
                    "*****************************************\n"
                    "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default.\n"
                    "*****************************************\n"
                    "[INFO] 2022-03-08 14:02:11,903 api: Starting elastic_operator with launch configs:\n"
                    "  entrypoint       : pretrain.py\n  min_nodes        : 2\n  max_nodes        : 2\n  nproc_per_node   : 4\n"
                    "  rdzv_backend     : c10d\n  rdzv_endpoint    : 172.31.9.40:29400\n\n"
                    "[ERROR] 2022-03-08 14:03:12,004 error_handler: {\n"
                    "  \"message\": {\n"
                    "    \"message\": \"RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.\",\n"
                    "    \"extraInfo\": {\n"
                    "      \"py_callstack\": \"Traceback (most recent call last):\\n  File \\\"/usr/lib/python3/site-packages/torch/distributed/"
                    "elastic/rendezvous/c10d_rendezvous_backend.py\\\", line 113, in _create_tcp_store\\n    store = TCPStore(\\n"
                    "RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.\\n\",\n"
                    "      \"timestamp\": \"1646748192\"\n"
                    "    }\n"
                    "  }\n"
                    "}\n";
  d.write("job/worker-b/launcher.log", log);
  const json j = analyze_report(d.file("job"));
  EXPECT_EQ(j["verdict"]["category"], "rendezvous-failure") << j["verdict"].dump();
}

// torch_npu's error header names the process (PID, Device, RankID); the CANN message it wraps,
// printed on the next line, is that process's.
TEST(Analyze, TheCannMessageUnderATorchNpuHeaderIsThatRanks) {
  TempDir d;
  d.write("job/ascend-c12/train.log",
          "RuntimeError: [ERROR] HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:64\n"
          "[ERROR] 2025-02-17-03:21:09 (PID:55102, Device:6, RankID:14) ERR02200 DIST call hccl api failed.\n"
          "EJ0001: 2025-02-17-03:21:09.551.204 Failed to initialize the HCCP process. Reason: Maybe the last training process is running.\n"
          "        Solution: Wait for 10s after killing the last training process and try again.\n");
  const json j = analyze_report(d.file("job"));
  EXPECT_EQ(j["verdict"]["category"], "device-binding-duplicate") << j["verdict"].dump();
  EXPECT_EQ(j["verdict"]["rank"], 14) << j["verdict"].dump();
}

// Ranks that waited in the store for another rank's ncclUniqueId are victims; the rank they waited
// for (named in their message) is the culprit, also when it printed nothing itself (busy tokenizing
// under main_process_first). And ranks 1-3 timing out with rank 0 silent name rank 0: every job
// has a rank 0, whether or not a line names it.
TEST(Analyze, TheRankOthersWaitedForIsNamed) {
  for (const std::string prefix : {"", "[rank{r}]: "}) {
    TempDir d;
    std::string log = "Running tokenizer on dataset:  31%|###       | 9100/29000 [12:01<26:17, 12.62 examples/s]\n";
    for (int r : {2, 5, 7}) {
      std::string p = prefix;
      if (const auto at = p.find("{r}"); at != std::string::npos) p.replace(at, 3, std::to_string(r));
      log += p + "RuntimeError: [" + std::to_string(r) +
             "] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but "
             "store->get('0') got error: Socket Timeout\n";
    }
    d.write("job/ml-node-4/train.log", log);
    const json j = analyze_report(d.file("job"));
    EXPECT_EQ(j["verdict"]["category"], "collective-timeout") << prefix << j["verdict"].dump();
    EXPECT_EQ(j["verdict"]["rank"], 0) << prefix << j["verdict"].dump();
  }
  TempDir d;
  std::string log;
  for (int r : {1, 2, 3})
    log += "[E ProcessGroupNCCL.cpp:475] [Rank " + std::to_string(r) +
           "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
           "Timeout(ms)=1800000) ran for 1800411 milliseconds before timing out.\n";
  d.write("job/h100-b2/train.log", log);
  const json j = analyze_report(d.file("job"));
  EXPECT_EQ(j["verdict"]["category"], "collective-timeout");
  EXPECT_EQ(j["verdict"]["rank"], 0) << j["verdict"].dump();
}

// Slurm's cgroup OOM kill, then srun ending the step: the step's CANCELLED line (no reason given)
// is the kill's consequence, not a cancel from outside.
TEST(Analyze, ASlurmStepCancelledAfterItsOomKillIsTheKillsConsequence) {
  TempDir d;
  d.write("job-77120/slurm-77120.out",
          "Epoch 3:  41%|####      | 812/1980 [11:02<15:51,  1.23it/s]\n"
          "slurmstepd-cn-0412: error: Detected 2 oom-kill event(s) in StepId=77120.0. Some of your processes may have been "
          "killed by the cgroup out-of-memory handler.\n"
          "srun: error: cn-0412: task 1: Out Of Memory\n"
          "srun: launch/slurm: _step_signal: Terminating StepId=77120.0\n"
          "slurmstepd-cn-0412: error: *** STEP 77120.0 ON cn-0412 CANCELLED AT 2026-03-02T08:41:19 ***\n");
  const json j = analyze_report(d.file("job-77120"));
  EXPECT_EQ(j["verdict"]["category"], "host-oom-killed") << j["verdict"].dump(1);
  EXPECT_EQ(j["verdict"]["node"], "cn-0412") << j["verdict"].dump(1);
  const json* cancel = finding(j, "slurm.cancelled");
  ASSERT_NE(cancel, nullptr) << j["findings"].dump(1);
  EXPECT_EQ((*cancel)["role"], "consequence");
}

// plog lines pasted indented (a vendor guide's list items, a quoted block) are read from their
// header; a CANN message that starts with a function named for an error ("ReportErrorInfo...:") is
// not an exception of that name.
TEST(Analyze, IndentedPlogLinesAreReadAndCannFunctionNamesAreNoExceptions) {
  TempDir d;
  d.write("case/host-3/plog.txt",
          "    [ERROR] HCCL(48211,python):2026-04-19-07:03:55.120.882 [topoinfo_exchange_server.cc:113] [48300][Get][Connection]"
          "topo exchange server get socket timeout! timeout[600 s]\n"
          "\t[ERROR] HCCL(48211,python):2026-04-19-07:03:55.120.907 [topoinfo_exchange_server.cc:240][48300]"
          "[TopoInfoExchangeServer][DisplayConnectedRank]total connected num is [7],line num is [1]\n");
  d.write("case/host-3/screen.txt",
          "ReportErrorInfoForModelExecuteTask:model execute error, retCode=0x91, [the model stream execute failed].\n"
          "ProcessStarsWaitTimeoutErrorInfo:The error from device(chipId:1, dieId:0), serial number is 4, event wait timeout "
          "occurred during task execution, stream_id:12, sq_id:12, task_id:77, event_id=3, timeout=1200.\n");
  const json j = analyze_report(d.file("case"));
  const json& v = j["verdict"];
  EXPECT_EQ(v["category"], "rendezvous-failure") << v.dump(1);  // the topology server's socket timeout
  ASSERT_FALSE(v["evidence"].empty()) << v.dump(1);
  EXPECT_EQ(v["evidence"][0]["path"], "host-3/plog.txt") << v.dump(1);
  for (const auto& f : j["findings"]) EXPECT_NE(f["rule"], "python.uncaught-exception") << f.dump(1);
}

// c10d, one node against one: both name the same endpoint host, which is one of them, on different
// ports. That node serves the store on its own port; the other waits at one nobody serves: it is
// named (a short name and its FQDN are the same host).
TEST(Analyze, TheNodeTheEndpointNamesServesTheStoreTheOtherPortIsOdd) {
  for (const std::string host : {"trn-a", "trn-a.cluster.example.org"}) {
    TempDir d;
    d.write("job/trn-a/launch.log", "+ torchrun --nnodes 2 --nproc_per_node 4 --rdzv_backend c10d --rdzv_endpoint " + host +
                                        ":29400 --rdzv_id j7 pretrain.py\n");
    d.write("job/trn-b/launch.log", "+ torchrun --nnodes 2 --nproc_per_node 4 --rdzv_backend c10d --rdzv_endpoint " + host +
                                        ":29411 --rdzv_id j7 pretrain.py\n");
    const json j = analyze_report(d.file("job"));
    EXPECT_EQ(j["verdict"]["category"], "rendezvous-failure") << host << j["verdict"].dump(1);
    EXPECT_EQ(j["verdict"]["node"], "trn-b") << host << j["verdict"].dump(1);
  }
}

// One rank's watchdog line, pasted alone: the other ranks' logs are not there, so no rank is said
// to have never reported the timeout (rank 0 is not named for being absent from a fragment).
TEST(Analyze, OneRanksTimeoutAloneNamesNoSilentRank) {
  TempDir d;
  d.write("paste/train.log",
          "[rank3]:[E0412 19:02:44.118803512 ProcessGroupNCCL.cpp:1534] [PG 0 (default_pg) Rank 3] Process group watchdog "
          "thread terminated with exception: [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=412, "
          "OpType=ALLGATHER, NumelIn=8, NumelOut=64, Timeout(ms)=1800000) ran for 1800311 milliseconds before timing out.\n");
  const json j = analyze_report(d.file("paste"));
  const json& v = j["verdict"];
  EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
  EXPECT_NE(v["rank"], 0) << v.dump(1);
  EXPECT_EQ(v["summary"].get<std::string>().find("never reported"), std::string::npos) << v.dump(1);
  EXPECT_EQ(finding(j, "torch.timeout-missing-rank"), nullptr) << j["findings"].dump(1);
}

// c10d, the endpoint a host name that is one of the nodes: that node's agent alone tries to host
// the store (the others see another host's name and join as clients). Its bind failing (EADDRINUSE)
// is then no client's fallback: a process outside the job holds the port, and nobody gets past
// rendezvous. At a loopback endpoint every agent tries to host and all but one fail: no cause.
TEST(Analyze, TheEndpointHostsFailedBindUnderC10dIsTheCause) {
  for (const std::string host : {"dgx-17", "dgx-17.ai.example.net", "127.0.0.1"}) {
    TempDir d;
    for (const char* node : {"dgx-17", "dgx-21", "dgx-30"}) {
      std::string log = std::string("+ torchrun --nnodes=3 --nproc-per-node=8 --rdzv-backend=c10d --rdzv-endpoint=") + host +
                        ":29603 --rdzv-id=pt-4471 finetune.py --cfg base.yaml\n";
      if (std::string(node) == "dgx-17")
        log += "[W1130 02:14:09.771203 3318 socket.cpp:464] [c10d] The server socket has failed to bind to [::]:29603 (errno: 98 - "
               "Address already in use).\n"
               "[W1130 02:14:09.771544 3318 socket.cpp:464] [c10d] The server socket has failed to bind to 0.0.0.0:29603 (errno: 98 - "
               "Address already in use).\n"
               "[E1130 02:14:09.771570 3318 socket.cpp:500] [c10d] The server socket has failed to listen on any local network address.\n";
      d.write(std::string("job/") + node + "/stdout.log", log);
    }
    const json j = analyze_report(d.file("job"));
    if (host == "127.0.0.1") {
      EXPECT_NE(j["verdict"]["category"], "port-in-use") << j["verdict"].dump(1);
      continue;
    }
    EXPECT_EQ(j["verdict"]["category"], "port-in-use") << host << j["verdict"].dump(1);
    EXPECT_EQ(j["verdict"]["node"], "dgx-17") << host << j["verdict"].dump(1);
  }
}

// UCX's fatal-error prefix "[HOST:PID   :THREAD:TID] " (ucs/debug/log.c) names the host and the
// process: a SIGBUS it caught is that node's, and its log lines' "[HOST:PID:THREAD]" likewise.
TEST(Analyze, UcxPrefixNamesTheHostAndProcess) {
  TempDir d;
  d.write("case/server.log",
          "I1203 07:12:40.118000 52 model_lifecycle.cc:693] successfully loaded 'dlrm'\n"
          "[trt-b07.infer.example.com:2417 :1:2530] Caught signal 7 (Bus error: nonexistent physical address)\n"
          "==== backtrace (tid:   2530) ====\n"
          " 0 0x0000000000012980 __funlockfile()  ???:0\n"
          " 1 0x000000000007a2c1 ncclProxyService()  ???:0\n"
          "=================================\n");
  const json j = analyze_report(d.file("case"));
  const json& v = j["verdict"];
  EXPECT_EQ(v["category"], "shm-insufficient") << v.dump(1);
  EXPECT_EQ(v["node"], "trt-b07.infer.example.com") << v.dump(1);
}

// Ray's memory monitor (the raylet, forwarded to the driver behind "(raylet)") killed workers for
// the node's memory: the host ran out of memory, on the node whose IP the raylet names.
TEST(Analyze, RaysMemoryMonitorKillIsAHostOom) {
  TempDir d;
  d.write("driver/job-driver.log",
          "(TaskRunner pid=88120) step 40 | reward 0.412 | kl 0.0031\n"
          "(raylet) [2026-04-18 22:03:51,440 E 60211 60211] (raylet) node_manager.cc:3193: 3 Workers (tasks / actors) killed "
          "due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: 0be7c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6, "
          "IP: 10.44.7.21) over the last time period. To see more information about the Workers killed on this node, use "
          "`ray logs raylet.out -ip 10.44.7.21`\n"
          "(raylet) \n"
          "(raylet) Refer to the documentation on how to address the out of memory issue: "
          "https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html.\n");
  const json j = analyze_report(d.file("driver"));
  const json& v = j["verdict"];
  EXPECT_EQ(v["category"], "host-oom-killed") << v.dump(1);
  EXPECT_EQ(v["node"], "10.44.7.21") << v.dump(1);
}

// A rule whose regex has alternatives names only what every alternative captures in its summary:
// CANN's "invalid device=N, input visible devices:L" is said with its own values.
TEST(Analyze, AVisibleDeviceOutsideItsListIsSaidWithItsValues) {
  TempDir d;
  d.write("w/worker.log",
          "[ERROR] RUNTIME(30122,python3):2026-05-02-10:11:12.301.554 [api_error.cc:2350]30122 SetDevice:Set visible device "
          "failed, invalid device=2, input visible devices:2\n"
          "[ERROR] RUNTIME(30122,python3):2026-05-02-10:11:12.301.601 [api_c_device.cc:92]30122 rtSetDevice:ErrCode=107001, "
          "desc=[device id error], InnerCode=0x7010003\n");
  const json j = analyze_report(d.file("w"));
  const json& v = j["verdict"];
  EXPECT_EQ(v["category"], "device-visibility-config") << v.dump(1);
  const std::string summary = v["summary"];
  EXPECT_EQ(summary.find('?'), std::string::npos) << summary;
  EXPECT_NE(summary.find("Device 2"), std::string::npos) << summary;
  EXPECT_NE(summary.find("=2"), std::string::npos) << summary;
}

// HCCP's EJ0003 under torch_npu's HcclGetRootInfo failure: the port HCCL binds is held by another
// process; that is the cause, not the communicator error around it.
TEST(Analyze, HcclsBoundPortIsTheCauseOfItsCommunicatorError) {
  TempDir d;
  d.write("npu-job/worker-2.log",
          "[rank2]: RuntimeError: createHCCLComm:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:1479 HCCL function error: "
          "HcclGetRootInfo(&hcclID), error code is 11\n"
          "[rank2]: EJ0003: [PID: 3381] 2026-02-11-08:14:09.220.118 Failed to bind the IP port. Reason: The IP address and port "
          "have been bound already.\n"
          "[rank2]:         TraceBack (most recent call last):\n"
          "[rank2]:         host nic listen start failed, port[60002], return[11][FUNC:StartListenSocket][FILE:network_manager.cc][LINE:1163]\n");
  const json v = analyze_report(d.file("npu-job"))["verdict"];
  EXPECT_EQ(v["category"], "port-in-use") << v.dump(1);
  EXPECT_EQ(v["rule"], "hccl.port-bound") << v.dump(1);
}

// Ray: the raylet's report of a worker that died while it ran a task (behind "(raylet, ip=A)"),
// and the driver's ActorDiedError for the same death. The death is the cause, on the node whose
// IP the raylet names; the driver's exception is how it learned of it.
TEST(Analyze, RaysWorkerDeathLeadsTheActorDiedErrorItCauses) {
  TempDir d;
  d.write("ray-job/driver.log",
          "(RolloutWorker pid=7120, ip=172.16.4.9) step 120 reward=0.31\n"
          "(raylet, ip=172.16.4.9) [2026-05-11 13:02:44,901 E 5102 5102] (raylet) node_manager.cc:3020: A worker died or was killed while "
          "executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. Lease ID: "
          "0a00000011bb Worker ID: c31e Node ID: 5d0f Worker IP address: 172.16.4.9 Worker port: 10311 Worker PID: 7120 Worker exit "
          "type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some "
          "potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is "
          "called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.\n"
          "Traceback (most recent call last):\n"
          "  File \"/srv/rl/main.py\", line 88, in <module>\n"
          "    results = ray.get(futures)\n"
          "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n"
          "\tclass_name: RolloutWorker\n");
  const json v = analyze_report(d.file("ray-job"))["verdict"];
  EXPECT_EQ(v["rule"], "ray.worker-died") << v.dump(1);
  EXPECT_EQ(v["category"], "worker-signal") << v.dump(1);
  EXPECT_EQ(v["node"], "172.16.4.9") << v.dump(1);
}

// Ray's prefixes for unnamed tasks and its daemons ("(pid=N) ", "(raylet) ") are peeled like the
// named ones: the traceback behind them is read as Python's, with its exception type.
TEST(Analyze, RaysUnnamedTaskPrefixIsPeeled) {
  TempDir d;
  d.write("job/driver.log",
          "(pid=30412) Traceback (most recent call last):\n"
          "(pid=30412)   File \"/app/prep.py\", line 12, in load\n"
          "(pid=30412)     raise KeyError(name)\n"
          "(pid=30412) KeyError: 'tokenizer_path'\n");
  const json j = analyze_report(d.file("job"));
  EXPECT_EQ(j["verdict"]["category"], "worker-exception") << j["verdict"].dump(1);
  EXPECT_EQ(j["verdict"]["rule"], "python.uncaught-exception") << j["verdict"].dump(1);
}

// A launcher that runs its workers with Python's subprocess (accelerate, a wrapper script) reports a
// worker's signal as CalledProcessError "died with <Signals.SIGKILL: 9>": a signal, not an exception.
TEST(Analyze, ACalledProcessErrorThatDiedWithASignalIsTheSignal) {
  TempDir d;
  d.write("acc/launch.log",
          "Traceback (most recent call last):\n"
          "  File \"/opt/venv/bin/accelerate\", line 8, in <module>\n"
          "    sys.exit(main())\n"
          "  File \"/opt/venv/lib/python3.10/site-packages/accelerate/commands/launch.py\", line 993, in simple_launcher\n"
          "    raise subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)\n"
          "subprocess.CalledProcessError: Command '['/opt/venv/bin/python', 'finetune.py', '--bf16']' died with <Signals.SIGKILL: 9>.\n");
  const json v = analyze_report(d.file("acc"))["verdict"];
  EXPECT_EQ(v["category"], "worker-signal") << v.dump(1);
  EXPECT_EQ(v["rule"], "launcher.worker-sigkill") << v.dump(1);
}

// Kubernetes: one worker pod evicted for the node's memory (kubectl describe), the other ranks'
// watchdogs time out. The eviction is the cause: the node ran out of memory.
TEST(Analyze, APodEvictedForMemoryIsTheCauseOfItsPeersTimeouts) {
  TempDir d;
  d.write("k8s/describe-trainer-worker-1.txt",
          "Name:             trainer-worker-1\n"
          "Status:           Failed\n"
          "Reason:           Evicted\n"
          "Message:          The node was low on resource: memory. Threshold quantity: 500Mi, available: 310212Ki. Container "
          "pytorch was using 191230044Ki, request is 64Gi, has larger consumption of memory.\n");
  d.write("k8s/trainer-worker-0.log",
          "[rank0]:[E1104 03:12:40.771043112 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: "
          "WorkNCCL(SeqNum=9120, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for 600083 "
          "milliseconds before timing out.\n");
  const json v = analyze_report(d.file("k8s"))["verdict"];
  EXPECT_EQ(v["category"], "host-oom-killed") << v.dump(1);
  EXPECT_EQ(v["rule"], "k8s.evicted-memory") << v.dump(1);
}

// docker compose logs put "SERVICE  | " before each line (the name padded to the longest): the line
// behind it is read (here a CANN error block under vLLM's worker prefix). A logger's level before a
// bar ("INFO     | ") is no service.
TEST(Analyze, DockerComposePrefixIsPeeled) {
  TempDir d;
  d.write("compose/engine.log",
          "llm-decode-1  | (EngineCore_DP0 pid=2210) E39999: Inner Error!\n"
          "llm-decode-1  | (EngineCore_DP0 pid=2210) E39999[PID: 2301] 2026-01-18-02:15:44.101.220 (E39999):  The error from "
          "device(chipId:3, dieId:0), serial number is 7, an exception occurred during AICPU execution, stream_id:12, task_id:40, "
          "errcode:135175, msg:aicpu execute failed.[FUNC:ProcessStarsAicpuErrorInfo][FILE:device_error_proc.cc][LINE:1483]\n"
          "redis         | 1:M 18 Jan 2026 02:15:40.003 * Ready to accept connections tcp\n");
  const json v = analyze_report(d.file("compose"))["verdict"];
  EXPECT_EQ(v["status"], "failed") << v.dump(1);
  EXPECT_EQ(v["category"], "operator-error") << v.dump(1);
  formats::Prefix p;
  std::string storage;
  EXPECT_EQ(formats::strip_prefixes("INFO     | trainer:fit:88 - epoch 3 done", p, storage, nullptr), "INFO     | trainer:fit:88 - epoch 3 done");
}

// rsyslog writes the control characters it receives as '#' and three octal digits: a colour is
// "#033[33m". Such a line is read without them (Ray's "(raylet)" prefix behind colours), and a
// raylet report a terminal wrapped between "(tasks /" and "actors)" still names the OOM kill.
TEST(Analyze, RsyslogsOctalEscapesAndAWrappedRayletReportAreRead) {
  TempDir d;
  d.write("messages/driver.log",
          "#033[2m#033[33m(raylet)#033[0m [2026-02-20 10:01:55,002 E 901 901] (raylet) node_manager.cc:3007: 1 Workers (tasks /\n"
          " actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: 7e2a, IP: 10.7.0.12) "
          "over the last time period.\n");
  const json v = analyze_report(d.file("messages"))["verdict"];
  EXPECT_EQ(v["category"], "host-oom-killed") << v.dump(1);
  EXPECT_EQ(v["node"], "10.7.0.12") << v.dump(1);
  formats::Prefix p;
  std::string storage;
  EXPECT_EQ(formats::strip_prefixes("#033[2m#033[36m(RolloutWorker pid=88, ip=10.7.0.12)#033[0m step 4", p, storage, nullptr), "step 4");
}

// PyTorch's watchdog reporting a CUDA error of the rank's own device ("[Rank 1] NCCL watchdog
// thread terminated with exception: CUDA error: uncorrectable ECC error encountered") is that rank's
// own failure, not a wait: the rank is named, and why.
TEST(Analyze, AWatchdogsCudaErrorIsItsRanksOwnFailure) {
  TempDir d;
  d.write("run/train.log",
          "RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
          "[E ProcessGroupNCCL.cpp:916] [Rank 3] NCCL watchdog thread terminated with exception: CUDA error: uncorrectable ECC error "
          "encountered\n"
          "[rank0]:[E ProcessGroupNCCL.cpp:474] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88, "
          "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600412 milliseconds before timing out.\n");
  const json v = analyze_report(d.file("run"))["verdict"];
  EXPECT_EQ(v["category"], "device-hardware-error") << v.dump(1);
  EXPECT_EQ(v["rank"], 3) << v.dump(1);
  ASSERT_TRUE(v.contains("why")) << v.dump(1);
  EXPECT_NE(v["why"][0].get<std::string>().find("failed on its own"), std::string::npos) << v["why"].dump();
}

}  // namespace
}  // namespace dtriage::test
