// The line gate (formats/gate.hpp) and its literal automaton (base/literals.hpp), and files read on
// worker threads (-j): neither may change anything, so `analyze` must give byte-identical JSON with
// and without them on every input we have (samples, lab jobs, the corpus, generated jobs of both platforms).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>

#include "base/bytes.hpp"
#include "base/literals.hpp"
#include "formats/pipeline.hpp"
#include "ingest/byte_reader.hpp"
#include "lines/line_reader.hpp"
#include "test_util.hpp"

namespace dtriage::test {
namespace {

namespace fs = std::filesystem;
using base::LiteralMatcher;

TEST(LiteralMatcher, FindsEveryLiteralWhateverTheCaseAndOverlap) {
  const LiteralMatcher m({"he", "she", "hers", "NCCL WARN", "x"}, {0, 0, 1, 2, 3});
  std::vector<int> ids;
  EXPECT_EQ(m.search("ushers", 0xff, &ids), 0b011);  // "she", "he", "hers" overlap
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(m.search("host:1:2 [0] nccl warn peer"), 0b100);  // ASCII case folded
  EXPECT_EQ(m.search("NCCL INFO Channel 00/0"), 0);
  EXPECT_EQ(m.search(""), 0);
  EXPECT_EQ(m.search("XX"), 0b1000);
  EXPECT_EQ(m.search(std::string_view("a\0x", 3)), 0b1000);  // NUL bytes are ordinary bytes
  const LiteralMatcher none;
  EXPECT_EQ(none.search("anything"), 0);
}

TEST(LiteralMatcher, StopsEarlyOnlyWhenAskedAndNoIdsAreWanted) {
  const LiteralMatcher m({"ab", "cd"}, {0, 1});
  EXPECT_EQ(m.search("ab cd", 0b01), 0b01);  // stopped after "ab"
  std::vector<int> ids;
  EXPECT_EQ(m.search("ab cd", 0b01, &ids), 0b11);
  EXPECT_EQ(ids.size(), 2u);
}

// Against a plain search: many literals (more states than a 16-bit table could hold), random texts,
// one text at a time and all of them as lines of one text, with both engines of search_lines
// (Vectorscan where it runs here, and the automaton): the same hits in the same order.
void expect_plain_search_results(LiteralMatcher::Engine engine, std::vector<LiteralMatcher::Hit>& all_hits) {
  std::uint64_t seed = 42;
  auto rnd = [&](std::uint64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::size_t>((seed >> 33) % n);
  };
  const std::string alphabet = "abcdeABCDE :-_[]0123456789xyz";
  std::vector<std::string> lits;
  std::vector<int> groups;
  for (int i = 0; i < 3000; ++i) {
    std::string l;
    const std::size_t len = 1 + rnd(14);
    for (std::size_t j = 0; j < len; ++j) l += alphabet[rnd(alphabet.size())];
    lits.push_back(l);
    groups.push_back(static_cast<int>(rnd(3)));
  }
  const LiteralMatcher m(lits, groups, engine);
  if (engine == LiteralMatcher::Engine::Automaton) {
    EXPECT_FALSE(m.accelerated());
  }
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  std::vector<std::string> texts;
  for (int i = 0; i < 203; ++i) {
    std::string t;
    const std::size_t len = rnd(120);
    for (std::size_t j = 0; j < len; ++j) t += alphabet[rnd(alphabet.size())];
    texts.push_back(t);
  }
  // The texts as one text of lines, searched in lanes.
  std::string joined;
  std::vector<std::size_t> starts;
  for (std::size_t t = 0; t < texts.size(); ++t) {
    starts.push_back(joined.size());
    joined += texts[t];
    joined += t % 3 == 0 ? "\r\n" : "\n";
  }
  std::vector<LiteralMatcher::Hit> hits;
  m.search_lines(joined, hits);
  all_hits = hits;
  std::vector<std::set<int>> by_line(texts.size());
  for (std::size_t h = 0; h < hits.size(); ++h) {
    if (h > 0) {
      EXPECT_LE(hits[h - 1].end, hits[h].end);
    }
    const std::size_t t = static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), hits[h].end) - starts.begin()) - 1;
    by_line[t].insert(hits[h].id);
  }
  for (std::size_t t = 0; t < texts.size(); ++t) {
    std::set<int> want;
    LiteralMatcher::Groups want_groups = 0;
    for (std::size_t i = 0; i < lits.size(); ++i)
      if (lower(texts[t]).find(lower(lits[i])) != std::string::npos) {
        want.insert(static_cast<int>(i));
        want_groups |= static_cast<LiteralMatcher::Groups>(1u << groups[i]);
      }
    std::vector<int> ids;
    EXPECT_EQ(m.search(texts[t], 0xff, &ids), want_groups) << texts[t];
    EXPECT_EQ(std::set<int>(ids.begin(), ids.end()), want) << texts[t];
    EXPECT_EQ(by_line[t], want) << texts[t];
  }
}

