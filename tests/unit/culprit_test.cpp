// The culprit policy (correlate/culprit.cpp): which rank the verdict names and why, on small jobs
// written here in the shapes the policy reasons about: who failed first, whose ending differs, who
// stayed silent, who came late, what the run survived. Hosts, ranks, times and spellings differ
// from test to test and from the lab's.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace dtriage::test {
namespace {

using nlohmann::json;

json report_of(analysis::Inputs in) {
  const auto a = analysis::analyze(std::move(in), rule_pack());
  return json::parse(json_report(*a));
}

struct Row {
  int rank, local;
  int exitcode;
  int pid;
  std::string time;  // "2026-04-02_11:20:31"
  std::string traceback = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html";
};

// The failure table torchrun prints when it gives up; the first row is its Root Cause.
std::string failure_table(const std::string& host, const std::vector<Row>& rows) {
  auto row = [&](const Row& r, int k) {
    return "[" + std::to_string(k) + "]:\n  time      : " + r.time + "\n  host      : " + host + "\n  rank      : " + std::to_string(r.rank) +
           " (local_rank: " + std::to_string(r.local) + ")\n  exitcode  : " + std::to_string(r.exitcode) + " (pid: " + std::to_string(r.pid) +
           ")\n  error_file: <N/A>\n  traceback : " + r.traceback + "\n";
  };
  std::string s = "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
                  "============================================================\n"
                  "pretrain.py FAILED\n"
                  "------------------------------------------------------------\n"
                  "Failures:\n";
  if (rows.size() == 1) s += "  <NO_OTHER_FAILURES>\n";
  for (std::size_t k = 1; k < rows.size(); ++k) s += row(rows[k], static_cast<int>(k));
  s += "------------------------------------------------------------\nRoot Cause (first observed failure):\n" + row(rows.front(), 0) +
       "============================================================\n";
  return s;
}

std::string traceback(const std::string& prefix, const std::string& last) {
  return prefix + "Traceback (most recent call last):\n" + prefix + "  File \"/opt/job/pretrain.py\", line 88, in <module>\n" + prefix +
         "    step(batch)\n" + prefix + last + "\n";
}

// A launch line with its "NR" placeholder set to one node's --node_rank.
std::string with_node_rank(std::string launch, const std::string& nr) {
  launch.replace(launch.find("NR"), 2, nr);
  return launch;
}

std::string peer_lost(const std::string& prefix, const std::string& ip) {
  return traceback(prefix, "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [" + ip + "]:41233");
}

// A rank raised first; seconds later a rank on another node was SIGKILLed. The kill does not
// outrank the earlier exception: the verdict names the exception's rank, says why, and keeps the
// kill as another finding.
// With c10d the launcher's node rank says nothing of its workers' ranks; its agent's rendezvous
// result (LOGLEVEL=INFO) does: a worker known by its local rank gets its global one.
TEST(Culprit, TheRendezvousResultGivesAWorkerItsGlobalRank) {
  analysis::Inputs in;
  in.texts.push_back({"job/ml-n2/launcher.log",
                      "INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous complete for workers. Result:\n"
                      "  restart_count=0\n  group_rank=0\n  local_ranks=[0, 1]\n  global_ranks=[2, 3]\n\n"
                      "[default1]:Traceback (most recent call last):\n"
                      "[default1]:  File \"fit.py\", line 3, in <module>\n"
                      "[default1]:ZeroDivisionError: division by zero\n"
                      "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 9001) of binary: /usr/bin/python3\n"});
  const json r = report_of(std::move(in));
  EXPECT_EQ(r["verdict"]["category"], "worker-exception");
  EXPECT_EQ(r["verdict"]["rank"], 3);
}

// c10d, uneven --nproc_per_node (2, 1, 2), no --node_rank: only the agents' rendezvous results
// say which node holds which ranks, and the world size. The one worker of the middle node hung
// and printed nothing; its launcher stopped it when the others' collective timed out. It is
// named by the rank its agent's result gave it.
TEST(Culprit, TheRendezvousResultPlacesARankThatPrintedNothing) {
  analysis::Inputs in;
  const char* hosts[] = {"trn-w07", "trn-w11", "trn-w13"};
  const std::vector<std::vector<int>> ranks = {{0, 1}, {2}, {3, 4}};
  for (int n = 0; n < 3; ++n) {
    std::string locals, globals;
    for (std::size_t k = 0; k < ranks[n].size(); ++k) {
      locals += (k ? ", " : "") + std::to_string(k);
      globals += (k ? ", " : "") + std::to_string(ranks[n][k]);
    }
    std::string log = "+ torchrun --nnodes 3 --nproc_per_node " + std::to_string(ranks[n].size()) +
                      " --rdzv_backend c10d --rdzv_endpoint trn-w07:29400 fit.py\n"
                      "INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous complete for workers. Result:\n"
                      "  restart_count=0\n  master_addr=trn-w07\n  master_port=41877\n  group_rank=" + std::to_string(n) +
                      "\n  group_world_size=3\n  local_ranks=[" + locals + "]\n  role_ranks=[" + globals + "]\n  global_ranks=[" +
                      globals + "]\n  role_world_sizes=[5, 5]\n  global_world_sizes=[5, 5]\n\n";
    if (n == 1) {
      log += "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 30417 closing signal SIGTERM\n";
    } else {
      for (int r : ranks[n])
        log += "[rank" + std::to_string(r) + "]:RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] "
               "Timed out waiting 1800000ms for recv operation to complete\n";
    }
    in.texts.emplace_back(std::string(hosts[n]) + "/launcher.log", log);
  }
  const json r = report_of(std::move(in));
  const json& v = r["verdict"];
  EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
  EXPECT_EQ(v["rank"], 2) << v.dump(1);
  EXPECT_EQ(v["node"], "trn-w11") << v.dump(1);
  EXPECT_EQ(r["job"]["world_size"], 5);
}

// Every node's --nproc_per_node known for all --nnodes (2 + 1 + 2), every rank but 0 stated by its
// own lines, and one process's lines (cpu-b's [default0]) naming no rank: it is rank 0, the one
// left over. It failed before it could state its rank; its peers' store timeouts followed.
TEST(Culprit, TheOneProcessLeftOverIsTheRankNoLineNamed) {
  analysis::Inputs in;
  const auto launch = [](int nproc) {
    return "+ torchrun --nnodes 3 --nproc_per_node " + std::to_string(nproc) + " --rdzv_backend c10d --rdzv_endpoint cpu-b:29500 t.py\n";
  };
  const std::string timeout = "]:TimeoutError: The client socket has timed out after 900s while trying to connect to (cpu-b, 29500).\n";
  in.texts.emplace_back("cpu-a/out.log", launch(2) + "[rank1" + timeout + "[rank2" + timeout);
  in.texts.emplace_back("cpu-b/out.log", launch(1) + "[default0]:Traceback (most recent call last):\n"
                                                      "[default0]:  File \"t.py\", line 9, in <module>\n"
                                                      "[default0]:KeyError: 'lr'\n");
  in.texts.emplace_back("cpu-c/out.log", launch(2) + "[rank3" + timeout + "[rank4" + timeout);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["node"], "cpu-b") << v.dump(1);
  EXPECT_EQ(v["rank"], 0) << v.dump(1);
}

TEST(Culprit, TheFirstOwnFailureInTimeWinsOverALaterKill) {
  analysis::Inputs in;
  in.texts.emplace_back("sx-07/out.log",
                        "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 0 --master_addr sx-07 pretrain.py\n" +
                            traceback("[rank1]:", "KeyError: 'input_ids'") + peer_lost("[rank0]:", "10.4.0.8") +
                            failure_table("sx-07", {{1, 1, 1, 3301, "2026-04-02_11:20:31"}, {0, 0, 1, 3300, "2026-04-02_11:20:31"}}));
  in.texts.emplace_back("sx-08/out.log",
                        "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 1 --master_addr sx-07 pretrain.py\n" +
                            peer_lost("[rank3]:", "10.4.0.7") +
                            failure_table("sx-08", {{2, 0, -9, 4410, "2026-04-02_11:20:38", "Signal 9 (SIGKILL) received by PID 4410"},
                                                    {3, 1, 1, 4411, "2026-04-02_11:20:38"}}));
  const json rep = report_of(std::move(in));
  const json& v = rep["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["node"], "sx-07");
  EXPECT_EQ(v["rank"], 1);
  ASSERT_TRUE(v.contains("why")) << v.dump(1);
  EXPECT_NE(v["why"][0].get<std::string>().find("Rank 1 failed on its own first"), std::string::npos) << v["why"].dump();
  EXPECT_NE(v["why"][1].get<std::string>().find("rank 2"), std::string::npos) << v["why"].dump();
  bool kill_kept = false;
  for (const json& f : rep["findings"])
    if (f["category"] == "worker-signal") kill_kept = f["role"] != "root-cause";
  EXPECT_TRUE(kill_kept) << rep["findings"].dump(1);
}

// An exception of the program's own and a SIGKILL on another node, both rows in one second: the
// kill may have followed the exception (srun, a scheduler, a launcher stopping the rest), the
// exception cannot have followed the kill, so it is named. When the host's kernel log says the OOM
// killer sent that SIGKILL, the kill is a failure of its own that says more, and it is named.
TEST(Culprit, AnOwnExceptionBeforeAKillOfNoKnownSenderInOneSecond) {
  auto job = [](bool oom) {
    analysis::Inputs in;
    in.texts.emplace_back("qa-113/out.log",
                          "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 0 --master_addr qa-113 finetune.py\n" +
                              traceback("[rank0]:", "IndexError: index 4096 is out of bounds for dimension 0 with size 4096") +
                              failure_table("qa-113", {{0, 0, 1, 61200, "2026-09-17_22:41:05"}}));
    in.texts.emplace_back("qa-114/out.log",
                          "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 1 --master_addr qa-113 finetune.py\n" +
                              failure_table("qa-114", {{3, 1, -9, 7021, "2026-09-17_22:41:05", "Signal 9 (SIGKILL) received by PID 7021"}}));
    if (oom)
      in.texts.emplace_back("qa-114/dmesg.txt",
                            "[1904411.200311] Out of memory: Killed process 7021 (python3) total-vm:181220112kB, anon-rss:120331008kB\n");
    return report_of(std::move(in))["verdict"];
  };
  const json plain = job(false);
  EXPECT_EQ(plain["rank"], 0) << plain.dump(1);
  EXPECT_EQ(plain["node"], "qa-113") << plain.dump(1);
  EXPECT_EQ(plain["category"], "worker-exception") << plain.dump(1);
  EXPECT_NE(plain["why"].dump().find("may have followed it"), std::string::npos) << plain.dump(1);
  const json oom = job(true);
  EXPECT_EQ(oom["rank"], 3) << oom.dump(1);
  EXPECT_EQ(oom["node"], "qa-114") << oom.dump(1);
}

// Plain output of one node (no rank prefixes): a KeyError traceback and lost-peer tracebacks tie to
// no rank; the failure table puts a SIGSEGV and exits with code 1 in one second. The traceback is one
// of the exits' (an uncaught exception exits with code 1), and an error of the program's own follows
// no peer's loss, while a crash often is a teardown: the exception is the cause, its rank one of
// the exits. Several such exits are a tie on the node, said as such; one is named.
TEST(Culprit, AnUntiedTracebackIsOneOfItsNodesExitsNotTheCrashBesideThem) {
  auto job = [](int exits) {
    std::string log = "+ torchrun --nnodes 1 --nproc_per_node " + std::to_string(exits + 1) + " --max_restarts 0 sft.py\n" +
                      traceback("", "KeyError: 'attention_mask'");
    std::vector<Row> rows;
    for (int k = 0; k < exits; ++k) {
      if (k > 0) log += peer_lost("", "127.0.0.1");
      rows.push_back({k == 0 ? 0 : k + 1, k == 0 ? 0 : k + 1, 1, 30410 + k, "2026-07-09_03:14:52"});
    }
    rows.push_back({1, 1, -11, 30499, "2026-07-09_03:14:52", "Signal 11 (SIGSEGV) received by PID 30499"});
    log += failure_table("a100-17", rows);
    analysis::Inputs in;
    in.texts.emplace_back("a100-17/sft.log", log);
    return report_of(std::move(in))["verdict"];
  };
  const json three = job(3);
  EXPECT_EQ(three["category"], "worker-exception") << three.dump(1);
  EXPECT_TRUE(three["rank"].is_null()) << three.dump(1);
  EXPECT_EQ(three["node"], "a100-17") << three.dump(1);
  EXPECT_EQ(three["ranks_tied"], json::parse("[0, 2, 3]")) << three.dump(1);
  EXPECT_NE(three["why"].dump().find("names no rank"), std::string::npos) << three.dump(1);
  const json one = job(1);
  EXPECT_EQ(one["category"], "worker-exception") << one.dump(1);
  EXPECT_EQ(one["rank"], 0) << one.dump(1);
}

// Plain output of one node, every process exited with code 1 in the same second: one untied
// IndexError traceback, the rest lost-peer tracebacks. An uncaught exception ends its process, so
// the ranks whose own lines (NCCL's, by pid) the stream still has after that traceback did not print
// it: the one left is named, with the line that showed the others alive. Lines after the launcher's
// failure table (another attempt, a teardown) say nothing of who printed it: then it is a tie.
TEST(Culprit, ARankThatStillWroteAfterAnUntiedTracebackDidNotPrintIt) {
  auto job = [](bool after_table) {
    const std::string alive = "h100-n4:7312:7312 [1] NCCL INFO Bootstrap : Using eth0:10.1.2.3<0>\n"
                              "h100-n4:7313:7313 [2] NCCL INFO Bootstrap : Using eth0:10.1.2.3<0>\n";
    std::string log = "+ torchrun --nnodes 1 --nproc_per_node 3 --max_restarts 0 sft.py\n" +
                      traceback("", "IndexError: list index out of range") + (after_table ? "" : alive) + peer_lost("", "127.0.0.1") +
                      peer_lost("", "127.0.0.1") +
                      failure_table("h100-n4", {{0, 0, 1, 7311, "2026-11-20_08:01:44"},
                                                {1, 1, 1, 7312, "2026-11-20_08:01:44"},
                                                {2, 2, 1, 7313, "2026-11-20_08:01:44"}}) +
                      (after_table ? alive : "");
    analysis::Inputs in;
    in.texts.emplace_back("h100-n4/console.log", log);
    return report_of(std::move(in))["verdict"];
  };
  const json named = job(false);
  EXPECT_EQ(named["category"], "worker-exception") << named.dump(1);
  EXPECT_EQ(named["rank"], 0) << named.dump(1);
  EXPECT_NE(named["why"].dump().find("still wrote to h100-n4/console.log after it (line"), std::string::npos) << named.dump(1);
  const json tie = job(true);
  EXPECT_EQ(tie["category"], "worker-exception") << tie.dump(1);
  EXPECT_TRUE(tie["rank"].is_null()) << tie.dump(1);
  EXPECT_EQ(tie["ranks_tied"], json::parse("[0, 1, 2]")) << tie.dump(1);
}

// A rank the writer states in brackets in its own message, in a stream several ranks share with no
// launcher prefix: DeepSpeed's log_dist "[Rank 0]", Lightning's rank_prefixed_message "[rank: 3]",
// a logging format's "[rank 12]" / "[RANK 7]". Each one's progress is its own rank's.
TEST(Culprit, TheWritersRankInBracketsOwnsItsProgress) {
  analysis::Inputs in;
  in.texts.emplace_back("n4/train.log",
                        "[2026-02-11 08:14:02,117] [INFO] [logging.py:128:log_dist] [Rank 0] step=1200, skipped=0, lr=[3e-05]\n"
                        "[rank: 3] step 1300/9000 loss 2.1\n"
                        "2026-02-11 08:14:03,410 INFO [rank 12] step 1400/9000 loss 2.1\n"
                        "2026-02-11 08:14:03,992 INFO [RANK 7] step 1500/9000 loss 2.4\n");
  const json report = report_of(std::move(in));
  std::map<std::int64_t, std::int64_t> steps;
  for (const json& r : report["ranks"])
    if (r.contains("last_step") && r["last_step"].is_object()) steps[r["rank"].get<std::int64_t>()] = r["last_step"]["step"].get<std::int64_t>();
  const std::map<std::int64_t, std::int64_t> want = {{0, 1200}, {3, 1300}, {7, 1500}, {12, 1400}};
  EXPECT_EQ(steps, want) << report["ranks"].dump(1);
}

// Two ranks of one node tie in the first second (an untied KeyError traceback among them); a rank
// of another node crashed a second later. The tie is the verdict (its node, its ranks): the later
// crash, which the rule pack would rank as the stronger root, is passed over as it is beside a
// named culprit.
TEST(Culprit, ALaterCrashIsPassedOverForATieThatCameFirst) {
  std::string a = "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 0 --master_addr h-07 --master_port 29400 dpo.py\n" +
                  traceback("", "KeyError: 'chosen_input_ids'") + peer_lost("", "10.8.0.8") +
                  failure_table("h-07", {{0, 0, 1, 51200, "2026-10-02_19:40:05"}, {1, 1, 1, 51201, "2026-10-02_19:40:05"}});
  std::string b = "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 1 --master_addr h-07 --master_port 29400 dpo.py\n" +
                  peer_lost("", "10.8.0.7") +
                  failure_table("h-08", {{2, 0, -11, 61300, "2026-10-02_19:40:06", "Signal 11 (SIGSEGV) received by PID 61300"},
                                         {3, 1, 1, 61301, "2026-10-02_19:40:06"}});
  analysis::Inputs in;
  in.texts.emplace_back("h-07/dpo.log", a);
  in.texts.emplace_back("h-08/dpo.log", b);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["node"], "h-07") << v.dump(1);
  EXPECT_TRUE(v["rank"].is_null()) << v.dump(1);
  EXPECT_EQ(v["ranks_tied"], json::parse("[0, 1]")) << v.dump(1);
}

// Two nodes, each launcher's rows in one second (its monitor interval hides which came first): a
// SIGKILL of no known sender on one, a crash on the other, the rest lost a peer. A crash is a fault
// of the process itself; the kill may have followed (a scheduler, srun, a cgroup): the crash's rank
// is named, the kill kept as the other failure. A SIGABRT is not such a crash (a watchdog aborts
// after a timeout): beside it the kill stays the stronger ending. Nor is a crash on a node whose
// lost-peer reports (plain output, no rank on them) outnumber its exits with code 1: the crashing
// rank reported a lost peer too, and crashed tearing down.
TEST(Culprit, ACrashBesideAKillOfNoKnownSenderInOneSecondCameFirst) {
  auto job = [](int code, const std::string& signal, bool teardown = false) {
    const std::string t = "2026-03-14_22:05:51";
    std::string a = "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 0 --master_addr gn-112 --master_port 23456 sft.py\n" +
                    peer_lost("", "10.4.0.12") +
                    failure_table("gn-112", {{0, 0, 1, 40410, t}, {1, 1, -9, 40411, t, "Signal 9 (SIGKILL) received by PID 40411"}});
    std::string b = "+ torchrun --nnodes 2 --nproc_per_node 3 --node_rank 1 --master_addr gn-112 --master_port 23456 sft.py\n" +
                    peer_lost("", "10.4.0.11") + peer_lost("", "10.4.0.11") + (teardown ? peer_lost("", "10.4.0.11") : "") +
                    failure_table("gn-113", {{2, 0, 1, 51720, t},
                                             {3, 1, code, 51721, t, "Signal " + std::to_string(-code) + " (" + signal + ") received by PID 51721"},
                                             {4, 2, 1, 51722, t}});
    analysis::Inputs in;
    in.texts.emplace_back("logs/gn-112.out", a);
    in.texts.emplace_back("logs/gn-113.out", b);
    return report_of(std::move(in))["verdict"];
  };
  for (const auto& [code, signal] : std::vector<std::pair<int, std::string>>{{-11, "SIGSEGV"}, {-7, "SIGBUS"}}) {
    const json v = job(code, signal);
    EXPECT_EQ(v["category"], "worker-signal") << v.dump(1);
    EXPECT_EQ(v["node"], "gn-113") << v.dump(1);
    EXPECT_EQ(v["rank"], 3) << v.dump(1);
    EXPECT_NE(v["why"].dump().find("no peer's loss causes"), std::string::npos) << v.dump(1);
  }
  const json abort = job(-6, "SIGABRT");
  EXPECT_EQ(abort["rank"], 1) << abort.dump(1);
  EXPECT_EQ(abort["node"], "gn-112") << abort.dump(1);
  const json teardown = job(-11, "SIGSEGV", true);
  EXPECT_EQ(teardown["rank"], 1) << teardown.dump(1);
  EXPECT_EQ(teardown["node"], "gn-112") << teardown.dump(1);
}

