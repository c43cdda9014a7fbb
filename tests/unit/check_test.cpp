// dtriage check: snapshots we write (snapshot_fixture.hpp), one fault per set, each check failing
// for the right node with its values; a clean set passing; the collector and the smoke test for real.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "check/check.hpp"
#include "formats/snapshot.hpp"
#include "snapshot_fixture.hpp"
#include "test_util.hpp"

namespace dtriage::test {
namespace {

using check::Status;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

formats::Snapshot snap(const NodeSpec& s) { return formats::parse_snapshot(lines_of(make_snapshot(s)), s.host + ".snapshot"); }

check::Report run(const std::vector<NodeSpec>& nodes, const std::string& launch = "",
                  const std::vector<std::string>& smoke = {}, const std::vector<model::Event>& events = {}) {
  check::Input in;
  for (const NodeSpec& n : nodes) in.snapshots.push_back(snap(n));
  in.launch = check::parse_launch(launch);
  for (std::size_t i = 0; i < smoke.size(); ++i) {
    check::SmokeRank r;
    EXPECT_TRUE(check::parse_smoke_line(smoke[i], r)) << smoke[i];
    r.path = "smoke.log";
    r.line = i + 1;
    r.text = smoke[i];
    in.smoke.push_back(r);
  }
  for (const model::Event& e : events) in.logs.add(e);
  return check::run_checks(in);
}

const check::CheckResult& get(const check::Report& r, int id) { return r.checks.at(static_cast<std::size_t>(id - 1)); }

// The result of check `id` for `node` ("" = the job-wide line).
const check::NodeResult* result(const check::Report& r, int id, const std::string& node) {
  for (const auto& n : get(r, id).results)
    if (n.node == node) return &n;
  return nullptr;
}

std::string dump(const check::Report& r) { return check::render_text(r); }

// Only this check fails, and only for these nodes.
void expect_only(const check::Report& r, int id, const std::vector<std::string>& failing) {
  for (const auto& c : r.checks) {
    for (const auto& n : c.results) {
      const bool should = c.id == id && std::find(failing.begin(), failing.end(), n.node) != failing.end();
      if (should) EXPECT_EQ(n.status, Status::Fail) << "check " << c.id << " node " << n.node << "\n" << dump(r);
      else EXPECT_NE(n.status, Status::Fail) << "check " << c.id << " node " << n.node << ": " << n.message << "\n" << dump(r);
    }
  }
}

TEST(Snapshot, ParsesWhatEachToolPrinted) {
  NodeSpec s;
  s.holders = {{2, 48213, "python", 30112}};
  const formats::Snapshot p = snap(s);
  EXPECT_EQ(p.host, "gpu-a01");
  EXPECT_EQ(p.fqdn, "gpu-a01.cluster.local");
  EXPECT_EQ(p.platform, "nvidia");
  ASSERT_EQ(p.devices.size(), 8u);
  EXPECT_EQ(p.devices[3].model, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(p.devices[3].memory_total_mib, 81920);
  ASSERT_EQ(p.holders.size(), 1u);
  EXPECT_EQ(p.holders[0].pid, 48213);
  EXPECT_EQ(p.holders[0].device, 2);
  EXPECT_EQ(p.versions.at("driver"), "535.104.05");
  EXPECT_EQ(p.versions.at("cuda_driver"), "12.2");
  EXPECT_EQ(p.versions.at("cuda_runtime"), "12.1");
  EXPECT_EQ(p.versions.at("nccl"), "2.18.1");
  EXPECT_EQ(p.torch_device_count, 8);
  ASSERT_EQ(p.topology.size(), 10u);  // 8 GPUs and 2 NICs, escape codes stripped
  EXPECT_EQ(p.topology[0].substr(0, 15), "GPU0: X NV12 NV");
  EXPECT_EQ(p.port, 29500);
  EXPECT_EQ(p.port_state, "free");
  EXPECT_EQ(p.reach, "refused");
  EXPECT_EQ(p.shm_bytes, 263921168ll * 1024);

  NodeSpec a = healthy_job(1, "ascend")[0];
  a.holders = {{5, 7781, "python3.9", 61234}};
  const formats::Snapshot q = snap(a);
  EXPECT_EQ(q.platform, "ascend");
  ASSERT_EQ(q.devices.size(), 8u);
  EXPECT_EQ(q.devices[0].model, "910B3");
  EXPECT_EQ(q.devices[0].memory_total_mib, 65536);
  EXPECT_EQ(q.versions.at("cann"), "8.0.RC3");
  EXPECT_EQ(q.versions.at("npu_driver"), "24.1.rc2");
  ASSERT_EQ(q.holders.size(), 1u);
  EXPECT_EQ(q.holders[0].device, 5);
  EXPECT_EQ(q.topology.size(), 8u);
}

TEST(Snapshot, WithoutQueryTheTableAndListStillGiveDevices) {
  // An older collector, or a query nvidia-smi refused: -L and the table are enough.
  NodeSpec s;
  s.devices = 4;
  std::string text = make_snapshot(s);
  const std::string from = "@@ nvidia.query ok";
  text.replace(text.find(from), from.size(), "@@ nvidia.query exit=2");
  const formats::Snapshot p = formats::parse_snapshot(lines_of(text), "x");
  ASSERT_EQ(p.devices.size(), 4u);
  EXPECT_EQ(p.devices[2].memory_total_mib, 81920);
  EXPECT_EQ(p.versions.at("driver"), "535.104.05");
}

TEST(Check, HealthyJobsPass) {
  for (const auto& [nodes, platform] : std::vector<std::pair<int, std::string>>{{2, "nvidia"}, {4, "nvidia"}, {2, "ascend"}, {4, "ascend"}}) {
    const auto r = run(healthy_job(nodes, platform), "torchrun --nnodes " + std::to_string(nodes) + " --nproc_per_node 8 train.py");
    for (int id = 1; id <= 4; ++id) EXPECT_EQ(get(r, id).status, Status::Pass) << platform << " " << nodes << "\n" << dump(r);
    EXPECT_NE(r.status, Status::Fail);
    EXPECT_NE(r.status, Status::Warn) << dump(r);
    EXPECT_EQ(r.nodes.size(), static_cast<std::size_t>(nodes));
  }
}

TEST(Check, DifferentDriverFailsVersionsForThatNode) {
  auto job = healthy_job(2);
  job[1].driver = "550.54.15";
  job[1].cuda_driver = "12.4";
  const auto r = run(job);
  expect_only(r, 3, {"gpu-a02"});
  const auto* n = result(r, 3, "gpu-a02");
  ASSERT_NE(n, nullptr);
  EXPECT_NE(n->message.find("driver 550.54.15; gpu-a01 has 535.104.05"), std::string::npos) << n->message;
  EXPECT_EQ(n->category, "env-version-mismatch");
  EXPECT_FALSE(n->evidence.empty());
  EXPECT_EQ(result(r, 3, "gpu-a01")->status, Status::Pass);
}

TEST(Check, FourNodesOneWithOtherTorchFailsThatOne) {
  auto job = healthy_job(4, "ascend");
  job[2].torch = "2.4.0";  // torch and torch_npu on npu-b03
  const auto r = run(job);
  expect_only(r, 3, {"npu-b03"});
  EXPECT_NE(result(r, 3, "npu-b03")->message.find("torch 2.4.0"), std::string::npos);
}

TEST(Check, SevenDevicesInsteadOfEightFailsDevices) {
  for (const std::string platform : {"nvidia", "ascend"}) {
    auto job = healthy_job(4, platform);
    job[2].devices = 7;
    const auto r = run(job, "torchrun --nnodes=4 --nproc-per-node=8 --rdzv-endpoint=10.0.0.1:29500 train.py");
    // Its topology matrix is one device short too: every failure is that node's.
    EXPECT_EQ(result(r, 1, job[2].host)->status, Status::Fail);
    for (const auto& c : r.checks) {
      for (const auto& n : c.results) {
        if (n.status == Status::Fail) {
          EXPECT_EQ(n.node, job[2].host) << c.name << ": " << n.message;
        }
      }
    }
    const auto* n = result(r, 1, job[2].host);
    EXPECT_NE(n->message.find("7 devices; the other nodes have 8"), std::string::npos) << n->message;
    EXPECT_NE(n->message.find("nproc_per_node=8 but only 7"), std::string::npos) << n->message;
  }
}

TEST(Check, MemoryHeldByAnotherProcessFailsDevices) {
  for (const std::string platform : {"nvidia", "ascend"}) {
    auto job = healthy_job(2, platform);
    job[0].holders = {{3, 91733, "python", 30112}};
    const auto r = run(job);
    expect_only(r, 1, {job[0].host});
    EXPECT_NE(result(r, 1, job[0].host)->message.find("pid 91733"), std::string::npos) << dump(r);
    EXPECT_NE(result(r, 1, job[0].host)->message.find("device 3"), std::string::npos) << dump(r);
  }
}

TEST(Check, MixedGpuModelsFailDevices) {
  auto job = healthy_job(2);
  job[1].models = {"NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB"};
  job[1].memory_of = {{2, 40960}, {3, 40960}};
  const auto r = run(job);
  expect_only(r, 1, {"gpu-a02"});
  EXPECT_NE(result(r, 1, "gpu-a02")->message.find("mixed models: 2 x NVIDIA A100-SXM4-40GB, 6 x NVIDIA A100-SXM4-80GB"),
            std::string::npos)
      << dump(r);
}

TEST(Check, SmallerMemoryOfTheSameModelFails) {
  auto job = healthy_job(2);
  job[1].model = job[0].model;
  job[1].memory_of = {{6, 40960}};
  const auto r = run(job);
  expect_only(r, 1, {"gpu-a02"});
  EXPECT_NE(result(r, 1, "gpu-a02")->message.find("device 6 has 40960 MiB"), std::string::npos) << dump(r);
}

// Each snapshot evidence line is the file's own line at its number, and the row that says it: the
// process holding memory, MASTER_PORT=..., the port's holder (not a section's header).
TEST(Check, EvidenceIsTheSnapshotsOwnRow) {
  auto check_rows = [](const check::Report& r, const std::vector<NodeSpec>& job, int id, const std::string& host,
                       const std::string& want) {
    const check::NodeResult* n = result(r, id, host);
    ASSERT_NE(n, nullptr) << dump(r);
    bool found = false;
    for (const auto& e : n->evidence) {
      for (const NodeSpec& s : job) {
        if (e.path != s.host + ".snapshot") continue;
        const auto lines = lines_of(make_snapshot(s));
        ASSERT_LE(e.line, lines.size()) << e.text;
        EXPECT_EQ(lines[e.line - 1], e.text) << "line " << e.line;
      }
      found = found || e.text.find(want) != std::string::npos;
    }
    EXPECT_TRUE(found) << want << "\n" << dump(r);
  };
  for (const std::string platform : {"nvidia", "ascend"}) {
    auto job = healthy_job(2, platform);
    job[0].holders = {{3, 91733, "python", 30112}};
    check_rows(run(job), job, 1, job[0].host, "91733");
  }
  auto job = healthy_job(4);
  job[3].env["MASTER_PORT"] = "29501";
  job[0].port_state = "bound";
  job[0].port_pid = 4242;
  const auto r = run(job);
  check_rows(r, job, 4, job[3].host, "MASTER_PORT=29501");
  check_rows(r, job, 4, job[0].host, "4242");
}

TEST(Check, BusyPortOnTheMasterFailsLaunch) {
  auto job = healthy_job(2);
  job[0].port_state = "bound";
  job[0].port_pid = 4242;
  job[0].port_process = "/usr/bin/python3 -m torch.distributed.run --nproc_per_node 8 train.py";
  job[0].leftovers = {"pid=4242 /usr/bin/python3 -m torch.distributed.run --nproc_per_node 8 train.py"};
  const auto r = run(job);
  expect_only(r, 4, {"gpu-a01"});
  const auto* n = result(r, 4, "gpu-a01");
  EXPECT_NE(n->message.find("port 29500 is already bound by pid 4242"), std::string::npos) << n->message;
  EXPECT_EQ(n->category, "port-in-use");
  EXPECT_NE(n->message.find("still running"), std::string::npos) << n->message;
}

TEST(Check, BusyPortOnAnotherNodeOnlyWarns) {
  auto job = healthy_job(2);
  job[1].port_state = "bound";
  job[1].port_pid = 777;
  const auto r = run(job);
  EXPECT_EQ(result(r, 4, "gpu-a02")->status, Status::Warn) << dump(r);
  EXPECT_NE(r.status, Status::Fail);
}

TEST(Check, WorldSizeThatDoesNotAddUpFailsLaunch) {
  auto job = healthy_job(2);
  job[1].env["WORLD_SIZE"] = "12";
  const auto r = run(job);
  expect_only(r, 4, {"gpu-a02"});
  EXPECT_NE(result(r, 4, "gpu-a02")->message.find("WORLD_SIZE=12 but nnodes 2 x nproc_per_node 8 = 16"), std::string::npos)
      << dump(r);
  EXPECT_EQ(result(r, 4, "gpu-a02")->category, "world-size-mismatch");
}

TEST(Check, LaunchCommandWinsOverTheEnvironment) {
  const auto r = run(healthy_job(2), "torchrun --nnodes 3 --nproc_per_node 8 --master_addr 10.0.0.1 train.py --nnodes 9");
  // 3 x 8 = 24, the nodes say WORLD_SIZE=16; and only 2 of 3 nodes sent snapshots.
  EXPECT_EQ(result(r, 4, "gpu-a01")->status, Status::Fail) << dump(r);
  EXPECT_NE(result(r, 4, "gpu-a01")->message.find("= 24"), std::string::npos) << dump(r);
  EXPECT_EQ(result(r, 4, "")->status, Status::Warn);
}

TEST(Check, TwoNodesWithOneNodeRankFail) {
  auto job = healthy_job(2);
  job[1].env["NODE_RANK"] = "0";
  const auto r = run(job);
  expect_only(r, 4, {""});
  EXPECT_NE(result(r, 4, "")->message.find("NODE_RANK=0 on gpu-a01, gpu-a02"), std::string::npos) << dump(r);
}

TEST(Check, OtherMasterPortFails) {
  auto job = healthy_job(4);
  job[3].env["MASTER_PORT"] = "29501";
  const auto r = run(job);
  expect_only(r, 4, {"gpu-a04"});
}

TEST(Check, OtherTopologyOrUnreachableMasterFailsTopology) {
  auto job = healthy_job(4);
  job[1].link_of = {{5, "SYS"}};
  job[3].reach = "timeout";
  const auto r = run(job);
  expect_only(r, 2, {"gpu-a02", "gpu-a04"});
  EXPECT_NE(result(r, 2, "gpu-a02")->message.find("GPU0: X NV12 NV12 NV12 NV12 SYS"), std::string::npos) << dump(r);
  EXPECT_NE(result(r, 2, "gpu-a04")->message.find("timeout"), std::string::npos);
}

TEST(Check, SmallSharedMemoryFailsTopology) {
  // A container's default /dev/shm (64 MiB) under 8 processes per node.
  auto job = healthy_job(2);
  std::string text = make_snapshot(job[1]);
  const std::string from = "tmpfs            263921168     0 263921168";
  text.replace(text.find(from), from.size(), "shm                  65536     0     65536");
  check::Input in;
  in.snapshots = {snap(job[0]), formats::parse_snapshot(lines_of(text), "gpu-a02.snapshot")};
  const auto r = check::run_checks(in);
  expect_only(r, 2, {"gpu-a02"});
  EXPECT_EQ(result(r, 2, "gpu-a02")->category, "shm-insufficient");
  EXPECT_NE(result(r, 2, "gpu-a02")->message.find("/dev/shm is 64 MiB for 8 processes"), std::string::npos) << dump(r);
}

TEST(Check, DriverTooOldForTorchsCudaFails) {
  auto job = healthy_job(2);
  for (auto& n : job) {
    n.driver = "470.182.03";
    n.cuda_driver = "11.4";
  }
  const auto r = run(job);
  expect_only(r, 3, {"gpu-a01", "gpu-a02"});
  EXPECT_NE(result(r, 3, "gpu-a01")->message.find("torch's CUDA 12.1 needs a newer driver"), std::string::npos) << dump(r);
}

TEST(Check, NprocBelowTheDevicesWarns) {
  auto job = healthy_job(1);
  job[0].devices = 16;
  const auto r = run(job, "torchrun --nproc_per_node 8 train.py");
  EXPECT_EQ(result(r, 1, "gpu-a01")->status, Status::Warn) << dump(r);
  job[0].env["CUDA_VISIBLE_DEVICES"] = "0,1,2,3,4,5,6,7";
  job[0].torch_devices = 8;
  EXPECT_EQ(result(run(job, "torchrun --nproc_per_node 8 train.py"), 1, "gpu-a01")->status, Status::Pass);
}

std::string smoke(const std::string& host, int rank, int local, const std::string& device, const std::string& extra = "") {
  return "[default" + std::to_string(local) + "]:DTRIAGE_SMOKE host=" + host + " rank=" + std::to_string(rank) +
         " local_rank=" + std::to_string(local) + " world_size=4 backend=nccl device=" + device +
         " reduced=10.0 expected=10.0 dataset=1000 per_rank=250 first_batch=" + std::to_string(rank) + "," +
         std::to_string(rank + 4) + " checkpoint=" + (rank == 0 ? "/ckpt/last.pt" : "-") + " status=ok" + extra;
}

TEST(Check, AllRanksOnDeviceZeroFailBinding) {
  const auto r = run(healthy_job(2), "", {smoke("gpu-a01", 0, 0, "cuda:0"), smoke("gpu-a01", 1, 1, "cuda:0"),
                                          smoke("gpu-a02", 2, 0, "cuda:0"), smoke("gpu-a02", 3, 1, "cuda:0")});
  expect_only(r, 5, {"gpu-a01", "gpu-a02"});
  EXPECT_NE(result(r, 5, "gpu-a01")->message.find("LOCAL_RANK is ignored"), std::string::npos) << dump(r);
  EXPECT_EQ(result(r, 5, "gpu-a01")->category, "device-binding-duplicate");
  const auto ok = run(healthy_job(2), "", {smoke("gpu-a01", 0, 0, "cuda:0"), smoke("gpu-a01", 1, 1, "cuda:1"),
                                           smoke("gpu-a02", 2, 0, "cuda:0"), smoke("gpu-a02", 3, 1, "cuda:1")});
  EXPECT_EQ(get(ok, 5).status, Status::Pass) << dump(ok);
  EXPECT_EQ(get(ok, 6).status, Status::Pass) << dump(ok);
}

TEST(Check, WrongSumOrMissingRankFailsBinding) {
  std::string bad = smoke("gpu-a02", 3, 1, "cuda:1");
  bad.replace(bad.find("reduced=10.0"), 12, "reduced=7.0");
  const auto r = run({}, "", {smoke("gpu-a01", 0, 0, "cuda:0"), smoke("gpu-a01", 1, 1, "cuda:1"), bad});
  EXPECT_EQ(result(r, 5, "gpu-a02")->status, Status::Fail) << dump(r);
  EXPECT_NE(result(r, 5, "gpu-a02")->message.find("rank 3 reduced 7, expected 10"), std::string::npos) << dump(r);
  EXPECT_NE(result(r, 5, "")->message.find("ranks 2 of 4 never reported"), std::string::npos) << dump(r);
}

model::Event log_line(const std::string& node, int rank, const std::string& text, std::uint64_t line) {
  model::Event e;
  e.path = node + "/train.log";
  e.line = line;
  e.node = node;
  e.rank = rank;
  e.text = text;
  e.kind = model::Kind::Line;
  return e;
}

TEST(Check, EveryRankSavingTheCheckpointFailsData) {
  // The way three frameworks say it, with torchrun's rank prefixes.
  const std::vector<std::string> says = {"Saving checkpoint to /mnt/ckpt/step_1000.pt",
                                         "[INFO] saving checkpoint at iteration 1000 to /mnt/ckpt/iter_0001000",
                                         "Saving model checkpoint to ./output/checkpoint-500"};
  for (const std::string& say : says) {
    std::vector<model::Event> ev;
    for (int r = 0; r < 4; ++r) ev.push_back(log_line(r < 2 ? "gpu-a01" : "gpu-a02", r, "[default" + std::to_string(r % 2) + "]:" + say, 10 + r));
    const auto r = run(healthy_job(2), "", {}, ev);
    expect_only(r, 6, {"gpu-a01"});
    EXPECT_NE(result(r, 6, "gpu-a01")->message.find("ranks 0, 1, 2, 3 all save"), std::string::npos) << say << "\n" << dump(r);
    // Rank 0 alone saving is right.
    const auto one = run(healthy_job(2), "", {}, {ev.front()});
    EXPECT_EQ(get(one, 6).status, Status::Pass) << dump(one);
  }
  const auto s = run({}, "", {smoke("a", 0, 0, "cuda:0", " checkpoint=/ckpt/x.pt"), smoke("a", 1, 1, "cuda:1", " checkpoint=/ckpt/x.pt")});
  EXPECT_EQ(get(s, 6).status, Status::Fail) << dump(s);
}

TEST(Check, RanksReadingTheSameSamplesFailData) {
  std::vector<model::Event> ev;
  for (int r = 0; r < 4; ++r) {
    ev.push_back(log_line("gpu-a01", r, "[rank" + std::to_string(r) + "]: len(dataset)=50000 len(dataloader)=50000", 5));
    ev.push_back(log_line("gpu-a01", r, "[rank" + std::to_string(r) + "]: first batch: tensor([17, 4, 33, 9])", 6));
  }
  const auto r = run(healthy_job(1), "", {}, ev);
  EXPECT_EQ(get(r, 6).status, Status::Fail) << dump(r);
  bool batch = false, whole = false;
  for (const auto& n : get(r, 6).results) {
    batch = batch || n.message.find("log the same first batch") != std::string::npos;
    whole = whole || n.message.find("iterates 50000 samples, the whole dataset") != std::string::npos;
  }
  EXPECT_TRUE(batch && whole) << dump(r);
  std::string no_sampler = smoke("a", 1, 1, "cuda:1");
  no_sampler.replace(no_sampler.find("per_rank=250"), 12, "per_rank=1000");
  const auto s = run({}, "", {smoke("a", 0, 0, "cuda:0"), no_sampler});
  EXPECT_EQ(result(s, 6, "a")->status, Status::Fail) << dump(s);
}

TEST(Check, SmokeRecordsRunTogetherOnOneLineAreAllRead) {
  // Two ranks writing to one stdout without a newline between them.
  const auto rs = check::parse_smoke_lines(smoke("n", 3, 1, "cpu:1") + smoke("n", 2, 0, "cpu:0").substr(11));
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].rank, 3);
  EXPECT_EQ(rs[0].status, "ok");
  EXPECT_EQ(rs[1].rank, 2);
  EXPECT_EQ(rs[1].device, "cpu:0");
}

TEST(Check, LaunchCommandsAreReadAsTorchrunReadsThem) {
  auto l = check::parse_launch("torchrun --nnodes=2:4 --nproc-per-node 8 --rdzv_endpoint node1:29400 train.py --nnodes 7");
  EXPECT_EQ(l.nnodes, 4);
  EXPECT_EQ(l.nproc_per_node, 8);
  EXPECT_EQ(l.master_addr, "node1");
  EXPECT_EQ(l.master_port, 29400);
  l = check::parse_launch("python -m torch.distributed.run --standalone --nproc_per_node=gpu train.py");
  EXPECT_EQ(l.nnodes, 1);
  EXPECT_FALSE(l.nproc_per_node);
  EXPECT_EQ(l.nproc_text, "gpu");
  l = check::parse_launch("python -m torch.distributed.launch --nproc_per_node 4 --node_rank 1 --master_addr '10.1.1.1' --master_port 6000 x.py");
  EXPECT_EQ(l.node_rank, 1);
  EXPECT_EQ(l.master_addr, "10.1.1.1");
  EXPECT_EQ(l.master_port, 6000);
}

TEST(Check, CommandLineWritesTextJsonMarkdownAndExitsThreeOnFailure) {
  TempDir dir;
  auto job = healthy_job(2);
  for (const auto& n : job) dir.write("snaps/" + n.host + ".snapshot", make_snapshot(n));
  auto ok = run_dtriage("check " + dir.file("snaps"));
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("result: PASS"), std::string::npos) << ok.out;
  job[1].devices = 7;
  dir.write("snaps/" + job[1].host + ".snapshot", make_snapshot(job[1]));
  auto bad = run_dtriage("check --format json " + dir.file("snaps"));
  EXPECT_EQ(bad.exit_code, 3) << bad.err;
  const auto j = nlohmann::json::parse(bad.out);
  EXPECT_EQ(j["status"], "fail");
  EXPECT_EQ(j["checks"][0]["status"], "fail");
  bool named = false;
  for (const auto& res : j["checks"][0]["results"])
    if (res["node"] == "gpu-a02" && res["status"] == "fail" && res["values"]["devices"] == "7") named = true;
  EXPECT_TRUE(named) << bad.out;
  auto md = run_dtriage("check --format markdown " + dir.file("snaps"));
  EXPECT_EQ(md.exit_code, 3);
  EXPECT_NE(md.out.find("| 1 | devices | **FAIL** | gpu-a02 |"), std::string::npos) << md.out;
  // Colour as analyze has it: asked for, or on a terminal; never in a file or with NO_COLOR.
  const auto coloured = run_dtriage("check --color always " + dir.file("snaps"));
  EXPECT_NE(coloured.out.find("\x1b[1;31mFAIL\x1b[0m"), std::string::npos) << coloured.out;
  EXPECT_EQ(run_dtriage("check " + dir.file("snaps")).out.find('\x1b'), std::string::npos);
  EXPECT_EQ(run_dtriage("check --color never " + dir.file("snaps")).out.find('\x1b'), std::string::npos);
  // Snapshots packed in an archive are read the same way.
  ASSERT_EQ(sh("cd " + dir.path() + " && tar czf snaps.tar.gz snaps"), 0);
  EXPECT_EQ(run_dtriage("check " + dir.file("snaps.tar.gz")).exit_code, 3);
  EXPECT_EQ(run_dtriage("check " + dir.file("missing")).exit_code, 2);
}

