// One test per log family: old and new variants of each format, written for these tests in the
// shapes documented in ../shared/corpus/*/FORMAT.md.
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "formats/families.hpp"
#include "formats/pipeline.hpp"
#include "formats/progress.hpp"
#include "formats/util.hpp"
#include "lines/line_reader.hpp"

namespace dtriage::formats {
namespace {

std::vector<model::Event> parse(const std::string& text, const std::string& path = "logs/x.log",
                                const std::string& node = "") {
  ingest::Source src{path, node};
  std::vector<model::Event> out;
  ingest::MemoryReader mem(text);
  parse_stream(mem, src, {}, lines::LineReader::kDefaultMaxLine, [&](model::Event&& e) { out.push_back(std::move(e)); });
  return out;
}

model::Event one(const std::string& text, const std::string& path = "logs/x.log") {
  auto ev = parse(text, path);
  EXPECT_EQ(ev.size(), 1u) << text;
  return ev.empty() ? model::Event{} : ev.front();
}

TEST(Plog, HostLineWithDeviceAndReportedCode) {
  auto e = one("[ERROR] RUNTIME(51302,python3):2025-06-04-10:14:21.402.250 [error_message_manage.cc:53]51302 "
               "FuncErrorReason:report error module_type=3, module_name=EE8888\n");
  EXPECT_EQ(e.kind, model::Kind::Plog);
  EXPECT_EQ(e.level, model::Level::Error);
  EXPECT_EQ(e.pid, 51302);
  EXPECT_EQ(e.time.text, "2025-06-04T10:14:21.402250");
  EXPECT_EQ(e.code, "EE8888");
  EXPECT_EQ(e.get_str("module"), "RUNTIME");
  EXPECT_EQ(e.get_str("src"), "error_message_manage.cc:53");
}

TEST(Plog, EmptyProcessNameMindSporeFrameAndDeviceIds) {
  auto a = one("[ERROR] RUNTIME(971,):2026-06-17-12:12:04.882.278 [api_c.cc:1081]971 rtMemcpy:ErrCode=107030, desc=[x]\n");
  EXPECT_EQ(a.pid, 971);
  auto b = one("[ERROR] DEVICE(170414,fffe397fa1e0,python):2021-09-13-15:29:07.466.049 [mindspore/ccsrc/x.cc:63] "
               "Initialize] Malloc device memory failed, Device 6 may be other processes occupying this card\n");
  EXPECT_EQ(b.pid, 170414);
  EXPECT_EQ(b.device, 6);
  EXPECT_EQ(b.get_str("process"), "python");
  auto c = one("[INFO] HCCL(59420,python):2025-01-24-11:10:27.614.147 [topoinfo_detect.cc:221][3475][HCCL_TRACE]SetupAgent "
               "rankNum[3], rank[0], rootInfo identifier[hccl_world_group], server[10.20.8.250%bond1], logicDevId[2], "
               "phydevId[0], deviceIp[124.0.0.21]\n");
  EXPECT_EQ(c.rank, 0);
  EXPECT_EQ(c.device, 2);
  EXPECT_EQ(c.get_int("nranks"), 3);
  EXPECT_EQ(c.get_str("server"), "10.20.8.250");
}

// The header's time is checked eight bytes at a time: every digit position and every separator.
TEST(Plog, HeaderTimeMustHaveItsExactShape) {
  const std::string good = "[INFO] RUNTIME(51302,python3):2025-06-04-10:14:21.402.201 [stream.cc:1] msg";
  formats::PlogHeader h;
  ASSERT_TRUE(formats::split_plog(good, h));
  EXPECT_EQ(h.date, "2025-06-04");
  EXPECT_EQ(h.time, "10:14:21");
  EXPECT_EQ(h.ms, "402");
  EXPECT_EQ(h.us, "201");
  const std::size_t at = good.find("2025");
  for (std::size_t j = 0; j < 27; ++j) {
    for (const char c : {'x', '/', ':', '-', '.', ' ', '9', '0', '\x00', '\xff', 'J', '@'}) {
      std::string bad = good;
      if (bad[at + j] == c) continue;
      const bool digit_place = good[at + j] >= '0' && good[at + j] <= '9';
      bad[at + j] = c;
      const bool still_good = digit_place && c >= '0' && c <= '9';
      EXPECT_EQ(formats::split_plog(bad, h), still_good) << bad;
    }
  }
}

TEST(Plog, PathGivesPidDeviceAndYear) {
  auto e = one("[EVENT] CCECPU(4910,aicpu_scheduler):2023-01-16-07:00:09.871.074 [x.cc:78][F][tid:4910] soName is null.\n",
               "node2/ascend/log/debug/device-3/device-111322_20230116070010213.log");
  EXPECT_EQ(e.device, 3);
  EXPECT_EQ(e.pid, 4910);  // the line's own pid wins over the file name
}

TEST(Cann, ErrorCodeBlockKeepsItsBodyAndItsVariants) {
  auto ev = parse(
      "EL0004: [PID: 6903] 2025-10-09-01:31:15.131.349 Failed to allocate memory.\n"
      "        Possible Cause: Available memory is insufficient.\n"
      "        TraceBack (most recent call last):\n"
      "        Memory async copy failed, device_id=0, stream_id=2, task_id=2114[FUNC:GetError][FILE:stream.cc][LINE:1183]\n"
      "EI9999: Inner Error!\n"
      "[PID: 749] 2025-12-29-03:16:15.787.356 Get_Socket_Timeout(EI0006): Getting socket times out.\n"
      "EZ9999[PID: 3058434] 2026-08-03-20:55:35.272.841 (EZ9999):  The error from device(chipId:0, dieId:1)\n"
      "[PID: 91207] 2026-02-14-17:45:51.006.118 Execution Error ROCE CQE(EI0013): An error CQE occurred during operator "
      "execution. Local information: server 10.3.0.21, device ID 6, device IP 29.3.0.27.\n");
  ASSERT_EQ(ev.size(), 5u);
  EXPECT_EQ(ev[0].code, "EL0004");
  EXPECT_EQ(ev[0].pid, 6903);
  EXPECT_EQ(ev[0].body.size(), 3u);
  EXPECT_EQ(ev[0].end_line, 4u);
  EXPECT_EQ(ev[0].device, 0);
  EXPECT_EQ(ev[1].code, "EI9999");
  EXPECT_EQ(ev[2].code, "EI0006");
  EXPECT_EQ(ev[2].pid, 749);
  EXPECT_EQ(ev[2].time.text, "2025-12-29T03:16:15.787356");
  EXPECT_EQ(ev[3].code, "EZ9999");
  EXPECT_EQ(ev[3].pid, 3058434);
  EXPECT_EQ(ev[4].code, "EI0013");  // the error's title, words and spaces, before its code
  EXPECT_EQ(ev[4].pid, 91207);
  EXPECT_EQ(ev[4].time.text, "2026-02-14T17:45:51.006118");
}

TEST(TorchNpu, ErrorLineUnderARankPrefix) {
  auto e = one("[rank7]: [ERROR] 2025-03-08-16:21:40 (PID:524, Device:7, RankID:7) ERR00100 PTA call acl api failed\n");
  EXPECT_EQ(e.kind, model::Kind::TorchNpu);
  EXPECT_EQ(e.code, "ERR00100");
  EXPECT_EQ(e.pid, 524);
  EXPECT_EQ(e.device, 7);
  EXPECT_EQ(e.rank, 7);
  auto unset = one("[ERROR] 2025-07-17-08:06:53 (PID:112081, Device:-1, RankID:-1) ERR00100 PTA call acl api failed\n");
  EXPECT_FALSE(unset.device.has_value());
  EXPECT_FALSE(unset.rank.has_value());
}

TEST(Nccl, PrefixVariantsAcrossVersions) {
  // 2.2: no NCCL token
  auto old = one("gpu-bql-144-103:18553:18611 [0] include/socket.h:360 WARN Call to connect failed : Connection timed out\n");
  EXPECT_EQ(old.kind, model::Kind::Nccl);
  EXPECT_EQ(old.node, "gpu-bql-144-103");
  EXPECT_EQ(old.pid, 18553);
  EXPECT_EQ(old.level, model::Level::Warning);
  // 2.4-2.2x
  auto mid = one("42692884fcba:140:39062 [0] NCCL INFO comm 0x7f558bec9670 rank 0 nranks 1 cudaDev 0 nvmlDev 0 - Init COMPLETE\n");
  EXPECT_EQ(mid.code, "nccl-comm-init");
  EXPECT_EQ(mid.get_int("nranks"), 1);
  // recent: timestamp in front of WARN, inside a Ray prefix
  auto recent = one("(MegatronPolicyWorker pid=1391870) [2026-07-10 06:19:36] pool0-00008:1391870:1393239 [7] init.cc:904 "
                    "NCCL WARN Duplicate GPU detected : rank 15 and rank 7 both on CUDA device e4000\n");
  EXPECT_EQ(recent.time.text, "2026-07-10T06:19:36");
  EXPECT_EQ(recent.node, "pool0-00008");
  EXPECT_EQ(recent.device, 7);
  EXPECT_EQ(recent.code, "duplicate-gpu");
  EXPECT_EQ(recent.get_str("bus_id"), "e4000");
  // user-stripped prefixes
  auto stripped = one("[1] misc/shmutils.cc:114 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-Nz (size 9637888)\n");
  EXPECT_EQ(stripped.device, 1);
  auto bare = one("include/shm.h:28 NCCL WARN Call to posix_fallocate failed: No space left on device\n");
  EXPECT_EQ(bare.kind, model::Kind::Nccl);
  // pdsh prefix and the comm line with busId / commId
  auto pdsh = one("rdma-test-gpu-worker-1: rdma-test-gpu-worker-1:4275:4275 [3] NCCL INFO comm 0x1 rank 11 nranks 16 "
                  "cudaDev 3 nvmlDev 3 busId 9b000 commId 0x5ae77eb5ea4ec1ee - Init COMPLETE\n");
  EXPECT_EQ(pdsh.node, "rdma-test-gpu-worker-1");
  EXPECT_EQ(pdsh.get_int("comm_rank"), 11);
  EXPECT_EQ(pdsh.get_str("bus_id"), "9b000");
  auto version = one("NCCL version 2.18.3+cuda12.2\n");
  EXPECT_EQ(version.get_str("nccl_version"), "2.18.3+cuda12.2");
}

TEST(Torch, WatchdogTimeoutOldAndNewHeaders) {
  auto old = one("[rank5]:[E ProcessGroupNCCL.cpp:563] [Rank 5] Watchdog caught collective operation timeout: "
                 "WorkNCCL(SeqNum=15734, OpType=ALLREDUCE, NumelIn=220084533, NumelOut=220084533, Timeout(ms)=600000) "
                 "ran for 600037 milliseconds before timing out.\n");
  EXPECT_EQ(old.kind, model::Kind::Torch);
  EXPECT_EQ(old.code, "watchdog-timeout");
  EXPECT_EQ(old.rank, 5);
  EXPECT_EQ(old.get_int("seq"), 15734);
  EXPECT_EQ(old.get_str("op_type"), "ALLREDUCE");
  EXPECT_EQ(old.get_int("timeout_ms"), 600000);
  auto ev = parse("[rank0]:[E321 02:07:08.465150152 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 0] Exception (either an error or "
                  "timeout) detected by watchdog at work: 1580, last enqueued NCCL work: 1582, last completed NCCL work: 1579.\n",
                  "job_2025-03-20/console.log");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].get_int("last_completed"), 1579);
  EXPECT_EQ(ev[0].time.text, "2025-03-21T02:07:08.465150152");  // year from the path, marked as inferred
  EXPECT_TRUE(ev[0].time.year_inferred);
}

