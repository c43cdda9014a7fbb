#include "analysis/collector.hpp"

#include "formats/snapshot.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <functional>
#include <iterator>
#include <optional>

#include "correlate/facts.hpp"
#include "formats/pipeline.hpp"
#include "model/fields.hpp"

namespace dtriage::analysis {

Collector::Collector(const rules::Engine& engine, const formats::Gate* gate, std::size_t max_line,
                     std::uint64_t max_event_bytes, base::Inventory* inv)
    : engine_(engine),
      gate_(gate),
      max_line_(max_line),
      inv_(inv != nullptr ? *inv : own_inv_),
      forked_(inv == nullptr),
      max_event_bytes_(max_event_bytes),
      event_bytes_(std::make_shared<std::atomic<std::uint64_t>>(0)) {}

std::unique_ptr<ingest::Sink> Collector::fork() {
  auto f = std::make_unique<Collector>(engine_, gate_, max_line_, max_event_bytes_, nullptr);
  f->event_bytes_ = event_bytes_;
  return f;
}

void Collector::join(std::unique_ptr<ingest::Sink> sink) {
  auto& f = static_cast<Collector&>(*sink);
  // Grown by half, not doubled (a big job's events are most of its memory), and never per join
  // (thousands of files).
  auto grow = [](auto& v, std::size_t more) {
    if (v.size() + more > v.capacity()) v.reserve(std::max(v.size() + more, v.capacity() + v.capacity() / 2));
  };
  grow(events_, f.events_.size());
  grow(hits_, f.hits_.size());
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
  f.events_ = {};
  f.hits_ = {};
  for (auto& s : f.sources_) sources_.push_back(std::move(s));
  for (auto& s : f.sightings_) sightings_.push_back(std::move(s));
  for (auto& t : f.tails_)
    if (tails_.size() < kMaxTails) tails_.push_back(std::move(t));
  unparsed_ += f.unparsed_;
  inv_.absorb(std::move(f.inv_));
}

namespace {
void cut(model::Event& e);
}  // namespace

void Collector::on_text(const ingest::Source& source, ingest::ByteReader& text) {
  formats::ParseOptions opt;
  opt.all_lines = true;
  opt.gate = gate_;
  opt.known = [this](const model::Event& e) { return !binds(e) || seen_.count(binding_key(e)) != 0; };
  opt.row_kept_once = [this] { return last_row_; };
  sources_.push_back(source.path);
  std::vector<int> hits;
  std::uint64_t plain = 0, plain_last = 0;  // lines no parser knew that passed the gate
  std::uint64_t kept_last = 0;              // the last line of a kept event
  std::optional<model::Event> last_line;    // the last line no parser knew and no rule matched
  const auto counts = formats::parse_stream(text, source, opt, max_line_, [&](model::Event&& e) {
    bool binding_only = false;
    hits.clear();
    if (keep(e, hits, binding_only)) {
      kept_last = std::max({kept_last, e.line, e.end_line});
      if (binding_only) {
        if (forked_) binding_only_.push_back(events_.size());
        events_.push_back(std::move(e));
        hits_.push_back(hits);
      } else {
        store(std::move(e), hits);
      }
    } else if (e.kind != model::Kind::Line) {
      ++inv_.events_not_kept;
      ++plain;
      plain_last = e.line;
    } else {  // a line no parser knew (the parsers emit no blank one: it prints nothing)
      ++unparsed_;
      ++plain;
      plain_last = e.line;
      last_line = std::move(e);
    }
  });
  // The file ends with it: nothing was read after it (a pasted error line of a shape no parser
  // knows, the last words of a process that then hung). Kept aside for a run in which nothing
  // else says it failed (rules::lead_with_catalogue).
  if (last_line && last_line->line >= std::max(plain_last, counts.plain_last) && last_line->line > kept_last &&
      tails_.size() < kMaxTails) {
    cut(*last_line);
    tails_.push_back(std::move(*last_line));
  }
  inv_.lines += counts.lines;
  inv_.lines_cut += counts.lines_cut;
  inv_.events_not_kept += counts.skipped_info;
  unparsed_ += counts.skipped_plain;
  if (counts.snapshot_not_kept != 0) {
    inv_.add_unreadable(source.path, formats::snapshot_cut_reason(counts.snapshot_not_kept));
    ++inv_.stopped_by_limit;
  }
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
  last_row_ = false;
  if (e.kind == model::Kind::Line) return !hits.empty();
  if (table_row(e, hits)) {
    last_row_ = true;
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

namespace {

// Cuts a stored copy at a UTF-8 character's start, at most `max` bytes, and says so.
void cut_stored(std::string& s, std::size_t max) {
  if (s.size() <= max) return;
  std::size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  s.resize(n);
  s += "\u2026";  // …
  s.shrink_to_fit();
}

// What is stored of a kept event's texts (rules and parsers have seen them whole).
void cut(model::Event& e) {
  cut_stored(e.text, Collector::kStoredLine);
  cut_stored(e.message, Collector::kStoredLine);
  for (auto& b : e.body) cut_stored(b, Collector::kStoredLine);
  for (auto& [k, v] : e.fields)
    if (auto* s = std::get_if<std::string>(&v)) cut_stored(*s, Collector::kStoredLine);
}

std::uint64_t stored_bytes(const model::Event& e) {
  // Its slot twice: a vector that grows by doubling holds up to as much again unused.
  std::uint64_t n = 2 * sizeof(model::Event) + e.path.capacity() + e.text.capacity() + e.message.capacity() +
                    e.code.capacity() + e.node.capacity() + e.task.capacity() + e.time.text.capacity() +
                    e.fields.capacity() * sizeof(e.fields[0]) + e.body.capacity() * sizeof(std::string);
  for (const auto& b : e.body) n += b.capacity();
  for (const auto& [k, v] : e.fields)
    if (const auto* s = std::get_if<std::string>(&v)) n += k.capacity() + s->capacity();
  return n;
}

}  // namespace

bool Collector::store(model::Event&& e, const std::vector<int>& hits) {
  const std::uint64_t key = fold_key(e, hits);
  Fold& fold = folds_[key];
  if (++fold.copies > kFoldAfter + 1) {  // the latest copy takes the place of the one before
    model::Event& last = events_[fold.last];
    const std::uint64_t folded = last.folded + 1;
    cut(e);
    last = std::move(e);
    last.folded = folded;
    ++inv_.events_folded;
    return false;
  }
  cut(e);
  e.fields.shrink_to_fit();  // kept until the end: tens of thousands of them on a big job
  e.body.shrink_to_fit();
  const std::uint64_t bytes = stored_bytes(e) + hits.size() * sizeof(int);
  if (event_bytes_->fetch_add(bytes, std::memory_order_relaxed) + bytes > max_event_bytes_) {
    event_bytes_->fetch_sub(bytes, std::memory_order_relaxed);
    if (--fold.copies == 0) folds_.erase(key);  // nothing kept of it: no entry either (millions of distinct lines)
    ++inv_.events_dropped;
    return false;
  }
  fold.last = events_.size();
  events_.push_back(std::move(e));
  hits_.push_back(hits);
  return true;
}

// Hash of what makes a line "the same again": its file, binding, kind, level, code, parsed fields,
// rules matched, and its text and body with every run of digits (and hex digits after 0x) as one '#'.
std::uint64_t Collector::fold_key(const model::Event& e, const std::vector<int>& hits) {
  std::string& k = key_;
  k.clear();
  auto masked = [&k](std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
      const char c = s[i];
      if (c >= '0' && c <= '9') {
        const bool hex = c == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X');
        i += hex ? 2 : 1;
        while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) ||
                                (hex && std::isxdigit(static_cast<unsigned char>(s[i])))))
          ++i;
        k += '#';
      } else {
        k += c;
        ++i;
      }
    }
    k += '\x01';
  };
  k += e.path;
  k += '\x01';
  k += e.node;
  k += '\x01';
  k += e.task;
  for (const auto& v : {e.pid, e.device, e.rank, e.local_rank}) {
    k += '|';
    if (v) k += std::to_string(*v);
  }
  k += static_cast<char>(e.kind);
  k += static_cast<char>(e.level);
  k += e.code;
  k += '\x01';
  for (const auto& [name, v] : e.fields) {
    k += name;
    k += '=';
    k += model::value_text(v);
    k += '\x01';
  }
  for (int h : hits) {
    k += std::to_string(h);
    k += ',';
  }
  masked(e.text);
  masked(e.message);
  for (const auto& b : e.body) masked(b);
  return std::hash<std::string>{}(k);
}