TEST(Check, AnalyzeUsesASnapshotInTheDumpForDeviceCounts) {
  // The seed incident without npu-smi output: the snapshots taken before launch say 16 devices.
  const std::string sample = std::string(DTRIAGE_SOURCE_DIR) + "/samples/seed-nproc-sdma";
  TempDir dir;
  ASSERT_EQ(sh("cp -r " + sample + " " + dir.file("job") + " && find " + dir.file("job") + " -name 'npu-smi*' -delete"), 0);
  const std::string without = json_report(*analyze_path(dir.file("job")));
  for (const char* host : {"npu-a01", "npu-a02"}) {
    NodeSpec s = healthy_job(1, "ascend")[0];
    s.host = host;
    s.devices = 16;
    dir.write(std::string("job/") + host + "/node.snapshot", make_snapshot(s));
  }
  const auto a = analyze_path(dir.file("job"));
  ASSERT_EQ(exit_code_of(*a), 0);
  const std::string with = json_report(*a);
  const auto j = nlohmann::json::parse(with);
  EXPECT_EQ(j["verdict"]["category"], "nproc-device-mismatch") << with.substr(0, 600);
  EXPECT_NE(j["verdict"]["summary"].get<std::string>().find("16-device"), std::string::npos) << j["verdict"]["summary"];
  bool devices = false;
  for (const auto& n : j["nodes"])
    if (n["devices"] == 16) devices = true;
  EXPECT_TRUE(devices) << with.substr(0, 1200);
  EXPECT_NE(without, with);
}

