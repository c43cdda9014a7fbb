// Real failed jobs made by the failure lab (tools/lab/run_case.py: real torchrun on gloo, N nodes x
// M processes, one fault each, truth recorded) under tests/lab/cases/. dtriage must name each case's
// category, and its node and rank where the truth names them; the score is printed per case.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "test_util.hpp"

namespace dtriage::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Cases dtriage gets wrong today, with the reason; every other case must be right on each point its
// truth names, so a case lost while another is gained fails.
const std::map<std::string, std::string> kKnownMisses = {
    // The fresh batch of the independent-dimension lab (seeds 5001-5044), drawn after issue 21's work.
    {"lab-5043-hang", "hang during a restart, --redirects: world size unknown (uneven --nproc_per_node); the category is right, "
                      "but the hung rank never printed in the last attempt and the node named is one whose ranks came late"},
    // The trial cases of the new generator (seeds 9001-9241) the fixes were made on.
    // The fresh batch of seeds 6001-6048, drawn after the restart / srun / c10d work of 2026-12-01:
    // what it still gets wrong after the fixes it led to.
    {"lab-6029-wrong-port", "c10d, one node against one with different ports: neither holds the majority and no node rank 0 "
                            "defines the job, so the odd node is not named"},
    {"lab-6036-slow", "slow rank alone on its node, c10d, launcher output, the restart stopped by the time limit: the "
                      "attempt before it decides (rank 0 named), but there the other node's timeouts are plain lines no "
                      "rank is tied to and its rank 1's exit 1 is taken as the failure: worker-exception"},
    {"lab-7012-slow", "slow rank, then the job stopped from outside (time limit) before any timeout fired: external "
                      "termination is what the logs show; the stall before it is not measured (no per-rank progress yet)"},
    {"lab-7021-wrong-port", "c10d, one node against one with another --master_port: category right, neither node is the odd one"},
    {"lab-7040-exception", "exception during a restart, --redirects, c10d: category right; the launcher's first 'failed (exitcode' "
                           "line's node (and the rank its worker stated) is taken over the attempt files' traceback"},
    // The fresh batch of seeds 8001-8048 (45 cases), drawn at the start of the session of 2026-12-02
    // (04:00) before any change: what it still gets wrong after the fixes it led to.
    {"lab-8004-slow", "slow rank in the last attempt, stopped by the time limit before its timeout fired: the stall is not "
                      "measured (no per-rank progress yet)"},
    {"lab-8006-two-faults", "exit 1 after 'aborting the run', then an abort at exit (SIGABRT): the rank is named (its node's "
                            "output shows its words first), but its ending reads as a crash signal, not the exit the job meant"},
    {"lab-8020-wrong-port", "c10d, one pod against one with different ports: neither is the odd one by the logs"},
    {"lab-8021-slow", "slow rank, plain output, stopped by the time limit in the restart: the restart's workers stated their "
                      "ranks, so the first attempt's timeouts are replaced, and the last attempt shows only a stall nothing measures"},
    // The fresh batch of seeds 10001-10048, drawn at the start of the session of 2026-12-02 and scored
    // before any change (categories 44/48, culprits 27/33); these five are still missed after it.
    {"lab-10031-hang", "hang in the last attempt, stopped by the time limit before any timeout fired: the stop from outside is "
                       "what the logs end with; nothing measures the stall (the step prints carry no time)"},
    // The fresh batch of seeds 11001-11048, drawn at the start of the session of 2026-12-02 (10:30)
    // and scored before any change (categories 46/48, culprits 25/32); these two are still missed.
    // The fresh batch of seeds 12001-12048 (46 cases; two runs removed by the generator), drawn at the
    // start of the session of 2026-12-02 afternoon and scored before any change: 43/46 categories,
    // 25/31 culprits. lab-12021's node is right since kubectl pods lend their names, its rank since workers'
    // statements of their own rank are read (2026-12-02, evening; as are 12008 and 12040).
    {"lab-12028-two-faults", "rank 6 SIGKILLed, rank 5 exits on a NaN 3 s later: the kill's time is its launcher's, which notices "
                             "it at a later monitor tick than rank 5's own timestamped print, so rank 5 looks first"},
    {"lab-12034-exit", "exit code 7 with no traceback during a restart, launcher output only, restarts exhausted: the peers' "
                       "closed connections are named, the exit is not taken as the last attempt's first failure"},
    {"lab-12036-exit", "exit code 1 with no traceback on node012 in each attempt, c10d, launcher output only: every node reports "
                       "an exit 1, the first node's (node002) is named, not the one whose worker died without a traceback"},
    // The fresh batch of seeds 13001-13048, drawn at the start of the session of 2026-12-02 evening
    // and scored with 82cf899 before any change: 45/48 categories, 25/33 culprits; after the rank
    // statements (not fitted on it): 47/48, 28/33. These five are still missed.
    {"lab-13001-oom", "OOM kills of rank 10 in two attempts, docker json-file, launcher output: category and node right; the "
                      "killed pid is on no failure row of the last attempt, so no rank"},
    {"lab-13037-slow", "slow rank in both attempts, the last stopped by the time limit, c10d pods: category right, the late rank's "
                       "node is not named (its stall in the last attempt is not measured)"},
    // The fresh batch of seeds 14001-14048, drawn after the rank statements (2026-12-02, 19:37) and
    // scored before any change: 48/48 categories, 31/33 culprits (82cf899: 48/48, 29/33).
    // Trial cases of the lab's 'joining' dimension (seeds 19001, 19005, 19021, 19026: transformers',
    // no, Lightning's and Ray Train's words on joining).
    // The fresh batch 15001-15048 (with the joining dimension), drawn at the start of the session of
    // 2026-12-03 and scored before any change: 48/48 categories, 28/31 culprits.
    {"lab-15030-two-faults", "two faults 2 s apart: rank 10's MemoryError traceback is undated (its only time is the failure "
                             "row's second), rank 0's exit follows a dated ERROR line inside the same span; rank 0 is taken"},
    {"lab-15039-wrong-port", "two nodes, both endpoints 127.0.0.1 with different ports, both launchers silent: no majority and "
                             "no store host says which node is odd"},
    // The fresh batch 16001-16048 (47 cases; the generator removed one run), drawn after the session
    // of 2026-12-03's work and scored before any change: 45/47 categories, 25/32 culprits.
    {"lab-16005-wrong-port", "two nodes, wrong port, c10d, both launchers silent: no majority says which node is odd (as 15039)"},
    {"lab-16006-two-faults", "two faults 3 s apart, Ray output: the SIGABRT and the later SIGSEGV tie in the launchers' "
                             "second; the other fault's rank (trn13 rank 0) is taken"},
    // The fresh batch 17001-17048 (47 cases; the generator removed one run), drawn at the start of
    // the session of 2026-12-03 (09:37) and scored with 48c76db before any change: 45/47
    // categories, 27/32 culprits; after the session's culprit work 47/47, 29/32.
    {"lab-17041-wrong-port", "two nodes, c10d, both endpoints 127.0.0.1 with different ports, launchers silent: no majority "
                             "says which node is odd (as 15039, 16005)"},
    // The fresh batch 18001-18048 (46 cases; the generator removed two runs), drawn after the
    // session of 2026-12-03 (09:36)'s culprit work and scored before any change: 46/46 categories,
    // 33/36 culprits (48c76db: 45/46, 32/36). The three misses are one kind: plain output, the
    // exception's traceback tied to no rank, its node's other ranks exiting in the same second;
    // the node is right and the launcher's Root Cause row (the lowest local rank) is taken.
    // The batch 19001-19048 (44 seeds never used before; 19001, 19005, 19021 and 19026 had been the
    // joining dimension's trial cases and are the committed ones), drawn at the start of the
    // session of 2026-12-04 and scored with d46f511 before any change: 43/44 categories, 28/32
    // culprits; after the interleaved-exception and untied-traceback fixes: 44/44, 30/32.
    // The batch 20001-20048 (47 cases; seed 20039's job did not run), drawn at the start of the
    // session of 2026-12-04 (06:10) and scored with 7465894 before any change: 44/47 categories,
    // 30/35 culprits; after the exit-barrier teardown rule: 45/47, 30/35. These five are missed.
    // The batch 22001-22040 (40 cases), drawn at the start of the session of 2026-12-04 (09:35) and
    // scored with 6c7212d's verdicts (the speed work left every report byte-identical): 40/40
    // categories, 23/26 culprits; after the location-name node hint: 40/40, 24/26.
    // The batch 23001-23030 (30 cases, the first with torchrun at LOGLEVEL=INFO in 12), drawn after
    // the session's speed, node-name, rendezvous-result, evidence and launcher-traceback work and
    // scored before any fix: 30/30 categories, 16/20 culprits; the srun-task survival fix after it
    // changed no culprit.
    {"lab-23009-hang", "srun -l labels with no host in any line, rank 0 alone on its node hung in a restart, the job stopped "
                       "from outside: neither the silent rank nor its node is named"},
    {"lab-23028-two-faults", "Ray output (the driver groups each worker's lines, not in time order): an exit 3 with no message "
                             "(rank 0) then a ValueError (rank 4) 2.3 s later, every failure row in one second: the exception "
                             "is taken as the stronger ending"},
    // Batch 27001-27040 (39 cases; seed 27019's job did not run), drawn at the start of the
    // 2026-12-04 evening session before any change: 39/39 categories, 29/31 culprits.
    {"lab-27036-two-faults", "a SIGABRT (rank 0, alone on its node) 3 s before a SIGKILL (rank 3, another node); both launchers' "
                             "failure rows say the same second and no dated line shows either failure: the SIGKILL is taken "
                             "as the stronger ending, the SIGABRT is listed beside it as in the same second"},
    // Batch 33001-33044 (42 cases; seeds 33025 and 33030 did not fire), drawn at the start of the
    // 2026-12-05 session before any change: 42/42 categories, 25/28 culprits named + 1 tie holding it.
    {"lab-33008-two-faults", "kubectl output, no timestamps: rank 0's SIGSEGV and rank 1's ValueError (another node, 3 s "
                             "later) both after step 8; with c10d's blocks of ranks both are known, and with no time to "
                             "order them the exception is taken as saying more (the tie is said in the why)"},
    {"lab-33022-wrong-port", "two nodes, c10d, one master port each (41579 / 41580) and no node_rank: one against one, "
                             "nothing in the logs says which port the job meant; the verdict names no node"},
    // Batch 34001-34012 (12 cases), drawn after this session's diagnosis changes: 10/12 categories,
    // 6/8 culprits + 1 tie.
    {"lab-27011-two-faults", "a SIGKILL (rank 2) 2.3 s before a ValueError (rank 1, the other node), Ray output, both rows in "
                             "one second: the exception is taken as first (a kill no line says the OOM killer sent may follow "
                             "another rank's failure; a ValueError cannot), which independent faults in this order defeat"},
    // Batch 35001-35044 (43 cases; 35038 did not run), drawn after this session's first three fixes
    // and scored before the next ones: categories 43/43, culprits 28/32; 35034 (a folder named
    // ip-10-0-4-26, EC2's host name, not taken for a node) is right since.
    {"lab-35019-wrong-port", "two pods, c10d, one master port each (51119 / 51120): one against one, as 33022"},
    {"lab-35044-wrong-port", "two nodes, c10d, srun labels, one master port each (40755 / 40756): one against one, as 33022; "
                             "the odd launcher would be 'srun task N' anyway"},
    // Batch 36001-36024 (24 cases), drawn after all of this session's changes: categories 24/24,
    // culprits 15/16.
    // (lab-19005-hang, a hang under Ray whose workers state no rank, is right since 2026-12-07: the
    // ip= of a pid no launcher line names gives its node, and a node's reporting pids count there.)
    // Batch 37001-37020 (20 cases), drawn after the CI fix, diff --redact and the srun-task culprit,
    // scored before any fix: categories 19/20 (37005, a Ray restart: fixed since), culprits 13/16
    // named and 2 ties that hold the truth.
    {"lab-37006-wrong-port", "two nodes, c10d, one rendezvous port each (34609 / 34610), stopped by the time limit: one against "
                             "one, as 33022"},
    // Batch 38001-38016 (16 cases), drawn after all of this session's changes: categories 16/16,
    // culprits 11/11.
    // Batch 39001-39016 (16 cases), drawn at the start of the next session before any change:
    // categories 16/16, culprits 11/12.
    {"lab-39015-wrong-port", "two nodes, c10d, one rendezvous port each (38645 / 38646), stopped by the time limit: one against "
                             "one, as 33022"},
    // Batch 40001-40008 (8 cases), drawn after this session's changes: categories 8/8, culprits 3/4.
    // Batch 45001-45040 (39 cases), drawn at the start of the session of 2026-12-06: all right after
    // its fixes (3 ties that hold the truth). Batch 46001-46040 (39 cases), drawn after them:
    // categories 39/39, culprits 19/23 named and 3 ties that hold the truth.
    {"lab-46030-wrong-port", "two nodes, c10d, one rendezvous port each (51925 / 51926), Ray output: one against one, as 33022"},
    // The fresh batch of seeds 47001-47040 (39 jobs; one dropped by the generator), drawn at the start
    // of the session of 2026-12-06 (09:35) and scored before any change: categories 39/39, culprits
    // 23/30 named and 3 tied; 47020 (a hung rank alone on its node under Ray) is named since bd2cdf8.
    {"lab-47011-two-faults", "rank 6 exits 1 with no words, rank 1 raises 3.5 s later on another node: both failure tables "
                             "say the same second, and rank 1's traceback says more than an exit code"},
    {"lab-47013-wrong-port", "c10d, two nodes (4 and 1 workers) with different ports, one against one: neither is the odd one"},
    {"lab-47032-wrong-port", "c10d, two nodes with different ports, one against one: neither node is the odd one"},
    // The fresh batch of seeds 48001-48040 (39 jobs), generated while this session's changes were
    // made and scored after them, unseen before: categories 39/39, culprits 25/29 named and 1 tied
    // with the session's start binary and with bd2cdf8; 26/29 after the left-over rank (48009).
    {"lab-48013-two-faults", "c10d, kubectl pod prefixes, plain launcher output: rank 5's MemoryError traceback carries no rank "
                             "on a node of two workers; the node is named, not the rank"},
    // The fresh batch of seeds 49001-49040 (39 jobs), drawn at the start of the session of
    // 2026-12-06 (13:05) before any change: categories 39/39, culprits 27/28 with the session's start
    // binary and after its changes alike.
    {"lab-49020-wrong-port", "c10d, one pod against one with different ports, every endpoint 127.0.0.1 (the lab's nodes share "
                             "one machine): no node is the endpoint's host, neither holds a majority; the odd node is not named"},
    // The fresh batch of seeds 53001-53040 (40 jobs), drawn after the work of the session of
    // 2026-12-06 (20:26): categories 39/40, culprits 17/20 + 2 tied with the session's start binary
    // and its end alike; 53008 (two "Exception ignored" headers, then both tracebacks) was mended after.
    {"lab-53038-port-busy", "one pod's kubectl --prefix output, static rendezvous, port taken: category right; the verdict "
                            "names the launcher by its pod label (pod/NAME), not the pod's host name (a file of one pod "
                            "takes its node from its path or other files; taking the pod's name there moved 62 lab "
                            "variants' nodes, so it was not done)"},
    {"lab-55007-sigsegv", "rank 11's SIGSEGV ended the first attempt; in the second each launcher saw a peer-loss exit "
                          "first, and the third was stopped from outside (time limit) before rank 11's launcher reported "
                          "its SIGSEGV: the last attempt shows only lost peers and worker-0's exit 1 (named), the failure "
                          "the restarts did not cure is the first attempt's only"},
    {"lab-55013-wrong-port", "c10d, two nodes, one master port each (33837 / 33838): one against one, as 33022; category right"},
    // The fresh batch of seeds 56001-56040 (39 jobs), drawn at the start of the session of
    // 2026-12-07 (03:58) and scored before any change: 36/39 categories, 20/24 culprits + 1 tied;
    // after the session's fixes 39/39, 20/24 + 1 tied. 56023 and 56031 (c10d, launcher lines that
    // give only a local rank) right since those lines take their node's block of ranks by the
    // order of host names (2026-12-07, 19:00), as is 61027.
    // The fresh batch of seeds 57001-57040 (39 jobs), drawn after the work of the session of
    // 2026-12-07 (04:51): 37/39 categories, 22/26 culprits + 2 tied with the session's start binary;
    // 38/39, 22/26 + 3 tied with its end. What it gets wrong:
    {"lab-57021-wrong-port", "c10d, two nodes, one master port each: one against one, as 55013; category right"},
    {"lab-57039-hang", "a hang in the first attempt, the restart recovered and trained to the end, Ray output, --redirects "
                       "without its attempt files, a tar.gz per node: read as failed (the first attempt's exit 1), not "
                       "recovered; not analysed yet"},
    // The batch of seeds 58001-58040 (39 jobs), drawn at the start of the session of 2026-12-07
    // (07:29): 38/39 categories, 33/34 culprits + 1 tied with its start binary; 38/39, 34/34 with
    // its end. What it gets wrong:
    {"lab-58034-slow", "Ray with --redirects, a slow rank in the restart, stopped by the time limit: the launcher's "
                       "stream holds no worker line, so the first attempt's exit 1 stays rank 10's ending "
                       "(worker-exception on the right rank, not the hang)"},
    // The batch of seeds 59001-59040 (40 jobs), drawn after the first three commits of the session
    // of 2026-12-07 (08:37): 40/40 categories, 24/27 culprits + 1 tied with its start binary;
    // 40/40, 25/27 with its end; its two misses (59005, 59027) are right since (see below).
    // A crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL) in the same second as a SIGKILL of no known sender is
    // the process's own fault, which the kill may have followed (2026-12-07, 11:20): 40005, 56032,
    // 59005 named; 15011 lost, where the kill came 3.3 s before the crash and the launchers' rows
    // (their monitor interval) put both in one second.
    // The batch of seeds 60001-60040 (40 jobs), drawn at the start of the session of 2026-12-07
    // (11:08) and scored before any change: 40/40 categories, 27/31 culprits + 3 tied; after the
    // session's first fixes 27/31 + 4 tied (60006, a hang under Ray: the tie of rank 5 and 6 on the
    // right node, which was no node before). No miss.
    // The batch of seeds 61001-61040 (40 jobs), drawn after this session's first four commits
    // (12:06) and scored before any fix from it: 39/40 categories, 27/30 culprits with the
    // session's start binary and with the tree then alike; 61028 (a rank's ValueError printed
    // after its launcher had found rank 0's abort and was stopping the rest) right since. Left:
    // The batch of seeds 62001-62040 (40 jobs), drawn at the start of the session of 2026-12-07
    // (14:53) and scored before any change: 39/40 categories, 30/33 culprits + 2 tied. 62015 (an
    // abort and a kill in one second on two nodes, the kill's node with a lost-peer report no exit
    // accounts for) right since; 62009 (a host OOM kill whose dmesg the generator lost: the ring
    // buffer was full) made again with the generator's fix. No miss.
    // 61005 (a hang of rank 0 alone on its node, c10d, plain output) right since c10d's order of
    // host names places each node's block of ranks (2026-12-07, 16:20); so is 16011 (a hang during
    // a restart, c10d, launcher output only), whose hung rank was not named.
    // The batch of seeds 63001-63010 (9 jobs; seed 63004 gave none), drawn after all of that
    // session's changes (17:20): 9/9 categories, 8/8 culprits, with the final tree and the session's
    // start binary alike. No miss.
    // The fresh batch of seeds 64001-64040 (40 jobs), drawn at the start of the session of
    // 2026-12-07 (18:19) and scored before any change: 40/40 categories, 30/30 culprits; and
    // 65001-65012 (12 jobs), drawn after that session's changes (20:05): 12/12, 7/7. No miss.
    // The fresh batch of seeds 66001-66030 (30 jobs), drawn at the start of the session of
    // 2026-12-07 (21:31) and scored before any change: 29/30 categories, 21/22 culprits + 1 tied.
    // What it gets wrong (the family of 58034):
    {"lab-66018-hang", "Ray, c10d, a hang of rank 6 (alone on its node) in the restart, stopped by the time limit: its "
                       "launcher's stream holds no worker line, so the first attempt's exit 1 stays rank 6's ending "
                       "(worker-exception on the right rank, not the hang). The agent's rendezvous result "
                       "(restart_count=1) does begin the next attempt, but taking it so loses 55011, whose driver log's "
                       "lines of the attempt before are not placed in theirs"},
    // The batch of seeds 67001-67020 (20 jobs), drawn after that session's changes (22:03): 19/20
    // categories, 13/14 culprits, with the final tree and the session's start binary alike. Missed:
    {"lab-67020-two-faults", "Ray output, rank 0's exit 255 (an argument error it printed) 2.3 s before rank 1's SIGKILL "
                             "on another node: both failure rows in one second and no line of either timed finer, so "
                             "the kill, which says more, is named (the family of 15011, 19031)"},
    {"lab-15011-two-faults", "rank 9's SIGKILL at 7.7 s, rank 1's SIGSEGV on another node at 11.0 s, both failure rows in "
                             "one second: the crash is named (a crash beside a kill in one second is taken as first)"},
    // Moved by the writer's bracketed rank (2026-12-07, 09:00): rank 6's "[rank 6] error: loss became
    // NaN" line now has its rank and its time to the millisecond, 03:13:03.839; rank 0's untied
    // ValueError traceback is timed by its launcher's failure row, 03:13:04, when the launcher looked
    // (monitor_interval 5 s), though it failed 3.5 s before rank 6. A launcher's time is an upper
    // bound, not a time: not yet weighed as one.
    {"lab-19031-two-faults", "rank 0's ValueError (timed only by its launcher's row, a second later) loses to rank 6's "
                             "dated exit-3 line that came 3.5 s after it"},
};