// The sixteen-byte scans the gate's hot path is made of (base/bytes.hpp) against plain loops: every
// length from 0 to 70 at every alignment, bytes drawn from a small alphabet so that hits are dense,
// sparse and absent.
TEST(Bytes, SixteenByteScansAgreeWithPlainLoops) {
  std::uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  const std::string alphabet = "ab#\r\x1b[] T";
  std::string buf(96, ' ');
  for (int round = 0; round < 400; ++round) {
    for (char& c : buf) c = alphabet[next() % (round % 3 == 0 ? 3 : alphabet.size())];
    for (std::size_t at = 0; at < 16; ++at)
      for (std::size_t n = 0; at + n <= 86 && n <= 70; ++n) {
        const char* p = buf.data() + at;
        unsigned want = 0;
        for (std::size_t i = 0; i < n; ++i) want |= (p[i] == '\x1b' ? 1u : 0u) | (p[i] == '#' ? 2u : 0u) | (p[i] == '\r' ? 4u : 0u);
        ASSERT_EQ(base::which_of(p, n, '\x1b', '#', '\r'), want) << round << " " << at << " " << n;
      }
    // each_set visits exactly the set bytes, lowest address first, and stops when asked.
    const base::Bytes16 w = base::load16(buf.data() + round % 16);
    std::vector<int> seen, want;
    base::each_set(w == static_cast<unsigned char>('['), [&](int k) {
      seen.push_back(k);
      return false;
    });
    for (int k = 0; k < 16; ++k)
      if (buf[static_cast<std::size_t>(round % 16 + k)] == '[') want.push_back(k);
    ASSERT_EQ(seen, want) << round;
    if (!want.empty()) {
      int calls = 0;
      EXPECT_TRUE(base::each_set(w == static_cast<unsigned char>('['), [&](int) { return ++calls == 1; }));
      EXPECT_EQ(calls, 1);
    }
  }
}

TEST(LiteralMatcher, AgreesWithAPlainSearchOnRandomInput) {
  std::vector<LiteralMatcher::Hit> best, automaton;
  expect_plain_search_results(LiteralMatcher::Engine::Best, best);
  expect_plain_search_results(LiteralMatcher::Engine::Automaton, automaton);
  ASSERT_EQ(best.size(), automaton.size());
  for (std::size_t i = 0; i < best.size(); ++i) {
    EXPECT_EQ(best[i].end, automaton[i].end) << i;
    EXPECT_EQ(best[i].id, automaton[i].id) << i;
  }
}

