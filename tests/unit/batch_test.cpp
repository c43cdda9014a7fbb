// Batch scans: fingerprints that group jobs that died the same way, shards, result files, summaries.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/sentences.hpp"
#include "batch/batch.hpp"
#include "batch/scan.hpp"
#include "test_util.hpp"

namespace dtriage::test {
namespace {

TEST(Batch, PatternKeepsTheCauseAndDropsWhatDiffersPerJob) {
  const std::string seed = "nproc_per_node=<n> on <n>-device node <node>: processes <pid> both used device <n>";
  EXPECT_EQ(batch::pattern_of("nproc_per_node=8 on 16-device node npu-a01: processes 51302 and 60120 both used device 0 (the same on npu-a02)",
                              {"npu-a01", "npu-a02"}, {51302, 60120}),
            seed);
  // Another job, other hosts, pids and sizes, the same cause: the same pattern.
  EXPECT_EQ(batch::pattern_of("nproc_per_node=4 on 8-device node cn-17.hpc.local: processes 7, 98113 and 98114 both used device 3",
                              {"cn-17.hpc.local", "cn-18.hpc.local"}, {7, 98113}),
            seed);
  EXPECT_EQ(batch::pattern_of("Out of device memory on rank 10 on gpu-b02 (tried to allocate 3.50 GiB)", {"gpu-b02"}, {}),
            "Out of device memory on rank <rank> (tried to allocate <n> GiB)");
  EXPECT_EQ(batch::pattern_of("ranks 3, 5 and 9 timed out at 2025-06-04T10:14:21.402 waiting for 10.0.0.7:29500 (comm 0x7f3a9c00)", {}, {}),
            "ranks <rank> timed out at <time> waiting for <ip> (comm <hex>)");
  // A host name inside a longer word is not replaced; exit codes, errno, Xid and signals stay.
  EXPECT_EQ(batch::pattern_of("worker on node1 (pid 4242) exited with code 1 (SIGKILL); node10 fine", {"node1"}, {}),
            "worker (pid <pid>) exited with code 1 (SIGKILL); node10 fine");
  EXPECT_EQ(batch::pattern_of("The store port on gpu-a03 was already in use (errno 98, port 29500)", {"gpu-a03"}, {}),
            "The store port was already in use (errno 98, port <n>)");
  EXPECT_EQ(batch::pattern_of("Xid 79 on gpu-a17 GPU 00000000:1B:00.0: fell off the bus", {"gpu-a17"}, {}),
            "Xid 79 GPU <bus>: fell off the bus");
  EXPECT_EQ(batch::pattern_of("Duplicate GPU detected: rank 3 and rank 5 both on CUDA device 0000:3b:00.0", {}, {}),
            batch::pattern_of("Duplicate GPU detected: rank 12 and rank 13 both on CUDA device 0000:86:00.0", {}, {}));
  // Paths, error codes and versions inside words.
  EXPECT_EQ(batch::pattern_of("EE8888 memcpy failed in /home/alice/run-7/train.py with CANN 8.0.RC2", {}, {}),
            "EE8888 memcpy failed in <path> with CANN <n>.RC2");
  // A relative path names the job (its archive, its folders): masked as well.
  EXPECT_EQ(batch::pattern_of("the earliest error is c12-job-079.tar.gz!job-079/npu-a01/train.log:412: RuntimeError", {"npu-a01"}, {}),
            "the earliest error is <path>:<n>: RuntimeError");
  EXPECT_EQ(batch::pattern_of("see worker-3/logs/train.log", {}, {}), "see <path>");
  EXPECT_EQ(batch::pattern_of("ratio nproc/devices is 1/2", {}, {}), "ratio nproc/devices is <n>/<n>");
  // An optional "on <node>" does not split a cause.
  EXPECT_EQ(batch::pattern_of("/dev/shm is 64 MiB on worker-3: too small for 8 workers", {"worker-3"}, {}),
            batch::pattern_of("/dev/shm is 64 MiB: too small for 8 workers", {}, {}));
  // A long text (a rank table) is cut to its head, within kPatternMax.
  std::string table = "Ranks failed:";
  for (int r = 0; r < 100; ++r) table += " rank " + std::to_string(r) + " on host" + std::to_string(r % 7) + " exitcode 1 reason SomeError;";
  const std::string cut = batch::pattern_of(table, {}, {});
  EXPECT_LE(cut.size(), batch::kPatternMax);
  EXPECT_EQ(cut.substr(cut.size() - 4), " ...");
}

TEST(Batch, NormalizedPatternsStayAsTheyAre) {
  for (const std::string& s : std::vector<std::string>{"nproc_per_node=8 on 16-device node npu-a01: processes 51302 and 60120 both used device 0 (the same on npu-a02)",
                              "Worker local_rank 3 (pid 4711) on <node> exited with code 42 (the same on <node>, <node>)",
                              "A collective recv timed out after 20 s on 2 rank(s); rank(s) 1 never reported the timeout",
                              std::string(400, 'x') + " " + std::string(30, 'y'),
                              // from a review: dropping "(on <node>)" joins a list; a rank before "3rd"
                              "lost 2 (on <node>), 3 left", "Rank at <node> 3rd"}) {
    const std::string once = batch::normalize_pattern(s);
    EXPECT_EQ(batch::normalize_pattern(once), once) << s;
  }
}

TEST(Batch, ListsOfDifferentPlaceholdersStayApart) {
  EXPECT_EQ(batch::normalize_pattern("10.0.0.7, 8 GPUs"), "<ip>, <n> GPUs");
  EXPECT_EQ(batch::normalize_pattern("ranks 1, 2 and 3 on hosts 4 and 5"), "ranks <rank> on hosts <n>");
}

TEST(Batch, ReportFileNamesOfDifferentJobsDiffer) {
  EXPECT_EQ(batch::report_file_name("job-001.tar.gz"), "job-001.tar.gz");
  EXPECT_NE(batch::report_file_name("job 1"), batch::report_file_name("job_1"));
  EXPECT_EQ(batch::report_file_name("a/b").find('/'), std::string::npos);
}

TEST(Batch, IsoWeeks) {
  EXPECT_EQ(batch::iso_week("2026-02-31"), "");
  EXPECT_EQ(batch::iso_week("2024-02-29"), "2024-W09");
  EXPECT_EQ(batch::iso_week("-001-01-01"), "");
  EXPECT_EQ(batch::iso_week(" 026-01-01"), "");
  EXPECT_EQ(batch::iso_week("2026-12-01"), "2026-W49");
  EXPECT_EQ(batch::iso_week("2026-01-01"), "2026-W01");  // a Thursday
  EXPECT_EQ(batch::iso_week("2021-01-03"), "2020-W53");  // a Sunday of the year before's last week
  EXPECT_EQ(batch::iso_week("2024-12-30"), "2025-W01");  // a Monday of the next year's first week
  EXPECT_EQ(batch::iso_week("2026-13-01"), "");
  EXPECT_EQ(batch::iso_week("yesterday"), "");
}

TEST(Batch, FingerprintsAreStableAndSeparateCauses) {
  const std::string a = batch::fingerprint("device-oom", "torch.device-oom", "Out of device memory on rank <rank>");
  EXPECT_EQ(a.size(), 16u);
  EXPECT_EQ(a, batch::fingerprint("device-oom", "torch.device-oom", "Out of device memory on rank <rank>"));
  EXPECT_NE(a, batch::fingerprint("device-oom", "nccl.cuda-oom", "Out of device memory on rank <rank>"));
  EXPECT_NE(a, batch::fingerprint("device-oom", "torch.device-oom", "Out of device memory on rank <rank> (3.50 GiB)"));
}

TEST(Batch, ShardsSplitEveryJobOnce) {
  EXPECT_FALSE(batch::parse_shard("3/3"));
  EXPECT_FALSE(batch::parse_shard("1"));
  EXPECT_FALSE(batch::parse_shard("1/0"));
  EXPECT_FALSE(batch::parse_shard("1/3x"));
  std::vector<int> per(4, 0);
  for (int i = 0; i < 1000; ++i) {
    const std::string name = "job-" + std::to_string(i) + ".tar.gz";
    int owners = 0;
    for (std::uint64_t k = 0; k < 4; ++k)
      if (batch::in_shard(name, *batch::parse_shard(std::to_string(k) + "/4"))) {
        ++owners;
        ++per[k];
      }
    EXPECT_EQ(owners, 1) << name;
  }
  for (int n : per) EXPECT_GT(n, 180);  // roughly even
}

TEST(Batch, ResultFilesKeepWholeLinesOnly) {
  TempDir dir;
  const std::string p = dir.write("r.jsonl",
                                  "{\"job\":\"a\",\"status\":\"failed\",\"category\":\"device-oom\",\"rule\":\"r\",\"fingerprint\":\"f1\","
                                  "\"pattern\":\"p\",\"time\":\"2025-01-02T00:00:00\"}\n"
                                  "not json\n"
                                  "{\"job\":\"b\",\"status\":\"healthy\",\"category\":null}\n"
                                  "{\"job\":\"c\",\"sta");
  const auto r = batch::read_results(p);
  ASSERT_EQ(r.lines.size(), 2u);
  EXPECT_EQ(r.lines[0].job, "a");
  EXPECT_EQ(r.lines[1].status, "healthy");
  EXPECT_EQ(r.problems.size(), 1u);
  EXPECT_TRUE(r.partial_tail);
  EXPECT_EQ(r.complete_bytes, read_file(p).rfind('\n') + 1);
  EXPECT_TRUE(batch::read_results(dir.file("none")).lines.empty());
}

TEST(Batch, SummaryGroupsByPatternWithFirstAndLastSeen) {
  std::vector<batch::ResultLine> rs;
  auto add = [&](std::string job, std::string status, std::string cat, std::string pattern, std::string date) {
    batch::ResultLine l;
    l.job = job;
    l.status = status;
    l.category = cat;
    l.pattern = pattern;
    l.rule = "rule." + cat;
    l.summary = "summary of " + job;
    l.date = date;
    rs.push_back(l);
  };
  add("j3", "failed", "device-oom", "Out of memory (<n> GiB)", "2025-03-01");
  add("j1", "failed", "device-oom", "Out of memory (3.5 GiB)", "2025-01-01");  // an older line, not yet masked: the same group
  add("j2", "failed", "port-in-use", "Port busy", "");
  add("j4", "healthy", "", "", "");
  add("j5", "error", "", "", "");
  add("j6", "failed", "device-oom", "Out of memory (<n> GiB)", "2025-02-01");
  const auto s = batch::summarize(rs);
  EXPECT_EQ(s.jobs, 6u);
  EXPECT_EQ(s.by_status.at("failed"), 4u);
  EXPECT_EQ(s.by_status.at("error"), 1u);
  EXPECT_EQ(s.by_category.at("device-oom"), 3u);
  ASSERT_EQ(s.groups.size(), 2u);
  const std::string fp = batch::fingerprint("device-oom", "rule.device-oom", "Out of memory (<n> GiB)");
  EXPECT_EQ(s.groups[0].fingerprint, fp);
  EXPECT_EQ(s.groups[0].jobs, 3u);
  EXPECT_EQ(s.groups[0].first_seen, "2025-01-01");
  EXPECT_EQ(s.groups[0].last_seen, "2025-03-01");
  ASSERT_EQ(s.groups[0].examples.size(), 3u);
  EXPECT_EQ(s.groups[0].examples[0].job, "j1");
  EXPECT_EQ(s.groups[0].examples[2].job, "j6");
  EXPECT_EQ(s.groups[1].first_seen, "");
  EXPECT_EQ(s.not_analysed_total, 1u);
  const auto j = nlohmann::json::parse(batch::render_summary_json(s));
  EXPECT_EQ(j["causes"][0]["jobs"], 3);
  EXPECT_EQ(j["by_category"][0]["category"], "device-oom");
  EXPECT_NE(batch::render_summary_markdown(s).find("| 3 | device-oom |"), std::string::npos);
  EXPECT_NE(batch::render_summary_text(s).find("3 jobs  [device-oom] " + fp), std::string::npos);
}

// Bad nodes, devices, weeks, jobs not analysed and --since / --until, on lines whose answers are
// known: gpu-a17 is the culprit's node in 3 of the 4 jobs it ran, gpu-b02 in 1 of 3.
TEST(Batch, SummaryRanksBadNodesCountsWeeksAndListsWhatWasNotAnalysed) {
  std::vector<batch::ResultLine> rs;
  auto job = [&](std::string name, std::string status, std::string cat, std::string node, std::string device, std::string date,
                 std::vector<std::string> nodes, std::string error = "") {
    batch::ResultLine l;
    l.job = name;
    l.status = status;
    l.category = cat;
    l.rule = cat.empty() ? "" : "r." + cat;
    l.pattern = l.summary = cat.empty() ? "" : cat + " on " + node;
    l.node = node;
    l.device = device;
    l.date = date;
    l.nodes = nodes;
    l.error = error;
    rs.push_back(l);
  };
  job("a", "failed", "device-hardware-error", "gpu-a17", "3", "2026-11-23", {"gpu-a17", "gpu-b02"});
  job("b", "failed", "device-hardware-error", "gpu-a17", "3", "2026-11-25", {"gpu-a17", "gpu-c01"});
  job("c", "failed", "device-oom", "gpu-a17", "", "2026-12-01", {"gpu-a17", "gpu-b02"});
  job("d", "healthy", "", "", "", "2026-12-02", {"gpu-a17", "gpu-b02"});
  job("e", "failed", "worker-exception", "gpu-b02", "", "2026-12-03", {"gpu-b02"});
  job("f", "error", "", "", "", "", {}, "timed out after 60 s (--job-timeout); 3 files read before");
  job("g", "skipped", "", "", "", "", {}, "not a job");
  job("h", "failed", "worker-exception", "node#1", "", "", {"node#1", "node#2"});  // --redact: not a node to rank
  const auto s = batch::summarize(rs);
  ASSERT_EQ(s.bad_nodes.size(), 2u);
  EXPECT_EQ(s.bad_nodes[0].node, "gpu-a17");
  EXPECT_EQ(s.bad_nodes[0].culprit, 3u);
  EXPECT_EQ(s.bad_nodes[0].ran, 4u);
  EXPECT_EQ(s.bad_nodes[0].by_category.at("device-hardware-error"), 2u);
  EXPECT_EQ(s.bad_nodes[1].node, "gpu-b02");
  EXPECT_EQ(s.bad_nodes[1].ran, 4u);
  ASSERT_EQ(s.bad_devices.size(), 1u);
  EXPECT_EQ(s.bad_devices[0].device, "3");
  EXPECT_EQ(s.bad_devices[0].culprit, 2u);
  ASSERT_EQ(s.weeks.size(), 2u);
  EXPECT_EQ(s.weeks.at("2026-W48").at("device-hardware-error"), 2u);
  EXPECT_EQ(s.weeks.at("2026-W49").at("device-oom"), 1u);
  EXPECT_EQ(s.weeks.at("2026-W49").at("worker-exception"), 1u);
  EXPECT_EQ(s.undated, 1u);
  ASSERT_EQ(s.not_analysed.size(), 2u);
  EXPECT_EQ(s.not_analysed[0].job, "f");
  EXPECT_EQ(s.not_analysed[1].status, "skipped");
  const std::string text = batch::render_summary_text(s);
  EXPECT_NE(text.find("gpu-a17: 3 of 4 jobs it ran (device-hardware-error 2, device-oom 1)"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu-a17 device 3: 2 jobs"), std::string::npos) << text;
  EXPECT_NE(text.find("f  error: timed out after 60 s"), std::string::npos) << text;
  const auto j = nlohmann::json::parse(batch::render_summary_json(s));
  EXPECT_EQ(j["bad_nodes"][0]["culprit_jobs"], 3);
  EXPECT_EQ(j["weeks"][1]["jobs"], 2);
  EXPECT_EQ(j["not_analysed"]["jobs"], 2);
  // One week only; undated jobs are left out when a period is asked for.
  const auto w48 = batch::summarize(rs, {"2026-11-23", "2026-11-29"});
  EXPECT_EQ(w48.jobs, 4u);
  EXPECT_EQ(w48.left_out, 4u);
  EXPECT_NE(batch::render_summary_text(w48).find("jobs of 2026-11-23 .. 2026-11-29; 4 jobs outside (or undated) left out"), std::string::npos);
  // Jobs not analysed have no day: a period's summary keeps them.
  EXPECT_EQ(w48.not_analysed_total, 2u);
}

// The summary in Chinese: every heading and column of Markdown and HTML in the catalogue's words;
// categories, nodes, weeks and counts as in English.
TEST(Batch, SummaryHeadingsInChinese) {
  std::vector<batch::ResultLine> rs;
  for (int i = 0; i < 3; ++i) {
    batch::ResultLine l;
    l.job = "job-" + std::to_string(i);
    l.status = i == 2 ? "error" : "failed";
    l.error = i == 2 ? "timed out" : "";
    l.category = i == 2 ? "" : "device-oom";
    l.rule = i == 2 ? "" : "torch.device-oom";
    l.pattern = l.summary = i == 2 ? "" : "Out of device memory on rank <rank>";
    l.node = i == 2 ? "" : "n07.example.org";
    l.date = i == 2 ? "" : "2026-11-2" + std::to_string(i + 3);
    l.nodes = {"n07.example.org"};
    rs.push_back(l);
  }
  const auto s = batch::summarize(rs);
  base::LangScope zh(base::Lang::Zh);
  const std::string md = batch::render_summary_markdown(s), html = batch::render_summary_html(s);
  for (const std::string& out : {md, html}) {
    for (const char* word : {"反复出现的根因", "出错 rank 所在的节点", "每周失败的作业", "未分析（1）", "作业数", "device-oom", "n07.example.org", "2026-W48"})
      EXPECT_NE(out.find(word), std::string::npos) << word << " in\n" << out;
    for (const char* word : {"Recurring root causes", "Nodes the culprits were on", "Failed jobs by week", "Not analysed", "| jobs |", "<th>jobs</th>"})
      EXPECT_EQ(out.find(word), std::string::npos) << word << " in\n" << out;
  }
  EXPECT_NE(html.find("<html lang=\"zh-CN\">"), std::string::npos);
  EXPECT_NE(html.find("Noto Sans CJK SC"), std::string::npos);
}

TEST(Batch, ReportLinksNeverLeaveTheFolder) {
  batch::ResultLine l;
  l.job = "j";
  l.status = "failed";
  l.category = "worker-exception";
  l.pattern = l.summary = "x";
  for (const std::string bad : {"//evil.example/p", "javascript:alert(1)", "https://evil.example/", "\\\\host\\share"}) {
    l.report = bad;
    const std::string html = batch::render_summary_html(batch::summarize({l}));
    EXPECT_EQ(html.find("href="), std::string::npos) << bad;
  }
}

TEST(Batch, SummaryPageIsSelfContainedAndEscaped) {
  batch::ResultLine l;
  l.job = "job-<img src=x onerror=alert(1)>";
  l.status = "failed";
  l.category = "worker-exception";
  l.fingerprint = "cc";
  l.pattern = "</td><script>alert(1)</script>";
  l.summary = "x";
  const std::string html = batch::render_summary_html(batch::summarize({l}));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

// The weekly chart tells twelve categories apart (most jobs first) and names the rest as one.
TEST(Batch, WeeklyChartColoursTwelveCategoriesAndGroupsTheRest) {
  std::vector<batch::ResultLine> rs;
  for (int c = 0; c < 14; ++c)
    for (int k = 0; k <= 14 - c; ++k) {  // category c has 15 - c jobs: c0 the most
      batch::ResultLine l;
      l.job = "job-" + std::to_string(c) + "-" + std::to_string(k);
      l.status = "failed";
      l.category = "cat-" + std::string(1, static_cast<char>('a' + c));
      l.rule = "r";
      l.pattern = l.summary = l.category + " happened";
      l.date = "2026-11-" + std::to_string(10 + k % 9);
      rs.push_back(l);
    }
  const std::string html = batch::render_summary_html(batch::summarize(rs));
  const std::size_t legend = html.find("<p class=\"legend\">");
  ASSERT_NE(legend, std::string::npos);
  const std::string part = html.substr(legend, html.find("</p>", legend) - legend);
  std::set<std::string> fills;
  for (std::size_t at = part.find("fill=\""); at != std::string::npos; at = part.find("fill=\"", at + 1))
    fills.insert(part.substr(at + 6, 7));
  EXPECT_EQ(fills.size(), 13u) << part;  // twelve and the others' grey
  EXPECT_NE(part.find("cat-l"), std::string::npos);
  EXPECT_EQ(part.find("cat-m"), std::string::npos) << "the 13th category is one of the others";
  EXPECT_NE(part.find("2 other categories"), std::string::npos) << part;
}

}  // namespace
}  // namespace dtriage::test