TEST(Torch, SocketErrorsAndStoreTimeouts) {
  auto bind = one("[W socket.cpp:401] [c10d] The server socket has failed to listen on [::]:47531 (errno: 98 - Address already in use).\n");
  EXPECT_EQ(bind.code, "EADDRINUSE");
  EXPECT_EQ(bind.get_int("errno"), 98);
  auto store = one("[E socket.cpp:793] [c10d] The client socket has timed out after 60s while trying to connect to (IP1, 2222).\n");
  EXPECT_EQ(store.code, "store-connect-timeout");
  EXPECT_EQ(store.get_str("master_addr"), "IP1");
  EXPECT_EQ(store.get_int("port"), 2222);
}

TEST(Torchrun, LauncherLinesInEveryHeaderStyle) {
  auto a = one("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 2 (pid: 5939) of binary: /bin/python\n");
  EXPECT_EQ(a.kind, model::Kind::Torchrun);
  EXPECT_EQ(a.code, "worker-failed");
  EXPECT_EQ(a.get_int("exitcode"), 1);
  EXPECT_EQ(a.local_rank, 2);
  EXPECT_EQ(a.pid, 5939);
  auto b = one("W0626 10:12:11.821799 22703772874560 torch/distributed/elastic/multiprocessing/api.py:851] Sending process 2031187 closing signal SIGTERM\n");
  EXPECT_EQ(b.code, "closing-signal");
  EXPECT_EQ(b.get_int("target_pid"), 2031187);
  auto c = one("W1130 12:13:49.388000 124326 torch/distributed/elastic/agent/server/api.py:723] Received 15 death signal, shutting down workers\n");
  EXPECT_EQ(c.get_str("signal"), "SIGTERM");
  auto d = one("+ torchrun --nproc_per_node=8 --nnodes=2 --node_rank 1 --master_addr 10.0.0.1 --master_port 29500 train.py\n");
  EXPECT_EQ(d.get_int("nproc_per_node"), 8);
  EXPECT_EQ(d.get_int("nnodes"), 2);
  EXPECT_EQ(d.get_str("master_addr"), "10.0.0.1");
}

TEST(Torchrun, LaunchConfigDumpIsOneEvent) {
  auto e = one("INFO:torch.distributed.launcher.api:Starting elastic_operator with launch configs:\n"
               "  entrypoint       : launch_mnist.py\n"
               "  min_nodes        : 2\n"
               "  max_nodes        : 2\n"
               "  nproc_per_node   : 4\n"
               "  rdzv_endpoint    : IP1:2222\n"
               "\n");
  EXPECT_EQ(e.code, "launch-config");
  EXPECT_EQ(e.get_int("nproc_per_node"), 4);
  EXPECT_EQ(e.get_int("max_nodes"), 2);
  EXPECT_EQ(e.get_str("rdzv_endpoint"), "IP1:2222");
  EXPECT_EQ(e.end_line, 6u);
}

// PyTorch 2.3+ logs the dump a record per line, each behind its glog header.
TEST(Torchrun, LaunchConfigDumpBehindGlogHeaders) {
  auto e = one("I1103 07:41:19.120000 2291 torch/distributed/launcher/api.py:188] Starting elastic_operator with launch configs:\n"
               "I1103 07:41:19.120000 2291 torch/distributed/launcher/api.py:188]   entrypoint       : pretrain.py\n"
               "I1103 07:41:19.120000 2291 torch/distributed/launcher/api.py:188]   nproc_per_node   : 6\n"
               "I1103 07:41:19.120000 2291 torch/distributed/launcher/api.py:188]   max_restarts     : 3\n"
               "\n");
  EXPECT_EQ(e.code, "launch-config");
  EXPECT_EQ(e.get_int("nproc_per_node"), 6);
  EXPECT_EQ(e.get_int("max_restarts"), 3);
  EXPECT_EQ(e.end_line, 4u);
}

// torchrun's agent at LOGLEVEL=INFO says which global rank each of its workers got, in either
// logging format; a line of another shape ends the record.
TEST(Torchrun, RendezvousResultNamesEachWorkersRank) {
  for (const std::string head : {"INFO:torch.distributed.elastic.agent.server.api:",
                                 "I0905 22:01:07.004000 140233 torch/distributed/elastic/agent/server/api.py:879] "}) {
    const std::string cont = head[0] == 'I' && head[1] == '0' ? head : "";
    auto e = one(head + "[trainer] Rendezvous complete for workers. Result:\n" +
                 cont + "  restart_count=1\n" + cont + "  master_addr=node-17.cluster\n" + cont + "  master_port=51234\n" +
                 cont + "  group_rank=3\n" + cont + "  group_world_size=4\n" + cont + "  local_ranks=[0, 1, 2]\n" +
                 cont + "  role_ranks=[9, 10, 11]\n" + cont + "  global_ranks=[9, 10, 11]\n" +
                 cont + "  global_world_sizes=[12, 12, 12]\n" + "[default0]:step 1\n");
    EXPECT_EQ(e.code, "rendezvous-result") << head;
    EXPECT_EQ(e.get_int("group_rank"), 3) << head;
    EXPECT_EQ(e.get_int("restart_count"), 1) << head;
    EXPECT_EQ(e.get_str("local_ranks"), "[0, 1, 2]") << head;
    EXPECT_EQ(e.get_str("global_ranks"), "[9, 10, 11]") << head;
    EXPECT_EQ(e.end_line, 10u) << head;
  }
}