// In one second a rank aborted on one node and a rank was killed on another (c10d, plain output:
// no line names a rank). Above the kill, the killed rank's node printed a lost-peer traceback that
// no exit there accounts for: its others were stopped by their launcher (closing signals), none
// exited with code 1. Read as the killed rank's own, it had lost a peer before it ended: the abort
// came first. Without that traceback the kill, which says more, is named.
TEST(Culprit, AKilledRankThatAloneCanHaveReportedALostPeerFailedAfterIt) {
  auto job = [](bool report) {
    const std::string t = "2027-02-09_08:41:17";
    std::string a = "+ torchrun --nnodes 2 --nproc_per_node 3 --rdzv_backend c10d --rdzv_endpoint hpc-e07.lab.example.org:29400 pre.py\n" +
                    peer_lost("", "10.20.0.8") + peer_lost("", "10.20.0.8") +
                    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 0 (pid: 70112) of binary: /usr/bin/python3\n" +
                    failure_table("hpc-e07.lab.example.org", {{0, 0, -6, 70112, t, "Signal 6 (SIGABRT) received by PID 70112"},
                                                              {1, 1, 1, 70113, t}, {2, 2, 1, 70114, t}});
    std::string b = "+ torchrun --nnodes 2 --nproc_per_node 4 --rdzv_backend c10d --rdzv_endpoint hpc-e07.lab.example.org:29400 pre.py\n" +
                    (report ? peer_lost("", "10.20.0.7") : std::string()) +
                    "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 81200 closing signal SIGTERM\n"
                    "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 81201 closing signal SIGTERM\n"
                    "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 81203 closing signal SIGTERM\n"
                    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 2 (pid: 81202) of binary: /usr/bin/python3\n" +
                    failure_table("hpc-e08.lab.example.org", {{5, 2, -9, 81202, t, "Signal 9 (SIGKILL) received by PID 81202"}});
    analysis::Inputs in;
    in.texts.emplace_back("job-5521/hpc-e07.lab.example.org/torchrun.out", a);
    in.texts.emplace_back("job-5521/hpc-e08.lab.example.org/torchrun.out", b);
    return report_of(std::move(in))["verdict"];
  };
  const json v = job(true);
  EXPECT_EQ(v["category"], "worker-signal") << v.dump(1);
  EXPECT_EQ(v["node"], "hpc-e07.lab.example.org") << v.dump(1);
  EXPECT_EQ(v["rank"], 0) << v.dump(1);
  EXPECT_NE(v["why"].dump().find("had lost a peer before it ended"), std::string::npos) << v.dump(1);
  const json kill = job(false);
  EXPECT_EQ(kill["node"], "hpc-e08.lab.example.org") << kill.dump(1);
  EXPECT_EQ(kill["rank"], 5) << kill.dump(1);
}

// A worker's own traceback that no line ties to a rank (plain output, one node's only), dated by its
// collector (docker's json-file), was raised by one of that node's ranks that exited 1: they may
// have failed as early as it was printed. Another node's rank whose launcher saw it exit with
// code 3 three seconds later is not first.
TEST(Culprit, AnUntiedTracebackDatesTheExitsOfItsNode) {
  auto docker = [](const std::string& text, const std::string& time) {
    std::string out;
    std::size_t from = 0;
    while (from < text.size()) {
      const std::size_t nl = text.find('\n', from);
      out += "{\"log\":" + json(text.substr(from, nl - from) + "\n").dump() + ",\"stream\":\"stderr\",\"time\":\"" + time + "\"}\n";
      from = nl + 1;
    }
    return out;
  };
  const std::string a = docker("+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 0 --master_addr 10.9.3.1 --master_port 29500 ft.py\n",
                               "2027-01-05T04:10:00.105Z") +
                        docker(traceback("", "MemoryError"), "2027-01-05T04:10:21.552Z") +
                        docker(peer_lost("", "10.9.3.2"), "2027-01-05T04:10:22.007Z") +
                        docker(failure_table("10.9.3.1", {{0, 0, 1, 3300, "2027-01-05_04:10:26"}, {1, 1, 1, 3301, "2027-01-05_04:10:26"}}),
                               "2027-01-05T04:10:26.410Z");
  const std::string b = "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 1 --master_addr 10.9.3.1 --master_port 29500 ft.py\n" +
                        failure_table("10.9.3.2", {{3, 1, 3, 4410, "2027-01-05_04:10:24"}, {2, 0, 1, 4409, "2027-01-05_04:10:26"}});
  analysis::Inputs in;
  in.texts.emplace_back("10.9.3.1/5f0c2e-json.log", a);
  in.texts.emplace_back("10.9.3.2/train.log", b);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["node"], "10.9.3.1") << v.dump(1);
  EXPECT_TRUE(v["rank"].is_null()) << v.dump(1);
  EXPECT_EQ(v["ranks_tied"], json::parse("[0, 1]")) << v.dump(1);
}

// pdsh (or clush) runs each node's launcher and writes every line behind its host's label, the
// nodes' lines interleaved in one file. Each host's lines are a stream of their own: a node's
// workers printing steps after another node's failure line are not a restart of that node. Hosts
// named by a dashed IPv4 address ("10-2-0-7") are labels too.
TEST(Culprit, EachHostsLinesBehindAFanOutLabelAreItsOwnStream) {
  const std::vector<std::pair<std::string, std::string>> lines = {
      {"10-2-0-7", "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 0 --master_addr 10-2-0-7 --master_port 29511 --tee 3 fit.py"},
      {"gpu-b12", "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 1 --master_addr 10-2-0-7 --master_port 29511 --tee 3 fit.py"},
      {"10-2-0-7", "[default0]:step 10/50 loss 2.113"},
      {"gpu-b12", "[default0]:step 10/50 loss 2.201"},
      {"10-2-0-7", "[default1]:step 10/50 loss 2.094"},
      {"gpu-b12", "[default1]:step 10/50 loss 2.187"},
      {"10-2-0-7", "[default1]:Traceback (most recent call last):"},
      {"10-2-0-7", "[default1]:  File \"/srv/fit.py\", line 61, in <module>"},
      {"10-2-0-7", "[default1]:ValueError: expected 4 dims, got 3"},
      {"10-2-0-7", "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 812) of binary: /usr/bin/python3"},
      {"gpu-b12", "[default0]:step 11/50 loss 2.150"},
      {"gpu-b12", "[default1]:step 11/50 loss 2.166"},
  };
  std::string log;
  for (const auto& [host, line] : lines) log += host + ": " + line + "\n";
  auto labelled = [](const std::string& host, const std::string& text) {
    std::string out;
    for (std::size_t from = 0; from < text.size();) {
      const std::size_t nl = text.find('\n', from);
      out += host + ": " + text.substr(from, nl - from) + "\n";
      from = nl + 1;
    }
    return out;
  };
  log += labelled("gpu-b12", peer_lost("[default0]:", "10.2.0.7"));
  log += labelled("10-2-0-7", failure_table("10-2-0-7", {{1, 1, 1, 812, "2026-05-30_17:45:09"}, {0, 0, -15, 811, "2026-05-30_17:45:10", "Signal 15 (SIGTERM) received by PID 811"}}));
  log += labelled("gpu-b12", failure_table("gpu-b12", {{2, 0, 1, 930, "2026-05-30_17:45:12"}, {3, 1, 1, 931, "2026-05-30_17:45:12"}}));
  analysis::Inputs in;
  in.texts.emplace_back("pdsh-launch.log", log);
  const json r = report_of(std::move(in));
  EXPECT_EQ(r["verdict"]["category"], "worker-exception") << r["verdict"].dump(1);
  EXPECT_EQ(r["verdict"]["node"], "10-2-0-7") << r["verdict"].dump(1);
  EXPECT_EQ(r["verdict"]["rank"], 1) << r["verdict"].dump(1);
  std::map<std::int64_t, std::string> node_of;
  for (const json& k : r["ranks"]) {
    node_of[k["rank"].get<std::int64_t>()] = k["node"].is_string() ? k["node"].get<std::string>() : "-";
    EXPECT_EQ(k["pids"].size(), 1u) << k.dump(1);  // one attempt: no restart read into the interleaving
  }
  const std::map<std::int64_t, std::string> want = {{0, "10-2-0-7"}, {1, "10-2-0-7"}, {2, "gpu-b12"}, {3, "gpu-b12"}};
  EXPECT_EQ(node_of, want) << r["ranks"].dump(1);
}

// One node of six workers: five lost a peer (plain output, no rank prefixes), one exited with code 3
// and printed nothing. Its launcher saw them all in the same second; the odd exit code is the one.
TEST(Culprit, TheOneEndingThatDiffersAmongManyAtTheSameTime) {
  std::string log = "+ torchrun --nnodes 1 --nproc_per_node 6 finetune.py\n";
  for (int k = 0; k < 5; ++k) log += peer_lost("", "127.0.0.1");
  std::vector<Row> rows;
  for (int r : {0, 1, 2, 3, 4, 5}) rows.push_back({r, r, r == 4 ? 3 : 1, 9100 + r, "2026-07-19_02:03:04"});
  log += failure_table("a100-box", rows);
  analysis::Inputs in;
  in.texts.emplace_back("a100-box/console.txt", log);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["rank"], 4) << v.dump(1);
  ASSERT_TRUE(v.contains("why")) << v.dump(1);
  EXPECT_NE(v["why"][0].get<std::string>().find("exit code 3"), std::string::npos) << v["why"].dump();
}

// Every rank timed out and the watchdog took each process down (SIGABRT in every row): the one
// rank that waited in another collective (the same SeqNum, another operation; or one number ahead)
// is named, on whichever node it ran. Numbers of another process group are not compared.
// TORCH_NCCL_DESYNC_DEBUG: a rank whose collective timed out reads every rank's trace from the
// store and prints who lagged. Every rank timed out and aborted (no rank stands out by its ending);
// the report names the rank: in either wording, on either node, with or without a [rankN]: prefix,
// also a rank that wrote nothing the logs hold. Two ranks named are a tie.
TEST(Culprit, TheDesyncReportNamesTheRankTheOthersWaitedFor) {
  auto node = [](const std::string& host, int first, const std::string& report, bool prefixed) {
    std::string log = "+ torchrun --nnodes 2 --nproc_per_node 3 --node_rank " + std::to_string(first / 3) +
                      " --master_addr 172.31.4.9 --master_port 29511 finetune.py\n";
    std::vector<Row> rows;
    for (int r = first; r < first + 3; ++r) {
      const std::string b = prefixed ? "[rank" + std::to_string(r) + "]:" : "";
      log += b + "[E ProcessGroupNCCL.cpp:475] [Rank " + std::to_string(r) +
             "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=218, OpType=ALLREDUCE, NumelIn=1048576, "
             "NumelOut=1048576, Timeout(ms)=1200000) ran for 1200104 milliseconds before timing out.\n";
      if (r == first && !report.empty()) {
        log += b + "[E ProcessGroupNCCL.cpp:489] [Rank " + std::to_string(r) + "] \n";
        std::size_t at = 0;
        for (std::size_t nl; (nl = report.find('\n', at)) != std::string::npos; at = nl + 1) log += b + report.substr(at, nl - at) + "\n";
      }
      log += b + "terminate called after throwing an instance of 'c10::DistBackendError'\n";
      rows.push_back({r, r - first, -6, 5100 + r, "2026-11-14_03:12:40", "Signal 6 (SIGABRT) received by PID " + std::to_string(5100 + r)});
    }
    return std::make_pair(host + "/out.log", log + failure_table(host, rows));
  };
  struct Case {
    std::string report;
    bool prefixed;
    int rank;
    std::string node, why;
  };
  const std::string header = "\t - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:\n";
  for (const Case& c :
       {Case{header + "\t   - [4] joined but didn't finish collective #218 (count from 1)\n\t - Snapshot of ranks' latest states:\n"
                      "\t   #218 started ranks:\n\t     [4] started ALLREDUCE\n",
             true, 4, "h100-b2.train.example", "Rank 3's desync report"},
        // No prefix: the report's lines do not say whose it is.
        Case{header + "\t     [1] finished collective #217, but didn't join collective #218 (count from 1)\n", false, 1, "h100-b1.train.example",
             "A desync report"},
        Case{"\t - To our best knowledge, ranks [9] are the lagging ranks that caused this timeout. They never joined any collectives\n", true,
             9, "", "Rank 3's desync report"}}) {
    analysis::Inputs in;
    in.texts.push_back(node("h100-b1.train.example", 0, c.rank == 1 ? c.report : "", c.prefixed));
    in.texts.push_back(node("h100-b2.train.example", 3, c.rank == 1 ? "" : c.report, c.prefixed));
    const json v = report_of(std::move(in))["verdict"];
    EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
    EXPECT_EQ(v["rule"], "torch.desync-report") << v.dump(1);
    EXPECT_EQ(v["rank"], c.rank) << v.dump(1);
    if (!c.node.empty()) {
      EXPECT_EQ(v["node"], c.node) << v.dump(1);
    }
    ASSERT_TRUE(v.contains("why")) << v.dump(1);
    EXPECT_EQ(v["why"][0].get<std::string>().rfind(c.why, 0), 0u) << v["why"].dump();
    EXPECT_NE(v["summary"].get<std::string>().find("waiting for rank " + std::to_string(c.rank)), std::string::npos) << v["summary"];
  }
  // Two ranks of one node that never joined the next collective: a tie on that node.
  analysis::Inputs tie;
  tie.texts.push_back(node("h100-b1.train.example", 0, "", true));
  tie.texts.push_back(node("h100-b2.train.example", 3, header + "\t     [4, 5] finished collective #217, but didn't join collective #218 (count from 1)\n", true));
  const json v = report_of(std::move(tie))["verdict"];
  EXPECT_EQ(v["rule"], "torch.desync-report") << v.dump(1);
  EXPECT_FALSE(v.contains("rank") && !v["rank"].is_null()) << v.dump(1);
  EXPECT_EQ(v["node"], "h100-b2.train.example") << v.dump(1);
  EXPECT_EQ(v["ranks_tied"], json::array({4, 5})) << v.dump(1);
}

TEST(Culprit, TheRankThatTimedOutInAnotherCollectiveFellOutOfStep) {
  auto node = [](const std::string& host, int first, int odd, const std::string& common, const std::string& odd_work, const std::string& pg) {
    std::string log = "+ torchrun --nnodes 2 --nproc_per_node 3 --node_rank " + std::to_string(first / 3) + " --master_addr 10.20.0.5 --master_port 23456 sft.py\n";
    std::vector<Row> rows;
    for (int r = first; r < first + 3; ++r) {
      const std::string b = "[rank" + std::to_string(r) + "]:";
      log += b + "[E ProcessGroupNCCL.cpp:1316] [PG " + (r == odd ? pg : "0") + " Rank " + std::to_string(r) + "] " + (r == odd ? odd_work : common) + "\n";
      log += b + "[E ProcessGroupNCCL.cpp:577] [Rank " + std::to_string(r) + "] Some NCCL operations have failed or timed out.\n";
      log += b + "terminate called after throwing an instance of 'c10::DistBackendError'\n";
      rows.push_back({r, r - first, -6, 7700 + r, "2026-10-09_17:45:02", "Signal 6 (SIGABRT) received by PID " + std::to_string(7700 + r)});
    }
    return std::make_pair(host + "/rank-logs.txt", log + failure_table(host, rows));
  };
  auto watchdog = [](int seq, const std::string& op) {
    return "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" + std::to_string(seq) + ", OpType=" + op +
           ", NumelIn=8, NumelOut=64, Timeout(ms)=600000) ran for 600031 milliseconds before timing out.";
  };
  auto work = [](int seq) {
    return "Timeout at NCCL work: " + std::to_string(seq) + ", last enqueued NCCL work: " + std::to_string(seq) +
           ", last completed NCCL work: " + std::to_string(seq - 1) + ".";
  };
  struct Case {
    std::string common, odd, said;
  };
  for (const Case& c : {Case{work(5120), work(5121), "SeqNum 5121 against SeqNum 5120"},
                        Case{watchdog(311, "ALLREDUCE"), watchdog(311, "ALLGATHER"), "ALLGATHER, SeqNum 311 against ALLREDUCE, SeqNum 311"}}) {
    analysis::Inputs in;
    in.texts.push_back(node("dgx-17.corp.example", 0, -1, c.common, c.odd, "0"));
    in.texts.push_back(node("dgx-22.corp.example", 3, 4, c.common, c.odd, "0"));
    const json v = report_of(std::move(in))["verdict"];
    EXPECT_EQ(v["category"], "collective-mismatch") << v.dump(1);
    EXPECT_EQ(v["rank"], 4) << v.dump(1);
    EXPECT_EQ(v["node"], "dgx-22.corp.example") << v.dump(1);
    EXPECT_NE(v["summary"].get<std::string>().find(c.said), std::string::npos) << v["summary"];
    ASSERT_TRUE(v.contains("why")) << v.dump(1);
    EXPECT_EQ(v["why"][0].get<std::string>().rfind("5 ranks timed out in ", 0), 0u) << v["why"].dump();
  }
  // The same numbers counted in another process group, or numbers far apart: not a step out of line;
  // every rank timed out, and the watchdog's aborts (SIGABRT in every row) are its teardown, not a
  // worker's crash.
  for (const auto& [odd, pg] : {std::pair{work(5121), std::string("2 (tp_group)")}, std::pair{work(77), std::string("0")}}) {
    analysis::Inputs other;
    other.texts.push_back(node("dgx-17.corp.example", 0, -1, work(5120), odd, pg));
    other.texts.push_back(node("dgx-22.corp.example", 3, 4, work(5120), odd, pg));
    const json v = report_of(std::move(other))["verdict"];
    EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
  }
  // PyTorch 2.4: only one rank timed out; the others' dump-signal lines say how far each got. The one
  // rank a work ahead of four others is named, on either node; two ranks apart from the rest are not.
  auto dumps = [](const std::vector<int>& enqueued) {
    analysis::Inputs in;
    for (int n = 0; n < 2; ++n) {
      std::string log;
      for (int r = n * 3; r < n * 3 + 3; ++r)
        log += "[rank" + std::to_string(r) + "]:[E1130 02:41:0" + std::to_string(r) + ".1 " + std::to_string(4400 + r) +
               " ProcessGroupNCCL.cpp:1375] [PG ID 0 PG GUID 0(default_pg) Rank " + std::to_string(r) +
               "] Received a dump signal due to a collective timeout from  rank 3 and we will try our best to dump the debug info. "
               "Last enqueued NCCL work: " + std::to_string(enqueued[r]) + ", last completed NCCL work: 640.\n";
      in.texts.emplace_back(std::string(n == 0 ? "h100-a" : "h100-b") + "/train.log", log);
    }
    return report_of(std::move(in))["verdict"];
  };
  const json ahead = dumps({640, 640, 640, 642, 640, 640});
  EXPECT_EQ(ahead["category"], "collective-mismatch") << ahead.dump(1);
  EXPECT_EQ(ahead["rank"], 3) << ahead.dump(1);
  EXPECT_EQ(ahead["node"], "h100-b") << ahead.dump(1);
  const json two = dumps({640, 640, 641, 641, 640, 640});
  EXPECT_EQ(two["category"], "collective-timeout") << two.dump(1);
}

// A hang: every rank but one reports the watchdog timeout; the silent one was stopped by its own
// launcher after a neighbour failed. It is named, not the first row of the failure table.
TEST(Culprit, TheSilentRankStoppedByItsOwnLauncher) {
  analysis::Inputs in;
  const char* hosts[] = {"g0113", "g0114"};
  for (int n = 0; n < 2; ++n) {
    std::string log = "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank " + std::to_string(n) + " --master_addr g0113 main.py\n";
    std::vector<Row> rows;
    for (int l = 0; l < 2; ++l) {
      const int rank = n * 2 + l;
      if (rank == 2) {
        rows.push_back({rank, l, -15, 6200 + rank, "2026-02-11_23:59:12", "Signal 15 (SIGTERM) received by PID 6202"});
        continue;
      }
      log += "[rank" + std::to_string(rank) + "]:[E211 23:59:0" + std::to_string(rank) + ".5 " + std::to_string(6200 + rank) +
             " ProcessGroupNCCL.cpp:616] [Rank " + std::to_string(rank) +
             "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1204, OpType=ALLREDUCE, NumelIn=4096, NumelOut=4096, "
             "Timeout(ms)=600000) ran for 600107 milliseconds before timing out.\n";
      rows.push_back({rank, l, -6, 6200 + rank, "2026-02-11_23:59:11", "Signal 6 (SIGABRT) received by PID " + std::to_string(6200 + rank)});
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.time < b.time; });
    log += failure_table(hosts[n], rows);
    in.texts.emplace_back(std::string(hosts[n]) + "/stdout.log", log);
  }
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
  EXPECT_EQ(v["rank"], 2) << v.dump(1);
  EXPECT_EQ(v["node"], "g0114");
  ASSERT_TRUE(v.contains("why")) << v.dump(1);
  EXPECT_NE(v["why"][0].get<std::string>().find("rank 2 never did"), std::string::npos) << v["why"].dump();
}