// What `dtriage check FILES` makes of snapshot files: each is one (its first line says so), read
// whole, named by its host (else its path); then the six checks. (The command line's own reading of
// folders, archives and training logs: Check.CommandLineWritesTextJsonMarkdownAndExitsThreeOnFailure
// and SmokeTest.RealGlooRunPassesAndAForcedDeviceFails.)
check::Report check_snapshot_files(const std::vector<std::string>& paths) {
  check::Input in;
  for (const std::string& p : paths) {
    const std::vector<std::string> lines = lines_of(read_file(p));
    EXPECT_TRUE(!lines.empty() && formats::is_snapshot_header(lines[0])) << p << " is no snapshot";
    formats::Snapshot s = formats::parse_snapshot(lines, p);
    if (s.host.empty()) s.host = p;
    in.snapshots.push_back(std::move(s));
  }
  return check::run_checks(in);
}

// Stand-in nvidia-smi / npu-smi that print the recorded outputs for the arguments they get.
void stand_in_tools(const TempDir& dir, const NodeSpec& s) {
  dir.write("rec/list", nvidia_smi_list(s));
  dir.write("rec/query", nvidia_smi_query(s));
  dir.write("rec/apps", nvidia_smi_apps(s));
  dir.write("rec/table", nvidia_smi_table(s));
  dir.write("rec/topo", nvidia_smi_topo(s));
  const std::string rec = dir.file("rec");
  dir.write("bin/nvidia-smi", "#!/bin/bash\ncase \"$*\" in\n  -L) cat " + rec + "/list ;;\n  --query-gpu=*) cat " + rec +
                                  "/query ;;\n  --query-compute-apps=*) cat " + rec + "/apps ;;\n  'topo -m') cat " + rec +
                                  "/topo ;;\n  '') cat " + rec + "/table ;;\n  *) echo \"bad args: $*\" >&2; exit 2 ;;\nesac\n");
  sh("chmod +x " + dir.file("bin/nvidia-smi"));
}