// Lines of real shapes (NCCL INFO, plog, prints), literals that overlap, repeat, hold NUL bytes and
// differ in case: both engines give the same hits.
TEST(LiteralMatcher, EnginesAgreeOnLogLines) {
  const std::vector<std::string> lits = {"NCCL WARN", "nccl warn", "Init COMPLETE", "rank", "rank ", "nranks",
                                         "Traceback (most recent call last)", "out of memory", std::string("a\0b", 3),
                                         "ERROR", "error", "", "x", "busId", "[ERROR]", "EE8888", "EL0004"};
  std::vector<int> groups;
  for (std::size_t i = 0; i < lits.size(); ++i) groups.push_back(static_cast<int>(i % 3));
  const LiteralMatcher best(lits, groups), automaton(lits, groups, LiteralMatcher::Engine::Automaton);
  std::string text;
  for (int i = 0; i < 400; ++i) {
    text += "[default" + std::to_string(i % 8) + "]:gpu-a" + std::to_string(i % 16) + ":" + std::to_string(5000 + i) +
            ":5011 [" + std::to_string(i % 8) + "] NCCL INFO comm 0x55d0 rank " + std::to_string(i) +
            " nranks 128 cudaDev 3 busId 18000 - Init COMPLETE\n";
    text += "[ERROR] ASCENDCL(" + std::to_string(i) + ",python3):2025-11-27-10:00:00.123.456 [x.cpp:1] EE8888 Out Of Memory\r\n";
    text += std::string("step 12 loss 0.5 a\0b xX\n");
  }
  std::vector<LiteralMatcher::Hit> a, b;
  best.search_lines(text, a);
  automaton.search_lines(text, b);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_GT(a.size(), 4000u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].end, b[i].end) << i;
    ASSERT_EQ(a[i].id, b[i].id) << i;
  }
}

// What real training logs are mostly made of holds none of the gate's literals: progress lines of
// the common loops, tqdm bars, python logging, metric dicts, smi table rows, behind the launchers'
// prefixes. (A lone '|' or a word inside common words would send every one of them on.)
TEST(Gate, CommonLinesHoldNoLiteral) {
  const formats::Gate& gate = *rule_pack().gate;
  const std::vector<std::string> lines = {
      "[default5]: iteration    69830/  500000 | consumed samples:    1117280 | elapsed time per iteration (ms): 1234.5 | "
      "learning rate: 2.999E-04 | global batch size:   160 | lm loss: 2.623456E+00 | loss scale: 1.0 | grad norm: 0.281 | "
      "number of skipped iterations:   0 | number of nan iterations:   0 |",
      "[rank12]: [2026-01-05 03:12:44] iteration 12/ 9000 | consumed samples: 3072 | lm loss: 7.1E+00 |",
      "17: steps: 1200 loss: 2.3456 iter time (s): 0.512 samples/sec: 62.500",
      "[2026-01-05 03:12:44,123] [INFO] [timer.py:260:stop] epoch=0/micro_step=400/global_step=100, RunningAvgSamplesPerSec=61.2, "
      "CurrSamplesPerSec=60.1, MemAllocated=12.3GB, MaxMemAllocated=20.1GB",
      "{'loss': 2.3456, 'grad_norm': 1.2345, 'learning_rate': 4.9e-05, 'epoch': 0.12}",
      " 12%|\xe2\x96\x88\xe2\x96\x8f        | 120/1000 [01:23<10:12,  1.44it/s]\r 13%|\xe2\x96\x88| 130/1000 [01:30<10:02,  1.45it/s]",
      "Epoch 3:  45%|####5     | 450/1000 [02:13<02:43,  3.37it/s, v_num=0, train_loss=2.340]",
      "2026-01-05 03:12:44,123 - train - INFO - step 100: loss=2.3400, ppl=10.38, tokens/s=301234.5",
      "INFO:__main__:saving checkpoint at step 500 to /ckpt/run/step_500",
      "{\"step\": 100, \"loss\": 2.34512, \"lr\": 3.000e-04, \"grad_norm\": 0.412, \"tokens_per_sec\": 301234.5}",
      "|   3  NVIDIA H100 80GB HBM3          On  |   00000000:48:00.0 Off |                    0 |",
      "| N/A   47C    P0            512W /  700W |   51234MiB /  81559MiB |     97%      Default |",
      "|    3   N/A  N/A    336971      C   /usr/bin/python3                            51486MiB |",
      "+-----------------------------------------+------------------------+----------------------+",
      "| 4     910B3               | OK            | 95.2        45                0    / 0             |",
  };
  std::vector<std::string_view> views(lines.begin(), lines.end());
  std::vector<formats::Gate::Look> looks;
  formats::Gate::Scratch scratch;
  gate.look_many(views, looks, scratch);
  for (std::size_t i = 0; i < lines.size(); ++i) EXPECT_NE(looks[i], formats::Gate::Look::Parse) << lines[i];
  // A family marker in its case is told apart: "INFO" (python logging), not "fault" in "[default5]".
  EXPECT_EQ(looks[0], formats::Gate::Look::Quiet);
  EXPECT_EQ(looks[3], formats::Gate::Look::Marked);
  EXPECT_EQ(looks[8], formats::Gate::Look::Marked);
  // Family markers keep their case: "Fault" is not in "default", "Error" is in "ValueError".
  EXPECT_FALSE(gate.marked("using default config for 8 workers"));
  EXPECT_FALSE(gate.marked("information about the run"));
  EXPECT_TRUE(gate.marked("got ValueError: bad shape"));
  EXPECT_TRUE(gate.marked("make: error: no rule"));
  EXPECT_TRUE(gate.marked("make: ERROR: no rule"));
}