TEST(Torchrun, FailureTableRowsWithCollectorPrefixAndSignal) {
  auto ev = parse(
      "Failures:\n"
      "[1]:\n"
      "  time      : 2023-09-04_10:10:23\n"
      "  host      : node7.cluster.example\n"
      "  rank      : 9 (local_rank: 1)\n"
      "  exitcode  : 1 (pid: 3669031)\n"
      "  error_file: <N/A>\n"
      "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
      "------------------------------------------------------------\n"
      "Root Cause (first observed failure):\n"
      "[0]:\n"
      "2024-11-20 14:38:16   time      : 2024-11-20_14:38:03\n"
      "2024-11-20 14:38:16   host      : node7\n"
      "2024-11-20 14:38:16   rank      : 8 (local_rank: 0)\n"
      "2024-11-20 14:38:16   exitcode  : -9 (pid: 14750)\n"
      "2024-11-20 14:38:16   error_file: <N/A>\n"
      "2024-11-20 14:38:16   traceback : Signal 9 (SIGKILL) received by PID 14750\n");
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].code, "failure-row");
  EXPECT_EQ(ev[0].node, "node7.cluster.example");  // as the log spells it (correlate joins a short alias)
  EXPECT_EQ(ev[0].rank, 9);
  EXPECT_EQ(ev[0].local_rank, 1);
  EXPECT_EQ(ev[0].pid, 3669031);
  EXPECT_EQ(ev[0].get("root_cause")->index(), 3u);
  EXPECT_FALSE(std::get<bool>(*ev[0].get("root_cause")));
  EXPECT_TRUE(std::get<bool>(*ev[1].get("root_cause")));
  EXPECT_EQ(ev[1].get_int("exitcode"), -9);
  EXPECT_EQ(ev[1].get_str("signal"), "SIGKILL");
  EXPECT_EQ(ev[1].time.text, "2024-11-20T14:38:03");
}

TEST(Python, TracebackIsOneEventPerRankEvenWhenInterleaved) {
  auto ev = parse(
      "[rank1]: Traceback (most recent call last):\n"
      "[rank0]: Traceback (most recent call last):\n"
      "[rank1]:   File \"train.py\", line 3, in <module>\n"
      "[rank0]:   File \"train.py\", line 3, in <module>\n"
      "[rank1]: RuntimeError: CUDA error: invalid device ordinal\n"
      "[rank0]: ValueError: bad shape\n");
  ASSERT_EQ(ev.size(), 2u);
  for (const auto& e : ev) {
    EXPECT_EQ(e.kind, model::Kind::Python);
    if (e.rank == 1) {
      EXPECT_EQ(e.code, "RuntimeError");
      EXPECT_EQ(e.get_str("cuda_error"), "invalid device ordinal");
    } else {
      EXPECT_EQ(e.rank, 0);
      EXPECT_EQ(e.code, "ValueError");
      EXPECT_EQ(e.message, "bad shape");
    }
  }
}

// A worker's own words that it fails, in the shapes loggers and runtimes print them: the level word
// after a logger's time, "error:" prints, the C++ runtime's abort, faulthandler's report.
TEST(Python, AWorkersOwnErrorWordsAreEvents) {
  struct Case {
    std::string line, code, message;
  };
  const std::vector<Case> cases = {
      {"2025-11-30 22:41:07,514 ERROR [trainer] shard 17 checksum mismatch", "error-message", "[trainer] shard 17 checksum mismatch"},
      {"[default3]:2025-11-30 22:41:07,514 - sft.data - ERROR - tokenizer returned 0 tokens", "error-message", "tokenizer returned 0 tokens"},
      {"2025-11-30 22:41:07.514 | ERROR    | train:step:211 - grad norm is inf", "error-message", "train:step:211 - grad norm is inf"},
      {"[2025-11-30 22:41:07] [CRITICAL] out of disk on /scratch", "error-message", "out of disk on /scratch"},
      {"[rank5]:error: loss is nan at iteration 88000, stopping", "error-message", "loss is nan at iteration 88000, stopping"},
      {"fatal: unable to read checkpoint manifest", "error-message", "unable to read checkpoint manifest"},
      {"terminate called after throwing an instance of 'std::runtime_error'", "cpp-terminate", ""},
      {"[default0]:terminate called without an active exception", "cpp-terminate", ""},
      {"Fatal Python error: Aborted", "fatal-python-error", "Aborted"},
  };
  for (const Case& c : cases) {
    const model::Event e = one(c.line + "\n");
    EXPECT_EQ(e.level, model::Level::Error) << c.line;
    EXPECT_EQ(e.code, c.code) << c.line;
    if (!c.message.empty()) {
      EXPECT_EQ(e.message, c.message) << c.line;
    }
  }
  EXPECT_EQ(one("terminate called after throwing an instance of 'c10::DistBackendError'\n").get_str("exception"), "c10::DistBackendError");
  // Words that only look alike: no error event.
  for (const std::string quiet : {"errors: 0 | skipped: 3", "ERRORS=0 WARNINGS=2", "error_file: <N/A>"})
    for (const model::Event& e : parse(quiet + "\n", "logs/x.log")) EXPECT_NE(e.code, "error-message") << quiet;
}

TEST(Python, ExceptionTailKeepsTheLastErrorDetail) {
  auto ev = parse(
      "torch.distributed.DistBackendError: NCCL error in: ../ProcessGroupNCCL.cpp:1691, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3\n"
      "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
      "Last error:\n"
      "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 2000\n");
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].get_str("nccl_error"), "invalid usage");
  EXPECT_EQ(ev[0].body.size(), 2u);
  EXPECT_EQ(ev[1].code, "duplicate-gpu");
}

// Two processes writing one stream at once: one's exception line is cut by the other's stack frame
// ("ValueError:   File ..., line N, in f") and its message comes on the next line. The message is
// that next line, so that what it reports (a timeout, a lost peer) is read.
TEST(Python, TornExceptionLineTakesItsMessageFromTheNextLine) {
  auto ev = parse(
      "Traceback (most recent call last):\n"
      "  File \"/srv/app/fit.py\", line 88, in <module>\n"
      "    torch.distributed.broadcast(t, 0)\n"
      "DistBackendError:   File \"/opt/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py\", line 79, in wrapper\n"
      "[../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:133] Timed out waiting 600000ms for send operation to complete\n"
      "    return func(*args, **kwargs)\n",
      "w7/fit.log");
  ASSERT_GE(ev.size(), 1u);
  EXPECT_EQ(ev[0].code, "DistBackendError");
  EXPECT_NE(ev[0].message.find("Timed out waiting 600000ms"), std::string::npos) << ev[0].message;
  // An exception whose message merely names a file is left as it is.
  auto plain = parse(
      "Traceback (most recent call last):\n"
      "  File \"run.py\", line 3, in <module>\n"
      "FileNotFoundError: [Errno 2] No such file or directory: 'cfg.yaml'\n"
      "step 4 done\n");
  ASSERT_GE(plain.size(), 1u);
  EXPECT_EQ(plain[0].message, "[Errno 2] No such file or directory: 'cfg.yaml'");
}

TEST(ContainerJson, InnerTextIsParsed) {
  auto e = one(R"({"log":"[rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=BROADCAST, Timeout(ms)=1800000) ran for 1800100 milliseconds before timing out.\n","stream":"stderr","time":"2024-05-01T10:00:00.123456789Z"})"
               "\n");
  EXPECT_EQ(e.code, "watchdog-timeout");
  EXPECT_EQ(e.rank, 3);
  EXPECT_EQ(e.get_str("op_type"), "BROADCAST");
}

