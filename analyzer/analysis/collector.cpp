#include "analysis/collector.hpp"

#include <algorithm>
#include <iterator>

#include "correlate/facts.hpp"
#include "formats/pipeline.hpp"
#include "model/fields.hpp"

namespace dtriage::analysis {

Collector::Collector(const rules::Engine& engine, const formats::Gate* gate, std::size_t max_line, base::Inventory* inv)
    : engine_(engine), gate_(gate), max_line_(max_line), inv_(inv != nullptr ? *inv : own_inv_), forked_(inv == nullptr) {}

std::unique_ptr<ingest::Sink> Collector::fork() { return std::make_unique<Collector>(engine_, gate_, max_line_, nullptr); }

void Collector::join(std::unique_ptr<ingest::Sink> sink) {
  auto& f = static_cast<Collector&>(*sink);
  std::size_t b = 0;
  for (std::size_t i = 0; i < f.events_.size(); ++i) {
    model::Event& e = f.events_[i];
    if (b < f.binding_only_.size() && f.binding_only_[b] == i) {
      ++b;
      if (!seen_.insert(first_key(e)).second) {
        ++inv_.events_not_kept;
        continue;
      }
    }
    events_.push_back(std::move(e));
    hits_.push_back(std::move(f.hits_[i]));
  }
  for (auto& s : f.sources_) sources_.push_back(std::move(s));
  for (auto& s : f.sightings_) sightings_.push_back(std::move(s));
  unparsed_ += f.unparsed_;
  inv_.absorb(std::move(f.inv_));
}

void Collector::on_text(const ingest::Source& source, ingest::ByteReader& text) {
  formats::ParseOptions opt;
  opt.all_lines = true;
  opt.gate = gate_;
  opt.known = [this](const model::Event& e) { return !binds(e) || seen_.count(binding_key(e)) != 0; };
  sources_.push_back(source.path);
  std::vector<int> hits;
  std::uint64_t plain = 0, plain_last = 0;  // lines no parser knew that passed the gate
  const auto counts = formats::parse_stream(text, source, opt, max_line_, [&](model::Event&& e) {
    bool binding_only = false;
    hits.clear();
    if (keep(e, hits, binding_only)) {
      if (binding_only && forked_) binding_only_.push_back(events_.size());
      e.fields.shrink_to_fit();  // kept until the end: tens of thousands of them on a big job
      events_.push_back(std::move(e));
      hits_.push_back(hits);
    } else if (e.kind != model::Kind::Line) {
      ++inv_.events_not_kept;
      ++plain;
      plain_last = e.line;
    } else if (e.text.find_first_not_of(" \t\r") != std::string::npos) {  // a blank line prints nothing
      ++unparsed_;
      ++plain;
      plain_last = e.line;
    }
  });
  inv_.lines += counts.lines;
  inv_.lines_cut += counts.lines_cut;
  inv_.events_not_kept += counts.skipped_info;
  unparsed_ += counts.skipped_plain;
  for (const auto& s : counts.sightings) sightings_.push_back(s);
  // Where a file's own prints end: launch failures a node's workers ran after were survived.
  const std::uint64_t quiet = plain + counts.skipped_plain + counts.skipped_info;
  if (quiet > 0) {
    model::Sighting s;
    s.path = source.path;
    s.node = source.node;
    s.line = std::max(plain_last, counts.plain_last);
    s.plain = quiet;
    sightings_.push_back(std::move(s));
  }
}

bool Collector::keep(const model::Event& e, std::vector<int>& hits, bool& binding_only) {
  // A line the gate found no literal in, which no parser gave a code: only rules of kinds that
  // need no literal could match it (a rule on codes alone matches what parsers recognise, some by
  // their families' markers, which are no gate literals).
  // The same holds for a coded event's regex rules when the rules see no more than the line (no
  // body, a message from the line): only rules on fields alone are asked.
  if (e.quiet && gate_ != nullptr && !gate_->open(e.kind)) {
    if (e.code.empty()) hits.clear();
    else if (e.body.empty() && (e.message.empty() || e.text.find(e.message) != std::string::npos)) hits = engine_.match_fields(e);
    else hits = engine_.match(e);
  } else {
    hits = engine_.match(e);
  }
  if (e.kind == model::Kind::Line) return !hits.empty();
  if (table_row(e, hits)) {
    binding_only = true;
    return seen_.insert(row_key(e)).second;
  }
  if (correlate::is_error(e) || e.level == model::Level::Warning || !e.code.empty()) return true;
  for (const auto& [k, v] : e.fields)
    if (const model::FieldInfo* f = model::find_event_field(k); f != nullptr && f->keep) return true;
  if (!hits.empty()) return true;
  if (!binds(e)) return false;
  binding_only = true;
  return seen_.insert(binding_key(e)).second;
}

bool Collector::table_row(const model::Event& e, const std::vector<int>& hits) {
  return (e.kind == model::Kind::NvidiaSmi || e.kind == model::Kind::NpuSmi) && e.level <= model::Level::Info &&
         hits.empty() && !correlate::is_error(e);
}

const std::string& Collector::row_key(const model::Event& e) {
  binding_key(e);
  // The file too: a node is not always known yet (folders named without a digit get theirs in
  // correlation), and two nodes' tables of the same hardware must not read as one repeated.
  key_.insert(0, "\x01" + e.path + "\x01");  // never a binding key: those start with a node name
  key_ += '|';
  key_ += model::kind_name(e.kind);
  key_ += '|';
  key_ += e.code;
  // Memory in use changes from one snapshot to the next; nothing downstream of the collector reads
  // it (a node snapshot's own parse does, formats/snapshot.cpp).
  static constexpr std::string_view kMeasured[] = {"memory_mib", "memory_mb", "memory_used_mb"};
  for (const auto& [k, v] : e.fields)
    if (std::find(std::begin(kMeasured), std::end(kMeasured), k) == std::end(kMeasured)) {
      key_ += '|';
      key_ += k;
      key_ += '=';
      key_ += model::value_text(v);
    }
  return key_;
}

const std::string& Collector::binding_key(const model::Event& e) {
  key_ = e.node;
  for (const auto& v : {e.pid, e.device, e.rank, e.local_rank}) {
    key_ += '|';
    if (v) key_ += std::to_string(*v);
  }
  return key_;
}

}  // namespace dtriage::analysis