// c10d rendezvous: an agent that cannot host the store logs EADDRINUSE and goes on as a client; its
// workers train to the end. That is a warning, not the job's cause.
// srun -l with no host names: every node's launcher writes to one file, each line behind its task
// label. One task's launcher fails to bind and stops there; the other tasks' workers run. Their
// lines are not the failed task's: the bind failure is the cause, not a failure the node got past.
TEST(Culprit, OneSrunTasksLaunchFailureIsNotPassedByTheOtherTasksWorkers) {
  std::string out;
  for (int t = 0; t < 3; ++t)
    out += std::to_string(t) + ": + torchrun --nnodes 3 --nproc_per_node 2 --node_rank " + std::to_string(t) +
           " --master_addr 10.30.1.5 --master_port 41577 train.py\n";
  out += "0: W0411 17:02:09.530112 8841 socket.cpp:426] [c10d] The server socket has failed to bind to 0.0.0.0:41577 (errno: 98 - "
         "Address already in use).\n"
         "0: E0411 17:02:09.530177 8841 socket.cpp:462] [c10d] The server socket has failed to listen on any local network address.\n"
         "0: Traceback (most recent call last):\n"
         "0:   File \"/usr/lib/python3/dist-packages/torch/distributed/run.py\", line 762, in main\n"
         "0: RuntimeError: The server socket has failed to listen on any local network address. The server socket has failed to "
         "bind to 0.0.0.0:41577 (errno: 98 - Address already in use).\n";
  for (int t = 1; t < 3; ++t)
    for (int l = 0; l < 2; ++l) out += std::to_string(t) + ": [default" + std::to_string(l) + "]:waiting for the store\n";
  analysis::Inputs in;
  in.texts.emplace_back("slurm-88120.out", out);
  const json rep = report_of(std::move(in));
  EXPECT_EQ(rep["verdict"]["category"], "port-in-use") << rep["verdict"].dump(1);
  EXPECT_EQ(rep["verdict"]["rule"], "launcher.port-in-use") << rep["verdict"].dump(1);
}

TEST(Culprit, ALaunchFailureTheNodeGotPastIsAWarning) {
  analysis::Inputs in;
  std::string b = "+ torchrun --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint 10.9.0.1:29400 train.py\n"
                  "W0509 08:00:01.120000 901 socket.cpp:426] [c10d] The server socket has failed to bind to [::]:29400 (errno: 98 - "
                  "Address already in use).\n"
                  "E0509 08:00:01.121000 901 socket.cpp:462] [c10d] The server socket has failed to listen on any local network address.\n";
  for (int s = 0; s < 12; ++s) b += "[default0]:epoch 0 step " + std::to_string(s) + " loss 2.3" + std::to_string(s) + "\n";
  std::string a = "+ torchrun --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint 10.9.0.1:29400 train.py\n";
  for (int s = 0; s < 12; ++s) a += "[default0]:epoch 0 step " + std::to_string(s) + " loss 2.4" + std::to_string(s) + "\n";
  analysis::Inputs healthy;
  healthy.texts.emplace_back("nodeA/torchrun.out", a);
  healthy.texts.emplace_back("nodeB/torchrun.out", b);
  const json rep = report_of(std::move(healthy));
  EXPECT_EQ(rep["verdict"]["status"], "healthy") << rep["verdict"].dump(1);
  bool warned = false;
  for (const json& f : rep["findings"]) warned = warned || (f["category"] == "port-in-use" && f["role"] == "warning");
  EXPECT_TRUE(warned) << rep["findings"].dump(1);

  // The same bind failure where nothing followed: the launch stopped there.
  analysis::Inputs stuck;
  stuck.texts.emplace_back("nodeB/torchrun.out", b.substr(0, b.find("[default0]")) +
                                                     traceback("", "torch.distributed.DistNetworkError: The server socket has failed to listen on any "
                                                                   "local network address. The server socket has failed to bind to [::]:29400 "
                                                                   "(errno: 98 - Address already in use)."));
  EXPECT_EQ(report_of(std::move(stuck))["verdict"]["category"], "port-in-use");
}

// --max_restarts: attempt 0 failed, the launcher restarted the workers, and they trained to the end
// without a failure table. The run is healthy; the failure it survived is kept as a warning.
TEST(Culprit, ARestartThatRecoveredLeavesAHealthyRun) {
  std::string log = "+ torchrun --nnodes 1 --nproc_per_node 2 --max_restarts 2 sft.py\n";
  for (int s = 0; s < 4; ++s) log += "step " + std::to_string(s) + " loss 1.0" + std::to_string(s) + "\n";
  log += traceback("", "FileNotFoundError: [Errno 2] No such file or directory: '/data/shard-00017.bin'");
  log += "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 22871) of binary: /usr/bin/python3\n";
  std::string after;
  for (int s = 0; s < 30; ++s) after += "step " + std::to_string(s) + " loss 0.9" + std::to_string(s) + "\n";
  analysis::Inputs in;
  in.texts.emplace_back("h100-node/train.log", log + after);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["status"], "healthy") << v.dump(1);
  EXPECT_NE(v["summary"].get<std::string>().find("went on after a failure"), std::string::npos) << v.dump(1);

  // Restarts exhausted: the launcher gave up with its failure table; the failure is the cause.
  analysis::Inputs failed;
  failed.texts.emplace_back("h100-node/train.log", log + failure_table("h100-node", {{1, 1, 1, 22871, "2026-05-30_14:00:09"}}));
  const json w = report_of(std::move(failed))["verdict"];
  EXPECT_EQ(w["status"], "failed") << w.dump(1);
  EXPECT_EQ(w["category"], "worker-exception");
}

// `text` with `label` before each of its lines (srun -l, kubectl logs --prefix).
std::string prefixed(const std::string& label, const std::string& text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    out += label + text.substr(at, nl - at) + "\n";
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  return out;
}

// A worker's traceback behind a Ray prefix names its pid, not its rank; the launcher's failure row
// of that pid does. The traceback is tied to the rank and node, and the verdict names them. The same
// when the driver's log comes from the driver node's journal: every line then carries that node's
// name, but a line forwarded from "(RayTrainWorker pid=N, ip=..)" is the worker's, on its own node.
TEST(Culprit, RanksBehindAPlatformPrefixAreTiedBackThroughTheirPid) {
  for (const std::string journal : {"", "Aug 14 06:30:03 headnode-7 python3[5120]: "}) {
    analysis::Inputs in;
    const std::string driver =
        traceback("(RayTrainWorker pid=48213, ip=10.2.0.5) ", "ZeroDivisionError: division by zero") +
        traceback("(RayTrainWorker pid=48190, ip=10.2.0.4) ",
                  "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.2.0.5]:3321");
    in.texts.emplace_back("driver/job-driver-raysubmit_x.log", journal.empty() ? driver : prefixed(journal, driver));
    in.texts.emplace_back("w2/launcher.log", "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 1 --redirects 3 train.py\n" +
                                                 failure_table("w2", {{3, 1, 1, 48213, "2026-08-14_06:30:02"}}));
    in.texts.emplace_back("w1/launcher.log", "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 0 --redirects 3 train.py\n" +
                                                 failure_table("w1", {{0, 0, 1, 48190, "2026-08-14_06:30:02"}}));
    const json v = report_of(std::move(in))["verdict"];
    EXPECT_EQ(v["category"], "worker-exception") << journal << v.dump(1);
    EXPECT_EQ(v["rank"], 3) << journal << v.dump(1);
    EXPECT_EQ(v["node"], "w2") << journal << v.dump(1);
  }
}

std::string launcher_failed(int local, int pid) {
  return "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: " + std::to_string(local) + " (pid: " +
         std::to_string(pid) + ") of binary: /usr/bin/python3\n";
}

// One node, --tee: rank 0 aborted (SIGABRT, no line of its own); its launcher found it and rank 1
// (a lost peer) failed, sent the closing signal to local ranks 2 and 3, and then rank 3 printed a
// ValueError, undated, before the launcher's own "failed" line. The failure table lists the
// workers the launcher found failed before it stopped the others: rank 3 is not in it, so its
// exception came after rank 0's abort, though the stream shows it first.
TEST(Culprit, ARankMissingFromItsNodesFailureTableFailedAfterTheListedOnes) {
  std::string log = "+ torchrun --nnodes 1 --nproc_per_node 4 --tee 3 pretrain.py\n";
  for (int s = 30; s < 33; ++s)
    for (int l = 0; l < 4; ++l) log += "[default" + std::to_string(l) + "]:iter " + std::to_string(s) + " | loss 1.9" + std::to_string(l) + "\n";
  log += peer_lost("[default1]:", "127.0.0.1") +
         "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 81804 closing signal SIGTERM\n"
         "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 81805 closing signal SIGTERM\n" +
         traceback("[default3]:", "IndexError: index 4096 is out of bounds for dimension 0 with size 4096") +
         "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 0 (pid: 81802) of binary: /usr/bin/python3\n" +
         failure_table("a800-07", {{0, 0, -6, 81802, "2026-02-02_03:04:05", "Signal 6 (SIGABRT) received by PID 81802"}, {1, 1, 1, 81803, "2026-02-02_03:04:05"}});
  analysis::Inputs in;
  in.texts.emplace_back("a800-07/pretrain.log", log);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-signal") << v.dump(1);
  EXPECT_EQ(v["rank"], 0) << v.dump(1);
  EXPECT_NE(v["why"].dump().find("is not in a800-07's failure table"), std::string::npos) << v.dump(1);
}

// Plain output (no rank prefix) and a restart: each attempt, a worker's own KeyError traceback on
// ws-3, its peers' lost-peer tracebacks, and the launcher's "failed (exitcode: 1) local_rank: L" line.
// In the attempt before, ws-3's launcher sent the closing signal to local ranks 0 and 1 (still
// running) and named local rank 2 failed, and the same KeyError came there: the failure the restart
// did not cure is rank 5's, though the last attempt's exits tie in one second. Had it stopped one
// worker only, two had failed when it looked (the line names the lowest of a second's failures):
// then the tie stands.
TEST(Culprit, TheRankWhoseProcessFailedFirstAloneInTheAttemptBeforeRecurs) {
  const std::string launcher = "INFO:torch.distributed.elastic.agent.server.api:";
  auto attempt = [&](int first_local, int base_pid, bool own, int stopped) {
    std::string s = own ? traceback("", "KeyError: 'labels'") : "";
    for (int k = 0; k < (own ? 2 : 3); ++k) s += peer_lost("", own ? "10.5.0.2" : "10.5.0.3");
    for (int k = 0; k < stopped; ++k)
      s += "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process " + std::to_string(base_pid + k) + " closing signal SIGTERM\n";
    return s + launcher_failed(first_local, base_pid + first_local);
  };
  const std::string restart = launcher + "[default] Worker group FAILED. 1/1 attempts left; will restart worker group\n";
  auto job = [&](int stopped_before) {
    std::string a = "+ torchrun --nnodes 2 --nproc_per_node 3 --node_rank 0 --master_addr ws-2 --master_port 29602 --max_restarts 1 sft.py\n" +
                    attempt(0, 5100, false, 0) + restart + attempt(0, 5200, false, 0) +
                    failure_table("ws-2", {{0, 0, 1, 5200, "2026-06-21_09:12:40"}, {1, 1, 1, 5201, "2026-06-21_09:12:40"}, {2, 2, 1, 5202, "2026-06-21_09:12:40"}});
    std::string b = "+ torchrun --nnodes 2 --nproc_per_node 3 --node_rank 1 --master_addr ws-2 --master_port 29602 --max_restarts 1 sft.py\n" +
                    attempt(2, 6100, true, stopped_before) + restart + attempt(0, 6200, true, 0) +
                    failure_table("ws-3", {{3, 0, 1, 6200, "2026-06-21_09:12:39"}, {4, 1, 1, 6201, "2026-06-21_09:12:39"}, {5, 2, 1, 6202, "2026-06-21_09:12:39"}});
    analysis::Inputs in;
    in.texts.emplace_back("ws-2/sft.log", a);
    in.texts.emplace_back("ws-3/sft.log", b);
    return report_of(std::move(in))["verdict"];
  };
  const json v = job(2);
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["node"], "ws-3") << v.dump(1);
  EXPECT_EQ(v["rank"], 5) << v.dump(1);
  EXPECT_NE(v["why"].dump().find("alone failed and stopped the node's other workers"), std::string::npos) << v.dump(1);
  const json tie = job(1);
  EXPECT_TRUE(tie["rank"].is_null()) << tie.dump(1);
  EXPECT_EQ(tie["ranks_tied"], json::parse("[3, 4, 5]")) << tie.dump(1);
}

// Ray Train's driver log forwards each worker's lines behind "(RayTrainWorker pid=N, ip=A)", no rank
// on them; each node's launcher names the pid of the worker it saw fail and of those it stopped.
// A pid no launcher line ties to a rank takes its node from the ip that the node's other workers'
// lines were tied to; on each node, as many such reporting pids as ranks with no line of their own
// say those ranks reported. The one rank left (on the node where no unknown pid reported) is the
// one the others waited for.
TEST(Culprit, RayWorkersOfOneMachineShareItsNodeAndTheirReportsCountThere) {
  const std::string timeout = "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete";
  auto ray = [&](int pid, const std::string& ip) { return traceback("(RayTrainWorker pid=" + std::to_string(pid) + ", ip=" + ip + ") ", timeout); };
  analysis::Inputs in;
  in.texts.emplace_back("job-driver-raysubmit_Qw7.log",
                        ray(7100, "10.7.0.21") + ray(7201, "10.7.0.22") + ray(7101, "10.7.0.21") + ray(7200, "10.7.0.22") + ray(7300, "10.7.0.23"));
  const std::vector<std::string> hosts = {"ml-a", "ml-b", "ml-c"};
  for (int n = 0; n < 3; ++n) {
    const int pid = 7100 + 100 * n;
    in.texts.emplace_back(hosts[n] + "/launcher.log",
                          "+ torchrun --nnodes 3 --nproc_per_node 2 --node_rank " + std::to_string(n) +
                              " --master_addr ml-a --master_port 29400 --redirects 3 train.py\n" + launcher_failed(0, pid) +
                              "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process " + std::to_string(pid + 1) +
                              " closing signal SIGTERM\n");
  }
  const json r = report_of(std::move(in));
  const json& v = r["verdict"];
  EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
  EXPECT_EQ(v["node"], "ml-c") << v.dump(1);
  EXPECT_EQ(v["rank"], 5) << v.dump(1);
}

// One launcher's output holds every restart attempt (--tee into one file, kubectl logs): torchrun
// logs "failed (exitcode" when a worker fails, starts the workers again, and gives up at the end.
// Attempt 0 failed on rank 3 (ValueError), the last attempt on rank 1 (OSError): the last attempt
// decides; the earlier failure is a warning the run went on after.
TEST(Culprit, OnlyTheLastAttemptOfARestartedStreamDecides) {
  analysis::Inputs in;
  in.texts.emplace_back("tq-11/launcher.out",
                        "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 0 --max_restarts 1 --tee 3 fit.py\n" +
                            peer_lost("[default0]:", "10.9.1.12") + launcher_failed(0, 5101) +
                            traceback("[default1]:", "OSError: [Errno 5] Input/output error: '/ckpt/shard-3.pt'") + launcher_failed(1, 5230) +
                            failure_table("tq-11", {{1, 1, 1, 5230, "2026-09-03_02:14:40"}}));
  in.texts.emplace_back("tq-12/launcher.out",
                        "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 1 --max_restarts 1 --tee 3 fit.py\n" +
                            traceback("[default1]:", "ValueError: batch of 17 rows, expected 16") + launcher_failed(1, 6102) +
                            peer_lost("[default0]:", "10.9.1.11") + launcher_failed(0, 6210) +
                            failure_table("tq-12", {{2, 0, 1, 6210, "2026-09-03_02:14:41"}}));
  const json rep = report_of(std::move(in));
  const json& v = rep["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["rank"], 1) << v.dump(1);
  EXPECT_EQ(v["node"], "tq-11") << v.dump(1);
  EXPECT_NE(v["summary"].get<std::string>().find("OSError"), std::string::npos) << v.dump(1);
  bool earlier_is_warning = false;
  for (const json& f : rep["findings"])
    if (f["summary"].get<std::string>().find("ValueError") != std::string::npos) earlier_is_warning = f["role"] == "warning";
  EXPECT_TRUE(earlier_is_warning) << rep["findings"].dump(1);
}

// Without a restart, a worker's lines that arrive after the launcher's "failed (exitcode" line
// (its output is copied by another thread) are not a new attempt: the failure before them stands.
TEST(Culprit, AWorkersLateLinesAreNotANewAttempt) {
  analysis::Inputs in;
  in.texts.emplace_back("ml-gpu-4/stdout.txt",
                        "+ torchrun --nnodes 1 --nproc_per_node 2 fit.py\n" +
                            traceback("[default1]:", "IndexError: index 4096 is out of bounds for dimension 0 with size 4096") +
                            launcher_failed(1, 801) + peer_lost("[default0]:", "127.0.0.1") +
                            failure_table("ml-gpu-4", {{1, 1, 1, 801, "2026-10-20_17:05:12"}, {0, 0, 1, 800, "2026-10-20_17:05:12"}}));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["rank"], 1) << v.dump(1);
  EXPECT_NE(v["summary"].get<std::string>().find("IndexError"), std::string::npos) << v.dump(1);
}

// srun -l puts every node's launcher in one file behind task labels. Each task's failure table
// names its host; the task's other lines take it. Nodes run uneven --nproc_per_node: the second
// node's ranks start after the first node's one rank.
TEST(Culprit, SrunTasksTakeTheHostTheirFailureTableNames) {
  auto labelled = prefixed;
  analysis::Inputs in;
  in.texts.emplace_back("slurm-90210.out",
                        labelled("0: ", "+ torchrun --nnodes 2 --nproc_per_node 1 --node_rank 0 --master_addr hpc-c3n1 fit.py\n") +
                            labelled("1: ", "+ torchrun --nnodes 2 --nproc_per_node 3 --node_rank 1 --master_addr hpc-c3n1 fit.py\n") +
                            labelled("1: ", traceback("[default2]:", "KeyError: 'attention_mask'")) +
                            labelled("0: ", peer_lost("[default0]:", "10.1.3.2")) +
                            labelled("1: ", failure_table("hpc-c3n2", {{3, 2, 1, 9120, "2026-11-11_08:00:05"}})) +
                            labelled("0: ", failure_table("hpc-c3n1", {{0, 0, 1, 9001, "2026-11-11_08:00:06"}})));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["rank"], 3) << v.dump(1);
  EXPECT_EQ(v["node"], "hpc-c3n2") << v.dump(1);
}


// c10d rendezvous with the endpoint on the agents' own host: every agent but the one that hosts the
// store fails to bind its port and joins as a client. When a node never arrives and no worker
// starts, the missing node is the cause, not the bind lines.
TEST(Culprit, C10dAgentsThatJoinAsClientsDoNotHideAMissingNode) {
  const std::string launch = "torchrun --nnodes 3 --nproc_per_node 4 --rdzv_backend c10d --rdzv_endpoint localhost:36117 --rdzv_id j81 fit.py\n";
  const std::string bind =
      "W1104 07:31:12.004411 881 socket.cpp:426] [c10d] The server socket has failed to bind to 0.0.0.0:36117 (errno: 98 - Address already "
      "in use).\nE1104 07:31:12.004502 881 socket.cpp:462] [c10d] The server socket has failed to listen on any local network address.\n";
  analysis::Inputs in;
  in.texts.emplace_back("qa-n1/agent.log", "+ " + launch);
  in.texts.emplace_back("qa-n2/agent.log", "+ " + launch + bind);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "rendezvous-failure") << v.dump(1);

  // One agent alone with the bind failure: the port is held by something else.
  analysis::Inputs alone;
  alone.texts.emplace_back("qa-n2/agent.log", "+ " + launch + bind);
  EXPECT_EQ(report_of(std::move(alone))["verdict"]["category"], "port-in-use");
}

// Launchers behind srun -l labels, no host known: the one whose --master_port differs is named by
// its task.
TEST(Culprit, AnSrunTaskWhoseMasterPortDiffersIsNamed) {
  analysis::Inputs in;
  in.texts.emplace_back("slurm-4411.out",
                        "0: + torchrun --nnodes 3 --nproc_per_node 2 --node_rank 0 --master_addr 10.0.0.5 --master_port 29400 fit.py\n"
                        "1: + torchrun --nnodes 3 --nproc_per_node 2 --node_rank 1 --master_addr 10.0.0.5 --master_port 29400 fit.py\n"
                        "2: + torchrun --nnodes 3 --nproc_per_node 2 --node_rank 2 --master_addr 10.0.0.5 --master_port 29401 fit.py\n");
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "rendezvous-failure") << v.dump(1);
  EXPECT_EQ(v["node"], "srun task 2") << v.dump(1);
}