// A table printed into a pod's log under collector timestamps: kubectl / docker --timestamps
// (RFC 3339, one space) and a " | " separated stamp both leave each row its own first bar.
TEST(Smi, NpuSmiTableUnderCollectorTimestamps) {
  for (const std::string stamp : {"2025-03-04T05:06:07.123456789Z ", "2024-11-02 08:09:10,123 | ", "2024-11-02T08:09:10+08:00 "}) {
    std::string text;
    for (const char* row : {"+------------------------------------------------------------------------------------------------+",
                            "| npu-smi 24.1.rc2                 Version: 24.1.rc2                                             |",
                            "+---------------------------+---------------+----------------------------------------------------+",
                            "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
                            "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |",
                            "+===========================+===============+====================================================+",
                            "| 3     310P3               | OK            | 71.2        41                0    / 0             |",
                            "| 0                         | 0000:82:00.0  | 0           1811 / 21527  0    / 0             |",
                            "+===========================+===============+====================================================+"})
      text += stamp + row + "\n";
    bool inventory = false, device = false;
    for (const auto& e : parse(text)) {
      if (e.code == "inventory") {
        inventory = true;
        EXPECT_EQ(e.get_int("device_count"), 1) << stamp;
      }
      if (e.code == "npu-device") {
        device = true;
        EXPECT_EQ(e.get_str("chip_name"), "310P3") << stamp;
        EXPECT_EQ(e.device, 3) << stamp;
      }
    }
    EXPECT_TRUE(inventory && device) << stamp;
  }
}

// kubectl --timestamps puts one space after its stamp: a traceback's frames stay indented, so the
// traceback stays one event with its frames and exception.
TEST(Python, TracebackUnderKubectlTimestampsStaysOneEvent) {
  const std::string ts = "2025-03-04T05:06:07.123456789Z ";
  auto ev = parse(ts + "Traceback (most recent call last):\n" + ts + "  File \"/app/train.py\", line 88, in <module>\n" + ts +
                  "    main()\n" + ts + "  File \"/app/train.py\", line 41, in main\n" + ts + "    loss = step(batch)\n" + ts +
                  "ValueError: loss is nan at step 310\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].code, "ValueError");
  EXPECT_EQ(ev[0].body.size(), 5u);
  EXPECT_EQ(ev[0].time.text.substr(0, 19), "2025-03-04T05:06:07");
}

TEST(Smi, NpuSmiTableWithProcesses) {
  auto ev = parse(
      "+------------------------------------------------------------------------------------------------+\n"
      "| npu-smi 23.0.0                   Version: 23.0.0                                               |\n"
      "+---------------------------+---------------+----------------------------------------------------+\n"
      "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|\n"
      "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |\n"
      "+===========================+===============+====================================================+\n"
      "| 0     910B3               | OK            | 97.5        37                0    / 0             |\n"
      "| 0                         | 0000:C1:00.0  | 0           0    / 0          3395 / 65536         |\n"
      "+===========================+===============+====================================================+\n"
      "| 1     910B3               | Warning       | 96.1        36                0    / 0             |\n"
      "| 0                         | 0000:C2:00.0  | 0           0    / 0          3395 / 65536         |\n"
      "+===========================+===============+====================================================+\n"
      "| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |\n"
      "+===========================+===============+====================================================+\n"
      "| 1       0                 | 2421318       | python3.9                | 3175                    |\n"
      "+===========================+===============+====================================================+\n");
  std::size_t devices = 0;
  bool summary = false, process = false;
  for (const auto& e : ev) {
    EXPECT_EQ(e.kind, model::Kind::NpuSmi);
    if (e.code == "inventory") {
      summary = true;
      EXPECT_EQ(e.get_int("device_count"), 2);
      EXPECT_EQ(e.get_str("unhealthy"), "1:Warning");
    }
    if (e.code == "npu-device") ++devices;
    if (e.code == "npu-process") {
      process = true;
      EXPECT_EQ(e.pid, 2421318);
      EXPECT_EQ(e.device, 1);
      EXPECT_EQ(e.line, 15u);
    }
  }
  EXPECT_TRUE(summary && process);
  EXPECT_EQ(devices, 2u);
}

TEST(Smi, NvidiaSmiListTableAndProcesses) {
  auto ev = parse(
      "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1b2c3d4e-aaaa-bbbb-cccc-000000000000)\n"
      "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
      "|   1  NVIDIA A100-SXM4-80GB          On  | 00000000:0F:00.0 Off |                    0 |\n"
      "|    1   N/A  N/A     12345      C   /usr/bin/python                           1234MiB |\n");
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].device, 0);
  EXPECT_EQ(ev[1].get_str("driver_version"), "535.104.05");
  EXPECT_EQ(ev[2].get_str("bus_id"), "00000000:0F:00.0");
  EXPECT_EQ(ev[3].pid, 12345);
  EXPECT_EQ(ev[3].device, 1);
}

// nvidia-smi's own failures: a GPU it cannot get a handle for (NVML's error after the bus id, in
// either spelling drivers print), and NVML that does not start.
TEST(Smi, NvidiaSmiFailuresAreErrors) {
  auto lost = one("node-c07: Unable to determine the device handle for gpu 0000:CA:00.0: GPU is lost.  Reboot the system to recover this GPU\n");
  EXPECT_EQ(lost.code, "gpu-unreachable");
  EXPECT_EQ(lost.level, model::Level::Error);
  EXPECT_EQ(lost.get_str("bus_id"), "0000:CA:00.0");
  EXPECT_EQ(lost.get_str("nvml_error"), "GPU is lost.  Reboot the system to recover this GPU");
  auto unknown = one("Unable to determine the device handle for GPU00000000:41:00.0: Unknown Error\n");
  EXPECT_EQ(unknown.get_str("bus_id"), "00000000:41:00.0");
  EXPECT_EQ(unknown.get_str("nvml_error"), "Unknown Error");
  auto nvml = one("Failed to initialize NVML: Driver/library version mismatch\n");
  EXPECT_EQ(nvml.code, "nvml-init-failed");
  EXPECT_EQ(nvml.get_str("nvml_error"), "Driver/library version mismatch");
}

TEST(Kernel, OomKillerAndXid) {
  auto a = one("[123456.789012] Out of memory: Killed process 53040 (python) total-vm:98765432kB, anon-rss:1234kB\n");
  EXPECT_EQ(a.code, "oom-kill");
  EXPECT_EQ(a.pid, 53040);
  auto b = one("Nov 30 03:00:00 gpu01 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n");
  EXPECT_EQ(b.code, "Xid-79");
  EXPECT_EQ(b.get_str("bus_id"), "0000:3b:00");
}

// A library's error wording inside a line of another shape is an error of its own; after an
// exception type it stays the exception's line.
TEST(Python, LibraryErrorsInLinesOfOtherShapes) {
  const char* lines[] = {
      "Got exception: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, unhandled cuda error, NCCL version 2.14.3\n",
      "worker 3 >> e= NCCL error in: /opt/pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:310, unhandled system error\n",
      "2026-03-01 10:11:12 | train | caught: HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:412\n",
      "step 1800 failed with NCCL Error 2: unhandled system error\n",
      "rank7 -> NCCL failure common.cu:892 'unhandled cuda error'\n",
  };
  for (const char* l : lines) {
    auto e = one(l);
    EXPECT_EQ(e.code, "library-error") << l;
    EXPECT_EQ(e.level, model::Level::Error) << l;
  }
  EXPECT_EQ(one("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled system error\n").code,
            "RuntimeError");
  for (const char* quiet : {"NCCL Error reporting is enabled\n", "see NCCL failure modes in the docs\n"})
    for (const model::Event& e : parse(quiet)) EXPECT_NE(e.code, "library-error") << quiet;
}

TEST(Prefixes, VllmRayAndViewerPrefixes) {
  auto e = one("(VllmWorker rank=3 pid=112081) ERROR 07-17 08:06:53 [multiproc_executor.py:487] [ERROR] 2025-07-17-08:06:53 "
               "(PID:112081, Device:-1, RankID:-1) ERR00100 PTA call acl api failed\n");
  EXPECT_EQ(e.rank, 3);
  EXPECT_EQ(e.pid, 112081);
  EXPECT_EQ(e.code, "ERR00100");
  auto v = one("[80746] [rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective "
               "operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600060 milliseconds\n");
  EXPECT_EQ(v.rank, 0);
  EXPECT_EQ(v.code, "watchdog-timeout");
}