// The same JSON report with the gate and files read on worker threads as with every line parsed on
// one thread.
void expect_same_with_and_without_gate(const std::string& path) {
  analysis::Options gated_opt, full_opt;
  gated_opt.threads = 3;
  full_opt.gate = false;
  const auto gated = analyze_path(path, gated_opt);
  const auto full = analyze_path(path, full_opt);
  EXPECT_EQ(gated->read_anything, full->read_anything) << path;
  EXPECT_EQ(json_report(*gated), json_report(*full)) << path << ": the line gate or the worker threads changed the report";
}

std::vector<std::string> dirs_below(const fs::path& root, const std::string& leaf = "") {
  std::vector<std::string> out;
  if (!fs::is_directory(root)) return out;
  for (const auto& d : fs::directory_iterator(root)) {
    const fs::path p = leaf.empty() ? d.path() : d.path() / leaf;
    if (fs::is_directory(p)) out.push_back(p.string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Gate, ChangesNoReportOnTheSamplesAndLabJobs) {
  const fs::path src(DTRIAGE_SOURCE_DIR);
  auto inputs = dirs_below(src / "samples");
  for (const auto& d : dirs_below(src / "tests" / "lab" / "cases", "logs"))
    if (in_this_builds_share(fs::path(d).parent_path().filename().string())) inputs.push_back(d);
  ASSERT_GE(inputs.size() * kSlowBuildShare, 60u);
  for (const auto& in : inputs) expect_same_with_and_without_gate(in);
}

// A terminal escape inside a line can split what the gate looks for ("loc\x1b[1malRank"): such
// lines are parsed whatever their shape, so the colour of a log changes nothing.
TEST(Gate, TerminalEscapesDoNotHideALine) {
  TempDir dir;
  std::string log;
  for (int i = 0; i < 200; ++i)
    log += "gpu-q7:4100:4100 [0] NCCL INFO AllReduce: opCount " + std::to_string(i) + " count 4096 datatype 7 op 0\n";
  log += "gpu-q7:4100:4100 [0] NCCL INFO [Service thread] Conn\x1b[0mection clo\x1b[0msed by loc\x1b[1malRank\x1b[0m 3\n";
  log += "\x1b[0m[rank2]:[E ProcessGroupNCCL.cpp:563] [Rank 2] Watchdog caught collective operation timeout: "
         "WorkNCCL(SeqNum=9, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600031 milliseconds before timing out.\n";
  dir.write("gpu-q7/train.log", log);
  expect_same_with_and_without_gate(dir.path());
  const std::string events = events_jsonl({dir.path()});
  EXPECT_NE(events.find("Connection closed by local"), std::string::npos) << events;
}

TEST(Gate, ChangesNoReportOnTheCorpus) {
  const std::string corpus = corpus_dir();
  if (corpus.empty()) GTEST_SKIP() << "../shared/corpus is absent";
  std::size_t n = 0;
  for (const auto& family : dirs_below(corpus))
    for (const auto& c : dirs_below(family, "logs")) {
      expect_same_with_and_without_gate(c);
      ++n;
    }
  EXPECT_GE(n, 40u);
}

// Runs bench/make_job.py's `cmd` into `dir`: the verdict names the injected cause, node and rank,
// with and without the gate alike.
void expect_generated_job_named(const std::string& cmd, const TempDir& dir) {
  ASSERT_EQ(sh(cmd), 0) << cmd;
  const auto truth = nlohmann::json::parse(read_file(dir.file("TRUTH.json")));
  const auto a = analyze_path(dir.file("logs"));
  ASSERT_TRUE(a->read_anything && a->inventory.unreadable.empty()) << cmd;
  const auto v = nlohmann::json::parse(json_report(*a))["verdict"];
  EXPECT_EQ(v["category"], truth["category"]) << cmd << "\n" << v.dump();
  // The node as the logs spell it: the generator's failure tables give the full name of the
  // host its truth names by the short one (gpu-d02.cluster.internal for gpu-d02).
  const std::string node = v["node"].is_string() ? v["node"].get<std::string>() : "";
  EXPECT_TRUE(v["node"] == truth["node"] || (truth["node"].is_string() && node.rfind(truth["node"].get<std::string>() + ".", 0) == 0))
      << cmd << "\n" << v.dump();
  EXPECT_EQ(v["rank"], truth["rank"]) << cmd << "\n" << v.dump();
  expect_same_with_and_without_gate(dir.file("logs"));
}

// Generated jobs (bench/make_job.py): the gate skips most of their lines, and the verdict names the
// injected cause, node and rank.
TEST(Gate, GeneratedJobsKeepTheirVerdict) {
  struct Case {
    const char* platform;
    const char* cause;
    const char* pack;
    int seed;
  };
  const Case cases[] = {{"nvidia", "device-oom", "none", 11}, {"nvidia", "worker-signal", "gz", 12},
                        {"nvidia", "worker-exception", "tar.gz", 13}, {"ascend", "device-oom", "none", 14},
                        {"ascend", "worker-exception", "tar.gz", 15}};
  for (const Case& c : cases) {
    const TempDir dir;
    const std::string cmd = "python3 '" DTRIAGE_SOURCE_DIR "/bench/make_job.py' --out '" + dir.path() +
                            "' --nodes 3 --ranks 4 --size 3M --platform " + c.platform + " --cause " + c.cause +
                            " --pack " + c.pack + " --seed " + std::to_string(c.seed);
    expect_generated_job_named(cmd, dir);
  }
}

// The presets made of what real logs are mostly made of (progress lines, tqdm bars, NCCL per
// collective, plogs, smi tables from a monitor loop): the same report with and without the gate,
// and the planted cause, node and rank named.
TEST(Gate, PresetJobsKeepTheirVerdict) {
  const std::pair<const char*, int> presets[] = {{"progress", 21}, {"nccl", 22}, {"plog", 23}, {"table", 24}, {"mix", 25}};
  for (const auto& [preset, seed] : presets) {
    const TempDir dir;
    const std::string cmd = "python3 '" DTRIAGE_SOURCE_DIR "/bench/make_job.py' --out '" + dir.path() +
                            "' --nodes 3 --ranks 4 --size 2M --preset " + preset + " --seed " + std::to_string(seed);
    expect_generated_job_named(cmd, dir);
  }
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

// `text` as NODE/logs/train.log through the rule pack's gate, every line kept: the counts, and in
// `parsed` the lines a parser read.
formats::ParseCounts gated(const std::string& text, const std::string& node, std::vector<std::string>& parsed) {
  formats::ParseOptions opt;
  opt.all_lines = true;
  opt.gate = rule_pack().gate.get();
  opt.known = [](const model::Event&) { return true; };
  ingest::Source src{node + "/logs/train.log", node};
  ingest::MemoryReader mem(text);
  return formats::parse_stream(mem, src, opt, lines::LineReader::kDefaultMaxLine,
                               [&](model::Event&& e) { parsed.push_back(e.text); });
}

// Progress prints of every framework, behind every launcher's prefix, are counted and skipped, not
// parsed, and still give each rank its last step. A tqdm bar that its prefix peel takes whole
// (nothing after the bar) was once sent to the full parse: a third of the progress preset.
TEST(Gate, ProgressPrintsOfAnyShapeAreSkippedWithTheirSteps) {
  const std::vector<std::string> prints = {
      " iteration     4170/  200000 | consumed samples:       533760 | elapsed time per iteration (ms): 912.3 | lm loss: 3.1E+00 |",
      "steps: 4170 loss: 2.9871 iter time (s): 0.611 samples/sec: 52.373",
      "{'loss': 2.9871, 'grad_norm': 0.8123, 'learning_rate': 1.2e-05, 'epoch': 1.37}",
      " 41%|\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x8f     | 4170/10000 [51:02<1:11:20,  1.36it/s]",
      "Epoch 2:  41%|####1     | 4170/10000 [03:07<04:22, 22.2it/s, v_num=7, train_loss=2.99]",
      "Epoch 2:  41%|\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88      | 4169/10000 [03:07<04:22]\rEpoch 2:  41%|\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88      | 4170/10000 [03:07<04:22]",
      "{\"step\": 4170, \"loss\": 2.98710, \"lr\": 1.2e-05, \"tokens_per_sec\": 187002.4}",
  };
  const std::vector<std::string> prefixes = {"[default3]:", "[rank11]:", "11: ", "", "[1,3]<stdout>:"};
  std::string text;
  std::uint64_t n = 0;
  for (const std::string& pre : prefixes)
    for (const std::string& line : prints) {
      text += pre + line + "\n";
      ++n;
    }
  std::vector<std::string> parsed;
  const auto counts = gated(text, "w-17", parsed);
  EXPECT_EQ(counts.lines, n);
  EXPECT_EQ(counts.skipped_plain, n);
  for (const std::string& t : parsed) ADD_FAILURE() << "parsed, not skipped: " << t;
  bool stepped = false;  // the rank the prefixes name has its step
  for (const model::Sighting& s : counts.sightings) stepped = stepped || (s.step == 4170 && (s.local_rank == 3 || s.rank == 11));
  EXPECT_TRUE(stepped);
}

// A logger's record at INFO under its own time, with no gate literal and no other family's marker,
// is read as a plain line (its progress noted), whatever the format puts around the level; the
// same record at WARNING, or a logger's line with no time of its own (torchrun's "INFO:torch..."),
// is parsed as before.
TEST(Gate, DatedLoggingRecordsAtInfoAreReadAsPlainLines) {
  const std::vector<std::string> quiet = {
      "2026-03-04T11:22:33 INFO     [trainer.loop] step 4170: loss=2.9871, ppl=19.8",
      "[2026-03-04 11:22:33,551] [INFO] [trainer.py:812:train] epoch 2 step 4170 loss 2.9871",
      "2026-03-04 11:22:33.551 | INFO     | __main__:train:88 - step 4170 loss 2.98",
      "2026-03-04 11:22:33,551 DEBUG step 4170 grad norm 0.81",
  };
  const std::vector<std::string> parsed_too = {
      "2026-03-04T11:22:34 WARNING  [trainer.loop] step 4171: loss spike 9.1",
      "INFO:torch.distributed.elastic.agent.server.api:[default] Starting worker group",
  };
  std::string text;
  for (const std::string& line : quiet) text += "[rank11]:" + line + "\n";
  for (const std::string& line : parsed_too) text += line + "\n";
  std::vector<std::string> parsed;
  const auto counts = gated(text, "w-18", parsed);
  EXPECT_EQ(counts.skipped_plain, quiet.size());
  ASSERT_EQ(parsed.size(), parsed_too.size());
  for (std::size_t k = 0; k < parsed.size(); ++k) EXPECT_EQ(parsed[k], parsed_too[k]);
  bool stepped = false;
  for (const model::Sighting& s : counts.sightings) stepped = stepped || (s.step == 4170 && s.rank == 11);
  EXPECT_TRUE(stepped);
}

}  // namespace
}  // namespace dtriage::test

namespace dtriage::test {
namespace {

// A monitor loop's nvidia-smi tables: each GPU's row comes again in every snapshot, read once while the consumer keeps such a row once (ParseOptions::row_kept_once), then counted
// as skipped; a process row whose memory changed is read again, and so is every row for a
// consumer that keeps rows more than once.
TEST(Gate, AMonitorsRepeatedTableRowsAreReadOnce) {
  auto table = [](int snapshot) {
    std::string t = "Tue Mar  3 0" + std::to_string(snapshot) + ":10:44 2026\n";
    t += "+-----------------------------------------------------------------------------+\n";
    t += "| NVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: 11.4     |\n";
    t += "|-------------------------------+----------------------+----------------------+\n";
    t += "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n";
    t += "|===============================+======================+======================|\n";
    for (int g = 0; g < 3; ++g) {
      t += "|   " + std::to_string(g) + "  Tesla V100-SXM2...  On   | 00000000:" + std::to_string(3 + g) +
           "B:00.0 Off |                    0 |\n";
      t += "| N/A   4" + std::to_string(snapshot) + "C    P0    61W / 300W |  1" + std::to_string(snapshot) +
           "024MiB / 32510MiB |     9" + std::to_string(g) + "%      Default |\n";
      t += "+-------------------------------+----------------------+----------------------+\n";
    }
    t += "| Processes:                                                                  |\n";
    for (int g = 0; g < 3; ++g)  // GPU 2's process holds the same memory in every snapshot
      t += "|    " + std::to_string(g) + "   N/A  N/A     4711" + std::to_string(g) + "      C   python3    " +
           (g == 2 ? std::string("2048") : std::to_string(1000 + 10 * snapshot + g)) + "MiB |\n";
    t += "+-----------------------------------------------------------------------------+\n";
    return t;
  };
  std::string text;
  for (int s = 1; s <= 4; ++s) text += table(s);
  auto parse = [&](bool kept_once, std::vector<model::Event>& out) {
    formats::ParseOptions opt;
    opt.all_lines = true;
    opt.gate = rule_pack().gate.get();
    opt.known = [](const model::Event&) { return true; };
    bool row = false;
    if (kept_once) opt.row_kept_once = [&] { return row; };
    ingest::Source src{"gpu-c7/monitor/nvidia-smi.log", "gpu-c7"};
    ingest::MemoryReader mem(text);
    return formats::parse_stream(mem, src, opt, lines::LineReader::kDefaultMaxLine, [&](model::Event&& e) {
      row = e.kind == model::Kind::NvidiaSmi;
      out.push_back(std::move(e));
    });
  };
  std::vector<model::Event> once, every;
  const auto counts_once = parse(true, once);
  const auto counts_every = parse(false, every);
  auto count = [](const std::vector<model::Event>& ev, std::string_view code) {
    return std::count_if(ev.begin(), ev.end(), [&](const model::Event& e) { return e.code == code; });
  };
  EXPECT_EQ(count(every, "gpu"), 12);
  EXPECT_EQ(count(every, "versions"), 4);
  EXPECT_EQ(count(every, "gpu-process"), 12);
  EXPECT_EQ(count(once, "gpu"), 3);       // each GPU's row once
  EXPECT_EQ(count(once, "versions"), 4);  // the header holds a gate literal (its versions): read in full
  EXPECT_EQ(count(once, "gpu-process"), 9);  // GPU 2's process row once, the others each time
  EXPECT_EQ(counts_once.skipped_info, counts_every.skipped_info + 12);
  EXPECT_EQ(counts_once.lines, counts_every.lines);
  for (const model::Event& e : once) {
    if (e.code == "gpu") {
      EXPECT_LT(e.line, 30u) << e.text;  // the first snapshot's
    }
  }
}

}  // namespace
}  // namespace dtriage::test