// srun -l, one torchrun per task, no host in any line: the launcher that could not bind the store's
// port is named by its task (task N runs on the allocation's N-th node). Where the tasks are the
// ranks themselves (no launcher), a task is no node and none is named.
TEST(Culprit, AnSrunTaskWhoseStorePortIsTakenIsNamed) {
  std::string out;
  for (int t = 0; t < 4; ++t)
    out += std::to_string(t) + ": + torchrun --nnodes=4 --nproc-per-node=8 --node-rank=" + std::to_string(3 - t) +
           " --master-addr=gn-7 --master-port=41877 pretrain.py\n";
  out += "3: [W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:41877 (errno: 98 - Address already in use).\n"
         "3: [W socket.cpp:464] [c10d] The server socket has failed to bind to 0.0.0.0:41877 (errno: 98 - Address already in use).\n"
         "3: [E socket.cpp:500] [c10d] The server socket has failed to listen on any local network address.\n";
  analysis::Inputs in;
  in.texts.emplace_back("job-88213/slurm-88213.out", out);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "port-in-use") << v.dump(1);
  EXPECT_EQ(v["node"], "srun task 3") << v.dump(1);

  analysis::Inputs ranks;
  ranks.texts.emplace_back("job-88214/slurm-88214.out",
                           "2: [W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:41877 (errno: 98 - Address "
                           "already in use).\n"
                           "2: [E socket.cpp:500] [c10d] The server socket has failed to listen on any local network address.\n");
  const json w = report_of(std::move(ranks))["verdict"];
  EXPECT_EQ(w["category"], "port-in-use") << w.dump(1);
  EXPECT_TRUE(w["node"].is_null()) << w.dump(1);
}

// --redirects sends the workers' output to files of their own; the launchers' logs end at their
// "failed (exitcode" lines while the restarted workers go on in a platform's log (a Ray driver's).
// No launcher gave up: the restart recovered.
TEST(Culprit, ARestartSeenGoingOnInAnotherLogRecovered) {
  std::string driver = traceback("(RayTrainWorker pid=7710, ip=10.6.0.3) ", "ValueError: loss is nan at step 12");
  for (int s = 0; s < 8; ++s) driver += "(RayTrainWorker pid=7801, ip=10.6.0.3) step " + std::to_string(s) + "/8 loss 0." + std::to_string(40 - s) + "\n";
  analysis::Inputs in;
  in.texts.emplace_back("driver/job-driver-raysubmit_q.log", driver);
  in.texts.emplace_back("gx-1/torchrun.out", "+ torchrun --nnodes 2 --nproc_per_node 1 --node_rank 0 --max_restarts 2 --redirects 3 fit.py\n" +
                                                  launcher_failed(0, 7710));
  in.texts.emplace_back("gx-2/torchrun.out", "+ torchrun --nnodes 2 --nproc_per_node 1 --node_rank 1 --max_restarts 2 --redirects 3 fit.py\n" +
                                                  launcher_failed(0, 7712));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["status"], "healthy") << v.dump(1);
}

// A Ray driver's log names workers by pid alone. The group of 4 ranks was restarted once: the
// first 4 processes by first line are attempt 0's (the launchers place two of them there, and the
// last attempt's three that printed), so attempt 0's ValueError of a process no launcher names is
// no longer the last attempt's failure: the last attempt hung on rank 0 (its launcher stopped it,
// every other rank timed out). Where the file's processes do not split so (one more process first:
// the fourth by first line is then one the launcher places in attempt 0), nothing is placed and
// the ValueError stands.
TEST(Culprit, AnUnrankedWorkersExceptionInAPlatformLogBelongsToItsAttempt) {
  auto job = [](bool extra) {
    auto ray = [](int pid, const std::string& ip, const std::string& text) {
      return prefixed("(RayTrainWorker pid=" + std::to_string(pid) + ", ip=" + ip + ") ", text);
    };
    const std::string timeout =
        "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete";
    std::string driver = extra ? ray(3290, "10.8.0.11", peer_lost("", "10.8.0.12")) : "";
    driver += ray(3301, "10.8.0.11", peer_lost("", "10.8.0.12")) + ray(3302, "10.8.0.11", peer_lost("", "10.8.0.12")) +
                         ray(3412, "10.8.0.12", traceback("", "ValueError: shapes (16, 512) and (384,) not aligned")) +
                         ray(3411, "10.8.0.12", peer_lost("", "10.8.0.11"));
    driver += ray(3351, "10.8.0.11", traceback("", timeout)) + ray(3450, "10.8.0.12", traceback("", timeout)) +
              ray(3451, "10.8.0.12", traceback("", timeout));
    const std::string restart =
        "INFO:torch.distributed.elastic.agent.server.api:[default] Worker group FAILED. 1/1 attempts left; will restart worker group\n";
    analysis::Inputs in;
    in.texts.emplace_back("ray/job-driver-raysubmit_7Hq2.log", driver);
    in.texts.emplace_back("tr-a7/torchrun.out",
                          "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 0 --master_addr tr-a7 --master_port 29611 --max_restarts 1 "
                          "--redirects 3 fit.py\n" +
                              launcher_failed(0, 3301) + restart +
                              "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 3350 closing signal SIGTERM\n" +
                              launcher_failed(1, 3351) + failure_table("tr-a7", {{1, 1, 1, 3351, "2026-10-21_04:12:55"}}));
    in.texts.emplace_back("tr-b2/torchrun.out",
                          "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 1 --master_addr tr-a7 --master_port 29611 --max_restarts 1 "
                          "--redirects 3 fit.py\n" +
                              launcher_failed(0, 3411) + restart + launcher_failed(0, 3450) +
                              failure_table("tr-b2", {{2, 0, 1, 3450, "2026-10-21_04:12:55"}, {3, 1, 1, 3451, "2026-10-21_04:12:55"}}));
    return report_of(std::move(in))["verdict"];
  };
  const json v = job(false);
  EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
  EXPECT_EQ(v["node"], "tr-a7") << v.dump(1);
  EXPECT_EQ(v["rank"], 0) << v.dump(1);
  const json w = job(true);
  EXPECT_EQ(w["category"], "worker-exception") << w.dump(1);
}


// kubectl logs --prefix puts every pod in one stream; no line but a pod's failure table names its
// host. Plain worker output: the one traceback of a worker's own is tied to no rank, yet it is on
// one pod: that pod is named. Its failure table puts both its ranks in one second (the Root Cause
// row is then the lower local rank, no order in time): no rank is named, the two are said as a tie.
TEST(Culprit, APlainTracebackBelongsToItsPodsRanks) {
  auto pod = [](const std::string& name, const std::string& text) { return prefixed("[pod/" + name + "/trainer] ", text); };
  analysis::Inputs in;
  in.texts.emplace_back("pods.log",
                        pod("llm-w0", traceback("", "ZeroDivisionError: float division by zero") + peer_lost("", "10.3.0.9") +
                                          failure_table("llm-w0", {{0, 0, 1, 412, "2026-07-07_10:00:03"}, {1, 1, 1, 413, "2026-07-07_10:00:03"}})) +
                            pod("llm-w1", peer_lost("", "10.3.0.8") + peer_lost("", "10.3.0.8") +
                                              failure_table("llm-w1", {{2, 0, 1, 530, "2026-07-07_10:00:03"}, {3, 1, 1, 531, "2026-07-07_10:00:03"}})));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["node"], "llm-w0") << v.dump(1);
  EXPECT_TRUE(v["rank"].is_null()) << v.dump(1);
  EXPECT_EQ(v["ranks_tied"], json::array({0, 1})) << v.dump(1);
}

// Plain tracebacks in two pods' output, every failure row in one second: the ranks tie across
// nodes. The root's line is from the pod with one worker, so it is that worker's: its rank is named;
// a pod of two workers with the root's line would leave the tie.
TEST(Culprit, ARootLineFromAOneWorkerNodeIsThatWorkers) {
  auto pod = [](const std::string& name, const std::string& text) { return prefixed("[pod/" + name + "/main] ", text); };
  auto job = [&](const std::string& first, int first_workers) {
    std::vector<Row> rows_a{{4, 0, 1, 2201, "2026-03-14_22:41:09"}};
    if (first_workers == 2) rows_a.push_back({5, 1, 1, 2202, "2026-03-14_22:41:09"});
    const int next = 4 + first_workers;
    analysis::Inputs in;
    in.texts.emplace_back("kubectl-logs.txt",
                          pod(first, traceback("", "KeyError: 'labels'") + failure_table(first, rows_a)) +
                              pod("w-b", traceback("", "IndexError: index 9 is out of bounds for dimension 0 with size 9") +
                                             peer_lost("", "10.44.1.7") +
                                             failure_table("w-b", {{next, 0, 1, 3301, "2026-03-14_22:41:09"},
                                                                   {next + 1, 1, 1, 3302, "2026-03-14_22:41:09"}})));
    return report_of(std::move(in))["verdict"];
  };
  const json one = job("w-a", 1);
  EXPECT_EQ(one["category"], "worker-exception") << one.dump(1);
  EXPECT_EQ(one["node"], "w-a") << one.dump(1);
  EXPECT_EQ(one["rank"], 4) << one.dump(1);
  EXPECT_NE(one["why"].dump().find("only one that failed on its own"), std::string::npos) << one.dump(1);
  const json two = job("w-a", 2);
  EXPECT_TRUE(two["rank"].is_null()) << two.dump(1);
  // Undated, the file's order says which pod's traceback leads, not the pods' names.
  const json renamed = job("w-z", 1);
  EXPECT_EQ(renamed["node"], "w-z") << renamed.dump(1);
  EXPECT_EQ(renamed["rank"], 4) << renamed.dump(1);
}

// A scheduler's stop reaches every node at once. On the hung rank's node nothing came before it,
// on the others the timeouts did: the stop is how the hang ended everywhere, not its cause, and
// torchrun's own SignalException traceback is not a worker's error.
TEST(Culprit, AStopThatCameLateOnOneNodeCameLateOnAll) {
  const std::string stop =
      "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers\n"
      "Traceback (most recent call last):\n  File \"/usr/bin/torchrun\", line 8, in <module>\n    sys.exit(main())\n"
      "torch.distributed.elastic.multiprocessing.api.SignalException: Process 3310 got signal: 15\n";
  const std::string timeout = "[rank1]:Traceback (most recent call last):\n[rank1]:  File \"/opt/fit.py\", line 40, in <module>\n"
                              "[rank1]:    dist.all_reduce(t)\n[rank1]:RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] "
                              "Timed out waiting 1800000ms for recv operation to complete\n";
  analysis::Inputs in;
  in.texts.emplace_back("vm-a/out.log", "+ torchrun --nnodes 2 --nproc_per_node 1 --node_rank 0 fit.py\n" + stop);
  in.texts.emplace_back("vm-b/out.log", "+ torchrun --nnodes 2 --nproc_per_node 1 --node_rank 1 fit.py\n" + timeout + stop);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
  EXPECT_EQ(v["rank"], 0) << v.dump(1);
  EXPECT_EQ(v["node"], "vm-a") << v.dump(1);
}

// A collector that stamps lines as it ships them gives a crash and the stop after it one instant:
// the file's order says which came first, and the crash is not taken for the stop's consequence.
TEST(Culprit, AStopOfTheSameInstantAsACrashComesAfterItInItsFile) {
  const std::string at = "2026-06-11T23:40:02.000000000Z ";
  analysis::Inputs in;
  in.texts.emplace_back("pod-w0/train.log",
                        prefixed(at, "+ torchrun --nnodes 2 --nproc_per_node 1 --node_rank 0 fit.py\n"
                                     "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -11) local_rank: 0 (pid: 2231) of "
                                     "binary: /usr/bin/python3\n"
                                     "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers\n"));
  in.texts.emplace_back("pod-w1/train.log", prefixed(at, "+ torchrun --nnodes 2 --nproc_per_node 1 --node_rank 1 fit.py\n" +
                                                             peer_lost("", "10.3.0.7") +
                                                             "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers\n"));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-signal") << v.dump(1);
  EXPECT_EQ(v["node"], "pod-w0") << v.dump(1);
}

// c10d rendezvous, plain output in one srun -l file: no --node_rank places the nodes, no prefix
// names a rank. Task 1's failure rows give its node's first rank (rank - local rank) and its
// --nproc_per_node how many ranks it ran; the one local rank no row names is the process its
// launcher stopped. Everyone else timed out: that rank was still busy, and it is the culprit.
TEST(Culprit, ARankNoRowNamesIsTheOneItsLauncherStopped) {
  std::string log =
      "0: + torchrun --nnodes 2 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint hn-41:29400 --rdzv_id j77 ft.py\n"
      "1: + torchrun --nnodes 2 --nproc_per_node 3 --rdzv_backend c10d --rdzv_endpoint hn-41:29400 --rdzv_id j77 ft.py\n";
  const std::string timeout = "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 60000ms for recv operation to complete";
  for (const char* task : {"0: ", "0: ", "1: ", "1: "}) log += traceback(task, timeout);
  log += "1: WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 81714 closing signal SIGTERM\n";
  auto prefixed = [](const std::string& p, const std::string& text) {
    std::string out, line;
    for (char c : text) {
      if (c != '\n') { line += c; continue; }
      out += p + line + "\n";
      line.clear();
    }
    return out;
  };
  log += prefixed("0: ", failure_table("hn-41", {{0, 0, 1, 70110, "2026-06-11_03:14:52"}, {1, 1, 1, 70111, "2026-06-11_03:14:52"}}));
  log += prefixed("1: ", failure_table("hn-58", {{2, 0, 1, 81712, "2026-06-11_03:14:52"}, {4, 2, 1, 81715, "2026-06-11_03:14:52"}}));
  analysis::Inputs in;
  in.texts.emplace_back("slurm-88120.out", log);
  const json rep = report_of(std::move(in));
  const json& v = rep["verdict"];
  EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
  EXPECT_EQ(v["node"], "hn-58") << v.dump(1);
  EXPECT_EQ(v["rank"], 3) << v.dump(1);
  bool stopped = false;
  for (const json& r : rep["ranks"])
    if (r["rank"] == 3) stopped = r["ending"] == "stopped" && r["local_rank"] == 1 && r["pids"] == json::array({81714});
  EXPECT_TRUE(stopped) << rep["ranks"].dump(1);
}

// "Socket Timeout" while the process group is set up is a rank waiting on the store for peers that
// never came: a report, like a collective timeout. Those ranks' exits are their reporters'; the
// rank that failed before init on the other node is the culprit.
TEST(Culprit, AStoreSocketTimeoutIsAWaitNotAFailure) {
  analysis::Inputs in;
  in.texts.emplace_back("ws-3/run.log", "+ torchrun --nnodes 2 --nproc_per_node 1 --node_rank 0 --master_addr ws-3 --master_port 23456 ft.py\n" +
                                            traceback("", "KeyError: 'MODEL_DIR'") +
                                            "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 5120) of binary: /usr/bin/python3\n");
  in.texts.emplace_back("ws-9/run.log", "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 1 --master_addr ws-3 --master_port 23456 ft.py\n" +
                                            traceback("", "torch.distributed.DistStoreError: Socket Timeout") +
                                            traceback("", "torch.distributed.DistStoreError: Socket Timeout") +
                                            "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 6401) of binary: /usr/bin/python3\n");
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["node"], "ws-3") << v.dump(1);
  EXPECT_EQ(v["rank"], 0) << v.dump(1);
}

// --redirects: the workers write into RUN/attempt_N/; the launcher's own file only says a worker
// failed (once, no failure table) and nothing more. A later attempt folder on that node whose
// workers went on means the restart recovered, even when the replaced attempt's files hold no error
// (the worker exited 1 without a word).
TEST(Culprit, ARestartIntoANewAttemptFolderRecovered) {
  analysis::Inputs in;
  in.texts.emplace_back("gpu-r2/launcher.txt", "+ torchrun --nnodes 1 --nproc_per_node 2 --max_restarts 1 --log_dir logs --redirects 3 ft.py\n"
                                               "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 9011) of binary: /usr/bin/python3\n");
  in.texts.emplace_back("gpu-r2/logs/ft_x1/attempt_0/0/stdout.log", "loading shard 3\n");
  in.texts.emplace_back("gpu-r2/logs/ft_x1/attempt_0/1/stdout.log", "loading shard 4\n");  // it exited 1 without a word
  std::string steps;
  for (int s = 0; s < 12; ++s) steps += "step " + std::to_string(400 + s) + " loss 2.1" + std::to_string(s) + "\n";
  in.texts.emplace_back("gpu-r2/logs/ft_x1/attempt_1/0/stdout.log", steps);
  in.texts.emplace_back("gpu-r2/logs/ft_x1/attempt_1/1/stdout.log", steps);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["status"], "healthy") << v.dump(1);
}


// srun -l: three launchers in one file; one's worker was SIGKILLed, its peers lost it and their
// launchers saw them fail too; every agent restarted (attempt_1 folders, where the workers went
// on training, quietly), until the scheduler stopped the launchers. The kill was survived: what
// ended the job is the stop from outside. When the attempt_1 files hold nothing (the restart never
// got going), the kill still decides.
std::string srun_stopped_after_restart() {
  auto task = [](int t, const std::string& line) { return std::to_string(t) + ": " + line + "\n"; };
  std::string s;
  for (int t = 0; t < 3; ++t) s += task(t, "+ torchrun --nnodes 3 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint hn-01:29411 --max_restarts 2 --log_dir tlogs train.py");
  s += task(0, "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 1 (pid: 41877) of binary: /opt/venv/bin/python");
  s += task(2, "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 41950) of binary: /opt/venv/bin/python");
  s += task(1, "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 41903) of binary: /opt/venv/bin/python");
  for (int t : {1, 0, 2}) s += task(t, "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers");
  return s;
}

// The srun job above with each node's attempt_0 and attempt_1 files, the latter holding `later`
// (progress prints: the restart trained; none: a restart that did not get as far decides nothing).
json srun_restart_verdict(const std::string& later) {
  analysis::Inputs in;
  in.texts.emplace_back("slurm-88121.out", srun_stopped_after_restart());
  for (const char* host : {"hn-01", "hn-02", "hn-03"})
    for (int k = 0; k < 2; ++k) {
      const std::string dir = std::string(host) + "/tlogs/j88121_" + host + "/";
      in.texts.emplace_back(dir + "attempt_0/" + std::to_string(k) + "/stdout.log", " iteration 3040/  500000 | lm loss: 1.61\n");
      in.texts.emplace_back(dir + "attempt_1/" + std::to_string(k) + "/stdout.log", later);
    }
  return report_of(std::move(in))["verdict"];
}

TEST(Culprit, AKillTheRestartGotPastIsNotWhatStoppedTheJob) {
  std::string steps;
  for (int s = 0; s < 9; ++s) steps += " iteration " + std::to_string(3100 + s) + "/  500000 | lm loss: " + std::to_string(1.5 - s * 0.01) + "\n";
  const json v = srun_restart_verdict(steps);
  EXPECT_EQ(v["category"], "external-termination") << v.dump(1);
}

TEST(Culprit, AKillStillDecidesWhenTheRestartNeverRan) {
  const json v = srun_restart_verdict("");
  EXPECT_EQ(v["category"], "worker-signal") << v.dump(1);
}

// Two nodes' --tee output: attempt 0 ended with rank 3's ValueError (its peers lost it), the
// restart's workers joined (the store barrier), and the scheduler stopped both launchers before
// the restart printed a step. `restart_steps` more lines of the restart's workers go before the
// stop, on node 1.
json stopped_restart_verdict(const std::string& restart_steps) {
  const std::string launch = "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank NR --master_addr gx-7 --max_restarts 1 --tee 3 fit.py\n";
  auto joined = [](int local, int rank) {
    return "[default" + std::to_string(local) + "]:2026-11-30 07:41:" + std::to_string(10 + rank) +
           ",512 INFO Added key: store_based_barrier_key:1 to store for rank: " + std::to_string(rank) + "\n";
  };
  const std::string stop = "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers\n";
  analysis::Inputs in;
  in.texts.emplace_back("gx-7/train.out", with_node_rank(launch, "0") + peer_lost("[default0]:", "10.4.0.9") + launcher_failed(0, 7301) +
                                              joined(0, 0) + joined(1, 1) + stop);
  in.texts.emplace_back("gx-9/train.out", with_node_rank(launch, "1") +
                                              traceback("[default1]:", "ValueError: shard 12 has 511 rows, expected 512") +
                                              launcher_failed(1, 8402) + joined(0, 2) + joined(1, 3) + restart_steps + stop);
  return report_of(std::move(in))["verdict"];
}

// Ray Train over torchrun with --redirects: the launchers' own lines per node, the workers' output
// forwarded by Ray's driver (pid and ip, no host), nothing dated. Rank 0 timed out waiting for rank
// 1, which printed nothing more, and then the time limit stopped both launchers, which signalled
// their workers. The timeout came from a worker the stop then signalled, so it came first: the
// stop is how the hang ended, and rank 1 is the one waited for. (Had the stop come first, the
// worker would have been gone, and its peers would have lost it rather than waited.)
TEST(Culprit, AHangThatTheTimeLimitEndedIsTheHangNotTheStop) {
  auto launcher = [](int pid) {
    return "+ torchrun --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint tp-01:29611 --redirects 3 fit.py\n"
           "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers\n"
           "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process " + std::to_string(pid) + " closing signal SIGTERM\n";
  };
  auto ray = [](int pid, const std::string& ip) { return "(RayTrainWorker pid=" + std::to_string(pid) + ", ip=" + ip + ") "; };
  auto job = [&](bool timed_out) {
    std::string driver = ray(4488, "10.9.0.11") + "rank 0/2 (local 0) on tp-01: process group ready\n" + ray(5571, "10.9.0.12") +
                         "rank 1/2 (local 0) on tp-02: process group ready\n";
    if (timed_out)
      driver += traceback(ray(4488, "10.9.0.11"),
                          "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:133] Timed out waiting 1800000ms for send operation to complete");
    analysis::Inputs in;
    in.texts.emplace_back("job/tp-01/launcher.log", launcher(4488));
    in.texts.emplace_back("job/tp-02/launcher.log", launcher(5571));
    in.texts.emplace_back("job/job-driver-raysubmit_Qm2.log", driver);
    return report_of(std::move(in))["verdict"];
  };
  const json hang = job(true);
  EXPECT_EQ(hang["category"], "collective-timeout") << hang.dump(1);
  EXPECT_EQ(hang["rank"], 1) << hang.dump(1);
  EXPECT_EQ(hang["node"], "tp-02") << hang.dump(1);
  const json stop = job(false);
  EXPECT_EQ(stop["category"], "external-termination") << stop.dump(1);
}

