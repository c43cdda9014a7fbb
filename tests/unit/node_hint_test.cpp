#include "ingest/node_hint.hpp"

#include <gtest/gtest.h>

namespace dtriage::ingest {
namespace {

TEST(NodeHints, DirectoryPerHost) {
  NodeHints h;
  EXPECT_EQ(h.infer("node3/plog/plog-51302_20250604.log"), "node3");
  EXPECT_EQ(h.infer("logs/gpu-a03/rank0.log"), "gpu-a03");
  EXPECT_EQ(h.infer("worker-2/process_log/debug/plog/plog-1_2.log"), "worker-2");
  EXPECT_EQ(h.infer("dump/10.0.0.12/train.log"), "10.0.0.12");
  EXPECT_EQ(h.infer("job-7f3a-worker-12/stdout.log"), "job-7f3a-worker-12");
  EXPECT_EQ(h.infer("w_1/plog-parser-69396-1.log"), "w_1");
  // Fully qualified, kept as spelled.
  EXPECT_EQ(h.infer("c017.hpc.example.edu/torchrun.out"), "c017.hpc.example.edu");
  EXPECT_EQ(h.infer("job/DGX-12.Cluster.Local/a.log"), "DGX-12.Cluster.Local");
  EXPECT_EQ(h.infer("logs/r04-c06-n02.rack4.dc1.corp/x/y.txt"), "r04-c06-n02.rack4.dc1.corp");
  // Location names: rack, chassis, (slot,) node; a Cray xname.
  EXPECT_EQ(h.infer("r07-c11-n12/torchrun.log"), "r07-c11-n12");
  EXPECT_EQ(h.infer("dump/RK2-CH04-SL1-N3/a.log"), "RK2-CH04-SL1-N3");
  EXPECT_EQ(h.infer("x1000c0s7b0n1/slurm-1.out"), "x1000c0s7b0n1");
  // Addresses written with dashes: EC2's own host names, pods named after their address.
  EXPECT_EQ(h.infer("ip-172-31-20-118/job.out"), "ip-172-31-20-118");
  EXPECT_EQ(h.infer("dump.tar.gz!IP-10-0-4-26.tgz!torchrun.log"), "IP-10-0-4-26");
  EXPECT_EQ(h.infer("k8s/10-244-3-17/stdout"), "10-244-3-17");
}

TEST(NodeHints, PerNodeArchive) {
  NodeHints h;
  EXPECT_EQ(h.infer("job.tar.gz!node3.tar.gz!plog/plog-1.log"), "node3");
  EXPECT_EQ(h.infer("node07.tgz!plog/plog-1.log"), "node07");
}

TEST(NodeHints, DeepestComponentWins) {
  NodeHints h;
  EXPECT_EQ(h.infer("cluster/node1.tar!node2/x.log"), "node2");
}

TEST(NodeHints, FileNameAndOtherDirectoriesDoNotCount) {
  NodeHints h;
  EXPECT_EQ(h.infer("node3.log"), "");
  EXPECT_EQ(h.infer("debug/device-0/device-111322_20230116070010213.log"), "");
  EXPECT_EQ(h.infer("rank_76/debug/plog/plog-1.log"), "");
  EXPECT_EQ(h.infer("attempt_0/0/stdout.log"), "");
  EXPECT_EQ(h.infer("logs/x.log"), "");
  // Dotted names that are no hosts: versions, files kept as folders, no number in the host label.
  EXPECT_EQ(h.infer("v1.2.3/a.log"), "");
  EXPECT_EQ(h.infer("exp3.run.log/a.log"), "");
  EXPECT_EQ(h.infer("data1.train.json/a.log"), "");
  EXPECT_EQ(h.infer("login.hpc.example.edu/a.log"), "");
  EXPECT_EQ(h.infer("torch2.1.0/a.log"), "");
  // Two letter-number groups are a run's name as often as a place's.
  EXPECT_EQ(h.infer("exp1-run2/a.log"), "");
  EXPECT_EQ(h.infer("v1-2-3/a.log"), "");
  // Dates and version triples with dashes are no addresses.
  EXPECT_EQ(h.infer("2026-12-05/a.log"), "");
  EXPECT_EQ(h.infer("run-1-2-3/a.log"), "");
  EXPECT_EQ(h.infer("ip-10-0-4/a.log"), "");
}

TEST(NodeHints, UserPatternCaptureGroup) {
  auto h = NodeHints::from_pattern(R"(hosts/([^/]+)/)");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->infer("a/hosts/alpha/plog/x.log"), "alpha");
  EXPECT_EQ(h->infer("a/other/alpha/x.log"), "");
  EXPECT_FALSE(NodeHints::from_pattern("(unclosed").ok());
}

TEST(NodeHints, StripArchiveSuffix) {
  EXPECT_EQ(strip_archive_suffix("node3.tar.gz"), "node3");
  EXPECT_EQ(strip_archive_suffix("n.tar.zst"), "n");
  EXPECT_EQ(strip_archive_suffix("plain"), "plain");
  EXPECT_EQ(strip_archive_suffix("node3.tar.gz.gz"), "node3");  // compressed once more on the way
  EXPECT_EQ(strip_archive_suffix("gpu-a03.tar.zst.xz"), "gpu-a03");
  EXPECT_EQ(strip_archive_suffix(".gz"), ".gz");
}

}  // namespace
}  // namespace dtriage::ingest