// kubectl logs --prefix over every pod of a job: the pod prefix is peeled, the line parsed, and
// each pod's lines are a stream of their own.
TEST(Prefixes, KubectlPodPrefix) {
  auto e = one("[pod/llama-train-worker-1/pytorch] [rank11]:[E ProcessGroupNCCL.cpp:563] [Rank 11] Watchdog caught collective "
               "operation timeout: WorkNCCL(SeqNum=90, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600031 milliseconds\n");
  EXPECT_EQ(e.code, "watchdog-timeout");
  EXPECT_EQ(e.rank, 11);
  auto p = one("[pod/pt-job-master-0/trainer] [ERROR] RUNTIME(4711,python3):2025-06-04-10:14:21.402.250 "
               "[error_message_manage.cc:53]4711 FuncErrorReason:report error module_type=3, module_name=EE8888\n");
  EXPECT_EQ(p.kind, model::Kind::Plog);
  EXPECT_EQ(p.pid, 4711);
  EXPECT_EQ(p.code, "EE8888");
  // Two pods' tracebacks interleaved stay two tracebacks.
  auto ev = parse("[pod/w-0/c] Traceback (most recent call last):\n[pod/w-1/c] Traceback (most recent call last):\n"
                  "[pod/w-0/c]   File \"a.py\", line 1, in <module>\n[pod/w-1/c]   File \"b.py\", line 2, in <module>\n"
                  "[pod/w-0/c] ValueError: bad batch\n[pod/w-1/c] KeyError: 'x'\n");
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].code, "ValueError");
  EXPECT_EQ(ev[1].code, "KeyError");
}

// syslog / journalctl short format: the host names the node; the kernel's lines still parse.
TEST(Prefixes, SyslogAndJournalLines) {
  auto w = one("Mar  4 05:06:07 gpu-b07 python3[4711]: [rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective "
               "operation timeout: WorkNCCL(SeqNum=90, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600031 milliseconds\n");
  EXPECT_EQ(w.code, "watchdog-timeout");
  EXPECT_EQ(w.rank, 3);
  EXPECT_EQ(w.node, "gpu-b07");
  auto k = one("Dec 11 23:59:01 npu-node-12 kernel: [1234.5678] Out of memory: Killed process 90210 (python3) total-vm:1kB\n");
  EXPECT_EQ(k.code, "oom-kill");
  EXPECT_EQ(k.pid, 90210);
  EXPECT_EQ(k.node, "npu-node-12");
  auto t = parse("Jan 02 03:04:05 trn-7 torchrun[55]: Traceback (most recent call last):\n"
                 "Jan 02 03:04:05 trn-7 torchrun[55]:   File \"t.py\", line 1, in <module>\n"
                 "Jan 02 03:04:05 trn-7 torchrun[55]: RuntimeError: boom\n");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].code, "RuntimeError");
  EXPECT_EQ(t[0].node, "trn-7");
  for (const auto& e : parse("Mar  4 05:06:07 is when it failed: RuntimeError: boom\n"))  // not a syslog line
    EXPECT_EQ(e.node, "");
}

// Output captured from a terminal: colours and other escapes are not part of what is parsed.
TEST(Prefixes, TerminalEscapesAreReadWithout) {
  EXPECT_EQ(without_terminal_escapes("\x1b[1;31mERROR\x1b[0m x \x1b]0;title\a\x1b(Bok\x1b[K"), "ERROR x ok");
  EXPECT_EQ(without_terminal_escapes("\x1b]8;;http://h/\x1b\\link\x1b]8;;\x1b\\ \x1b"), "link ");
  auto e = one("\x1b[31m[ERROR] RUNTIME(51302,python3):2025-06-04-10:14:21.402.250 [error_message_manage.cc:53]51302 "
               "FuncErrorReason:report error module_type=3, module_name=EE8888\x1b[0m\n");
  EXPECT_EQ(e.kind, model::Kind::Plog);
  EXPECT_EQ(e.pid, 51302);
  EXPECT_EQ(e.code, "EE8888");
  auto t = parse("\x1b[0mTraceback (most recent call last):\n\x1b[0m  File \"x.py\", line 3, in <module>\n"
                 "\x1b[31mtorch.OutOfMemoryError\x1b[0m: CUDA out of memory. Tried to allocate 2.00 GiB\n");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NE(t[0].code.find("OutOfMemoryError"), std::string::npos);
}

TEST(Prefixes, PerRankFilesInheritLocalRankFromThePath) {
  auto e = one("RuntimeError: boom\n", "node3/logs/none_abc/attempt_0/5/stderr.log");
  EXPECT_EQ(e.local_rank, 5);
  // The same files gzipped (or otherwise compressed) on the way to the ticket.
  for (const char* suffix : {".gz", ".bz2", ".xz", ".zst"}) {
    auto z = one("RuntimeError: boom\n", std::string("node3/logs/none_abc/attempt_1/6/stdout.log") + suffix);
    EXPECT_EQ(z.local_rank, 6) << suffix;
  }
  EXPECT_FALSE(one("RuntimeError: boom\n", "node3/attempt_0/5/stderr.log.bak").local_rank);
}

}  // namespace
}  // namespace dtriage::formats

namespace dtriage::formats {
namespace {

TEST(Hccl, LinkTableRowsAndP2pTimeouts) {
  auto a = one("[ERROR] HCCL(59420,python3):2025-01-24-11:24:07.908.572 [comm_base.cc:1018][107626]   |  124.0.0.11(1)   |   124.0.0.21(0)   |  server  | no connect |   \n");
  EXPECT_EQ(a.code, "hccl-link-error");
  EXPECT_EQ(a.get_int("src_rank"), 0);
  EXPECT_EQ(a.get_int("dest_rank"), 1);
  auto b = one("[ERROR] HCCL(114725,python3):2025-06-19-09:09:19.687.646 [hccl_socket_manager.cc:553] [117514]   |  192.168.100.212(10)   |  16666  |   192.168.100.202(2)   |  2882681339  |  server  | time out |\n");
  EXPECT_EQ(b.get_int("src_rank"), 2);
  EXPECT_EQ(b.get_int("dest_rank"), 10);
  EXPECT_EQ(b.get_str("link_status"), "time out");
  auto c = one("[ERROR] HCCL(114654,python3):2025-06-19-09:28:35.062.066 [p2p_mgmt.cc:305] [115867][Wait][P2PConnected]connected p2p timeout, timeout:130 s. local logicDevid:2, remote physic id:1.\n");
  EXPECT_EQ(c.code, "p2p-timeout");
  EXPECT_EQ(c.get_int("p2p_remote_phy"), 1);
  EXPECT_EQ(c.get_int("timeout_s"), std::nullopt);
}

}  // namespace
}  // namespace dtriage::formats

