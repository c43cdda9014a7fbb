// Diagnosis from the structure of a job: nodes from the dump's layout, global ranks, victims and
// the culprit, the launchers' own options, and what counts as a healthy run.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "test_util.hpp"

namespace dtriage::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json verdict(const std::string& path, json* all = nullptr) {
  const json j = analyze_report(path);
  if (all != nullptr) *all = j;
  return j["verdict"];
}

// The seed incident from its plogs alone: no launcher output, still nproc, not hardware.
TEST(Structure, SeedIncidentFromPlogsAlone) {
  TempDir d;
  fs::copy(std::string(DTRIAGE_SOURCE_DIR) + "/samples/seed-nproc-sdma", d.file("job"), fs::copy_options::recursive);
  fs::remove(d.file("job/npu-a01/train.log"));
  fs::remove(d.file("job/npu-a02/train.log"));
  const json v = verdict(d.file("job"));
  EXPECT_EQ(v["category"], "nproc-device-mismatch") << v.dump();
  const std::string s = v["summary"];
  EXPECT_NE(s.find("8 processes per launch on 16-device node npu-a01"), std::string::npos) << s;
  EXPECT_NE(s.find("51302 and 60120"), std::string::npos) << s;
}

// Sibling folders named by a site's own convention are nodes; the culprit is the rank the
// failure table shows killed, not a peer that lost its connection.
TEST(Structure, SiteNamedFoldersAndTheKilledRank) {
  TempDir d;
  auto launcher = [](int node_rank) {
    return "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank " + std::to_string(node_rank) +
           " --master_addr 10.1.1.1 --master_port 29400 train.py\n";
  };
  d.write("job/rack3-n07/out.log",
          launcher(0) + "[default1]:RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.1.1.2]:5122\n");
  d.write("job/rack3-n08/out.log",
          launcher(1) +
              "[default0]:step 3 loss 1.02\n"
              "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 1 (pid: 4411) of binary: /usr/bin/python3\n"
              "Root Cause (first observed failure):\n"
              "[0]:\n"
              "  time      : 2026-02-03_10:00:05\n"
              "  host      : rack3-n08\n"
              "  rank      : 3 (local_rank: 1)\n"
              "  exitcode  : -9 (pid: 4411)\n"
              "  error_file: <N/A>\n"
              "  traceback : Signal 9 (SIGKILL) received by PID 4411\n");
  json all;
  const json v = verdict(d.file("job"), &all);
  EXPECT_EQ(v["category"], "worker-signal") << v.dump();
  EXPECT_EQ(v["node"], "rack3-n08");
  EXPECT_EQ(v["rank"], 3);
  ASSERT_EQ(all["nodes"].size(), 2u) << all["nodes"].dump();
  EXPECT_EQ(all["nodes"][0]["name"], "rack3-n07");
  EXPECT_EQ(all["nodes"][0]["named_by"], "folder");
}

// A rank that hangs: the others time out or lose a peer; the one that did neither is named, with
// its node from the launchers' rank ranges.
TEST(Structure, HungRankIsTheOneThatNeitherTimedOutNorLostAPeer) {
  TempDir d;
  auto launcher = [](int node_rank) {
    return "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank " + std::to_string(node_rank) +
           " --master_addr 10.1.1.1 --master_port 29400 train.py\n";
  };
  const std::string timeout = "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete\n";
  d.write("job/hostA/launch.log", launcher(0) + "[default0]:" + timeout + "[default1]:" + timeout);
  d.write("job/hostB/launch.log", launcher(1) + "[default0]:RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:589] Read error [10.1.1.1]:4423: Connection reset by peer\n"
                                  "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 9912 closing signal SIGTERM\n");
  const json v = verdict(d.file("job"));
  EXPECT_EQ(v["category"], "collective-timeout") << v.dump();
  EXPECT_EQ(v["rank"], 3);
  EXPECT_EQ(v["node"], "hostB");
  EXPECT_EQ(v["summary"].get<std::string>().find('?'), std::string::npos) << v["summary"];
}

TEST(Structure, LaunchOptionsTheNodesDisagreeOn) {
  TempDir d;
  d.write("a/n1/o.log", "+ torchrun --nnodes 2 --nproc_per_node 4 --node_rank 0 --master_addr 10.0.0.9 --master_port 29500 t.py\n");
  d.write("a/n2/o.log", "+ torchrun --nnodes 3 --nproc_per_node 4 --node_rank 1 --master_addr 10.0.0.9 --master_port 29500 t.py\n");
  json v = verdict(d.file("a"));
  EXPECT_EQ(v["category"], "world-size-mismatch") << v.dump();
  EXPECT_EQ(v["node"], "n2");
  d.write("b/n1/o.log", "+ torchrun --nnodes 3 --nproc_per_node 4 --node_rank 0 --master_addr 10.0.0.9 --master_port 29500 t.py\n");
  d.write("b/n2/o.log", "+ torchrun --nnodes 3 --nproc_per_node 4 --node_rank 1 --master_addr 10.0.0.9 --master_port 29500 t.py\n");
  v = verdict(d.file("b"));
  EXPECT_EQ(v["category"], "rendezvous-failure") << v.dump();  // a third node never started
  d.write("c/n1/o.log", "+ torchrun --nnodes 2 --nproc_per_node 4 --node_rank 0 --master_addr 10.0.0.9 --master_port 29500 t.py\n");
  d.write("c/n2/o.log", "+ torchrun --nnodes 2 --nproc_per_node 4 --node_rank 1 --master_addr 10.0.0.9 --master_port 29500 t.py\n");
  v = verdict(d.file("c"));
  EXPECT_EQ(v["status"], "inconclusive") << v.dump();  // both started, no worker ever wrote
}

// Healthy needs a run: worker output with no error is healthy even when no parser knows a line;
// NCCL warnings no rule knows do not make a finished run a failure.
TEST(Structure, HealthyRunsAtDefaultLogLevelAndWithNoisyNetworkPlugins) {
  TempDir d;
  d.write("a/train.log", "epoch 1 step 100 loss 2.31\nepoch 1 step 200 loss 2.05\nsaved checkpoint to /ckpt/e1\n");
  EXPECT_EQ(verdict(d.file("a"))["status"], "healthy");
  d.write("b/train.log",
          "gpu-q1:811:902 [0] NCCL INFO NET/OFI Selected provider is efa\n"
          "gpu-q1:811:902 [0] NCCL WARN NET/OFI Request 0x7f1 completed with error. RC: 11. Retrying\n"
          "epoch 1 step 100 loss 2.31\n");
  const json v = verdict(d.file("b"));
  EXPECT_EQ(v["status"], "healthy") << v.dump();
}

// Prefixes real collectors add, peeled in any order.
TEST(Structure, CollectorPrefixesArePeeled) {
  TempDir d;
  d.write("x.log",
          "12: 2024-05-01T12:34:56.123456789Z [rank12]:[E501 12:34:56.100000000 ProcessGroupNCCL.cpp:632] [Rank 12] "
          "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, Timeout(ms)=600000) ran for "
          "600100 milliseconds before timing out.\n"
          "step 9\r 45%|####      | 45/100 [00:01<00:02, 30.1it/s]Traceback (most recent call last):\n"
          "  File \"t.py\", line 3, in <module>\n"
          "ValueError: bad shape\n");
  const std::string out = events_jsonl({d.file("x.log")});
  EXPECT_NE(out.find("\"code\":\"watchdog-timeout\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"rank\":12"), std::string::npos) << out;
  EXPECT_NE(out.find("\"exception\":\"ValueError\""), std::string::npos) << out;
}

}  // namespace
}  // namespace dtriage::test