bool Collector::table_row(const model::Event& e, const std::vector<int>& hits) {
  return (e.kind == model::Kind::NvidiaSmi || e.kind == model::Kind::NpuSmi) && e.level <= model::Level::Info &&
         hits.empty() && !correlate::is_error(e);
}

const std::string& Collector::row_key(const model::Event& e) {
  // The file too: a node is not always known yet (folders named without a digit get theirs in
  // correlation), and two nodes' tables of the same hardware must not read as one repeated.
  key_.assign("\x01");  // never a binding key: those start with a node name
  key_ += e.path;
  key_ += '\x01';
  append_binding(key_, e);
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
      append_value(key_, v);
    }
  return key_;
}

namespace {

void append_int(std::string& out, std::int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

}  // namespace

// As model::value_text writes it (a double as an ostream does by default: %g), without a string
// of its own per field.
void Collector::append_value(std::string& out, const model::Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    append_int(out, *i);
  } else if (const auto* d = std::get_if<double>(&v)) {
    char buf[32];
    const int n = std::snprintf(buf, sizeof buf, "%g", *d);
    if (n > 0) out.append(buf, static_cast<std::size_t>(std::min(n, static_cast<int>(sizeof buf) - 1)));
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    out += *s;
  } else {
    out += std::get<bool>(v) ? "true" : "false";
  }
}

void Collector::append_binding(std::string& out, const model::Event& e) {
  out += e.node;
  for (const auto& v : {e.pid, e.device, e.rank, e.local_rank}) {
    out += '|';
    if (v) append_int(out, *v);
  }
}

const std::string& Collector::binding_key(const model::Event& e) {
  key_.clear();
  append_binding(key_, e);
  return key_;
}

}  // namespace dtriage::analysis