namespace dtriage::formats {
namespace {

// The step a progress print states, in the shapes the common training loops print (written here
// with other numbers, spacing and prefixes than any sample).
TEST(Progress, StepsInTheShapesLoopsPrint) {
  struct Case {
    const char* line;
    std::int64_t step;
    std::optional<std::int64_t> total;
  };
  const Case cases[] = {
      {" iteration     7415/  250000 | consumed samples:      949120 | elapsed time per iteration (ms): 812.4 | lm loss: 3.117E+00 |", 7415, 250000},
      {"[Rank 12] step=4410, skipped=3, lr=[0.00029], mom=[(0.9, 0.95)]", 4410, std::nullopt},
      {"[titan] 2026-03-02 10:01:12,004 - root - INFO - step: 88  loss:  6.4021  memory: 31.20GiB(39.49%)", 88, std::nullopt},
      {"epoch: 3 step: 516, loss is 1.9873", 516, std::nullopt},
      {"Iter(train) [ 16000/80000]  lr: 9.5e-03  time: 0.61", 16000, 80000},
      {"Epoch [4/90], Step [260/1563], Loss: 1.4120", 260, 1563},
      {"global_step=90211 train/loss=0.731", 90211, std::nullopt},
      {"| epoch 002 | loss 4.21 | num_updates 3310 | lr 0.0004", 3310, std::nullopt},
      {"iter 77 of 3000: loss 2.01", 77, 3000},
      {"STEP 12 / 40 done", 12, 40},
      {"Epoch 1:  37%|###7      | 371/1000 [02:11<03:42,  2.83it/s, loss=0.412, v_num=3]", 371, 1000},
      // A bar redrawn in place: the last drawing counts.
      {" 10%|#         | 10/100 [00:01<00:09]\r 20%|##        | 20/100 [00:02<00:08]\r", 20, 100},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    const auto p = read_progress(c.line);
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->step, c.step);
    EXPECT_EQ(p->total, c.total);
  }
}

TEST(Progress, WordsThatAreNotAStep) {
  for (const char* line : {"number of skipped iterations:   0 | number of nan iterations:   0 |",  // "iterations", plural of a count
                           "step time 0.42 s, iteration time (ms): 812.4",                         // measures, not counts
                           "steps_per_epoch=1563 warmup_steps=500",                                // settings, not progress
                           "{'loss': 2.3012, 'learning_rate': 4.9e-05, 'epoch': 0.37}",            // epochs only
                           "loading /data/step5/shard.bin", "stepped into the data loader", "iterator exhausted after 12 batches",
                           "100%|##########| done"})
    EXPECT_FALSE(read_progress(line).has_value()) << line;
}

// A process stating its own global rank, in the words frameworks and scripts print it with: the
// event carries the rank, the world where the line gives it, and the mark correlation lends from.
TEST(Messages, AProcessStatingItsOwnRank) {
  struct Case {
    std::string line;
    std::int64_t rank;
    std::optional<std::int64_t> world;
  };
  const std::vector<Case> cases = {
      {"(RayTrainWorker pid=771, ip=172.31.4.9) Setting up process group for: env:// [rank=5, world_size=12]", 5, 12},
      {"Initializing distributed: GLOBAL_RANK: 14, MEMBER: 15/32", 14, 32},
      {"[2025-02-11 08:01:12,440] {distributed_c10d.py:263} INFO - Rank 6: Completed store-based barrier for key:store_based_barrier_key:1 with 24 nodes.", 6, 24},
      {"INFO:torch.distributed.distributed_c10d:Added key: store_based_barrier_key:2 to store for rank: 11", 11, std::nullopt},
      {"[Gloo] Rank 2 is connected to 7 peer ranks. Expected number of connected peer ranks is : 7", 2, 8},
      {"worker up: global rank 19 / 64, device cuda:3", 19, 64},
      {"Rank 0 of 2 initialised on host trn-a7", 0, 2},
      {"2024-10-02 11:00:03 | INFO | rank: 3, world_size: 4 | seed 1234", 3, 4},
  };
  for (const Case& c : cases) {
    const auto ev = parse(c.line + "\n");
    ASSERT_EQ(ev.size(), 1u) << c.line;
    const model::Event& e = ev.front();
    EXPECT_EQ(e.rank, c.rank) << c.line;
    EXPECT_EQ(e.get_int("world_size"), c.world) << c.line;
    EXPECT_NE(e.get("rank_declared"), nullptr) << c.line;
  }
  // The local rank said beside it, in a script's words.
  for (const auto& [line, local] : std::vector<std::pair<std::string, std::int64_t>>{
           {"env ok: rank=13, world_size=16, local_rank=5, master 10.0.0.4", 5},
           {"2025-06-01 10:00:00,120 INFO joined: rank 9/24 (local 1) on dgx-b09", 1},
           {"Global rank: 30, world size: 32, local rank: 6", 6}}) {
    const auto ev = parse(line + "\n");
    ASSERT_EQ(ev.size(), 1u) << line;
    EXPECT_NE(ev.front().get("rank_declared"), nullptr) << line;
    EXPECT_EQ(ev.front().get_int("local_rank_stated"), local) << line;
  }
  // Another process's rank, a rank without its world, two processes' prints glued into one line.
  for (const char* line : {"local rank 3/8 waiting for the barrier", "peer rank 4 of 16 closed the connection",
                           "rank 0: loading the next shard ...", "src_rank 2/4 sent 0 bytes",
                           "rank 7/10 (local 1) readyrank 8/10 (local 2) ready"}) {
    for (const model::Event& e : parse(std::string(line) + "\n")) EXPECT_EQ(e.get("rank_declared"), nullptr) << line;
  }
}

// Each rank's last progress print comes back with the file's sightings; other lines do not move it.
TEST(Progress, EachRanksLastPrintIsSighted) {
  const std::string text =
      "[default0]:step 10/50 loss 2.1\n"
      "[default1]:step 10/50 loss 2.0\n"
      "[default0]:step 11/50 loss 2.0\n"
      "[default0]:saving checkpoint to /ckpt/step_11\n"
      "[default1]:fetching the next shard ...\n"
      "\x1b[32m[default0]:step 12/50 loss 1.9\x1b[0m\n";  // coloured: read without its escapes
  ingest::Source src{"node7/train.log", "node7"};
  ingest::MemoryReader mem(text);
  const auto counts = parse_stream(mem, src, {}, lines::LineReader::kDefaultMaxLine, [](model::Event&&) {});
  std::map<std::int64_t, std::pair<std::int64_t, std::uint64_t>> last;  // local rank -> step, line
  for (const model::Sighting& s : counts.sightings)
    if (s.step && s.local_rank) last[*s.local_rank] = {*s.step, s.line};
  ASSERT_EQ(last.size(), 2u);
  EXPECT_EQ(last[0], std::make_pair(std::int64_t{12}, std::uint64_t{6}));
  EXPECT_EQ(last[1], std::make_pair(std::int64_t{10}, std::uint64_t{2}));
}

// A traceback Python printed and went on after ("Exception ignored in ...", a DataLoader's
// cleanup) ends at its exception line: the step printed right after it is the loop going on,
// sighted as progress, not more of the exception's message.
TEST(Progress, AStepAfterAnIgnoredExceptionIsProgress) {
  const std::string text =
      "[default1]:step 216/220 loss 0.871\n"
      "[default1]:Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f3a1c2b4e50>\n"
      "[default1]:Traceback (most recent call last):\n"
      "[default1]:  File \"/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py\", line 1479, in __del__\n"
      "[default1]:    self._shutdown_workers()\n"
      "[default1]:AssertionError: can only test a child process\n"
      "[default1]:step 217/220 loss 0.866\n";
  ingest::Source src{"gn-14/train.log", "gn-14"};
  ingest::MemoryReader mem(text);
  std::vector<model::Event> events;
  const auto counts = parse_stream(mem, src, {}, lines::LineReader::kDefaultMaxLine,
                                   [&](model::Event&& e) { events.push_back(std::move(e)); });
  std::optional<std::int64_t> last;
  for (const model::Sighting& s : counts.sightings)
    if (s.step && s.local_rank == 1) last = s.step;
  EXPECT_EQ(last, 217);
  for (const model::Event& e : events) {
    if (e.get_str("exception") == "AssertionError") {
      EXPECT_EQ(e.end_line, 6u) << e.text;
    }
  }
}

}  // namespace
}  // namespace dtriage::formats

namespace dtriage::formats {
namespace {

// A container's JSON line gathered again through a collector (kubectl --prefix, srun -l, a
// terminal's colours, another container's JSON): the JSON is peeled after them, and the prefixes
// inside its text are the line's.
TEST(Prefixes, ContainerJsonUnderAnotherCollectorsPrefix) {
  const std::string json = R"({"log":"[default2]:RuntimeError: shard 7 is empty \u003c 1 row\n","stream":"stderr","time":"2026-03-04T10:11:12.5Z"})";
  for (const std::string& line : {"[pod/ft-0/main] " + json, "3: " + json, "\x1b[0m" + json + "\x1b[0m",
                                   R"({"log":")" + std::string("{\\\"log\\\":\\\"[default2]:RuntimeError: shard 7 is empty \\\\u003c 1 row\\\\n\\\"}\\n") + R"("})"}) {
    SCOPED_TRACE(line);
    Prefix p;
    std::string storage;
    const std::string_view rest = strip_prefixes(line, p, storage);
    EXPECT_EQ(rest, "RuntimeError: shard 7 is empty < 1 row");
    EXPECT_EQ(p.local_rank, 2);
  }
}

}  // namespace
}  // namespace dtriage::formats

