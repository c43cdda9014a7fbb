// The line gate's pass rate over real inputs: how many lines hold one of its literals (they go to
// the parsers and the rules), how many are parsed after the shape checks (a line with no literal
// whose shape is not one the pipeline may skip is parsed, but no rule is asked), and why, with
// examples.
//   dtriage_gate_rate [--max PERCENT] [--examples N] PATH...
// PATH is anything `analyze` reads (folders, archives). Every binding counts as already seen
// (the steady state of a long job), so the rate is what the gate lets through once a job is under
// way. Exits 1 when the literals' pass rate is above --max (default: none), for bench/gate_rate.sh.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "base/inventory.hpp"
#include "formats/pipeline.hpp"
#include "ingest/ingest.hpp"
#include "lines/line_reader.hpp"
#include "rules/engine.hpp"
#include "rules/loader.hpp"

namespace {

using dtriage::formats::Gate;

struct Reason {
  std::uint64_t lines = 0;
  std::vector<std::string> examples;
};

class Rate final : public dtriage::ingest::Sink {
 public:
  Rate(const Gate& gate, std::size_t examples) : gate_(gate), examples_(examples) {
    const auto& lits = gate_.searched();
    matcher_ = dtriage::base::LiteralMatcher(lits, std::vector<int>(lits.size(), 0));
  }

  void on_text(const dtriage::ingest::Source& source, dtriage::ingest::ByteReader& text) override {
    // What the pipeline skips, as analyze runs it.
    dtriage::formats::ParseOptions options;
    options.all_lines = true;
    options.gate = &gate_;
    options.known = [](const dtriage::model::Event&) { return true; };
    // The collector keeps an informational smi row once (no rule here to match it).
    bool row = false;
    options.row_kept_once = [&] { return row; };
    const auto counts = dtriage::formats::parse_stream(text, source, options, 64 << 10, [&](dtriage::model::Event&& e) {
      row = (e.kind == dtriage::model::Kind::NvidiaSmi || e.kind == dtriage::model::Kind::NpuSmi) && e.level <= dtriage::model::Level::Info;
    });
    lines += counts.lines;
    skipped += counts.skipped_info + counts.skipped_plain;
  }

  // Why lines pass: a second read of each source, line by line (literal found, else the shape).
  void explain(dtriage::ingest::ByteReader& text) {
    dtriage::lines::LineReader lr(text);
    dtriage::lines::Line line;
    std::vector<int> ids;
    while (lr.next(line)) {
      ids.clear();
      std::string why;
      if (matcher_.search(line.text, 0xff, &ids) != 0 && !ids.empty()) {
        why = "literal \"" + gate_.searched()[static_cast<std::size_t>(ids.front())] + "\"";
        ++passed;
      } else  // without a literal the pipeline decides by shape: shown by the line's first byte
        why = std::string("no literal, starts with '") + (line.text.empty() ? ' ' : line.text.front()) + "' (skipped or not by shape)";
      Reason& r = reasons[why];
      ++r.lines;
      if (r.examples.size() < examples_) r.examples.emplace_back(line.text.substr(0, 160));
    }
  }

  std::uint64_t lines = 0, skipped = 0, passed = 0;
  std::map<std::string, Reason> reasons;

 private:
  const Gate& gate_;
  std::size_t examples_;
  dtriage::base::LiteralMatcher matcher_;
};

class Explain final : public dtriage::ingest::Sink {
 public:
  explicit Explain(Rate& rate) : rate_(rate) {}
  void on_text(const dtriage::ingest::Source&, dtriage::ingest::ByteReader& text) override { rate_.explain(text); }

 private:
  Rate& rate_;
};

}  // namespace

int main(int argc, char** argv) {
  double max = -1;
  std::size_t examples = 2;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--max" && i + 1 < argc) max = std::atof(argv[++i]);
    else if (a == "--examples" && i + 1 < argc) examples = static_cast<std::size_t>(std::atoi(argv[++i]));
    else paths.push_back(a);
  }
  if (paths.empty()) {
    std::fprintf(stderr, "usage: dtriage_gate_rate [--max PERCENT] [--examples N] PATH...\n");
    return 2;
  }
  auto set = dtriage::rules::load_rules({dtriage::rules::default_rules_dir()});
  auto engine = dtriage::rules::Engine::compile(set.rules);
  if (!engine) {
    std::fprintf(stderr, "rules: %s\n", engine.error().c_str());
    return 2;
  }
  const Gate gate(dtriage::formats::RuleLiterals{engine.value()->literals().atoms, engine.value()->literals().open_kinds});
  dtriage::base::Inventory inv;
  dtriage::ingest::Limits limits;
  limits.max_ratio = 1e12;
  Rate rate(gate, examples);
  {
    dtriage::ingest::Ingestor ing(limits, dtriage::ingest::NodeHints(), inv);
    ing.run(paths, rate);
  }
  {
    dtriage::base::Inventory inv2;
    dtriage::ingest::Ingestor ing(limits, dtriage::ingest::NodeHints(), inv2);
    Explain ex(rate);
    ing.run(paths, ex);
  }
  auto pct = [&](std::uint64_t n) { return rate.lines ? 100.0 * static_cast<double>(n) / static_cast<double>(rate.lines) : 0.0; };
  const std::uint64_t parsed = rate.lines - rate.skipped;
  std::printf("%llu lines: the gate's literals pass %llu (%.3f %%); parsed after the shape checks: %llu (%.3f %%)\n",
              static_cast<unsigned long long>(rate.lines), static_cast<unsigned long long>(rate.passed), pct(rate.passed),
              static_cast<unsigned long long>(parsed), pct(parsed));
  std::vector<std::pair<std::uint64_t, std::string>> order;
  for (const auto& [why, r] : rate.reasons) order.emplace_back(r.lines, why);
  std::sort(order.rbegin(), order.rend());
  for (std::size_t k = 0; k < order.size() && k < 12; ++k) {
    const Reason& r = rate.reasons[order[k].second];
    std::printf("  %9llu  %s\n", static_cast<unsigned long long>(r.lines), order[k].second.c_str());
    for (const auto& e : r.examples) std::printf("             | %s\n", e.c_str());
  }
  if (max >= 0 && pct(rate.passed) > max) {
    std::fprintf(stderr, "gate pass rate %.3f %% is above the bound %.3f %%\n", pct(rate.passed), max);
    return 1;
  }
  return 0;
}