// The restart did not show the failure cleared: the attempt before it decides, and the verdict
// says the restart was stopped from outside.
TEST(Culprit, ARestartStoppedFromOutsideBeforeItShowedAnythingLeavesTheAttemptBeforeToDecide) {
  const json v = stopped_restart_verdict("");
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["rank"], 3) << v.dump(1);
  EXPECT_EQ(v["node"], "gx-9") << v.dump(1);
  EXPECT_NE(v.value("repeated", "").find("stopped from outside"), std::string::npos) << v.dump(1);
}

// The restart trained (its steps came after the failure): the stop ended work that ran.
TEST(Culprit, ARestartThatPrintedStepsBeforeTheStopWasStoppedFromOutside) {
  std::string steps;
  for (int k = 0; k < 6; ++k) steps += "[default" + std::to_string(k % 2) + "]:step " + std::to_string(40 + k / 2) + "/900 loss 2.31\n";
  const json v = stopped_restart_verdict(steps);
  EXPECT_EQ(v["category"], "external-termination") << v.dump(1);
}

// Plain output under c10d (no rank known): on one node a process printed no lost-peer traceback,
// and its launcher says it died of SIGKILL. That is how it went away: the kill is the cause, not a
// process that "went away without a word".
TEST(Culprit, ASilentProcessItsLauncherSawKilledIsTheKill) {
  const std::string launch = "+ torchrun --nnodes 2 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint w-31:29400 fit.py\n";
  analysis::Inputs in;
  in.texts.emplace_back("w-31/out.log", launch + peer_lost("", "10.2.0.32") +
                                            "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 7702 closing signal SIGTERM\n"
                                            "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 1 (pid: 7703) of binary: /usr/bin/python3\n");
  in.texts.emplace_back("w-32/out.log", launch + peer_lost("", "10.2.0.31") + peer_lost("", "10.2.0.31") + launcher_failed(0, 8101));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-signal") << v.dump(1);
  EXPECT_EQ(v["node"], "w-31") << v.dump(1);
}

// --nnodes one against one: the launchers in the logs are the nodes there were, so the one that
// asked for more nodes than came is the odd one.
TEST(Culprit, TheNnodesThatCountsTheLaunchersIsTheJobs) {
  analysis::Inputs in;
  in.texts.emplace_back("a100-3.cs.example.org/out.log",
                        "+ torchrun --nnodes 2 --nproc_per_node 4 --rdzv_backend c10d --rdzv_endpoint a100-3:29500 fit.py\n");
  in.texts.emplace_back("a100-9.cs.example.org/out.log",
                        "+ torchrun --nnodes 4 --nproc_per_node 4 --rdzv_backend c10d --rdzv_endpoint a100-3:29500 fit.py\n");
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "world-size-mismatch") << v.dump(1);
  EXPECT_EQ(v["node"], "a100-9.cs.example.org") << v.dump(1);
}

// A one-node job under c10d: every rank is that node's, and its attempt files, in a folder named
// after the host the failure table names, are that node's too.
TEST(Culprit, AOneNodeJobsRanksAreItsNodes) {
  analysis::Inputs in;
  in.texts.emplace_back("ws-44/slurm-771.out",
                        "+ torchrun --nnodes 1 --nproc_per_node 3 --rdzv_backend c10d --rdzv_endpoint localhost:0 --log_dir tl --tee 3 fit.py\n" +
                            traceback("[default0]:", "RuntimeError: [/src/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 600000ms for recv operation to complete") +
                            traceback("[default2]:", "RuntimeError: [/src/gloo/transport/tcp/unbound_buffer.cc:133] Timed out waiting 600000ms for send operation to complete") +
                            "[default1]:epoch 3 batch 1200 still loading\n" + launcher_failed(0, 3301) +
                            failure_table("ws-44", {{0, 0, 1, 3301, "2026-11-02_08:14:09"}, {2, 2, 1, 3303, "2026-11-02_08:14:09"}}));
  in.texts.emplace_back("ws-44/tl/none_k2/attempt_0/0/stderr.log",
                        traceback("", "RuntimeError: [/src/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 600000ms for recv operation to complete"));
  const json rep = report_of(std::move(in));
  EXPECT_EQ(rep["verdict"]["category"], "collective-timeout") << rep["verdict"].dump(1);
  EXPECT_EQ(rep["verdict"]["rank"], 1) << rep["verdict"].dump(1);
  EXPECT_EQ(rep["verdict"]["node"], "ws-44") << rep["verdict"].dump(1);
  for (const json& n : rep["nodes"]) EXPECT_EQ(n["name"], "ws-44") << rep["nodes"].dump(1);
}

// Static rendezvous, plain output: the ranks of two nodes time out; the node that ran one process
// only lost its peers after that (it came late). Its one rank is the culprit.
TEST(Culprit, ALateNodeOfOneRankNamesThatRank) {
  analysis::Inputs in;
  const std::string waited = "RuntimeError: [/opt/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 900000ms for recv operation to complete";
  const std::string head = "+ torchrun --nnodes 3 --nproc_per_node ";
  in.texts.emplace_back("mlx-a/out.txt", head + "2 --node_rank 0 --master_addr mlx-a --master_port 31000 tr.py\n" + traceback("", waited) +
                                             traceback("", waited) + launcher_failed(0, 9101));
  in.texts.emplace_back("mlx-b/out.txt", head + "2 --node_rank 1 --master_addr mlx-a --master_port 31000 tr.py\n" + traceback("", waited) +
                                             traceback("", waited) + launcher_failed(0, 9201));
  in.texts.emplace_back("mlx-c/out.txt", head + "1 --node_rank 2 --master_addr mlx-a --master_port 31000 tr.py\n" +
                                             peer_lost("", "10.20.0.1") + launcher_failed(0, 9301));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
  EXPECT_EQ(v["node"], "mlx-c") << v.dump(1);
  EXPECT_EQ(v["rank"], 4) << v.dump(1);
  EXPECT_NE(v["why"].dump().find("came late"), std::string::npos) << v.dump(1);
}

// An elastic job of two agents: one is stopped from outside (its death signal), and the other then
// finds the rendezvous closed. The closed rendezvous says where that agent's run stopped (another
// agent had left it), not why: the stop from outside is the verdict. Alone, the closed rendezvous is.
TEST(Culprit, AClosedRendezvousAfterAnAgentWasStoppedIsThatStopsConsequence) {
  auto job = [](bool stopped) {
    analysis::Inputs in;
    if (stopped)
      in.texts.emplace_back("elastic-3/tr-b/agent.log",
                            "W1102 21:40:07.118000 2231 torch/distributed/elastic/agent/server/api.py:719] Received 15 death signal, shutting down workers\n"
                            "W1102 21:40:07.119000 2231 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 2240 closing signal SIGTERM\n");
    in.texts.emplace_back("elastic-3/tr-a/agent.log",
                          "Traceback (most recent call last):\n"
                          "  File \"/usr/local/lib/python3.11/site-packages/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py\", line 676, in run\n"
                          "    raise RendezvousClosedError\n"
                          "torch.distributed.elastic.rendezvous.api.RendezvousClosedError\n");
    return report_of(std::move(in))["verdict"];
  };
  const json v = job(true);
  EXPECT_EQ(v["category"], "external-termination") << v.dump(1);
  EXPECT_EQ(v["node"], "tr-b") << v.dump(1);
  EXPECT_EQ(job(false)["category"], "rendezvous-failure");
}

// c10d rendezvous, plain output, a hang: two nodes' workers timed out, the third node's one worker
// printed nothing and was stopped by its launcher. No line names a rank; the rendezvous numbers the
// nodes by their host names sorted as strings (gpu-a4, gpu-b10, gpu-b9: "b10" before "b9"), each
// taking the next block of ranks, so the quiet node's worker is rank 2. A stated rank outside its
// node's block (gpu-a4's workers printing as ranks 4 and 5) shows the names are not the agents'
// addresses: no rank is placed then.
TEST(Culprit, C10dNumbersTheNodesByTheirSortedHostNames) {
  auto job = [](bool contradicted) {
    analysis::Inputs in;
    const std::string waited = "RuntimeError: [/opt/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 600000ms for recv operation to complete";
    const std::string head = "+ torchrun --nnodes 3 --rdzv_backend c10d --rdzv_endpoint gpu-b9:29400 --rdzv_id ft7 --nproc_per_node ";
    in.texts.emplace_back("gpu-b9/out.txt", head + "3 tr.py\n" + traceback("", waited) + traceback("", waited) + traceback("", waited) +
                                                launcher_failed(0, 7101));
    in.texts.emplace_back("gpu-a4/out.txt", head + "2 tr.py\n" + traceback(contradicted ? "[rank4]:" : "", waited) +
                                                traceback(contradicted ? "[rank5]:" : "", waited) + launcher_failed(0, 7201));
    in.texts.emplace_back("gpu-b10/out.txt", head + "1 tr.py\n"
                                                 "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 7301 closing signal SIGTERM\n");
    return report_of(std::move(in))["verdict"];
  };
  const json v = job(false);
  EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
  EXPECT_EQ(v["node"], "gpu-b10") << v.dump(1);
  EXPECT_EQ(v["rank"], 2) << v.dump(1);
  EXPECT_NE(v["why"].dump().find("gpu-a4 0-1, gpu-b10 2, gpu-b9 3-5"), std::string::npos) << v.dump(1);
  const json c = job(true);
  EXPECT_EQ(c.value("why", json()).dump().find("by their host names"), std::string::npos) << c.dump(1);
  EXPECT_NE(c.value("rank", json()), 2) << c.dump(1);
}

// c10d, plain output, no failure table: a launcher's "failed (exitcode: -9) local_rank: 1" is the
// only line of the kill, and no line states a global rank. The nodes' blocks follow their sorted
// host names (ml-a7 0-1, ml-c10 2, ml-c2 3-5: ml-c10 is listed last but sorts second), so the
// killed worker is rank 3 + 1.
TEST(Culprit, ALaunchersLocalRankTakesItsNodesC10dBlock) {
  analysis::Inputs in;
  const std::string lost = "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.1.0.4]:50412";
  const std::string head = "+ torchrun --nnodes 3 --rdzv_backend c10d --rdzv_endpoint ml-a7:29500 --rdzv_id r9 --max_restarts 0 --nproc_per_node ";
  in.texts.emplace_back("ml-c2/stdout", head + "3 train.py\n" + traceback("", lost) + traceback("", lost) +
                                            "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 1 (pid: 4411) of "
                                            "binary: /usr/bin/python3\n");
  in.texts.emplace_back("ml-a7/stdout", head + "2 train.py\n" + traceback("", lost) + traceback("", lost) + launcher_failed(0, 3301));
  in.texts.emplace_back("ml-c10/stdout", head + "1 train.py\n" + traceback("", lost) + launcher_failed(0, 5501));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-signal") << v.dump(1);
  EXPECT_EQ(v["node"], "ml-c2") << v.dump(1);
  EXPECT_EQ(v["rank"], 4) << v.dump(1);
  EXPECT_NE(v.value("why", json()).dump().find("only its local rank 1"), std::string::npos) << v.dump(1);
  EXPECT_NE(v.value("why", json()).dump().find("ml-a7 0-1, ml-c10 2, ml-c2 3-5"), std::string::npos) << v.dump(1);
}

// One rule's root-cause findings on several nodes: "the same on" lists only the nodes whose
// finding says the same words (numbers aside: each has its own pids, ranks, shard numbers); the
// others are other failures, not said to be the same.
TEST(Culprit, OnlyTheSameWordsOnOtherNodesAreTheSame) {
  analysis::Inputs in;
  in.texts.emplace_back("hq-1/out.log", traceback("", "ValueError: bad shard 3"));
  in.texts.emplace_back("hq-2/out.log", traceback("", "ValueError: bad shard 17"));
  in.texts.emplace_back("hq-3/out.log", traceback("", "KeyError: 'tokens'"));
  const json v = report_of(std::move(in))["verdict"];
  const std::string summary = v["summary"];
  ASSERT_TRUE(v["node"] == "hq-1" || v["node"] == "hq-2" || v["node"] == "hq-3") << v.dump(1);
  if (v["node"] == "hq-3") {
    EXPECT_EQ(summary.find("the same on"), std::string::npos) << summary;
    EXPECT_NE(summary.find("other failures on 2 more node(s): hq-1, hq-2"), std::string::npos) << summary;
  } else {
    EXPECT_NE(summary.find(v["node"] == "hq-1" ? "(the same on hq-2)" : "(the same on hq-1)"), std::string::npos) << summary;
    EXPECT_NE(summary.find("other failures on 1 more node(s): hq-3"), std::string::npos) << summary;
  }
}

// Static rendezvous, plain output: every process of one node reported a timeout; on the other,
// two of three did, and its failure table names those two. The third rank of that node, which no
// line shows ending, is the one they waited for.
TEST(Culprit, AShortNodesSilentRankIsNamedWhenItsOtherRanksAreKnown) {
  analysis::Inputs in;
  const std::string sent = "RuntimeError: [/opt/gloo/transport/tcp/unbound_buffer.cc:133] Timed out waiting 120000ms for send operation to complete";
  in.texts.emplace_back("hx07/log.txt", "+ torchrun --nnodes 2 --nproc_per_node 3 --node_rank 0 --master_addr hx07 --master_port 28000 fit.py\n" +
                                            traceback("", sent) + traceback("", sent) + launcher_failed(1, 5002) +
                                            failure_table("hx07", {{1, 1, 1, 5002, "2026-09-14_21:03:11"}, {2, 2, 1, 5003, "2026-09-14_21:03:11"}}));
  in.texts.emplace_back("hx08/log.txt", "+ torchrun --nnodes 2 --nproc_per_node 3 --node_rank 1 --master_addr hx07 --master_port 28000 fit.py\n" +
                                            traceback("", sent) + traceback("", sent) + traceback("", sent) + launcher_failed(0, 6001));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
  EXPECT_EQ(v["node"], "hx07") << v.dump(1);
  EXPECT_EQ(v["rank"], 0) << v.dump(1);
  EXPECT_NE(v["why"].dump().find("no line shows ending"), std::string::npos) << v.dump(1);
}

// --redirects: the launcher's stream holds only its own lines. Its first "failed (exitcode" line is
// for a pid its final failure table does not list: that failure was an attempt's before the last
// (the table lists every failed process of the last one). The rank the table's attempt lost is the
// culprit, not the first line's.
TEST(Culprit, AFailedLineForAPidTheFinalTableLacksIsAnEarlierAttempt) {
  analysis::Inputs in;
  in.texts.emplace_back("kn-3.lab.example/launch.txt",
                        "+ torchrun --nnodes 2 --nproc_per_node 3 --node_rank 1 --master_addr kn-2 --master_port 27001 --max_restarts 2 "
                        "--log_dir tl --redirects 3 fit.py\n" +
                            launcher_failed(2, 7705) +
                            "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 8120 closing signal SIGTERM\n"
                            "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 8121 closing signal SIGTERM\n" +
                            launcher_failed(1, 8122) +
                            failure_table("kn-3.lab.example", {{4, 1, 1, 8122, "2026-08-30_17:41:02"}}));
  in.texts.emplace_back("kn-3.lab.example/tl/none_x1/attempt_1/1/stderr.log", traceback("", "OSError: [Errno 5] Input/output error: '/data/shard-0042'"));
  in.texts.emplace_back("kn-2/launch.txt",
                        "+ torchrun --nnodes 2 --nproc_per_node 3 --node_rank 0 --master_addr kn-2 --master_port 27001 --max_restarts 2 "
                        "--log_dir tl --redirects 3 fit.py\n" +
                            launcher_failed(0, 7701) + launcher_failed(0, 8101) +
                            failure_table("kn-2", {{0, 0, 1, 8101, "2026-08-30_17:41:04"}}));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["node"], "kn-3.lab.example") << v.dump(1);
  EXPECT_EQ(v["rank"], 4) << v.dump(1);
}

// --max_restarts 1, plain output, no --log-dir and no step prints: after a worker's failure with a
// restart left, torchrun always starts the workers again (it gives up, with its failure table,
// only when none is left), so what its workers print after the failure is the next attempt's. The
// ValueError was attempt 0's; in attempt 1 the ranks of two nodes timed out waiting, and the third
// node's rank, which hung, only lost its peers when the job was stopped: the verdict is the hang,
// not the exception the restart got past.
TEST(Culprit, AFailureWithARestartLeftIsFollowedByANewAttempt) {
  analysis::Inputs in;
  const std::string death = "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers\n";
  const std::string head = "+ torchrun --nnodes 3 --nproc_per_node 1 --master_addr gx-101 --master_port 29650 --max-restarts=1 --node_rank ";
  const std::string waited = traceback("", "RuntimeError: [/opt/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 300000ms for recv "
                                           "operation to complete");
  in.texts.emplace_back("gx-101/std.out", head + "0 fit.py\n" + traceback("", "ValueError: bad shard header in /data/part-17") +
                                              launcher_failed(0, 3001) + waited + death);
  in.texts.emplace_back("gx-102/std.out", head + "1 fit.py\n" + peer_lost("", "10.9.0.101") + launcher_failed(0, 4001) + death);
  in.texts.emplace_back("gx-103/std.out", head + "2 fit.py\n" + peer_lost("", "10.9.0.101") + launcher_failed(0, 5001) + waited + death);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
  EXPECT_EQ(v["summary"].get<std::string>().find("ValueError"), std::string::npos) << v.dump(1);
  EXPECT_EQ(v["node"], "gx-102") << v.dump(1);
  EXPECT_EQ(v["rank"], 1) << v.dump(1);
}

// Plain output (no rank prefixes), one file per node, a restart: the first attempt's exception is
// followed by the second attempt's tracebacks and a second "failed (exitcode" line; only the last
// attempt decides.
TEST(Culprit, APlainStreamsRestartIsToldByItsTracebacks) {
  analysis::Inputs in;
  const std::string closed = "RuntimeError: [/src/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.4.0.9]:7311";
  in.texts.emplace_back("10-4-0-8/torchrun.log",
                        "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 0 --master_addr 10.4.0.8 --master_port 29400 --max_restarts 1 fit.py\n" +
                            traceback("", "KeyError: 'labels'") + traceback("", closed) + launcher_failed(0, 2210) + traceback("", closed) +
                            traceback("", closed) + launcher_failed(0, 2290) +
                            failure_table("10-4-0-8", {{0, 0, 1, 2290, "2026-11-02_09:00:41"}, {1, 1, 1, 2291, "2026-11-02_09:00:41"}}));
  in.texts.emplace_back("10-4-0-9/torchrun.log",
                        "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 1 --master_addr 10.4.0.8 --master_port 29400 --max_restarts 1 fit.py\n" +
                            traceback("", closed) + traceback("", closed) + launcher_failed(0, 2212) +
                            traceback("", "ZeroDivisionError: division by zero") + traceback("", closed) + launcher_failed(0, 2301) +
                            failure_table("10-4-0-9", {{2, 0, 1, 2301, "2026-11-02_09:00:40"}, {3, 1, 1, 2302, "2026-11-02_09:00:40"}}));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["node"], "10-4-0-9") << v.dump(1);
  EXPECT_NE(v["summary"].get<std::string>().find("ZeroDivisionError"), std::string::npos) << v.dump(1);
  EXPECT_FALSE(v.contains("repeated")) << v.dump(1);  // the first attempt ended otherwise (a KeyError elsewhere)
}

// The same failure, word for word, ended both attempts: the verdict says so and where the earlier
// one is (a restart policy will not clear it). The earlier one stays a warning, the last decides.
TEST(Culprit, TheSameFailureInEveryAttemptIsSaid) {
  analysis::Inputs in;
  const std::string closed = "RuntimeError: [/src/gloo/transport/tcp/pair.cc:598] Connection closed by peer [172.20.1.7]:9120";
  const std::string oom = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.25 GiB. GPU 1 has a total capacity of 39.38 GiB";
  in.texts.emplace_back("a100-x1/launch.log",
                        "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 0 --master_addr 172.20.1.6 --master_port 29533 --max_restarts 2 sft.py\n" +
                            traceback("", closed) + traceback("", closed) + launcher_failed(0, 8100) + traceback("", closed) + traceback("", closed) +
                            launcher_failed(0, 8140) +
                            failure_table("a100-x1", {{0, 0, 1, 8140, "2026-10-21_14:02:17"}, {1, 1, 1, 8141, "2026-10-21_14:02:17"}}));
  in.texts.emplace_back("a100-x2/launch.log",
                        "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 1 --master_addr 172.20.1.6 --master_port 29533 --max_restarts 2 sft.py\n" +
                            traceback("", oom) + traceback("", closed) + launcher_failed(1, 8102) + traceback("", oom) + traceback("", closed) +
                            launcher_failed(1, 8152) +
                            failure_table("a100-x2", {{3, 1, 1, 8152, "2026-10-21_14:02:16"}, {2, 0, 1, 8151, "2026-10-21_14:02:16"}}));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "device-oom") << v.dump(1);
  EXPECT_EQ(v["node"], "a100-x2") << v.dump(1);
  ASSERT_TRUE(v.contains("repeated")) << v.dump(1);
  EXPECT_EQ(v["repeated"], "The same failure ended an earlier restart attempt (a100-x2/launch.log:2): restarting did not clear it") << v.dump(1);
}

