// Throughput of the line reader and of each parser family, in bytes per second of input.
// Inputs are generated here in the shapes of the real formats (../shared/corpus/*/FORMAT.md).
#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

#include "base/literals.hpp"
#include "formats/pipeline.hpp"
#include "lines/line_reader.hpp"
#include "rules/engine.hpp"
#include "rules/loader.hpp"

namespace {

std::string repeat_lines(const std::vector<std::string>& lines, std::size_t bytes) {
  std::string out;
  out.reserve(bytes + 4096);
  std::size_t i = 0;
  while (out.size() < bytes) {
    out += lines[i % lines.size()];
    out += '\n';
    ++i;
  }
  return out;
}

const std::string& input(const std::string& family) {
  static std::map<std::string, std::string> cache;
  auto it = cache.find(family);
  if (it != cache.end()) return it->second;
  std::vector<std::string> lines;
  if (family == "plog") {
    lines = {
        "[INFO] HCCL(59420,python):2025-01-24-11:10:27.614.147 [topoinfo_detect.cc:221][3475][HCCL_TRACE]SetupAgent rankNum[16], rank[3], rootInfo identifier[hccl_world_group], server[10.20.8.250%bond1], logicDevId[3], phydevId[3], deviceIp[124.0.0.21]",
        "[ERROR] RUNTIME(51302,python3):2025-06-04-10:14:21.402.201 [stream.cc:1183]51302 GetError:Memory async copy failed, device_id=0, stream_id=2, task_id=2114, flip_num=0, copy_type=2",
        "[EVENT] TDT(51303,python3):2025-06-04-10:14:05.131.201 [log.cpp:43][TsdClient] deviceId[1] begin to init hdc client,[process_mode_manager.cpp:315:InitTsdClient]51303",
        "[DEBUG] DRV(2913770,python3):2024-07-04-12:03:16.238.640 [ascend][curpid: 2913770, 2913770][drv][devmm][halMemFreeInner 2459]Free enter. (ptr=0x1240c0015000)"};
  } else if (family == "nccl") {
    lines = {
        "gcn6:1080060:1080354 [0] NCCL INFO Channel 00/02 :    0   1",
        "hostname-test:984:1257 [4] NCCL INFO comm 0x557fe785f7a0 rank 36 nranks 64 cudaDev 4 nvmlDev 4 busId 9b000 commId 0x5ae77eb5ea4ec1ee - Init COMPLETE",
        "tf144:143468:143535 [1] NCCL INFO Channel 01 : 0[2f000] -> 1[86000] [receive] via NET/IB/0",
        "ng30903:3063028:3066152 [3] NCCL INFO transport/p2p.cc:204 -> 1"};
  } else if (family == "torch") {
    lines = {
        "[rank5]:[E1104 10:20:00.100000000 ProcessGroupNCCL.cpp:607] [Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=15734, OpType=ALLREDUCE, NumelIn=220084533, NumelOut=220084533, Timeout(ms)=600000) ran for 600037 milliseconds before timing out.",
        "W1226 16:52:43.205000 7 site-packages/torch/distributed/elastic/multiprocessing/api.py:897] Sending process 74 closing signal SIGTERM",
        "[default3]:step 1347, loss 0.324, grad_norm 3.388, 0.855 sec/step, mem_usage:cuda:0 67.8GB"};
  } else if (family == "traceback") {
    lines = {"[rank1]: Traceback (most recent call last):", "[rank1]:   File \"/w/train.py\", line 238, in <module>",
             "[rank1]:     main()", "[rank1]: RuntimeError: CUDA error: invalid device ordinal"};
  } else {  // plain application output that no parser knows
    lines = {"epoch 3 step 1200 loss=0.4213 lr=2.0e-05 tokens/s=18234.2",
             "Loading safetensors checkpoint shards: 100% Completed | 1/1 [00:01<00:00,  1.67s/it]"};
  }
  return cache[family] = repeat_lines(lines, 16u << 20);
}

void BM_LineReader(benchmark::State& state) {
  const std::string& data = input("plog");
  for (auto _ : state) {
    dtriage::ingest::MemoryReader mem(data);
    dtriage::lines::LineReader lr(mem);
    dtriage::lines::Line line;
    std::size_t n = 0;
    while (lr.next(line)) n += line.text.size();
    benchmark::DoNotOptimize(n);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}
BENCHMARK(BM_LineReader)->Unit(benchmark::kMillisecond);

void BM_Parse(benchmark::State& state, const std::string& family) {
  const std::string& data = input(family);
  const dtriage::ingest::Source src{"node1/ascend/log/debug/plog/plog-51302_20250604101405123.log", "node1"};
  std::size_t events = 0;
  for (auto _ : state) {
    dtriage::formats::SourceParser parser(src, {}, [&](dtriage::model::Event&& e) { events += e.line > 0; });
    dtriage::ingest::MemoryReader mem(data);
    dtriage::lines::LineReader lr(mem);
    dtriage::lines::Line line;
    while (lr.next(line)) parser.feed(line);
    parser.finish();
  }
  benchmark::DoNotOptimize(events);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}
BENCHMARK_CAPTURE(BM_Parse, plog, std::string("plog"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Parse, nccl, std::string("nccl"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Parse, torch, std::string("torch"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Parse, traceback, std::string("traceback"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Parse, plain, std::string("plain"))->Unit(benchmark::kMillisecond);

// Matching every event of a plog input against the whole rule pack (RE2::Set pass).
void BM_RuleMatch(benchmark::State& state) {
  auto set = dtriage::rules::load_rules({dtriage::rules::default_rules_dir()});
  auto engine = dtriage::rules::Engine::compile(set.rules);
  if (!engine) {
    state.SkipWithError(engine.error().c_str());
    return;
  }
  std::vector<dtriage::model::Event> events;
  const dtriage::ingest::Source src{"x.log", ""};
  dtriage::formats::SourceParser parser(src, {}, [&](dtriage::model::Event&& e) { events.push_back(std::move(e)); });
  dtriage::ingest::MemoryReader mem(input("plog"));
  dtriage::lines::LineReader lr(mem);
  dtriage::lines::Line line;
  while (lr.next(line) && events.size() < 50000) parser.feed(line);
  parser.finish();
  std::size_t hits = 0;
  for (auto _ : state)
    for (const auto& e : events) hits += engine.value()->match(e).size();
  benchmark::DoNotOptimize(hits);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * events.size()));
}
BENCHMARK(BM_RuleMatch)->Unit(benchmark::kMillisecond);

// The line gate: its literal automaton over a whole input as lines in four lanes, and the parse
// with the gate on (lines it skips cost the automaton and a comparison of their binding).
const dtriage::formats::Gate& gate() {
  static const auto engine = [] {
    auto set = dtriage::rules::load_rules({dtriage::rules::default_rules_dir()});
    return dtriage::rules::Engine::compile(set.rules).value();
  }();
  static const dtriage::formats::Gate g(dtriage::formats::RuleLiterals{engine->literals().atoms, engine->literals().open_kinds});
  return g;
}

// The literals the gate searches (facts and rule atoms, none holding another) searched by each engine of the matcher over a whole
// input as one text of lines: Vectorscan (where it runs) against the fallback automaton.
void BM_LiteralSearch(benchmark::State& state, const std::string& family, dtriage::base::LiteralMatcher::Engine engine) {
  const std::string& data = input(family);
  const std::vector<std::string>& lits = gate().searched();
  const dtriage::base::LiteralMatcher m(lits, std::vector<int>(lits.size(), 0), engine);
  if (engine == dtriage::base::LiteralMatcher::Engine::Best && !m.accelerated()) {
    state.SkipWithError("Vectorscan is not built in or does not run on this CPU");
    return;
  }
  std::vector<dtriage::base::LiteralMatcher::Hit> hits;
  for (auto _ : state) {
    hits.clear();
    for (std::size_t at = 0; at < data.size(); at += 256 << 10) {  // the line reader's buffer size
      std::size_t end = std::min(data.size(), at + (256 << 10));
      m.search_lines(std::string_view(data).substr(at, end - at), hits);
    }
    benchmark::DoNotOptimize(hits.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}
BENCHMARK_CAPTURE(BM_LiteralSearch, nccl_vectorscan, std::string("nccl"), dtriage::base::LiteralMatcher::Engine::Best)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LiteralSearch, nccl_automaton, std::string("nccl"), dtriage::base::LiteralMatcher::Engine::Automaton)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LiteralSearch, plog_vectorscan, std::string("plog"), dtriage::base::LiteralMatcher::Engine::Best)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LiteralSearch, plog_automaton, std::string("plog"), dtriage::base::LiteralMatcher::Engine::Automaton)->Unit(benchmark::kMillisecond);

void BM_GateLook(benchmark::State& state, const std::string& family) {
  const std::string& data = input(family);
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at < data.size();) {
    const std::size_t nl = data.find('\n', at);
    lines.emplace_back(data.data() + at, nl - at);
    at = nl + 1;
  }
  std::vector<dtriage::formats::Gate::Look> looks;
  dtriage::formats::Gate::Scratch scratch;
  for (auto _ : state) {
    for (std::size_t b = 0; b < lines.size(); b += 2048) {
      const std::vector<std::string_view> batch(lines.begin() + static_cast<std::ptrdiff_t>(b),
                                                lines.begin() + static_cast<std::ptrdiff_t>(std::min(lines.size(), b + 2048)));
      gate().look_many(batch, looks, scratch);
    }
    benchmark::DoNotOptimize(looks.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}
BENCHMARK_CAPTURE(BM_GateLook, nccl, std::string("nccl"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GateLook, plog, std::string("plog"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GateLook, plain, std::string("plain"))->Unit(benchmark::kMillisecond);

void BM_ParseGated(benchmark::State& state, const std::string& family) {
  const std::string& data = input(family);
  const dtriage::ingest::Source src{"node1/train.log", "node1"};
  std::size_t events = 0;
  dtriage::formats::ParseOptions options;
  options.all_lines = true;
  options.gate = &gate();
  options.known = [](const dtriage::model::Event&) { return true; };  // every binding already seen
  for (auto _ : state) {
    dtriage::ingest::MemoryReader mem(data);
    dtriage::formats::parse_stream(mem, src, options, 1 << 20, [&](dtriage::model::Event&& e) { events += e.line > 0; });
  }
  benchmark::DoNotOptimize(events);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}
BENCHMARK_CAPTURE(BM_ParseGated, nccl, std::string("nccl"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ParseGated, plain, std::string("plain"))->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