namespace dtriage::formats {
namespace {

std::vector<model::Event> errors_of(const std::string& text) {
  std::vector<model::Event> out;
  for (model::Event& e : parse(text))
    if (e.level >= model::Level::Error) out.push_back(std::move(e));
  return out;
}

// A traceback pasted with its newlines lost: the header, the frames and the exception line are read
// as Python printed them, whatever replaced the newlines (spaces, one space, nothing).
TEST(Glued, ATracebackOnOneLine) {
  for (const std::string& line :
       {std::string("[rank12]: Traceback (most recent call last):   File \"/srv/job/run.py\", line 41, in <module>     "
                    "trainer.fit()   File \"/srv/job/trainer.py\", line 310, in fit     out = self.step(batch) "
                    "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error\n"),
        std::string("[rank12]: Traceback (most recent call last): File \"/srv/job/run.py\", line 41, in <module> trainer.fit() "
                    "File \"/srv/job/trainer.py\", line 310, in fit out = self.step(batch) torch.distributed.DistBackendError: "
                    "NCCL error in: ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error\n"),
        std::string("[rank12]: Traceback (most recent call last):File \"/srv/job/run.py\", line 41, in <module>trainer.fit()"
                    "File \"/srv/job/trainer.py\", line 310, in fitout = self.step(batch)torch.distributed.DistBackendError: "
                    "NCCL error in: ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error\n")}) {
    SCOPED_TRACE(line);
    const auto ev = errors_of(line);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].code, "torch.distributed.DistBackendError");
    EXPECT_EQ(ev[0].rank, 12);
    EXPECT_EQ(ev[0].line, 1u);
    EXPECT_EQ(ev[0].message.rfind("NCCL error in: ProcessGroupNCCL.cpp:1970", 0), 0u);
  }
  // The failing call names an exception without a colon after it: the source line, not the exception.
  const auto raised = errors_of("Traceback (most recent call last):  File \"t.py\", line 3, in <module>    "
                                "raise ValueError(\"shard 4 is empty\")ValueError: shard 4 is empty\n");
  ASSERT_EQ(raised.size(), 1u);
  EXPECT_EQ(raised[0].code, "ValueError");
  EXPECT_EQ(raised[0].message, "shard 4 is empty");
}

// Newlines written as "\n" escapes (a JSON value or a repr printed raw): cut where a record starts,
// with the escaped quotes read.
TEST(Glued, EscapedNewlines) {
  const auto ev = errors_of(
      "2025-02-11 07:30:12,551 worker-3 \"error\": \"Traceback (most recent call last):\\n  File \\\"/app/main.py\\\", "
      "line 77, in <module>\\n    dist.init_process_group(\\\"nccl\\\")\\ntorch.distributed.DistStoreError: Timed out "
      "after 1801 seconds waiting for clients. 3/16 clients joined.\\n\"\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].code, "torch.distributed.DistStoreError");
  ASSERT_EQ(ev[0].body.size(), 3u);  // the frame, its source line with its quotes read, the exception
  EXPECT_EQ(ev[0].body[1], "    dist.init_process_group(\"nccl\")");
  EXPECT_EQ(ev[0].time.text, "2025-02-11T07:30:12.551");
  // An escape inside a message that starts no record stays as written.
  const auto one_ev = errors_of("KeyError: 'row\\nname' not in the tokenizer's vocabulary of 32000 entries\n");
  ASSERT_EQ(one_ev.size(), 1u);
  EXPECT_EQ(one_ev[0].message, "'row\\nname' not in the tokenizer's vocabulary of 32000 entries");
}

// Two streams' records run together without a newline: each is read with its own prefix.
TEST(Glued, RecordsRunTogether) {
  // A rank's caret line, then another rank's traceback header, on one physical line.
  const auto ev = parse(
      "[default2]:    x = f(y)\n"
      "[default2]:        ^^^^^^^^^^^^[default5]:Traceback (most recent call last):\n"
      "[default5]:  File \"/opt/r.py\", line 9, in <module>\n"
      "[default5]:    main()\n"
      "[default5]:RuntimeError: Socket Timeout\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].local_rank, 5);
  EXPECT_EQ(ev[0].code, "RuntimeError");
  EXPECT_EQ(ev[0].line, 2u);
  EXPECT_EQ(ev[0].end_line, 5u);
  // Two NCCL records of two threads; two plog records of two processes.
  const auto nccl = parse(
      "a100-n7:9012:9100 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/IPCa100-n7:9012:9177 [1] "
      "misc/socket.cc:538 NCCL WARN Net : Connection closed by remote peer 10.8.0.12<41236>\n");
  ASSERT_EQ(nccl.size(), 2u);
  EXPECT_EQ(nccl[1].level, model::Level::Warning);
  EXPECT_EQ(nccl[1].node, "a100-n7");
  EXPECT_EQ(nccl[1].get_int("tid"), 9177);
  const auto plog = parse(
      "[ERROR] RUNTIME(3301,python3):2025-08-02-01:02:03.004.005 [stream.cc:1102]3301 Setup:sq setup failed"
      "[ERROR] HCCL(3302,python3):2025-08-02-01:02:04.000.001 [hccl_comm.cc:77][3302]notify wait timeout\n");
  ASSERT_EQ(plog.size(), 2u);
  EXPECT_EQ(plog[0].pid, 3301);
  EXPECT_EQ(plog[1].pid, 3302);
  EXPECT_EQ(plog[1].get_str("module"), "HCCL");
}

// What must stay one record: torchrun's failure table introducing a traceback, a host name with a
// hyphen before NCCL's pid, a logger's name before its header.
TEST(Glued, OneRecordStaysWhole) {
  std::vector<std::string> pieces;
  EXPECT_FALSE(split_glued("  traceback : Traceback (most recent call last):", pieces));
  EXPECT_FALSE(split_glued("gpu-b17:48213:48390 [3] NCCL INFO NET/IB : No device found.", pieces));
  EXPECT_FALSE(split_glued("ERROR:root:Traceback (most recent call last):", pieces));
  EXPECT_FALSE(split_glued("[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered", pieces));
  EXPECT_FALSE(split_glued("print(\"rank 3\\nrank 4\") # a literal in a frame's source line", pieces));
}

// A fan-out tool's host label (pdsh, clush): taken once a record of the stack follows it, then
// before every line of that host, and it names the node of the line, NCCL's lines included.
TEST(Prefixes, AFanOutToolsHostLabel) {
  auto ev = parse(
      "cn-0417: cn0417.ib:71220:71301 [6] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.1.2.3<33411> failed\n"
      "cn-0417: [rank30]: Traceback (most recent call last):\n"
      "cn-0417: [rank30]:   File \"/w/pretrain.py\", line 5, in <module>\n"
      "cn-0417: [rank30]: RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, unhandled system error\n"
      "10.20.0.8: Traceback (most recent call last):\n"
      "10.20.0.8:   File \"/w/pretrain.py\", line 5, in <module>\n"
      "10.20.0.8: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB\n");
  ASSERT_EQ(ev.size(), 3u);
  std::sort(ev.begin(), ev.end(), [](const model::Event& a, const model::Event& b) { return a.line < b.line; });
  EXPECT_EQ(ev[0].kind, model::Kind::Nccl);
  EXPECT_EQ(ev[0].node, "cn-0417");
  EXPECT_EQ(ev[1].node, "cn-0417");
  EXPECT_EQ(ev[1].rank, 30);
  EXPECT_EQ(ev[1].code, "RuntimeError");
  EXPECT_EQ(ev[2].node, "10.20.0.8");
  EXPECT_EQ(ev[2].code, "torch.OutOfMemoryError");
  // Not a host: an error code, an exception's type, a step counter, a word without a digit.
  for (const std::string_view line : {"EJ0001: 2024-05-21-11:57:54.167.645 Failed to initialize the HCCP process.\n",
                                  "RuntimeError: [rank3]: Timed out\n", "iter200: loss 2.1 at 2025-01-01 10:00\n",
                                  "localhost: [rank0]: Traceback (most recent call last):\n"}) {
    Prefix p;
    std::string storage;
    HostLabels labels;
    strip_prefixes(line, p, storage, &labels);
    EXPECT_TRUE(p.host.empty()) << line;
  }
}

}  // namespace
}  // namespace dtriage::formats

