#include <cstdio>

#include "base/inventory.hpp"
#include "base/sentences.hpp"
#include "check/check.hpp"
#include "report/report.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "formats/pipeline.hpp"
#include "formats/snapshot.hpp"
#include "lines/line_reader.hpp"

namespace dtriage::cli {
namespace {

// Reads each source once: a snapshot is parsed whole; any other text is parsed for the smoke
// test's lines and for the training-log events checks 5 and 6 read.
class CheckSink final : public ingest::Sink {
 public:
  CheckSink(check::Input& in, std::size_t max_line, base::Inventory& inv) : in_(in), max_line_(max_line), inv_(inv) {}
  void on_text(const ingest::Source& source, ingest::ByteReader& text) override {
    ++files_;
    lines::LineReader reader(text, max_line_);
    if (const std::uint64_t cut = check::read_source(source, reader, in_); cut != 0)
      inv_.add_unreadable(source.path, formats::snapshot_cut_reason(cut));
    inv_.lines_cut += reader.lines_cut();
  }
  std::uint64_t files() const { return files_; }

 private:
  check::Input& in_;
  std::size_t max_line_;
  base::Inventory& inv_;
  std::uint64_t files_ = 0;
};

// --redact: the nodes first (node#1, ... in the report's order), then every string it shows.
void redact(check::Report& report, const check::Input& input) {
  report::Redactor r;
  for (const auto& n : report.nodes) r.add_node(n);
  for (const auto& s : input.snapshots) r.add_node(s.host);
  for (const auto& c : report.checks)
    for (const auto& res : c.results) {
      for (const auto& [k, v] : res.values) r.learn(k + "=" + v);
      for (const auto& e : res.evidence) r.learn(e.text);
    }
  for (auto& n : report.nodes) n = r.apply(n);
  for (auto& c : report.checks)
    for (auto& res : c.results) {
      res.node = r.apply(res.node);
      res.message = r.apply(res.message);
      for (auto& [k, v] : res.values) {  // read with its key: MASTER_ADDR=x, password=y
        const std::string kv = r.apply(k + "=" + v);
        v = kv.rfind(k + "=", 0) == 0 ? kv.substr(k.size() + 1) : r.apply(v);
      }
      for (auto& e : res.evidence) {
        e.path = r.apply(e.path);
        e.text = r.apply(e.text);
      }
    }
  for (auto& [path, reason] : report.unreadable) {
    path = r.apply(path);
    reason = r.apply(reason);
  }
}

}  // namespace

int cmd_check(CheckArgs& args) {
  Output out;
  if (!open_output(out, args.output)) return 2;
  base::Inventory inv;
  ingest::Ingestor ing(args.limits, std::move(args.hints), inv);
  check::Input input;
  input.launch = check::parse_launch(args.launch);
  CheckSink sink(input, args.max_line, inv);
  ing.run(args.paths, sink);
  for (const auto& p : inv.unreadable) std::fprintf(stderr, "dtriage: %s: %s\n", p.path.c_str(), p.reason.c_str());
  if (!ing.read_anything()) {
    std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::InputNothingReadable).c_str());
    return 2;
  }
  check::Report report = check::run_checks(input);
  // Nothing to judge (no snapshot, no smoke test, no log line any check reads): an error, not a
  // report of six skips.
  if (report.status == check::Status::Skip) {
    std::fprintf(stderr, "dtriage: %s\n", base::say(base::Say::InputNoCheckInput).c_str());
    return 2;
  }
  report.files = sink.files();
  report.values_not_kept = input.logs.values_not_kept;
  for (const auto& p : inv.unreadable) report.unreadable.emplace_back(p.path, p.reason);
  if (args.redact) redact(report, input);
  if (args.format == "json") out.buffer() += check::render_json(report);
  else if (args.format == "markdown") out.buffer() += check::render_markdown(report);
  else out.buffer() += check::render_text(report, use_color(args.color, out));
  if (!finish_output(out)) return 2;
  if (report.status == check::Status::Fail) return kExitCheckFailed;
  return inv.unreadable.empty() ? 0 : 1;
}

}  // namespace dtriage::cli
