// The one launch-command reader (formats/launch.hpp), as log lines echo commands and as `check
// --launch` gets them: wrappers before the launcher, both option spellings and forms, quotes,
// continued lines, and the script's own options left alone.
#include <gtest/gtest.h>

#include "formats/launch.hpp"
#include "model/event.hpp"
#include "test_util.hpp"

namespace dtriage::test {
namespace {

using formats::parse_launch_command;

TEST(LaunchCommand, WrappersBeforeTheLauncherAreNotItsOptions) {
  const auto l = parse_launch_command("srun --nodes=4 --ntasks-per-node=1 -l torchrun --nnodes 4 --nproc-per-node=16 "
                                      "--rdzv-endpoint=hpc-r7c3:29511 --rdzv_backend c10d finetune.py --nnodes 99");
  EXPECT_TRUE(l.launcher);
  EXPECT_EQ(l.nnodes, 4);
  EXPECT_EQ(l.nproc_per_node, 16);
  EXPECT_EQ(l.master_addr, "hpc-r7c3");
  EXPECT_EQ(l.master_port, 29511);
}

TEST(LaunchCommand, EchoedByAShellWithContinuedLinesAndQuotes) {
  const auto l = parse_launch_command("+ OMP_NUM_THREADS=4 /opt/conda/bin/torchrun \\ --nnodes=1:3 \\ --node_rank \"2\" "
                                      "--master_addr='10.20.3.41' --master_port 6001 --nproc_per_node 4 train.py -c cfg.yaml");
  EXPECT_EQ(l.nnodes, 3);  // MIN:MAX: the most nodes it may wait for
  EXPECT_EQ(l.node_rank, 2);
  EXPECT_EQ(l.master_addr, "10.20.3.41");
  EXPECT_EQ(l.master_port, 6001);
  EXPECT_EQ(l.nproc_per_node, 4);
}

TEST(LaunchCommand, PythonModuleFormsAndWordValues) {
  auto l = parse_launch_command("python3 -u -m torch.distributed.run --standalone --nproc_per_node=auto pretrain.py");
  EXPECT_EQ(l.nnodes, 1);
  EXPECT_FALSE(l.nproc_per_node);
  EXPECT_EQ(l.nproc_text, "auto");
  l = parse_launch_command("python -m torch.distributed.launch --nproc_per_node=8 --use_env main.py");
  EXPECT_EQ(l.nproc_per_node, 8);
  l = parse_launch_command("launching with --nproc_per_node 2 --nnodes 5");  // no launcher word: from the first option
  EXPECT_FALSE(l.launcher);
  EXPECT_EQ(l.nproc_per_node, 2);
  EXPECT_EQ(l.nnodes, 5);
  EXPECT_FALSE(parse_launch_command("python train.py --epochs 3").nproc_per_node);
}

// A log line that echoes the command becomes a launch-command event with the same values.
TEST(LaunchCommand, LogLinesUseTheSameReader) {
  const Collected c = [] {
    TempDir d;
    d.write("cn0412/job.out",
            "+ srun -N 2 torchrun --nnodes=2 --nproc-per-node=8 --node-rank=1 --rdzv-endpoint=cn0411:29602 run.py --nnodes 7\n");
    return collect_events({d.path()});
  }();
  const model::Event* launch = nullptr;
  for (const auto& e : c.events)
    if (e.code == "launch-command") launch = &e;
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->get_int("nproc_per_node"), 8);
  EXPECT_EQ(launch->get_int("nnodes"), 2);
  EXPECT_EQ(launch->get_int("node_rank"), 1);
  EXPECT_EQ(launch->get_str("master_addr"), "cn0411");
  EXPECT_EQ(launch->get_int("master_port"), 29602);
}

}  // namespace
}  // namespace dtriage::test