TEST(Collector, RunsHereAndWithStandInToolsRoundTripsThroughCheck) {
  const std::string script = std::string(DTRIAGE_SOURCE_DIR) + "/tools/dtriage-snapshot.sh";
  TempDir dir;
  // Here: no GPU, no NPU: each missing tool is recorded, nothing fails.
  ASSERT_EQ(sh("env -i PATH=/usr/bin:/bin HOME=/tmp MASTER_ADDR=127.0.0.1 MASTER_PORT=1 HF_TOKEN=hunter2 bash " + script +
               " --python /nonexistent/python --code " + dir.path() + " > " + dir.file("here.snapshot") + " 2>" + dir.file("err")),
            0)
      << read_file(dir.file("err"));
  const std::string here = read_file(dir.file("here.snapshot"));
  EXPECT_EQ(here.rfind("# dtriage snapshot 1\n", 0), 0u);
  EXPECT_NE(here.find("@@ nvidia.list missing $ nvidia-smi -L"), std::string::npos);
  EXPECT_NE(here.find("@@ npu.info missing $ npu-smi info"), std::string::npos);
  EXPECT_NE(here.find("MASTER_PORT=1"), std::string::npos);
  EXPECT_EQ(here.find("hunter2"), std::string::npos);
  auto r = check_snapshot_files({dir.file("here.snapshot")});
  EXPECT_NE(r.status, Status::Fail) << dump(r);  // `dtriage check` exits 0

  // With stand-in nvidia-smi printing a recorded 8-GPU node.
  NodeSpec s;
  s.holders = {{1, 3131, "python", 2048}};
  stand_in_tools(dir, s);
  ASSERT_EQ(sh("env -i PATH=" + dir.file("bin") + ":/usr/bin:/bin HOME=/tmp MASTER_ADDR=127.0.0.1 MASTER_PORT=1 NPROC_PER_NODE=8 " +
               "NCCL_IB_HCA=mlx5 WANDB_API_KEY=secret bash " + script + " --out " + dir.file("out") + " > " + dir.file("where")),
            0);
  std::string written = read_file(dir.file("where"));
  while (!written.empty() && (written.back() == '\n' || written.back() == ' ')) written.pop_back();
  ASSERT_TRUE(exists(written)) << written;
  const std::string text = read_file(written);
  EXPECT_NE(text.find("@@ nvidia.query ok"), std::string::npos) << text.substr(0, 2000);
  EXPECT_EQ(text.find("=secret"), std::string::npos);
  const formats::Snapshot p = formats::parse_snapshot(lines_of(text), written);
  EXPECT_EQ(p.devices.size(), 8u);
  EXPECT_EQ(p.topology.size(), 10u);
  EXPECT_EQ(p.versions.at("driver"), "535.104.05");
  EXPECT_EQ(p.versions.at("cuda_driver"), "12.2");
  ASSERT_EQ(p.holders.size(), 1u);
  EXPECT_EQ(p.env.at("NCCL_IB_HCA"), "mlx5");
  // And an Ascend node: stand-in npu-smi, CANN's version files where ASCEND_HOME_PATH points.
  NodeSpec a = healthy_job(1, "ascend")[0];
  dir.write("asc/info", npu_smi_info(a));
  dir.write("asc/topo", npu_smi_topo(a));
  dir.write("asc/bin/npu-smi", "#!/bin/bash\ncase \"$*\" in\n  info) cat " + dir.file("asc/info") + " ;;\n  'info -t topo') cat " +
                                   dir.file("asc/topo") + " ;;\n  *) exit 2 ;;\nesac\n");
  dir.write("asc/toolkit/ascend_toolkit_install.info", "package_name=Ascend-cann-toolkit\nversion=8.0.RC3\n");
  dir.write("asc/driver/version.info", "Version=24.1.rc2\n");
  ASSERT_EQ(sh("chmod +x " + dir.file("asc/bin/npu-smi") + " && env -i PATH=" + dir.file("asc/bin") +
               ":/usr/bin:/bin HOME=/tmp ASCEND_HOME_PATH=" + dir.file("asc/toolkit") + " DTRIAGE_ASCEND_DRIVER=" +
               dir.file("asc/driver") + " bash " + script + " > " + dir.file("asc.snapshot")),
            0);
  const formats::Snapshot q = formats::parse_snapshot(lines_of(read_file(dir.file("asc.snapshot"))), "asc.snapshot");
  EXPECT_EQ(q.platform, "ascend");
  EXPECT_EQ(q.devices.size(), 8u);
  EXPECT_EQ(q.topology.size(), 8u);
  EXPECT_EQ(q.versions.count("cann") ? q.versions.at("cann") : "", "8.0.RC3");
  EXPECT_EQ(q.versions.count("npu_driver") ? q.versions.at("npu_driver") : "", "24.1.rc2");

  std::vector<std::string> out_files;
  for (const auto& f : std::filesystem::recursive_directory_iterator(dir.file("out")))
    if (f.is_regular_file()) out_files.push_back(f.path().string());
  r = check_snapshot_files(out_files);
  EXPECT_EQ(r.status, Status::Fail) << dump(r);  // `dtriage check` exits 3: pid 3131 holds memory on device 1
  const auto j = nlohmann::json::parse(check::render_json(r));
  EXPECT_EQ(j["checks"][0]["results"][0]["values"]["devices"], "8");
  EXPECT_NE(j["checks"][0]["results"][0]["message"].get<std::string>().find("pid 3131"), std::string::npos);
}