namespace dtriage::formats {
namespace {

// GPU and process rows are read by hand (nvidia_smi.cpp); these regexes say what they must read.
// Rows are drawn with random spacing, names (with "On" / "Off" words in them), bus ids, flags,
// process types and malformed fields; the hand reading and the regex must agree on each.
TEST(Smi, NvidiaSmiRowsReadByHandAsTheRegexReadsThem) {
  const re2::RE2 gpu(
      R"(^\|\s+(\d+)\s+(.+?)\s+(?:On|Off)\s+\|\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s+(?:On|Off)\s+\|)");
  const re2::RE2 proc(R"(^\|\s+(\d+)\s+(?:N/A|\d+)\s+(?:N/A|\d+)\s+(\d+)\s+(C|G|C\+G)\s+(\S+)\s+(\d+)MiB\s+\|)");
  std::uint64_t state = 12345;
  auto draw = [&](std::size_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::size_t>((state >> 33) % n);
  };
  auto pick = [&](std::initializer_list<const char*> xs) { return std::string(*(xs.begin() + draw(xs.size()))); };
  auto gap = [&] { return std::string(1 + draw(4), draw(6) == 0 ? '\t' : ' '); };
  int gpus = 0, procs = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string row;
    if (draw(2) == 0) {
      const std::string name = pick({"NVIDIA H100 80GB HBM3", "Tesla V100-SXM2-32GB", "NVIDIA A100-SXM4-80GB", "Quadro On Off",
                                     "X", "NVIDIA GeForce RTX 4090", "On", "A|B"});
      const std::string bus = pick({"00000000:18:00.0", "0000:3B:00.0", "00000000:af:00.1", "000:18:00.0", "00000000:18:00",
                                    "000000000:18:00.0", "00000000:1G:00.0"});
      row = "|" + gap() + std::to_string(draw(16)) + gap() + name + gap() + pick({"On", "Off", "Onn"}) + gap() + "|" + gap() +
            bus + gap() + pick({"On", "Off", "N/A"}) + gap() + pick({"|", "|x", "x|"}) + gap() + "0 |";
    } else {
      row = "|" + gap() + pick({"0", "7", "12", "x"}) + gap() + pick({"N/A", "3", "NA"}) + gap() + pick({"N/A", "0"}) + gap() +
            pick({"40584", "1", "pid"}) + gap() + pick({"C", "G", "C+G", "M"}) + gap() +
            pick({"/usr/bin/python3", "python", "a|b", "...in/python"}) + gap() + pick({"49978MiB", "0MiB", "12MB", "MiB"}) + gap() +
            pick({"|", "|  ", "x"});
    }
    re2::StringPiece gp[4], qp[6];
    const bool want_gpu = re2::RE2::PartialMatch(row, gpu, &gp[1], &gp[2], &gp[3]);
    const bool want_proc = !want_gpu && re2::RE2::PartialMatch(row, proc, &qp[1], &qp[2], &qp[3], &qp[4], &qp[5]);
    std::string_view g[4], q[6];
    for (int k = 0; k < 4; ++k) g[k] = std::string_view(gp[k].data(), gp[k].size());
    for (int k = 0; k < 6; ++k) q[k] = std::string_view(qp[k].data(), qp[k].size());
    model::Event e;
    const bool got = parse_nvidia_smi(row, e);
    SCOPED_TRACE(row);
    ASSERT_EQ(got, want_gpu || want_proc);
    if (want_gpu) {
      ++gpus;
      EXPECT_EQ(e.code, "gpu");
      EXPECT_EQ(e.device, to_int(g[1]));
      EXPECT_EQ(e.get_str("gpu_name"), std::string(trim(g[2])));
      EXPECT_EQ(e.get_str("bus_id"), std::string(g[3]));
    } else if (want_proc) {
      ++procs;
      EXPECT_EQ(e.code, "gpu-process");
      EXPECT_EQ(e.device, to_int(q[1]));
      EXPECT_EQ(e.pid, to_int(q[2]));
      EXPECT_EQ(e.get_str("process"), std::string(q[4]));
      EXPECT_EQ(e.get("memory_mib") == nullptr, false);
    }
  }
  EXPECT_GT(gpus, 200);  // both kinds drawn often enough to mean something
  EXPECT_GT(procs, 100);
}

}  // namespace
}  // namespace dtriage::formats

namespace dtriage::formats {
namespace {

// The time prefixes are read by hand (prefixes.cpp); these are the regexes they replaced, whose
// choices (which optional part is taken, where the match ends) they must make on any text.
TEST(Prefixes, StampsAreReadAsTheRegexesReadThem) {
  const RE2 collector(R"(^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?(?:Z|[+-]\d{2}:?\d{2})?(?:\s*\||:)?\s+)");
  const RE2 bracket(R"(^\[(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?(?:Z|[+-]\d{2}:?\d{2})?\] ?)");
  const std::vector<std::string> pieces = {"2024-05-01", "2024-5-01", "20240501", " ",    "T",      "12:34", ":56",  ":5",
                                           "12:3",       ".123",      ",45",     ".",    ",",      "Z",     "+08:00", "-0530",
                                           "+08:3",      "+8",        "-08",     " | ",  "|",      ": ",    ":",     "  ",
                                           "\t",         "\r",        "]",       "] ",   "[",      "x",     " msg",  "1",
                                           "-",          "9",         "\f"};
  std::mt19937 rng(20261204);
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  int matched = 0;
  for (int round = 0; round < 200000; ++round) {
    std::string s = pick(3) == 0 ? "[" : "";
    s += pick(4) == 0 ? pieces[pick(pieces.size())] : "2024-05-01";
    s += pick(5) == 0 ? "T" : " ";
    s += pick(5) == 0 ? pieces[pick(pieces.size())] : "12:34";
    for (std::size_t k = pick(7); k > 0; --k) s += pieces[pick(pieces.size())];
    for (const bool in_brackets : {false, true}) {
      const RE2& re = in_brackets ? bracket : collector;
      re2::StringPiece g[4];
      const bool want = re.Match(s, 0, s.size(), RE2::ANCHOR_START, g, 4);
      Stamp st;
      const std::size_t got = in_brackets ? bracket_stamp(s, st) : collector_stamp(s, st);
      ASSERT_EQ(want, got != 0) << (in_brackets ? "bracket: " : "collector: ") << s;
      if (!want) continue;
      ++matched;
      ASSERT_EQ(g[0].size(), got) << s;
      ASSERT_EQ(std::string(g[1].data(), g[1].size()), std::string(st.date)) << s;
      ASSERT_EQ(std::string(g[2].data(), g[2].size()), std::string(st.clock)) << s;
      ASSERT_EQ(std::string(g[3].data(), g[3].size()), std::string(st.frac)) << s;
    }
  }
  EXPECT_GT(matched, 20000);  // the texts drawn are stamps often enough to test their parts
}

TEST(Prefixes, ProgressBarsAreReadAsTheRegexReadsThem) {
  const RE2 bar(R"(^[^|\n]{0,40}\d{1,3}%\|[^|]*\|(?:[^\[\]|]*\[[^\]]*\])? ?)");
  const std::vector<std::string> pieces = {"100", "45", "7", "1234", "%", "|", "%|", "#####", "\u2588\u258b", "     ", " ",
                                           "10/10", "[", "]", "[00:01<00:00, 9.51it/s]", "\n", "Epoch 2:", "x", "0",
                                           "abcdefghijklmnopqrst", "[rank3]:", "\r"};
  std::mt19937 rng(1204);
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  int matched = 0;
  for (int round = 0; round < 200000; ++round) {
    std::string s;
    for (std::size_t k = 1 + pick(8); k > 0; --k) s += pieces[pick(pieces.size())];
    if (pick(2) == 0) {  // at a character's start: the pipeline reads UTF-8 (feed_many decodes the rest)
      std::size_t at = pick(s.size() + 1);
      while (at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) ++at;
      s.insert(at, "9%|");
    }
    re2::StringPiece g;
    const bool want = bar.Match(s, 0, s.size(), RE2::ANCHOR_START, &g, 1);
    const std::size_t got = progress_bar(s);
    ASSERT_EQ(want, got != 0) << s;
    if (!want) continue;
    ++matched;
    ASSERT_EQ(g.size(), got) << s;
  }
  EXPECT_GT(matched, 10000);  // bars often enough to test where they end
}

}  // namespace
}  // namespace dtriage::formats