// Two ranks of one node fail in the same second; the failure table cannot order them (Root Cause:
// the lowest local rank). The node's --tee output can: rank 1 said it was aborting before its
// launcher saw rank 0 fail.
TEST(Culprit, TiedFailuresTakeTheOrderOfTheirNodesOutput) {
  analysis::Inputs in;
  in.texts.emplace_back("hpc-r7n2/job.out",
                        "+ torchrun --nnodes 1 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint localhost:29511 --tee 3 train.py\n"
                        "[default1]:error: gradient overflow in 12 consecutive steps, aborting the run\n"
                        "[default1]:terminate called without an active exception\n"
                        "[default0]:epoch 4 step 1310 loss 2.114\n" +
                            launcher_failed(0, 61407) +
                            failure_table("hpc-r7n2", {{0, 0, -11, 61407, "2026-10-11_04:22:57"}, {1, 1, -6, 61408, "2026-10-11_04:22:57"}}));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["rank"], 1) << v.dump(1);
  EXPECT_NE(v["why"].dump().find("gradient overflow"), std::string::npos) << v.dump(1);
}

// Lines without times (a plain train.log of several workers): the order of the output decides, and
// the why says so rather than claiming the ranks failed in one second or one after the other.
TEST(Culprit, UndatedFailuresAreOrderedByTheirOutputAndSaidSo) {
  analysis::Inputs in;
  std::string log;
  for (int i = 1; i <= 12; ++i) log += "[rank5]: iter " + std::to_string(i) + " | loss 3.1\n";
  log += "[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n";
  log += "[rank1]: iter 13 | loss 3.0\n";
  log += "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB\n";
  in.texts.emplace_back("a100-x4/train.log", log);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["rank"], 5) << v.dump(1);
  const std::string why = v["why"].dump();
  EXPECT_EQ(why.find("same second"), std::string::npos) << v.dump(1);
  EXPECT_EQ(why.find("later"), std::string::npos) << v.dump(1);
  EXPECT_NE(why.find("rank 5 failing first"), std::string::npos) << v.dump(1);
}

// One srun stream of two nodes' launchers, every failure row in one second: rank 1 raised, and rank
// 3, whose kill the table alone shows, went on printing its steps after that traceback: it was
// still running, so the exception came first. When its last step came before the traceback, the
// stream cannot order them: the exception, which no peer's loss causes, is named, and the why says
// the kill, whose sender no line names, may have followed it.
TEST(Culprit, ARankStillPrintingAfterAnotherFailedFailedLater) {
  auto job = [](bool printed_after) {
    std::string out;
    auto task = [&](int t, const std::string& text) { out += prefixed(std::to_string(t) + ": ", text); };
    task(0, "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 0 --master_addr 10.7.0.2 --master_port 29611 train.py\n");
    task(1, "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 1 --master_addr 10.7.0.2 --master_port 29611 train.py\n");
    for (int s = 1; s <= 6; ++s) {
      task(0, "[default1]:Step [" + std::to_string(s) + "/40], Loss: 4.1\n");
      task(1, "[default1]:iter " + std::to_string(s) + " of 40 | loss 4.0\n");
    }
    if (!printed_after) task(1, "[default1]:iter 7 of 40 | loss 3.9\n");
    task(0, traceback("[default1]:", "KeyError: 'input_ids'"));
    if (printed_after) task(1, "[default1]:iter 7 of 40 | loss 3.9\n[default1]:iter 8 of 40 | loss 3.9\n");
    task(0, peer_lost("[default0]:", "10.7.0.3") + launcher_failed(0, 7700) +
                failure_table("hx-01", {{0, 0, 1, 7700, "2026-05-30_08:12:44"}, {1, 1, 1, 7701, "2026-05-30_08:12:44"}}));
    task(1, peer_lost("[default0]:", "10.7.0.2") + launcher_failed(0, 8800) +
                failure_table("hx-02", {{2, 0, 1, 8800, "2026-05-30_08:12:44"},
                                        {3, 1, -9, 8801, "2026-05-30_08:12:44", "Signal 9 (SIGKILL) received by PID 8801"}}));
    analysis::Inputs in;
    in.texts.emplace_back("slurm-4410.out", out);
    return report_of(std::move(in))["verdict"];
  };
  const json after = job(true);
  EXPECT_EQ(after["rank"], 1) << after.dump(1);
  EXPECT_EQ(after["category"], "worker-exception") << after.dump(1);
  EXPECT_NE(after["why"].dump().find("still printing progress"), std::string::npos) << after.dump(1);
  const json before = job(false);
  EXPECT_EQ(before["rank"], 1) << before.dump(1);
  EXPECT_NE(before["why"].dump().find("may have followed it"), std::string::npos) << before.dump(1);
}

// Python logging with times: a rank's ERROR line seconds before another rank's crash makes it the
// first, though the failure table puts both in one second.
TEST(Culprit, ADatedErrorLineIsWhenTheRankBeganToFail) {
  analysis::Inputs in;
  in.texts.emplace_back("trn-02/train.log",
                        "+ torchrun --nnodes 1 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint localhost:29512 --tee 3 train.py\n"
                        "[default1]:2026-10-11 05:10:02,118 - main - ERROR - checkpoint /ckpt/step-4000 is truncated\n"
                        "[default0]:2026-10-11 05:10:04,960 - main - INFO - step 4001 loss 1.72\n" +
                            launcher_failed(1, 7302) +
                            failure_table("trn-02", {{0, 0, -11, 7301, "2026-10-11_05:10:06"}, {1, 1, 1, 7302, "2026-10-11_05:10:06"}}));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["rank"], 1) << v.dump(1);
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
}

// Plain output, only lost peers: the node where one process printed nothing holds the one that
// went away; when that process printed a traceback of its own instead, the traceback says why.
TEST(Culprit, TheNodeWhoseProcessWentAwaySilentlyIsNamed) {
  const std::string closed = "RuntimeError: [/src/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.2.0.5]:4411";
  auto job = [&](const std::string& third) {
    analysis::Inputs in;
    in.texts.emplace_back("g-11/out.txt", "+ torchrun --nnodes 2 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint g-11:29400 fit.py\n" +
                                              traceback("", closed) + traceback("", closed) + launcher_failed(0, 901));
    in.texts.emplace_back("g-12/out.txt", "+ torchrun --nnodes 2 --nproc_per_node 3 --rdzv_backend c10d --rdzv_endpoint g-11:29400 fit.py\n" +
                                              traceback("", closed) + third + traceback("", closed) + launcher_failed(0, 1201));
    return report_of(std::move(in))["verdict"];
  };
  const json silent = job("");
  EXPECT_EQ(silent["category"], "worker-exception") << silent.dump(1);
  EXPECT_EQ(silent["node"], "g-12") << silent.dump(1);
  EXPECT_EQ(silent["rule"], "torch.peer-lost-short-node") << silent.dump(1);
  const json said = job(traceback("", "FileNotFoundError: [Errno 2] No such file or directory: '/data/shard-9'"));
  EXPECT_NE(said["rule"], "torch.peer-lost-short-node") << said.dump(1);
  EXPECT_NE(said["summary"].get<std::string>().find("FileNotFoundError"), std::string::npos) << said.dump(1);
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

// One launcher's stream (the launcher's own lines and its workers' plain prints in one file): a
// worker failed, its peers lost it; torchrun restarted the group, whose prints go on in the same
// file past the failure, with no kept line between. The steps after the failure are the next
// attempt's: the first attempt's tracebacks are survived. When the stream ends with the workers at
// their last step and the launcher stopped from outside, no work was lost: healthy. Stopped half way,
// the stop from outside is what ended the job.
json plain_restart_verdict(int last_step, int steps) {
  auto stream = [&](bool fails, int procs) {
    std::string s = "+ torchrun --nnodes 2 --nproc_per_node " + std::to_string(procs) +
                    " --rdzv_backend c10d --rdzv_endpoint 10.4.0.7:29400 --max_restarts 2 sft.py\n";
    for (int p = 0; p < procs; ++p) s += "Iter [" + std::to_string(110 + p) + "/" + std::to_string(steps) + "] loss 0.8" + std::to_string(p) + "\n";
    if (fails) s += traceback("", "OSError: [Errno 5] Input/output error: '/mnt/ckpt/shard_3.pt'");
    for (int p = fails ? 1 : 0; p < procs; ++p) s += peer_lost("", "10.4.0." + std::to_string(20 + p));
    s += "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: " + std::to_string(fails ? 5101 : 6101) +
         ") of binary: /usr/bin/python3\n";
    for (int it = 0; it <= last_step; it += 7) s += "Iter [" + std::to_string(it) + "/" + std::to_string(steps) + "] loss 0.61\n";
    s += "Iter [" + std::to_string(last_step) + "/" + std::to_string(steps) + "] loss 0.60\n";
    s += "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers\n";
    s += "torch.distributed.elastic.multiprocessing.api.SignalException: Process " + std::to_string(fails ? 5001 : 6001) + " got signal: 15\n";
    return s;
  };
  analysis::Inputs in;
  in.texts.emplace_back("worker-a/stdout.txt", stream(true, 3));
  in.texts.emplace_back("worker-b/stdout.txt", stream(false, 3));
  return report_of(std::move(in))["verdict"];
}

TEST(Culprit, StepsAfterAFailureAreTheNextAttemptsAndAFinishedRunStoppedLateIsHealthy) {
  const json done = plain_restart_verdict(299, 300);
  EXPECT_EQ(done["status"], "healthy") << done.dump(1);
  EXPECT_NE(done["summary"].get<std::string>().find("299/300"), std::string::npos) << done.dump(1);
  const json half = plain_restart_verdict(140, 300);
  EXPECT_EQ(half["category"], "external-termination") << half.dump(1);
}

// --redirects into attempt_N folders: the launcher's stream on one node ends with its worker's
// failure; that node's attempt_1 files hold the restarted workers' lines. The failure was attempt
// 0's, survived; the other node's launcher ran on.
TEST(Culprit, ALaunchersLastFailureIsReplacedWhenItsNodesNextAttemptFolderHasLines) {
  analysis::Inputs in;
  in.texts.emplace_back("trn-x2/launch.log",
                        "+ torchrun --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint trn-x1:29611 --max_restarts 1 --log_dir tl --redirects 3 ft.py\n"
                        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 71403) of binary: /usr/bin/python3\n");
  in.texts.emplace_back("trn-x2/tl/ft_9q/attempt_0/0/stderr.log",
                        traceback("", "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 60000ms for recv operation to complete"));
  std::string steps;
  for (int s = 30; s < 48; ++s) steps += "epoch 2 step " + std::to_string(s) + " loss 1.0" + std::to_string(s % 10) + "\n";
  in.texts.emplace_back("trn-x2/tl/ft_9q/attempt_1/0/stdout.log", steps);
  in.texts.emplace_back("trn-x1/launch.log",
                        "+ torchrun --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint trn-x1:29611 --max_restarts 1 --log_dir tl --redirects 3 ft.py\n");
  in.texts.emplace_back("trn-x1/tl/ft_3k/attempt_0/0/stderr.log", traceback("", "ValueError: shard trn-x1/7 has 0 rows"));
  in.texts.emplace_back("trn-x1/tl/ft_3k/attempt_1/0/stdout.log", steps);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["status"], "healthy") << v.dump(1);
}

// Per-rank files (--redirects) whose lost-peer reports carry their local rank are those ranks':
// the one rank that only exited (code 127, no traceback) on the same node is no reporter's exit but
// the failure of its own; the verdict's sentence is filled from its row, not from a victim's.
TEST(Culprit, AnExitBesideRankedReportsIsAFailureOfItsOwn) {
  analysis::Inputs in;
  const std::vector<Row> rows = {{6, 0, 127, 8801, "2026-05-11_03:14:09"}, {7, 1, 1, 8802, "2026-05-11_03:14:09"}, {8, 2, 1, 8803, "2026-05-11_03:14:10"}};
  in.texts.emplace_back("gn-17/launcher.log",
                        "+ torchrun --nnodes 2 --nproc_per_node 3 --node_rank 1 --master_addr gn-16 --log_dir runs --redirects 3 fit.py\n"
                        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 127) local_rank: 0 (pid: 8801) of binary: /usr/bin/python3\n" +
                            failure_table("gn-17", {rows[1], rows[2], rows[0]}));
  in.texts.emplace_back("gn-17/runs/fit_a/attempt_0/0/stdout.log", "preparing data\n");
  for (int l : {1, 2}) in.texts.emplace_back("gn-17/runs/fit_a/attempt_0/" + std::to_string(l) + "/stderr.log", peer_lost("", "10.9.0.16"));
  in.texts.emplace_back("gn-16/launcher.log", "+ torchrun --nnodes 2 --nproc_per_node 3 --node_rank 0 --master_addr gn-16 --log_dir runs --redirects 3 fit.py\n");
  for (int l : {0, 1, 2}) in.texts.emplace_back("gn-16/runs/fit_b/attempt_0/" + std::to_string(l) + "/stderr.log", peer_lost("", "10.9.0.17"));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["rank"], 6) << v.dump(1);
  EXPECT_NE(v["summary"].get<std::string>().find("127"), std::string::npos) << v.dump(1);
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

// Docker's json-file driver escapes '<', '>' and '&' as \u003c, \u003e, \u0026: a line no parser
// knows is matched by the rules as it reads once unescaped, not as the raw JSON.
TEST(Culprit, ContainerLinesAreMatchedAsTheyReadUnescaped) {
  auto line = [](const std::string& text, int us) {
    return "{\"log\":\"" + text + "\\n\",\"stream\":\"stderr\",\"time\":\"2026-07-09T02:11:0" + std::to_string(us) + ".5Z\"}\n";
  };
  analysis::Inputs in;
  in.texts.emplace_back("pod-trainer-2/0c1d-json.log",
                        line("[default1]:terminate called after throwing an instance of 'gloo::EnforceNotMet'", 1) +
                            line("[default1]:  what():  [enforce fail at /opt/gloo/transport/tcp/pair.cc:510] op.preamble.length \\u003c= op.nbytes. 2048 vs 1024", 2));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "collective-mismatch") << v.dump(1);
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

// kubectl logs --prefix of two pods, one after the other in one file: the second pod's steps come
// later in the file than the first pod's failure, but they are another launcher's, not the first
// one's workers going on after it. The first pod's exception still decides.
TEST(Culprit, AnotherPodsStepsInTheSameFileAreNotThisPodsRestart) {
  auto pod = [](const std::string& name, const std::string& line) { return "[pod/" + name + "/trainer] " + line + "\n"; };
  std::string s;
  s += pod("ft-worker-0", "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 0 --master_addr ft-master --max_restarts 1 tune.py");
  s += pod("ft-worker-0", "[default0]:step 3/40 loss 0.91");
  for (const char* l : {"Traceback (most recent call last):", "  File \"tune.py\", line 61, in <module>", "    batch = next(it)",
                               "KeyError: 'input_ids'"})
    s += pod("ft-worker-0", std::string("[default1]:") + l);
  s += pod("ft-worker-0", "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 3312) of binary: /usr/bin/python3");
  s += pod("ft-worker-0", "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers");
  s += pod("ft-worker-1", "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 1 --master_addr ft-master --max_restarts 1 tune.py");
  for (int k = 0; k < 4; ++k) s += pod("ft-worker-1", "[default0]:step " + std::to_string(k) + "/40 loss 0.9" + std::to_string(k));
  s += pod("ft-worker-1", "[default0]:RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.2.0.4]:5871");
  s += pod("ft-worker-1", "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers");
  analysis::Inputs in;
  in.texts.emplace_back("job-77/all-pods.log", s);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_NE(v["summary"].get<std::string>().find("KeyError"), std::string::npos) << v.dump(1);
  // No line of a pod names its host: the pod's name is its host name.
  EXPECT_EQ(v["node"], "ft-worker-0") << v.dump(1);
}

// A pod whose lines name a host (a failure table's row) keeps that host; one whose lines name none
// is known by its name (a pod's host name), not left without a node.
TEST(Culprit, APodIsKnownByItsNameWhereNoLineNamesItsHost) {
  auto pod = [](const std::string& name, const std::string& line) { return "[pod/" + name + "/main] " + line + "\n"; };
  std::string s;
  s += pod("rl-7f2c-worker-1", "[default0]:RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.9.1.3]:4412");
  s += pod("rl-7f2c-worker-1", "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 901) of binary: /usr/bin/python3");
  s += pod("rl-7f2c-worker-2", "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 77) of binary: /usr/bin/python3");
  analysis::Inputs in;
  in.texts.emplace_back("collected/pods.log", s);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-signal") << v.dump(1);
  EXPECT_EQ(v["node"], "rl-7f2c-worker-2") << v.dump(1);
}

// Workers behind a platform prefix that names only their pid state their own rank when they join
// (Lightning's GLOBAL_RANK line here): their traceback is that rank's, with no launcher line to
// tie the pid.
TEST(Culprit, AStreamThatStatesItsRankLendsItToItsTraceback) {
  std::string s;
  const int pids[] = {3310, 3327, 3342, 3358};
  for (int r = 0; r < 4; ++r) {
    const std::string p = "(RayTrainWorker pid=" + std::to_string(pids[r]) + ", ip=10.40.2." + std::to_string(11 + r / 2) + ") ";
    s += p + "Initializing distributed: GLOBAL_RANK: " + std::to_string(r) + ", MEMBER: " + std::to_string(r + 1) + "/4\n";
  }
  for (int r = 0; r < 4; ++r) {
    const std::string p = "(RayTrainWorker pid=" + std::to_string(pids[r]) + ", ip=10.40.2." + std::to_string(11 + r / 2) + ") ";
    s += r == 2 ? traceback(p, "KeyError: 'labels'") : peer_lost(p, "10.40.2.12");
  }
  analysis::Inputs in;
  in.texts.emplace_back("ray/job-driver-raysubmit_q81.log", s);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["rank"], 2) << v.dump(1);
}

// One launcher's file holds two workers' lines without prefixes, and one of them stated its rank:
// the file's traceback is not lent that rank (the launcher ran two workers into it); the failure
// table names the rank that raised.
TEST(Culprit, AStreamOfSeveralWorkersLendsNoStatedRank) {
  analysis::Inputs in;
  in.texts.emplace_back("hpc-b2/run.log",
                        "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 1 train.py\n"
                        "Rank 2: Completed store-based barrier for key:store_based_barrier_key:1 with 4 nodes.\n" +
                            traceback("", "IndexError: list index out of range") + launcher_failed(1, 7714) +
                            failure_table("hpc-b2", {{3, 1, 1, 7714, "2026-05-20_17:02:11"}, {2, 0, -15, 7713, "2026-05-20_17:02:12"}}));
  in.texts.emplace_back("hpc-b1/run.log", "+ torchrun --nnodes 2 --nproc_per_node 2 --node_rank 0 train.py\n" + peer_lost("", "10.1.0.2") +
                                              peer_lost("", "10.1.0.2") + launcher_failed(0, 6501) +
                                              failure_table("hpc-b1", {{0, 0, 1, 6501, "2026-05-20_17:02:12"}, {1, 1, 1, 6502, "2026-05-20_17:02:12"}}));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["rank"], 3) << v.dump(1);
  EXPECT_EQ(v["node"], "hpc-b2") << v.dump(1);
}

// Ray starts new worker processes for each attempt; a rank stated again by a new pid after the old
// one's last line tells the attempts apart: the first attempt's exception is not what ended the job.
TEST(Culprit, ARankStatedAgainByANewProcessIsALaterAttempt) {
  auto worker = [](int pid, int rank, const std::string& body) {
    const std::string p = "(RayTrainWorker pid=" + std::to_string(pid) + ", ip=10.7.0.3) ";
    return p + "2026-07-01 09:" + std::to_string(pid / 10 % 100) + ":00,100 INFO Rank " + std::to_string(rank) +
           ": Completed store-based barrier for key:store_based_barrier_key:1 with 2 nodes.\n" + body;
  };
  auto in_stream = [](int pid, const std::string& text) { return prefixed("(RayTrainWorker pid=" + std::to_string(pid) + ", ip=10.7.0.3) ", text); };
  std::string s;
  s += worker(4101, 0, in_stream(4101, traceback("", "ValueError: Expected input batch_size (64) to match target batch_size (63).")));
  s += worker(4102, 1, peer_lost("(RayTrainWorker pid=4102, ip=10.7.0.3) ", "10.7.0.3"));
  s += worker(4188, 0, peer_lost("(RayTrainWorker pid=4188, ip=10.7.0.3) ", "10.7.0.3"));
  s += worker(4189, 1, in_stream(4189, traceback("", "OSError: [Errno 28] No space left on device: '/ckpt/step_200'")));
  analysis::Inputs in;
  in.texts.emplace_back("job-driver-raysubmit_c2.log", s);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["rank"], 1) << v.dump(1);
  EXPECT_NE(v["summary"].get<std::string>().find("OSError"), std::string::npos) << v.dump(1);
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