// The smoke test for real: gloo, 2 nodes x 2 processes on this machine (two torchruns), then with
// one rank forced onto another's device.
TEST(SmokeTest, RealGlooRunPassesAndAForcedDeviceFails) {
  if (sh("/usr/bin/python3 -c 'import torch.distributed' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3-torch";
  const std::string src = DTRIAGE_SOURCE_DIR;
  TempDir dir;
  auto launch = [&](const std::string& out, int port, const std::string& extra) {
    std::string cmd = "cd " + dir.path() + " && mkdir -p " + out + " && (";
    for (int nr = 0; nr < 2; ++nr)
      cmd += "DTRIAGE_SMOKE_HOST=node-" + std::string(nr == 0 ? "a" : "b") + " OMP_NUM_THREADS=1 timeout 180 /usr/bin/python3 " + src +
             "/tools/lab/torchrun.py --nnodes 2 --node_rank " + std::to_string(nr) +
             " --nproc_per_node 2 --master_addr 127.0.0.1 --master_port " + std::to_string(port) + " " + src +
             "/tools/ddp_smoke_test.py " + extra + " > " + out + "/node-" + std::string(nr == 0 ? "a" : "b") + ".log 2>&1 & ";
    cmd += "wait)";
    return sh(cmd);
  };
  const int base = 29600 + static_cast<int>(::getpid() % 200) * 2;
  ASSERT_EQ(launch("good", base, ""), 0);
  auto r = run_dtriage("check --format json " + dir.file("good"));
  EXPECT_EQ(r.exit_code, 0) << r.out << read_file(dir.file("good/node-a.log"));
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["checks"][4]["status"], "pass") << r.out;
  EXPECT_EQ(j["checks"][5]["status"], "pass") << r.out;
  launch("forced", base + 1, "--force-device 1:0");
  r = run_dtriage("check --format json " + dir.file("forced"));
  EXPECT_EQ(r.exit_code, 3) << r.out;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["checks"][4]["status"], "fail");
  bool named = false;
  for (const auto& res : j["checks"][4]["results"])
    if (res["node"] == "node-a" && res["status"] == "fail" && res["message"].get<std::string>().find("ranks 0, 1 all on cpu:0") != std::string::npos)
      named = true;
  EXPECT_TRUE(named) << r.out;
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

TEST(Check, CraftedHugeNumbersAreNoSizesAndNoProducts) {
  // A /dev/shm size in kB whose bytes overflow, and nnodes x nproc over 2^63 (4 x 3074457345618258603): no negative MiB, no
  // world size wrapped into a false mismatch (UBSan saw both).
  auto job = healthy_job(2);
  for (auto& n : job) n.env["WORLD_SIZE"] = "16";
  job[0].env["NPROC_PER_NODE"] = "3074457345618258603";
  std::vector<formats::Snapshot> snaps;
  for (const auto& n : job) {
    std::string text = make_snapshot(n);
    const std::string from = "tmpfs            263921168";
    text.replace(text.find(from), from.size(), "tmpfs            9223372036854775807");
    snaps.push_back(formats::parse_snapshot(lines_of(text), n.host + ".snapshot"));
  }
  EXPECT_FALSE(snaps[0].shm_bytes.has_value());
  check::Input in;
  in.launch = check::parse_launch("torchrun --nnodes 4 --nproc_per_node 3074457345618258603 train.py");
  in.snapshots = std::move(snaps);
  const check::Report r = check::run_checks(in);
  const std::string text = check::render_text(r);
  EXPECT_EQ(text.find("is -"), std::string::npos) << text;
  EXPECT_EQ(text.find("= -"), std::string::npos) << text;
}

}  // namespace
}  // namespace dtriage::test