// What each known miss reads today ("category node rank", "-" for none): a known miss whose verdict
// moves fails too, better or worse, so that a change there is looked at (lab 22005 once turned from
// worker-exception to collective-timeout and no test said so). Update the entry when the move is right.
const std::map<std::string, std::string> kKnownMissVerdicts = {
    {"lab-5043-hang", "collective-timeout bert-ft-4d80a-worker-3 -"},
    {"lab-6029-wrong-port", "rendezvous-failure - -"},
    {"lab-6036-slow", "worker-exception r38-c05-n04 0"},
    {"lab-7012-slow", "external-termination r38-c04-n16 -"},
    {"lab-7021-wrong-port", "rendezvous-failure - -"},
    {"lab-7040-exception", "worker-exception c005.ml.example.edu 0"},
    {"lab-8004-slow", "external-termination - -"},
    {"lab-8006-two-faults", "worker-signal node015 1"},
    {"lab-8020-wrong-port", "rendezvous-failure - -"},
    {"lab-8021-slow", "collective-timeout - -"},
    {"lab-10031-hang", "external-termination dgx04 -"},
    {"lab-12028-two-faults", "worker-exception gpu02 5"},
    {"lab-12034-exit", "network-transport-error ip-10-0-7-21 -"},
    {"lab-12036-exit", "worker-exception node002.ml.example.com 0"},
    {"lab-13001-oom", "host-oom-killed trn42 -"},
    {"lab-13037-slow", "collective-timeout - -"},
    {"lab-15030-two-faults", "worker-exception llm-pretrain-fea10-worker-0 0"},
    {"lab-15039-wrong-port", "rendezvous-failure - -"},
    {"lab-16005-wrong-port", "rendezvous-failure - -"},
    {"lab-16006-two-faults", "worker-signal trn13 0"},
    {"lab-17041-wrong-port", "rendezvous-failure - -"},
    {"lab-23009-hang", "collective-timeout - -"},
    {"lab-23028-two-faults", "worker-exception r26-c05-n04 4"},
    {"lab-27036-two-faults", "worker-signal 10-0-2-27 3"},
    {"lab-33008-two-faults", "worker-exception ip-10-0-0-38 1"},
    {"lab-33022-wrong-port", "rendezvous-failure - -"},
    {"lab-27011-two-faults", "worker-exception r08-c08-n12 1"},
    {"lab-35019-wrong-port", "rendezvous-failure - -"},
    {"lab-35044-wrong-port", "rendezvous-failure - -"},
    {"lab-37006-wrong-port", "rendezvous-failure - -"},
    {"lab-39015-wrong-port", "rendezvous-failure - -"},
    {"lab-46030-wrong-port", "rendezvous-failure - -"},
    {"lab-47011-two-faults", "worker-exception r24-c02-n12 1"},
    {"lab-47013-wrong-port", "rendezvous-failure - -"},
    {"lab-47032-wrong-port", "rendezvous-failure - -"},
    {"lab-48013-two-faults", "worker-exception 10-0-2-50 -"},
    {"lab-49020-wrong-port", "rendezvous-failure - -"},
    {"lab-53038-port-busy", "port-in-use pod/node020.hpc.example.edu -"},
    {"lab-55007-sigsegv", "worker-exception bert-ft-776db-worker-0 0"},
    {"lab-55013-wrong-port", "rendezvous-failure - -"},
    {"lab-57021-wrong-port", "rendezvous-failure - -"},
    {"lab-57039-hang", "worker-exception r33-c03-n08 0"},
    {"lab-19031-two-faults", "worker-exception r32-c06-n11 6"},
    {"lab-15011-two-faults", "worker-signal ip-10-0-3-43 1"},
    {"lab-58034-slow", "worker-exception cn063 10"},
    {"lab-66018-hang", "worker-exception c026.ml.example.edu 6"},
    {"lab-67020-two-faults", "worker-signal n046.ml.example.org 1"},
};