// Workers that print neither a prefix nor a traceback of their own crash, but said which global and
// local rank they were: the launcher's "failed (exitcode: -7) local_rank: 1" on a node names the
// global rank that node's worker of that local rank stated.
TEST(Culprit, ALocalRankStatedBesideTheGlobalOneTiesTheLaunchersLine) {
  auto node = [](const std::string& host, int first, int signal_local) {
    std::string s = "+ torchrun --nnodes 2 --nproc_per_node 2 train.py\n";
    for (int l = 0; l < 2; ++l)
      s += "2026-04-09 03:10:0" + std::to_string(l) + ",210 INFO env ok: rank=" + std::to_string(first + l) +
           ", world_size=4, local_rank=" + std::to_string(l) + ", host " + host + "\n";
    if (signal_local < 0) return s + peer_lost("", "10.9.0.3") + peer_lost("", "10.9.0.3") + launcher_failed(0, 5120);
    return s + peer_lost("", "10.9.0.4") +
           "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -7) local_rank: " + std::to_string(signal_local) +
           " (pid: 6233) of binary: /usr/bin/python3\n";
  };
  analysis::Inputs in;
  in.texts.emplace_back("ml-a01/out.log", node("ml-a01", 0, -1));
  in.texts.emplace_back("ml-a02/out.log", node("ml-a02", 2, 1));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-signal") << v.dump(1);
  EXPECT_EQ(v["node"], "ml-a02") << v.dump(1);
  EXPECT_EQ(v["rank"], 3) << v.dump(1);
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

std::string signal_failed(int local, int pid, int code) {
  return "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: " + std::to_string(code) + ") local_rank: " +
         std::to_string(local) + " (pid: " + std::to_string(pid) + ") of binary: /usr/bin/python3\n";
}

// Three nodes under srun -l, their lines merged as they came. Node 0's worker crashed without a
// word; node 1's lost its peer; node 2's raised a ValueError after that report. All three failure
// tables say the same second. The exception came after a rank had already gone: the crash is named.
// Written as three blocks one after the other (a file made by concatenating per-node logs), the
// order says nothing about time, and the traceback is preferred as before.
std::string two_fault_job(bool interleaved) {
  auto labelled = prefixed;
  const std::string launch = "+ torchrun --nnodes 3 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint hpc-q1:29411 train.py\n";
  const std::string t = "2026-05-14_21:40:12";
  // Each node: its start, what its worker printed, what its launcher printed at the end.
  const std::vector<std::string> start = {labelled("0: ", launch + "[default0]:epoch 2 iteration 880 | loss 3.12\n"),
                                          labelled("1: ", launch + "[default0]:epoch 2 iteration 880 | loss 3.09\n"),
                                          labelled("2: ", launch + "[default0]:epoch 2 iteration 880 | loss 3.15\n")};
  const std::vector<std::string> worker = {"", labelled("1: ", peer_lost("[default0]:", "10.30.1.1")),
                                           labelled("2: ", traceback("[default0]:", "ValueError: too many values to unpack (expected 2)"))};
  const std::vector<std::string> end = {
      labelled("0: ", signal_failed(0, 2201, -11) + failure_table("hpc-q1", {{0, 0, -11, 2201, t, "Signal 11 (SIGSEGV) received by PID 2201"}})),
      labelled("1: ", signal_failed(0, 3310, 1) + failure_table("hpc-q2", {{1, 0, 1, 3310, t}})),
      labelled("2: ", signal_failed(0, 4417, 1) + failure_table("hpc-q3", {{2, 0, 1, 4417, t}}))};
  if (interleaved) return start[0] + start[1] + start[2] + worker[1] + worker[2] + end[0] + end[1] + end[2];
  std::string out;
  for (int k : {0, 1, 2}) out += start[k] + worker[k] + end[k];
  return out;
}

TEST(Culprit, AnExceptionPrintedAfterAPeersLossCameSecond) {
  analysis::Inputs in;
  in.texts.emplace_back("slurm-7731.out", two_fault_job(true));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["rank"], 0) << v.dump(1);
  EXPECT_EQ(v["node"], "hpc-q1") << v.dump(1);
  EXPECT_EQ(v["category"], "worker-signal") << v.dump(1);
  EXPECT_NE(v["why"].dump().find("after a lost-peer report from hpc-q2"), std::string::npos) << v.dump(1);

  analysis::Inputs cat;
  cat.texts.emplace_back("all-nodes.log", two_fault_job(false));
  const json w = report_of(std::move(cat))["verdict"];
  EXPECT_EQ(w["rank"], 2) << w.dump(1);
  EXPECT_EQ(w["why"].dump().find("lost-peer report"), std::string::npos) << w.dump(1);
}

// Container logs stamp every line. A rank's dated traceback comes three seconds after another
// node's dated lost-peer report; the crash whose only line is its launcher's, noticed two seconds
// after the traceback, had already happened: it is named, not the earlier-looking exception.
TEST(Culprit, ADatedExceptionAfterADatedPeerLossIsNotTheFirst) {
  auto line = [](const std::string& text, const std::string& clock) {
    std::string esc;
    for (char ch : text) esc += ch == '"' ? std::string("\\\"") : std::string(1, ch);
    return "{\"log\":\"" + esc + "\\n\",\"stream\":\"stderr\",\"time\":\"2026-08-30T13:05:" + clock + "Z\"}\n";
  };
  auto lines = [&](const std::string& block, const std::string& clock) {
    std::string out, cur;
    for (char ch : block) {
      if (ch == '\n') {
        out += line(cur, clock);
        cur.clear();
      } else {
        cur += ch;
      }
    }
    return out;
  };
  const std::string launch = "+ torchrun --nnodes 3 --nproc_per_node 1 --node_rank {R} --master_addr 10.8.0.11 --master_port 23456 run.py\n";
  auto launch_of = [&](int r) {
    std::string s = launch;
    s.replace(s.find("{R}"), 3, std::to_string(r));
    return s;
  };
  analysis::Inputs in;
  in.texts.emplace_back("trainer-0/aa01-json.log",
                        lines(launch_of(0), "00.100000") + lines("[default0]:step 300 loss 0.91\n", "20.000000") +
                            lines(signal_failed(0, 901, -6), "27.400000") +
                            lines(failure_table("trainer-0", {{0, 0, -6, 901, "2026-08-30_13:05:27", "Signal 6 (SIGABRT) received by PID 901"}}), "28.000000"));
  in.texts.emplace_back("trainer-1/bb02-json.log",
                        lines(launch_of(1), "00.200000") + lines(peer_lost("[default0]:", "10.8.0.11"), "21.300000") +
                            lines(signal_failed(0, 902, 1), "26.100000") + lines(failure_table("trainer-1", {{1, 0, 1, 902, "2026-08-30_13:05:26"}}), "26.900000"));
  in.texts.emplace_back("trainer-2/cc03-json.log",
                        lines(launch_of(2), "00.300000") +
                            lines(traceback("[default0]:", "FileNotFoundError: [Errno 2] No such file or directory: '/data/shard-0031.bin'"), "24.700000") +
                            lines(signal_failed(0, 903, 1), "25.200000") + lines(failure_table("trainer-2", {{2, 0, 1, 903, "2026-08-30_13:05:25"}}), "25.800000"));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["rank"], 0) << v.dump(1);
  EXPECT_EQ(v["node"], "trainer-0") << v.dump(1);
  EXPECT_NE(v["why"].dump().find("lost-peer report from trainer-1"), std::string::npos) << v.dump(1);
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

// Plain output: three of a node's four workers printed a lost-peer traceback and exited with code 1;
// the fourth exited with code 255 and no traceback (the program's own sys.exit). Another node's
// worker crashed with SIGSEGV in the same second of the failure tables. The exit 255 is not one of
// the reporters' exits (an uncaught traceback exits with 1), and a code of the program's choosing
// says more than a crash that may be a teardown: its rank is named.
TEST(Culprit, AnExitCodeOfItsOwnIsNotAReportersExitAndOutranksACrash) {
  const std::string t = "2026-03-08_17:52:41";
  std::string a = "+ torchrun --nnodes 2 --nproc_per_node 4 --node_rank 0 --master_addr gn-201 --master_port 29533 sft.py\n";
  for (int k = 0; k < 3; ++k) a += peer_lost("", "10.60.2.202");
  a += failure_table("gn-201", {{0, 0, 255, 7100, t}, {1, 1, 1, 7101, t}, {2, 2, 1, 7102, t}, {3, 3, 1, 7103, t}});
  const std::string b = "+ torchrun --nnodes 2 --nproc_per_node 1 --node_rank 1 --master_addr gn-201 --master_port 29533 sft.py\n" +
                        failure_table("gn-202", {{4, 0, -11, 8800, t, "Signal 11 (SIGSEGV) received by PID 8800"}});
  analysis::Inputs in;
  in.texts.emplace_back("gn-201/stdout.log", a);
  in.texts.emplace_back("gn-202/stdout.log", b);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["rank"], 0) << v.dump(1);
  EXPECT_EQ(v["node"], "gn-201") << v.dump(1);
  EXPECT_NE(v["why"].dump().find("exit code 255"), std::string::npos) << v.dump(1);
  EXPECT_NE(v["why"].dump().find("3 exit(s) on gn-201"), std::string::npos) << v.dump(1);  // the three code-1 exits only
}

// Ranks known from their own prefixes: four ranks of two nodes time out; the one rank of the third
// node only lost its peers after that. The late rank's node is the late node the verdict names.
TEST(Culprit, ALateRankKnownByItsPrefixNamesItsNode) {
  const std::string waited = "RuntimeError: [/opt/gloo/transport/tcp/unbound_buffer.cc:133] Timed out waiting 600000ms for send operation to complete";
  const std::string head = "+ torchrun --nnodes 3 --nproc_per_node ";
  analysis::Inputs in;
  in.texts.emplace_back("vx-11/log.txt", head + "2 --node_rank 0 --master_addr vx-11 --master_port 24001 tr.py\n" + traceback("[rank0]:", waited) +
                                            traceback("[rank1]:", waited));
  in.texts.emplace_back("vx-12/log.txt", head + "2 --node_rank 1 --master_addr vx-11 --master_port 24001 tr.py\n" + traceback("[rank2]:", waited) +
                                            traceback("[rank3]:", waited));
  in.texts.emplace_back("vx-13/log.txt", head + "1 --node_rank 2 --master_addr vx-11 --master_port 24001 tr.py\n" + peer_lost("[rank4]:", "10.7.0.11"));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
  EXPECT_EQ(v["node"], "vx-13") << v.dump(1);
  EXPECT_EQ(v["rank"], 4) << v.dump(1);
  EXPECT_NE(v["why"].dump().find("reached the collective late"), std::string::npos) << v.dump(1);
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

// Workers that share the launcher's pipe with no prefix write an exception's parts in separate
// writes: two timeouts at once read "RuntimeErrorRuntimeError: : ...Timed out...Timed out". That
// line is two reports, so the three exits with code 1 are the three reporters' and the rank that
// never reported (stopped by its launcher) is the one the others waited for.
TEST(Culprit, InterleavedExceptionLinesCountEveryWriter) {
  analysis::Inputs in;
  const std::string to = "[/opt/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 30000ms for recv operation to complete";
  in.texts.emplace_back(
      "cn-r7-22.lab/console.txt",
      "+ torchrun --standalone --nproc_per_node 4 main.py\n"
      "epoch 0 iter 40 loss 2.117\n"
      "Traceback (most recent call last):\nTraceback (most recent call last):\n"
      "  File \"/srv/main.py\", line 61, in <module>\n  File \"/srv/main.py\", line 61, in <module>\n"
      "RuntimeErrorRuntimeError: : " + to + to + "\n" +
      traceback("", "RuntimeError: " + to) +
      "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 40410 closing signal SIGTERM\n"
      "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 2 (pid: 40412) of binary: /usr/bin/python3\n" +
      failure_table("cn-r7-22", {{2, 2, 1, 40412, "2026-08-30_17:02:44"}, {1, 1, 1, 40411, "2026-08-30_17:02:44"}, {3, 3, 1, 40413, "2026-08-30_17:02:44"}}));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
  EXPECT_EQ(v["rank"], 0) << v.dump(1);
}

// srun -l with no host names: every node's launcher writes into one file, each behind its task
// label. Under c10d each agent's rendezvous result says which global ranks its local ranks got; the
// task's own result gives its "[default0]:" lines their rank, not another task's result.
TEST(Culprit, EachSrunTaskLendsItsOwnRendezvousResultsRanks) {
  std::string out;
  const int globals[3][2] = {{4, 5}, {0, 1}, {2, 3}};
  for (int t = 0; t < 3; ++t) {
    const std::string l = std::to_string(t) + ": ";
    out += l + "+ torchrun --nnodes 3 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint head-0:29400 pretrain.py\n";
    out += l + "INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous complete for workers. Result:\n" + l +
           "  restart_count=0\n" + l + "  master_addr=head-0\n" + l + "  master_port=41201\n" + l + "  group_rank=" +
           std::to_string(t) + "\n" + l + "  group_world_size=3\n" + l + "  local_ranks=[0, 1]\n" + l + "  role_ranks=[" +
           std::to_string(globals[t][0]) + ", " + std::to_string(globals[t][1]) + "]\n" + l + "  global_ranks=[" +
           std::to_string(globals[t][0]) + ", " + std::to_string(globals[t][1]) + "]\n" + l + "  role_world_sizes=[6, 6]\n" + l +
           "  global_world_sizes=[6, 6]\n" + l + "\n";
  }
  out += "2: [default1]:Traceback (most recent call last):\n"
         "2: [default1]:  File \"/srv/pretrain.py\", line 30, in <module>\n"
         "2: [default1]:    cfg = load(sys.argv[1])\n"
         "2: [default1]:KeyError: 'tokenizer'\n"
         "2: ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 7781) of binary: /usr/bin/python3\n";
  for (int t : {0, 1})
    for (int k = 0; k < 2; ++k)
      out += std::to_string(t) + ": [default" + std::to_string(k) + "]:RuntimeError: Socket Timeout\n";
  analysis::Inputs in;
  in.texts.emplace_back("slurm-99120.out", out);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["rank"], 3) << v.dump(1);
}

// TORCH_DISTRIBUTED_DEBUG=DETAIL: before each collective every rank compares all ranks'
// fingerprints and raises at the first that differs from its own. The ranks in step name the one
// out of step; that one names rank 0. The rank most of them name is the culprit, not the first
// exception in time (rank 0's here).
TEST(Culprit, TheRankTheFingerprintReportsNameRanAnotherCollective) {
  auto fp = [](int seq, const char* op) {
    return "CollectiveFingerPrint(SequenceNumber=" + std::to_string(seq) + ", OpType=" + op + ", TensorShape=[4096], TensorDtypes=Float)";
  };
  std::string out;
  for (int r : {0, 1, 2, 3, 4}) {
    out += "[rank" + std::to_string(r) + "]: RuntimeError: Detected mismatch between collectives on ranks. Rank " + std::to_string(r) +
           " is running collective: " + fp(212, "ALLREDUCE") + ", but Rank 5 is running collective: " + fp(212, "BROADCAST") + ".\n";
    if (r == 1)
      out += "[rank5]: RuntimeError: Detected mismatch between collectives on ranks. Rank 5 is running collective: " + fp(212, "BROADCAST") +
             ", but Rank 0 is running collective: " + fp(212, "ALLREDUCE") + ".\n";
  }
  analysis::Inputs in;
  in.texts.emplace_back("trn-14/train.log", out);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "collective-mismatch") << v.dump(1);
  EXPECT_EQ(v["rank"], 5) << v.dump(1);
}

// One rank's report alone names the other rank of the pair it compared: most reporters are ranks in
// step, so the rank named is the likelier one out of step.
TEST(Culprit, OneFingerprintReportNamesTheOtherRank) {
  analysis::Inputs in;
  in.texts.emplace_back("w-3.log", "[rank2]: RuntimeError: Detected mismatch between collectives on ranks. Rank 2 is running collective: "
                                   "CollectiveFingerPrint(SequenceNumber=9OpType=ALLGATHER), but Rank 6 is running collective: "
                                   "CollectiveFingerPrint(SequenceNumber=0OpType=BARRIER).Collectives differ in the following aspects: "
                                   "\t Sequence number: 9vs 0  Op type: ALLGATHERvs BARRIER\n");
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "collective-mismatch") << v.dump(1);
  EXPECT_EQ(v["rank"], 6) << v.dump(1);
}

// srun -l with no host names: the agent of group rank 0 publishes its own host as the workers'
// MASTER_ADDR, which every agent's rendezvous result prints. The task whose result says
// group_rank=0 runs on that host, so its rank's failure is on a named node.
TEST(Culprit, TheGroupRankZeroTaskIsOnTheMasterAddrHost) {
  std::string out;
  const int group[3] = {2, 0, 1};
  for (int t = 0; t < 3; ++t) {
    const std::string l = std::to_string(t) + ": ";
    const int g = group[t];
    out += l + "+ torchrun --nnodes 3 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint login-2:29400 tune.py\n";
    out += l + "INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous complete for workers. Result:\n" + l +
           "  restart_count=0\n" + l + "  master_addr=a100-n17.cluster.example.org\n" + l + "  master_port=45102\n" + l + "  group_rank=" +
           std::to_string(g) + "\n" + l + "  group_world_size=3\n" + l + "  local_ranks=[0, 1]\n" + l + "  global_ranks=[" +
           std::to_string(2 * g) + ", " + std::to_string(2 * g + 1) + "]\n" + l + "\n";
  }
  out += "1: [default1]:Traceback (most recent call last):\n"
         "1: [default1]:  File \"/opt/tune.py\", line 88, in <module>\n"
         "1: [default1]:    step(batch)\n"
         "1: [default1]:ZeroDivisionError: division by zero\n"
         "1: ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 5512) of binary: /usr/bin/python3\n";
  analysis::Inputs in;
  in.texts.emplace_back("slurm-70311.out", out);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["rank"], 1) << v.dump(1);
  EXPECT_EQ(v["node"], "a100-n17.cluster.example.org") << v.dump(1);
}

// srun -l with no host names, c10d rendezvous: only the agent on the endpoint's host tries to host
// the store, so the task that failed to bind the endpoint's port is on that host. The stalled job's
// cause is that port, on that node (not a client's survived fallback).
TEST(Culprit, TheSrunTaskThatCouldNotBindTheC10dPortIsOnTheEndpointsHost) {
  std::string out;
  for (int t = 0; t < 3; ++t)
    out += std::to_string(t) + ": + torchrun --nnodes 3 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint gpu-h07:29411 --rdzv_id ft2 pre.py\n";
  out += "2: [W socket.cpp:426] [c10d] The server socket has failed to bind to [::]:29411 (errno: 98 - Address already in use).\n"
         "2: [W socket.cpp:426] [c10d] The server socket has failed to bind to 0.0.0.0:29411 (errno: 98 - Address already in use).\n"
         "2: [E socket.cpp:462] [c10d] The server socket has failed to listen on any local network address.\n";
  analysis::Inputs in;
  in.texts.emplace_back("slurm-5110.out", out);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "port-in-use") << v.dump(1);
  EXPECT_EQ(v["node"], "gpu-h07") << v.dump(1);
}

// srun -l with no host names and torchrun's --log_dir: each agent says which fresh folder it made
// for its workers' files ("log directory set to: DIR"), and the collected files sit under their
// node's folder. The task whose folder holds a node's files is that node: the failing rank's node is
// named though no line of the shared file names a host.
TEST(Culprit, AnSrunTasksLogDirectoryTiesItToItsNodesFiles) {
  const std::string nodes[3] = {"cn-0412", "cn-0087", "cn-1203"};
  const std::string dirs[3] = {"ckpt_logs/job7781_q2w8zk1d", "ckpt_logs/job7781_0vx1mrta", "ckpt_logs/job7781_ls93hd0c"};
  std::string out;
  analysis::Inputs in;
  for (int t = 0; t < 3; ++t) {
    const std::string l = std::to_string(t) + ": ";
    out += l + "+ torchrun --nnodes 3 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:36011 --log_dir ckpt_logs fit.py\n";
    out += l + "INFO:torch.distributed.elastic.agent.server.local_elastic_agent:log directory set to: " + dirs[t] + "\n";
    out += l + "INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous complete for workers. Result:\n" + l +
           "  restart_count=0\n" + l + "  group_rank=" + std::to_string(t) + "\n" + l + "  group_world_size=3\n" + l +
           "  local_ranks=[0]\n" + l + "  global_ranks=[" + std::to_string(t) + "]\n" + l + "\n";
    const std::string base = nodes[t] + "/" + dirs[t] + "/attempt_0/0/";
    in.texts.emplace_back(base + "stdout.log", "loading shard " + std::to_string(t) + "\n");
    if (t == 1)
      in.texts.emplace_back(base + "stderr.log", traceback("", "FileNotFoundError: [Errno 2] No such file or directory: '/data/shard-1.bin'"));
  }
  out += "1: ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 20417) of binary: /usr/bin/python3\n";
  in.texts.emplace_back("slurm-44120.out", out);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["rank"], 1) << v.dump(1);
  EXPECT_EQ(v["node"], "cn-0087") << v.dump(1);
}


