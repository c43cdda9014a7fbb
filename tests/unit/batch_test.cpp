// Batch scans: fingerprints that group jobs that died the same way, shards, result files, summaries.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "batch/batch.hpp"
#include "test_util.hpp"

namespace dtriage::test {
namespace {

TEST(Batch, PatternKeepsTheCauseAndDropsWhatDiffersPerJob) {
  EXPECT_EQ(batch::pattern_of("nproc_per_node=8 on 16-device node npu-a01: processes 51302 and 60120 both used device 0 (the same on npu-a02)",
                              {"npu-a01", "npu-a02"}, {51302, 60120}),
            "nproc_per_node=8 on 16-device node <node>: processes <pid> and <pid> both used device 0 (the same on <node>)");
  // Another job, other hosts and pids, the same cause: the same pattern.
  EXPECT_EQ(batch::pattern_of("nproc_per_node=8 on 16-device node cn-17.hpc.local: processes 7 and 98113 both used device 0 (the same on cn-18.hpc.local)",
                              {"cn-17.hpc.local", "cn-18.hpc.local"}, {7, 98113}),
            "nproc_per_node=8 on 16-device node <node>: processes <pid> and <pid> both used device 0 (the same on <node>)");
  EXPECT_EQ(batch::pattern_of("Out of device memory on rank 10 on gpu-b02 (tried to allocate 3.50 GiB)", {"gpu-b02"}, {}),
            "Out of device memory on rank <rank> on <node> (tried to allocate 3.50 GiB)");
  EXPECT_EQ(batch::pattern_of("ranks 3, 5 and 9 timed out at 2025-06-04T10:14:21.402 waiting for 10.0.0.7:29500 (comm 0x7f3a9c00)", {}, {}),
            "ranks <rank> timed out at <time> waiting for <ip> (comm <hex>)");
  // A host name inside a longer word is not replaced; exit codes and signals stay.
  EXPECT_EQ(batch::pattern_of("worker on node1 (pid 4242) exited with code 1 (SIGKILL); node10 fine", {"node1"}, {}),
            "worker on <node> (pid <pid>) exited with code 1 (SIGKILL); node10 fine");
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

TEST(Batch, SummaryGroupsByFingerprintWithFirstAndLastSeen) {
  std::vector<batch::ResultLine> rs;
  auto add = [&](std::string job, std::string status, std::string cat, std::string fp, std::string time) {
    batch::ResultLine l;
    l.job = job;
    l.status = status;
    l.category = cat;
    l.fingerprint = fp;
    l.pattern = "pattern of " + fp;
    l.rule = "rule." + cat;
    l.summary = "summary of " + job;
    l.time = time;
    rs.push_back(l);
  };
  add("j3", "failed", "device-oom", "aa", "2025-03-01T00:00:00");
  add("j1", "failed", "device-oom", "aa", "2025-01-01T00:00:00");
  add("j2", "failed", "port-in-use", "bb", "");
  add("j4", "healthy", "", "", "");
  add("j5", "error", "", "", "");
  add("j6", "failed", "device-oom", "aa", "2025-02-01T00:00:00");
  const auto s = batch::summarize(rs);
  EXPECT_EQ(s.jobs, 6u);
  EXPECT_EQ(s.by_status.at("failed"), 4u);
  EXPECT_EQ(s.by_status.at("error"), 1u);
  EXPECT_EQ(s.by_category.at("device-oom"), 3u);
  ASSERT_EQ(s.groups.size(), 2u);
  EXPECT_EQ(s.groups[0].fingerprint, "aa");
  EXPECT_EQ(s.groups[0].jobs, 3u);
  EXPECT_EQ(s.groups[0].first_seen, "2025-01-01T00:00:00");
  EXPECT_EQ(s.groups[0].last_seen, "2025-03-01T00:00:00");
  EXPECT_EQ(s.groups[0].example_job, "j1");
  EXPECT_EQ(s.groups[1].first_seen, "");
  const auto j = nlohmann::json::parse(batch::render_summary_json(s));
  EXPECT_EQ(j["causes"][0]["jobs"], 3);
  EXPECT_EQ(j["by_category"][0]["category"], "device-oom");
  EXPECT_NE(batch::render_summary_markdown(s).find("| 3 | device-oom |"), std::string::npos);
  EXPECT_NE(batch::render_summary_text(s).find("3 jobs  [device-oom] aa"), std::string::npos);
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

}  // namespace
}  // namespace dtriage::test