std::vector<fs::path> lab_cases() {
  std::vector<fs::path> out;
  const fs::path dir = fs::path(DTRIAGE_SOURCE_DIR) / "tests" / "lab" / "cases";
  if (!fs::is_directory(dir)) return out;
  for (const auto& c : fs::directory_iterator(dir))
    if (fs::exists(c.path() / "TRUTH.json") && fs::is_directory(c.path() / "logs") && in_this_builds_share(c.path().filename().string()))
      out.push_back(c.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Under `srun -l` with one task per node, task N runs on the allocation's N-th node (Slurm gives
// task ids in node-list order; the lab starts task N on truth["nodes"][N]): where no line names a
// host, "srun task N" is as far as the logs go, and it is the truth's node.
bool srun_task_is(const json& truth, const json& node) {
  if (truth.value("output", "") != "srun" || !node.is_string() || !truth.contains("nodes")) return false;
  const std::string s = node.get<std::string>();
  const std::string prefix = "srun task ";
  if (s.rfind(prefix, 0) != 0 || s.size() == prefix.size()) return false;
  std::size_t n = 0;
  for (std::size_t i = prefix.size(); i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    n = n * 10 + static_cast<std::size_t>(s[i] - '0');
    if (n > 100000) return false;
  }
  return n < truth["nodes"].size() && truth["nodes"][n] == truth["node"];
}

TEST(Lab, NamesTheCategoryNodeAndRankOfEachJob) {
  const auto cases = lab_cases();
  ASSERT_GE(cases.size() * kSlowBuildShare, 60u) << "the committed lab batch is missing";
  std::size_t right = 0, culprits = 0, culprits_right = 0, culprits_tied = 0;
  std::ostringstream report;
  for (const fs::path& c : cases) {
    const json truth = json::parse(read_file((c / "TRUTH.json").string()));
    const json v = verdict_of((c / "logs").string());
    const std::string want = truth["category"].is_null() ? "(" + truth["status"].get<std::string>() + ")" : truth["category"].get<std::string>();
    const std::string got = v["category"].is_string() && v["status"] != "healthy" ? v["category"].get<std::string>()
                                                                                  : "(" + v["status"].get<std::string>() + ")";
    const bool ok = want == got;
    right += ok ? 1 : 0;
    std::string line = std::string(ok ? "  ok    " : "  MISS  ") + c.filename().string() + ": " + want + (ok ? "" : ", got " + got);
    if (!truth["node"].is_null() || !truth["rank"].is_null()) {
      ++culprits;
      const bool node_ok = truth["node"].is_null() || v["node"] == truth["node"] || srun_task_is(truth, v["node"]);
      const bool rank_ok = truth["rank"].is_null() || v["rank"] == truth["rank"];
      // No rank named, the node right and the truth among the ranks said to be tied: what the logs
      // allow, said as such (counted apart from the ranks named).
      bool tied = false;
      if (node_ok && !rank_ok && v["rank"].is_null() && v.contains("ranks_tied"))
        for (const json& r : v["ranks_tied"]) tied = tied || r == truth["rank"];
      culprits_right += node_ok && rank_ok ? 1 : 0;
      culprits_tied += tied ? 1 : 0;
      line += "; culprit " + truth["node"].dump() + " rank " + truth["rank"].dump() +
              (node_ok && rank_ok ? " named"
               : tied             ? " among the tied ranks " + v["ranks_tied"].dump()
                                  : ", got " + v["node"].dump() + " rank " + v["rank"].dump());
    }
    report << line << "\n";
    const bool case_ok = ok && line.find(", got ") == std::string::npos;
    if (kKnownMisses.count(c.filename().string()) == 0) {
      EXPECT_TRUE(case_ok) << line;
    } else {
      // a record of what fails, not a list to keep: the entry goes once the case is right
      EXPECT_FALSE(case_ok) << line << " (listed as a known miss: take it off kKnownMisses)";
      const std::string reads = got + " " + (v["node"].is_string() ? v["node"].get<std::string>() : "-") + " " +
                                (v["rank"].is_number() ? std::to_string(v["rank"].get<std::int64_t>()) : "-");
      if (const auto it = kKnownMissVerdicts.find(c.filename().string()); it != kKnownMissVerdicts.end()) {
        EXPECT_EQ(reads, it->second) << line << " (a known miss's verdict moved: if rightly, update kKnownMissVerdicts)";
      } else {
        ADD_FAILURE() << line << " (a known miss with no entry in kKnownMissVerdicts)";
      }
    }
  }
  std::printf("lab: categories %zu of %zu, culprit node and rank %zu of %zu (and %zu more with the node named and the rank among "
              "the ranks said to be tied)\n%s",
              right, cases.size(), culprits_right, culprits, culprits_tied, report.str().c_str());
  // No total floor: each case's expectation above is the record of what works (a case lost fails
  // even when another is gained); the totals are printed for the notes.
}

// A summary states what is known and leaves out what is not: no "?" placeholder, no "this host",
// no "(unnamed)"; and a verdict that names a rank says why (the facts that decided), on the lab
// batch, the samples and (where it lies beside the checkout) the corpus.
TEST(Lab, SummariesHaveNoPlaceholdersAndANamedRankItsWhy) {
  std::vector<fs::path> dirs;
  for (const fs::path& c : lab_cases()) dirs.push_back(c / "logs");
  for (const auto& s : fs::directory_iterator(fs::path(DTRIAGE_SOURCE_DIR) / "samples"))
    if (s.is_directory()) dirs.push_back(s.path());
  if (const std::string corpus = corpus_dir(); !corpus.empty())
    for (const auto& family : fs::directory_iterator(corpus))
      if (family.is_directory())
        for (const auto& c : fs::directory_iterator(family.path()))
          if (fs::is_directory(c.path() / "logs")) dirs.push_back(c.path() / "logs");
  static const std::regex placeholder(R"((^|[\s(=:\[])\?($|[\s),:.\]]))");
  std::size_t checked = 0;
  for (const fs::path& d : dirs) {
    const json v = verdict_of(d.string());
    const std::string summary = v["summary"].get<std::string>();
    ++checked;
    if (v.value("rank", json()).is_number()) {
      EXPECT_FALSE(v.value("why", json::array()).empty()) << d << ": rank " << v["rank"] << " named with no why: " << summary;
    }
    for (const json& w : v.value("why", json::array())) EXPECT_FALSE(std::regex_search(w.get<std::string>(), placeholder)) << d << ": " << w;
    EXPECT_FALSE(std::regex_search(summary, placeholder)) << d << ": " << summary;
    EXPECT_EQ(summary.find("this host"), std::string::npos) << d << ": " << summary;
    EXPECT_EQ(summary.find("(unnamed)"), std::string::npos) << d << ": " << summary;
  }
  EXPECT_GT(checked, 60u);
}

}  // namespace
}  // namespace dtriage::test