// An agent numbers its workers from one base: a node's failure table gives two of them (local 0 ->
// rank 5, local 1 -> rank 6), so the timeout in its local rank 2's own file (--redirects, no rank
// in it) is rank 7's. Then the one rank that never reported a timeout is the hung one, on the
// other node, stopped by its own launcher; without the pairs' base, rank 7 read as silent too.
TEST(Culprit, ANodesRankPairsGiveItsOtherLocalRanksTheirGlobalRanks) {
  const std::string launch = "+ torchrun --nnodes 2 --nproc_per_node N --rdzv_backend c10d --rdzv_endpoint gx-112:47001 --redirects 3 "
                             "--log_dir tl train.py\n";
  const std::string timeout = "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 600000ms for recv operation to complete";
  auto with = [&](const std::string& n) {
    std::string l = launch;
    l.replace(l.find(" N "), 3, " " + n + " ");
    return l;
  };
  analysis::Inputs in;
  // gx-112: ranks 0-4; rank 3 (local 3) hung, no line of its own, stopped by its launcher.
  std::string a = with("5") + "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 31104 closing signal SIGTERM\n";
  a += "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 31101) of binary: /usr/bin/python3\n";
  a += failure_table("gx-112", {{0, 0, 1, 31101, "2027-02-03_14:10:41"}, {1, 1, 1, 31102, "2027-02-03_14:10:41"},
                                {2, 2, 1, 31103, "2027-02-03_14:10:41"}, {4, 4, 1, 31105, "2027-02-03_14:10:41"}});
  in.texts.emplace_back("gx-112/job.out", a);
  for (int l : {0, 1, 2, 4}) in.texts.emplace_back("gx-112/tl/r_4k2/attempt_0/" + std::to_string(l) + "/stderr.log", traceback("", timeout));
  // gx-047: ranks 5-7; its table names locals 0 and 1; local 2 was stopped by the launcher after
  // its own timeout, which only its file holds.
  std::string b = with("3") + "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 9907 closing signal SIGTERM\n";
  b += "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 9905) of binary: /usr/bin/python3\n";
  b += failure_table("gx-047", {{5, 0, 1, 9905, "2027-02-03_14:10:41"}, {6, 1, 1, 9906, "2027-02-03_14:10:41"}});
  in.texts.emplace_back("gx-047/job.out", b);
  for (int l : {0, 1, 2}) in.texts.emplace_back("gx-047/tl/r_9zq/attempt_0/" + std::to_string(l) + "/stderr.log", traceback("", timeout));
  const json r = report_of(std::move(in));
  const json& v = r["verdict"];
  EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
  EXPECT_EQ(v["rank"], 3) << v.dump(1);
  EXPECT_EQ(v["node"], "gx-112") << v.dump(1);
}

// One local rank's statement, printed twice (each attempt says it again), is one pair: it lends
// no base to the node's other local ranks, whose global ranks a restart under c10d may have
// changed. The timeout of local rank 1 stays without a global rank.
TEST(Culprit, OneLocalRanksPairRepeatedLendsNoBase) {
  analysis::Inputs in;
  std::string out = "+ torchrun --nnodes 2 --nproc_per_node 2 --max_restarts 1 --rdzv_backend c10d --rdzv_endpoint qa-3:29511 fit.py\n";
  for (int attempt = 0; attempt < 2; ++attempt)
    out += "[default0]:2027-03-09 11:02:1" + std::to_string(attempt) + ",409 INFO [rank 4] Setting up process group for: env:// [rank=4, world_size=6]\n";
  out += traceback("[default1]:", "RuntimeError: Socket Timeout");
  out += "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 7712) of binary: /usr/bin/python3\n";
  in.texts.emplace_back("qa-7/out.log", out);
  in.texts.emplace_back("qa-3/out.log", "+ torchrun --nnodes 2 --nproc_per_node 2 --max_restarts 1 --rdzv_backend c10d --rdzv_endpoint qa-3:29511 fit.py\n" +
                                            traceback("[default0]:", "RuntimeError: Socket Timeout"));
  const json r = report_of(std::move(in));
  bool stated = false;  // the statement's own pair is kept
  for (const json& row : r["ranks"]) {
    stated = stated || (row["node"] == "qa-7" && row["rank"] == 4 && row["local_rank"] == 0);
    EXPECT_FALSE(row["node"] == "qa-7" && row["rank"] == 5) << row.dump(1);
  }
  EXPECT_TRUE(stated) << r["ranks"].dump(1);
}

// One failure table, three workers SIGSEGV in the same second: the rule's finding groups the
// three rows, and its first row's rank is no more the culprit than the others. No rank is named,
// the summary names none, and the tie is listed.
TEST(Culprit, ATableOfOneSignalInOneSecondNamesNoRankByItsFirstRow) {
  analysis::Inputs in;
  in.texts.emplace_back("torchrun.out", failure_table("vm-5c1e07", {{0, 0, -11, 45619, "2026-08-17_03:41:09", "Signal 11 (SIGSEGV) received by PID 45619"},
                                                                   {2, 2, -11, 45621, "2026-08-17_03:41:09", "Signal 11 (SIGSEGV) received by PID 45621"},
                                                                   {1, 1, -11, 45620, "2026-08-17_03:41:09", "Signal 11 (SIGSEGV) received by PID 45620"}}));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-signal") << v.dump(1);
  EXPECT_TRUE(v["rank"].is_null()) << v.dump(1);
  EXPECT_EQ(v["ranks_tied"], json::array({0, 1, 2})) << v.dump(1);
  EXPECT_EQ(v["summary"].get<std::string>().find("rank"), std::string::npos) << v.dump(1);
}

// ROCm's PyTorch says its allocator's out of memory as "HIP out of memory" (hipified from CUDA's
// words; before torch.OutOfMemoryError, a RuntimeError): the rank that ran out is the culprit, as
// with CUDA's or torch_npu's words.
TEST(Culprit, AHipOutOfMemoryIsADeviceOom) {
  analysis::Inputs in;
  const std::string launch = "+ torchrun --nnodes 2 --node_rank NR --nproc_per_node 4 --master_addr mi-n01 --master_port 29400 train.py\n";
  auto with = [&](const std::string& nr) { return with_node_rank(launch, nr); };
  in.texts.emplace_back("mi-n02/train.log", with("1") + traceback("[rank6]:", "RuntimeError: HIP out of memory. Tried to allocate 1.25 GiB (GPU 2; 63.98 GiB total "
                                                                                 "capacity; 62.71 GiB already allocated; 412.00 MiB free)"));
  in.texts.emplace_back("mi-n01/train.log", with("0") + peer_lost("[rank1]:", "10.31.0.12"));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "device-oom") << v.dump(1);
  EXPECT_EQ(v["rank"], 6) << v.dump(1);
  EXPECT_EQ(v["node"], "mi-n02") << v.dump(1);
}

// The kernel names the processes it killed by pid only. The launcher's "failed ... local_rank: 2
// (pid: P)" lines name the first two attempts' pids with a local rank, which the node's rank range
// makes global; the third attempt's kill came as the job was stopped from outside, with no line of
// the launcher's. The kills are that rank's: the verdict names it, not only its node.
TEST(Culprit, AKilledPidTheLauncherNamedIsThatRanks) {
  analysis::Inputs in;
  const std::string launch = "+ torchrun --nnodes 2 --node_rank NR --nproc_per_node 4 --max_restarts 2 --master_addr ws-a.lab.example.net "
                             "--master_port 23456 train.py\n";
  auto with = [&](const std::string& nr) { return with_node_rank(launch, nr); };
  const std::string api = "torch.distributed.elastic.multiprocessing.api:";
  std::string b = with("1");
  std::string dmesg;
  int pid = 40712;
  for (int attempt = 0; attempt < 3; ++attempt, pid += 97) {
    b += "ws-b.lab.example.net:" + std::to_string(pid) + ":" + std::to_string(pid + 7) + " [2] NCCL INFO Bootstrap : Using eth0:10.8.0.12<0>\n";
    dmesg += "[" + std::to_string(88213 + 40 * attempt) + ".004417] Out of memory: Killed process " + std::to_string(pid) +
             " (python3) total-vm:91260428kB, anon-rss:64525100kB, file-rss:117608kB, shmem-rss:0kB, UID:1000 pgtables:181200kB oom_score_adj:0\n";
    if (attempt < 2)
      b += "WARNING:" + api + "Sending process " + std::to_string(pid + 1) + " closing signal SIGTERM\nERROR:" + api +
           "failed (exitcode: -9) local_rank: 2 (pid: " + std::to_string(pid) + ") of binary: /usr/bin/python3\n";
  }
  b += "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers\n";
  in.texts.emplace_back("ws-b.lab.example.net/launcher.log", b);
  in.texts.emplace_back("ws-b.lab.example.net/dmesg.txt", dmesg);
  in.texts.emplace_back("ws-a.lab.example.net/launcher.log", with("0") + peer_lost("", "10.8.0.12"));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "host-oom-killed") << v.dump(1);
  EXPECT_EQ(v["rank"], 6) << v.dump(1);
  EXPECT_EQ(v["node"], "ws-b.lab.example.net") << v.dump(1);
}
}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

// Plain output on every node: one node's worker exits with code 255 and no traceback (its own
// choice); five seconds later a worker on another node raises ValueError, in a traceback no prefix
// ties to a rank. The untied traceback does not make its node's ranks the only candidates: the
// exit came first, and the exception's finding is passed over as a later failure.
TEST(Culprit, AnOwnExitElsewhereIsNotDroppedForAnUntiedTraceback) {
  analysis::Inputs in;
  const std::string launch = "+ torchrun --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint 10.4.0.11:41207 fit.py\n";
  in.texts.emplace_back("rk2-u14/out.log", launch +
                                               "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 255) local_rank: 0 (pid: 5120) of binary: /usr/bin/python3\n" +
                                               failure_table("rk2-u14", {{0, 0, 255, 5120, "2027-01-19_08:40:03"}}));
  in.texts.emplace_back("rk3-u02/out.log", launch + traceback("", "ValueError: Expected input batch_size (64) to match target batch_size (63).") +
                                               "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 7741) of binary: /usr/bin/python3\n" +
                                               failure_table("rk3-u02", {{1, 0, 1, 7741, "2027-01-19_08:40:08"}}));
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["rank"], 0) << v.dump(1);
  EXPECT_EQ(v["node"], "rk2-u14") << v.dump(1);
  EXPECT_NE(v["summary"].get<std::string>().find("255"), std::string::npos) << v.dump(1);
}

}  // namespace

// torchrun prints an empty line after its launch configs; behind kubectl's pod prefix or srun's task
// label that line is not empty, but it prints nothing: launchers stalled in rendezvous with no
// other output are a rendezvous failure, not a job whose workers printed. A tqdm bar's redraw,
// which the prefix peel takes whole, is a worker's print.
TEST(Prints, ALineBlankAfterItsPrefixesIsNoWorkersPrint) {
  auto launcher = [](int nproc, int port) {
    return "+ torchrun --nnodes 4 --nproc_per_node " + std::to_string(nproc) + " --rdzv_backend c10d --rdzv_endpoint mlp-0:" +
           std::to_string(port) + " --rdzv_id ft7 train.py\n"
           "INFO:torch.distributed.launcher.api:Starting elastic_operator with launch configs:\n"
           "  entrypoint       : train.py\n  min_nodes        : 4\n  max_nodes        : 4\n  nproc_per_node   : " +
           std::to_string(nproc) + "\n  rdzv_backend     : c10d\n  max_restarts     : 0\n  metrics_cfg      : {}\n\n"
           "INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous'ing worker group\n";
  };
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{{"[pod/mlp-0/trainer] ", "[pod/mlp-3/trainer] "},
                                                                            {"0: ", "1: "},
                                                                            {"  2: ", "  13: "}}) {
    for (const bool bar : {false, true}) {
      std::string out = prefixed(a, launcher(8, 23456)) + prefixed(b, launcher(8, 23456));
      if (bar) out += b + " 41%|████      | 164/400 [01:10<01:41,  2.33it/s]\n";
      analysis::Inputs in;
      in.texts.emplace_back("job-7/launchers.log", out);
      const json v = report_of(std::move(in))["verdict"];
      if (bar) {
        EXPECT_NE(v["category"], "rendezvous-failure") << a << v.dump(1);
      } else {
        EXPECT_EQ(v["category"], "rendezvous-failure") << a << v.dump(1);
      }
    }
  }
}

// srun gathers every task's output where it runs; a journal on that host (srun run as a systemd
// unit) puts its host before every task's label. The task labels, not the journal's one host, tell
// the launchers apart: the one whose master port differs is named, as without the journal. The same
// for kubectl's pod prefixes behind a journal.
TEST(Prints, ATaskOrPodLabelBehindAJournalHostIsItsOwnLauncher) {
  auto launch = [](int port) {
    return "+ torchrun --nnodes 3 --nproc_per_node 4 --node_rank 0 --master_addr 10.30.1.5 --master_port " + std::to_string(port) +
           " pretrain.py\n";
  };
  for (const bool journal : {false, true}) {
    for (const std::string kind : {"srun", "pod"}) {
      auto label = [&](int k) { return kind == "srun" ? std::to_string(k) + ": " : "[pod/gpt-ft-" + std::to_string(k) + "/main] "; };
      std::string out;
      const int ports[] = {29500, 29501, 29500};
      for (int k = 0; k < 3; ++k) out += prefixed(label(k), launch(ports[k]));
      if (journal) out = prefixed("Nov 28 02:13:44 login-02 slurm-job[88120]: ", out);
      analysis::Inputs in;
      in.texts.emplace_back("job-5521/out.log", out);
      const json v = report_of(std::move(in))["verdict"];
      EXPECT_EQ(v["category"], "rendezvous-failure") << kind << " " << journal << v.dump(1);
      const std::string odd = kind == "srun" ? "srun task 1" : "gpt-ft-1";
      EXPECT_NE(v["summary"].get<std::string>().find(odd), std::string::npos) << kind << " " << journal << v.dump(1);
    }
  }
}

// A restarted job on one node: in its first attempt local rank 2 died of SIGSEGV; in the last one it
// crashed again, and rank 0 was SIGKILLed in the same second of the failure table. A SIGKILL of no
// known sender says more than a crash when the two are all there is; here the crash is the failure
// the restart did not cure: rank 2 is named, and the why says so.
TEST(Culprit, TheFailureARestartDidNotCureWinsATieInOneSecond) {
  const std::string launcher = "I1203 04:11:02.118000 140 torch/distributed/elastic/agent/server/api.py:525] ";
  const std::string failed = "E1203 04:1";
  std::string log = "+ torchrun --nnodes 1 --nproc_per_node 3 --max_restarts 1 --master_addr trn-17 sft.py\n";
  for (int local = 0; local < 3; ++local) log += "[default" + std::to_string(local) + "]:epoch 0 step 40 loss 2.113\n";
  log += failed + "1:09.551000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -11) local_rank: 2 (pid: 9102) of binary: /usr/bin/python3\n";
  log += launcher + "[default] Worker group FAILED. 1/1 attempts left; will restart worker group\n";
  for (int local = 0; local < 3; ++local) log += "[default" + std::to_string(local) + "]:epoch 0 step 12 loss 2.870\n";
  log += failed + "2:30.204000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -11) local_rank: 2 (pid: 9205) of binary: /usr/bin/python3\n";
  log += failure_table("trn-17", {{0, 0, -9, 9203, "2026-12-03_04:12:30", "Signal 9 (SIGKILL) received by PID 9203"},
                                  {2, 2, -11, 9205, "2026-12-03_04:12:30", "Signal 11 (SIGSEGV) received by PID 9205"}});
  analysis::Inputs in;
  in.texts.emplace_back("trn-17/launcher.log", log);
  const json v = report_of(std::move(in))["verdict"];
  EXPECT_EQ(v["category"], "worker-signal") << v.dump(1);
  EXPECT_EQ(v["rank"], 2) << v.dump(1);
  ASSERT_TRUE(v.contains("why")) << v.dump(1);
  EXPECT_NE(v["why"][0].get<std::string>().find("the restart did not cure it"), std::string::npos) << v["why"].dump();
}

// A node's lost-peer report that no line ties to a rank makes an exit of that node a reporter's,
// but not when it was printed long after every such exit there (here the launcher's store barrier
// 34 s after its worker's ZeroDivisionError): then the worker's exit is its own failure, first in
// time, and the other node's later store timeout does not take its place.
TEST(Culprit, AReportPrintedLongAfterANodesExitsIsNotTheirs) {
  analysis::Inputs in;
  in.texts.emplace_back("cx-1/out.log",
      "2026-05-04T08:00:00.000Z + torchrun --nnodes 2 --nproc_per_node 1 --node_rank 0 --master_addr cx-1 --master_port 29500 train.py\n"
      "2026-05-04T08:00:05.100Z Traceback (most recent call last):\n"
      "2026-05-04T08:00:05.100Z   File \"/srv/train.py\", line 9, in <module>\n"
      "2026-05-04T08:00:05.100Z     ratio = hits / seen\n"
      "2026-05-04T08:00:05.101Z ZeroDivisionError: division by zero\n"
      "2026-05-04T08:00:06.200Z ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 5100) of binary: /usr/bin/python3\n"
      "2026-05-04T08:00:40.000Z Traceback (most recent call last):\n"
      "2026-05-04T08:00:40.000Z   File \"/usr/lib/python3/dist-packages/torch/distributed/elastic/utils/store.py\", line 34, in get_all\n"
      "2026-05-04T08:00:40.000Z     data = store.get(f\"{prefix}{idx}\")\n"
      "2026-05-04T08:00:40.001Z RuntimeError: Connection reset by peer\n");
  in.texts.emplace_back("cx-2/out.log",
      "2026-05-04T08:00:00.300Z + torchrun --nnodes 2 --nproc_per_node 1 --node_rank 1 --master_addr cx-1 --master_port 29500 train.py\n"
      "2026-05-04T08:00:21.000Z Traceback (most recent call last):\n"
      "2026-05-04T08:00:21.000Z   File \"/usr/lib/python3/dist-packages/torch/distributed/rendezvous.py\", line 177, in _create_c10d_store\n"
      "2026-05-04T08:00:21.000Z     return TCPStore(\n"
      "2026-05-04T08:00:21.001Z TimeoutError: The client socket has timed out after 15s while trying to connect to (cx-1, 29500).\n"
      "2026-05-04T08:00:22.500Z ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 7300) of binary: /usr/bin/python3\n");
  const json rep = report_of(std::move(in));
  const json& v = rep["verdict"];
  EXPECT_EQ(v["category"], "worker-exception") << v.dump(1);
  EXPECT_EQ(v["node"], "cx-1");
  EXPECT_EQ(v.value("rank", json()), 0) << v.dump(1);
  ASSERT_TRUE(v.contains("why")) << v.dump(1);
  EXPECT_NE(v["why"][0].get<std::string>().find("Rank 0 failed on its own first"), std::string::npos) << v["why"].dump();
}

// slurmstepd's "*** STEP N ON host CANCELLED AT time ***" is a stop from outside: after the ranks'
// timeouts in the same stream it is how the job ended (the rank that never reported is named);
// before the workers' errors it is why they failed.
TEST(Culprit, ASlurmCancelAfterTheTimeoutsIsHowTheJobEnded) {
  auto of = [](int r) {
    return "[E ProcessGroupNCCL.cpp:475] [Rank " + std::to_string(r) +
           "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=BROADCAST, NumelIn=4096, NumelOut=4096, "
           "Timeout(ms)=600000) ran for 600231 milliseconds before timing out.\n";
  };
  const std::string cancel = "slurmstepd: error: *** STEP 918.0 ON hpc-g12 CANCELLED AT 2025-03-14T09:41:55 ***\n";
  const std::string bar = "Tokenizing shards: 41%|####      | 82/200 [10:02<14:26, 7.34s/it]\n";
  {
    analysis::Inputs in;
    in.texts.emplace_back("slurm-918.out", bar + of(1) + of(3) + of(2) + bar + cancel + "srun: error: hpc-g12: task 0: Terminated\n");
    const json v = report_of(std::move(in))["verdict"];
    EXPECT_EQ(v["category"], "collective-timeout") << v.dump(1);
    EXPECT_EQ(v.value("rank", json()), 0) << v.dump(1);
  }
  {
    analysis::Inputs in;
    in.texts.emplace_back("slurm-918.out", bar + cancel + of(1) + of(3) + of(2));
    const json v = report_of(std::move(in))["verdict"];
    EXPECT_EQ(v["category"], "external-termination") << v.dump(1);
  }
}

}  // namespace dtriage::test
