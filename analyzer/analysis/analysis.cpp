#include "analysis/analysis.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "analysis/collector.hpp"
#include "base/sentences.hpp"
#include "base/text.hpp"
#include "rules/catalogue.hpp"
#include "rules/rule.hpp"

namespace dtriage::analysis {

namespace {

// Rules that name a worker's failure without saying what it was: its exception, its exit.
bool generic_rule(const std::string& id) {
  return id == "python.uncaught-exception" || id == "launcher.worker-failed" || id == "launcher.deepspeed-exit";
}
// Of those, the launchers' lines of a worker's exit: they carry no error text of their own.
bool exit_rule(const std::string& id) { return id == "launcher.worker-failed" || id == "launcher.deepspeed-exit"; }

// A launcher's exit line led, naming no rank: the errors its workers printed before it on
// its node (in its file, when no node is known) that a catalogue knows say what the worker died of.
// A cause gives its category; else a consequence gives the category of what it usually follows
// (an NCCL "unhandled system error" with nothing else: a socket or transport failure).
void refine_exit(Analysis& a, const rules::Catalogue& catalogue) {
  rules::Verdict& v = a.outcome.verdict;
  if (v.root < 0 || a.outcome.findings[static_cast<std::size_t>(v.root)].events.empty()) return;
  const model::Event& exit = a.events[a.outcome.findings[static_cast<std::size_t>(v.root)].events.front()];
  const rules::CatalogueEntry* found[2] = {nullptr, nullptr};  // cause, consequence
  correlate::EventIndex at[2] = {0, 0};
  std::string said[2];
  for (correlate::EventIndex i = 0; i < a.events.size() && found[0] == nullptr; ++i) {
    const model::Event& e = a.events[i];
    const bool here = exit.node.empty() ? e.path == exit.path : e.node == exit.node;
    // The workers' own output: not the launchers' lines (another worker's exit is no reason for this one).
    if (!here || !correlate::is_error(e) || e.kind == model::Kind::Torchrun || e.code == "worker-failed" ||
        e.code == "failure-row" || (e.path == exit.path && e.line >= exit.line)) continue;
    std::string s;
    const rules::CatalogueEntry* c = catalogue.classify(e, &s);
    if (c == nullptr || !c->classifies()) continue;
    const int k = c->role == rules::EntryRole::Cause ? 0 : 1;
    if (found[k] != nullptr) continue;
    found[k] = c;
    at[k] = i;
    said[k] = s;
  }
  const int k = found[0] != nullptr ? 0 : 1;
  const rules::CatalogueEntry* c = found[k];
  if (c == nullptr || c->category == v.category) return;
  const model::Event& e = a.events[at[k]];
  const std::string& text = rules::Catalogue::quoted(e, said[k]);
  const std::string where = e.path + ":" + std::to_string(e.line);
  const base::Lang lang = base::language();
  v.why.push_back(k == 0 ? base::say(base::Say::WhyCatalogueBeforeExit, {{"where", where}, {"message", text}, {"category", c->category},
                                                                        {"meaning", c->meaning_in(lang)}, {"entry", c->id}})
                         : base::say(base::Say::WhyCatalogueBeforeExitOf, {{"where", where}, {"message", text}, {"category", c->category},
                                                                          {"of", c->of_in(lang)}, {"entry", c->id}}));
  v.category = c->category;
  v.catalogue = c->id;
}

// A generic rule named the cause: when the culprit's own error is one the catalogues call a cause
// of a more specific category ("CUDA error: invalid device ordinal": a device-visibility problem),
// the verdict takes that category, and its why says so.
void refine(Analysis& a, const rules::Catalogue& catalogue) {
  rules::Verdict& v = a.outcome.verdict;
  std::vector<correlate::EventIndex> own;
  if (v.rank)
    for (const correlate::RankRecord& r : a.facts.rank_table)
      if (r.rank == *v.rank && r.own_failure) own.push_back(*r.own_failure);
  // No rank named: the rule's first line (a rank's other lines may be a peer's report of it).
  if (own.empty() && !v.rank && v.root >= 0 && !a.outcome.findings[static_cast<std::size_t>(v.root)].events.empty())
    own.push_back(a.outcome.findings[static_cast<std::size_t>(v.root)].events.front());
  for (const correlate::EventIndex i : own) {
    const model::Event* at = &a.events[i];
    std::string said;
    const rules::CatalogueEntry* c = catalogue.classify(*at, &said);
    // An exception line printed right after it in its file, without a traceback of its own, is more
    // of its message ("ncclInternalError: Internal check failed." and NCCL's reason under a
    // DistBackendError whose traceback header the log lost).
    for (std::size_t j = i + 1; j < a.events.size() && j <= i + 3 && (c == nullptr || c->role != rules::EntryRole::Cause); ++j) {
      const model::Event& next = a.events[j];
      if (next.path != at->path || next.kind != model::Kind::Python || next.line != std::max(at->end_line, at->line) + 1) break;
      std::string next_said;
      if (const rules::CatalogueEntry* n = catalogue.classify(next, &next_said); n != nullptr && n->role == rules::EntryRole::Cause) {
        c = n;
        said = rules::Catalogue::quoted(next, next_said);
      }
      at = &next;
    }
    const model::Event& e = a.events[i];
    if (c == nullptr || c->role != rules::EntryRole::Cause || !c->classifies() || c->category == v.category) continue;
    // The line that said it: a further line of the message (NCCL's reason under its error), else
    // the message.
    const std::string& text = rules::Catalogue::quoted(e, said);
    v.why.push_back(base::say(base::Say::WhyCatalogueRefines,
                              {{"message", text}, {"category", c->category},
                               {"meaning", c->meaning_in(base::language())}, {"entry", c->id}}));
    v.category = c->category;
    v.catalogue = c->id;
    return;
  }
  if (exit_rule(v.rule) && !v.rank) refine_exit(a, catalogue);
}

// Whether nothing was read after the event in its file: no plain print (the node's plain tail),
// no informational event (a run going on; `info_last`: each file's last), only other warnings and errors.
bool ends_its_file(const Analysis& a, correlate::EventIndex i, const std::map<std::string_view, std::uint64_t>& info_last) {
  const model::Event& e = a.events[i];
  const std::uint64_t last = std::max(e.line, e.end_line);
  if (const correlate::Node* n = a.facts.node(e.node); n != nullptr)
    if (const auto tail = n->plain_tail.find(e.path); tail != n->plain_tail.end() && tail->second.first > last) return false;
  const auto info = info_last.find(e.path);
  return info == info_last.end() || info->second < last;
}

// Nothing said the run failed (no rule, no error), yet files end with words a catalogue calls a
// failure: an NCCL or c10d warning the process printed before it hung, an error line of a shape
// no parser knows (a paste of the one line that mattered, another framework's wording of NCCL's
// reason). The earliest cause among them leads, else the earliest consequence (decide_unknown's
// way); the unparsed line joins the events when it leads.
struct LastWords {
  std::vector<model::Event> tails;  // files' last lines no parser knew (Collector::tails)
  bool progress = false;            // some line printed a training step (a rank's or not)
};
void lead_with_last_words(Analysis& a, const rules::Catalogue& catalogue, const LastWords& last) {
  // Training went on (a progress print, of a rank or not): what a file's last line says the run
  // outlived (a process's stderr ends with a warning its stdout's steps follow). A run that stopped
  // in its start-up is what this is for.
  if (last.progress) return;
  const std::vector<model::Event>& tails = last.tails;
  std::map<std::string_view, std::uint64_t> info_last;
  for (const model::Event& e : a.events)
    if (!correlate::is_error(e) && e.level != model::Level::Warning) {
      std::uint64_t& at = info_last[e.path];
      at = std::max(at, e.line);
    }
  std::vector<correlate::EventIndex> candidates;
  for (correlate::EventIndex i = 0; i < a.events.size(); ++i)
    if (a.events[i].level == model::Level::Warning && !a.facts.is_replaced(i) && ends_its_file(a, i, info_last)) candidates.push_back(i);
  info_last.clear();  // its keys view the events, which may move below
  const std::size_t read = a.events.size();
  for (const model::Event& t : tails)
    if (const rules::CatalogueEntry* c = catalogue.classify(t); c != nullptr && c->classifies()) {
      candidates.push_back(a.events.size());
      a.events.push_back(t);
    }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](correlate::EventIndex x, correlate::EventIndex y) { return model::earlier(a.events[x], a.events[y]); });
  const bool led = !candidates.empty() && rules::lead_with_catalogue(a.events, candidates, catalogue, a.outcome.verdict);
  // Of the unparsed lines, the one that leads joins the events; the others go again.
  std::optional<correlate::EventIndex>& lead = a.outcome.verdict.lead;
  if (led && lead && *lead >= read) {
    if (*lead != read) a.events[read] = std::move(a.events[*lead]);
    lead = read;
    a.events.resize(read + 1);
    a.hits.resize(read + 1);
  } else {
    a.events.resize(read);
  }
}

// Correlates and judges, saying every sentence in `lang`.
// `stopped`: a limit of the run (time, bytes, ratio, nesting) stopped reading some input early.
void judge(Analysis& a, const RuleBook& book, correlate::Inputs read, base::Lang lang, bool stopped, const LastWords& last) {
  const base::LangScope words(lang);
  a.facts = correlate::correlate(a.events, std::move(read));
  // No rule names the cause: the catalogues may say what the leading error is (the engine reads them
  // then); a generic rule named it: they may sharpen its category.
  a.outcome = book.engine->analyze(a.events, a.hits, a.facts, book.catalogue.get());
  rules::Verdict& v = a.outcome.verdict;
  if (book.catalogue && v.status == rules::Status::Failed && generic_rule(v.rule)) refine(a, book.catalogue->get());
  if (book.catalogue && v.nothing_failed && (a.facts.job.first_error || !last.tails.empty())) lead_with_last_words(a, book.catalogue->get(), last);
  // Nothing failed in what was read, and not all was read: a failure is usually at a log's end.
  if (stopped && v.status == rules::Status::Healthy) {
    v.status = rules::Status::Inconclusive;
    v.summary = base::say(base::Say::VerdictStoppedAtLimit, {{"what", v.summary}});
  }
}

}  // namespace

base::Result<RuleBook> RuleBook::compile(rules::RuleSet set) {
  RuleBook book;
  book.set = std::move(set);
  std::vector<std::pair<std::string, std::string>> skipped;
  auto engine = rules::Engine::compile(book.set.rules, &skipped);
  for (auto& [where, what] : skipped) book.set.problems.push_back({where, what});
  if (!engine) return base::err("rules: " + engine.error());
  book.engine = engine.value();
  const rules::Engine::Literals& lits = book.engine->literals();
  book.gate = std::make_shared<const formats::Gate>(formats::RuleLiterals{lits.atoms, lits.open_kinds});
  return book;
}

base::Result<RuleBook> RuleBook::load(const std::vector<std::string>& dirs, const std::string& catalogue_dir) {
  auto book = compile(rules::load_rules(dirs));
  if (book && !catalogue_dir.empty()) book.value().catalogue = std::make_shared<const rules::CatalogueShelf>(catalogue_dir);
  return book;
}

std::unique_ptr<Analysis> analyze(Inputs inputs, const RuleBook& book, const Options& options) {
  const rules::Engine& engine = *book.engine;
  auto a = std::make_unique<Analysis>();
  correlate::Inputs read;
  LastWords last;
  {  // the collector's and the reader's own state (keys of the bindings seen, ...) goes before correlation
    Collector collector(engine, options.gate ? book.gate.get() : nullptr, options.max_line, options.max_event_bytes,
                        &a->inventory);
    ingest::Ingestor ing(options.limits, std::move(inputs.hints), a->inventory);
    if (!inputs.paths.empty()) ing.run(inputs.paths, collector, std::max(1u, options.threads));
    for (const auto& [path, text] : inputs.texts) ing.run_memory(text, path, collector);
    a->read_anything = ing.read_anything();
    a->events = std::move(collector.events());
    a->hits = std::move(collector.hits());
    last.progress = std::any_of(collector.sightings().begin(), collector.sightings().end(),
                                [](const model::Sighting& s) { return s.step.has_value(); });
    read = correlate::Inputs{engine.reports(a->hits), std::move(collector.sources()), collector.unparsed_lines(),
                             std::move(collector.sightings())};
    last.tails = std::move(collector.tails());
  }
  const base::Lang lang = options.lang.value_or(base::language());
  if (lang != base::Lang::En) {
    // Said in English first, on copies (correlation sets the events' nodes): the same facts, the
    // same findings in the same order, only their words differ.
    Analysis en;
    en.events = a->events;
    en.hits = a->hits;
    const bool stopped = a->inventory.stopped_by_limit != 0;
    judge(en, book, read, base::Lang::En, stopped, last);
    judge(*a, book, std::move(read), lang, stopped, last);
    rules::Analysis& out = a->outcome;
    out.verdict.summary_en = std::move(en.outcome.verdict.summary);
    for (std::size_t i = 0; i < out.findings.size() && i < en.outcome.findings.size(); ++i)
      out.findings[i].summary_en = std::move(en.outcome.findings[i].summary);
    return a;
  }
  judge(*a, book, std::move(read), lang, a->inventory.stopped_by_limit != 0, last);
  return a;
}

namespace {

// Reads the lines around the wanted lines of the files it is given; skips every other file.
class ContextReader final : public ingest::Sink {
 public:
  ContextReader(std::map<std::string, std::vector<std::pair<std::uint64_t, std::size_t>>> wanted, unsigned n, std::size_t max_line)
      : wanted_(std::move(wanted)), n_(n), max_line_(max_line) {}

  void on_text(const ingest::Source& source, ingest::ByteReader& text) override {
    const auto w = wanted_.find(source.path);
    if (w == wanted_.end()) return;
    std::vector<std::pair<std::uint64_t, std::size_t>>& at = w->second;  // (line, event), sorted by line
    std::sort(at.begin(), at.end());
    const std::uint64_t last = at.back().first + n_;
    std::deque<std::pair<std::uint64_t, std::string>> recent;  // the last n lines read
    lines::LineReader reader(text, max_line_);
    lines::Line line;
    std::size_t next = 0;  // the first wanted line not reached yet
    while (reader.next(line) && line.number <= last) {
      // The lines after a wanted line: each wanted line less than n lines back.
      for (std::size_t k = 0; k < next; ++k)
        if (line.number > at[k].first && line.number <= at[k].first + n_)
          out_[at[k].second].after.emplace_back(line.number, base::clip_utf8(std::string(line.text), kMaxContextLine));
      while (next < at.size() && at[next].first == line.number) {
        out_[at[next].second].before.assign(recent.begin(), recent.end());
        ++next;
      }
      recent.emplace_back(line.number, base::clip_utf8(std::string(line.text), kMaxContextLine));
      if (recent.size() > n_) recent.pop_front();
    }
  }

  model::Context take() { return std::move(out_); }

 private:
  std::map<std::string, std::vector<std::pair<std::uint64_t, std::size_t>>> wanted_;  // path -> (line, event)
  unsigned n_;
  std::size_t max_line_;
  model::Context out_;
};

}  // namespace

model::Context read_context(const Inputs& inputs, const Options& options, const std::vector<model::Event>& events,
                            const std::vector<std::size_t>& wanted, unsigned n) {
  std::map<std::string, std::vector<std::pair<std::uint64_t, std::size_t>>> by_path;
  for (const std::size_t i : wanted)
    if (i < events.size() && events[i].line > 0) by_path[events[i].path].emplace_back(events[i].line, i);
  if (n == 0 || by_path.empty()) return {};
  std::vector<std::string> paths;  // standard input was read once, by the analysis
  for (const std::string& p : inputs.paths)
    if (p != "-") paths.push_back(p);
  ContextReader reader(std::move(by_path), n, options.max_line);
  base::Inventory problems;  // the analysis reported them already
  ingest::Ingestor ing(options.limits, {}, problems);
  if (!paths.empty()) ing.run(paths, reader);
  for (const auto& [path, text] : inputs.texts) ing.run_memory(text, path, reader);
  return reader.take();
}

std::vector<std::string> check_examples(const RuleBook& book) {
  std::vector<std::string> problems;
  const rules::Engine& engine = *book.engine;
  for (const rules::Rule& r : engine.rules()) {
    // The example's files are one job, through the whole analysis; the rule must (or must not)
    // produce a finding.
    auto run = [&](const rules::Rule::Example& example, base::Lang lang) {
      Inputs in;
      for (const auto& [path, text] : example) in.texts.emplace_back(path, text);
      Options options;
      options.lang = lang;
      return analyze(std::move(in), book, options);
    };
    auto finding_of = [&](const Analysis& a) -> const rules::Finding* {
      for (const rules::Finding& f : a.outcome.findings)
        if (f.rule == &r) return &f;
      return nullptr;
    };
    auto fires = [&](const rules::Rule::Example& example) { return finding_of(*run(example, base::Lang::En)) != nullptr; };
    // In Chinese the example fires too, and its summary says the same values as the English one
    // (`fe`: the English run's finding).
    auto same_in_chinese = [&](const rules::Rule::Example& example, const rules::Finding& english) -> std::string {
      if (r.zh.summary.empty()) return "";
      const auto zh = run(example, base::Lang::Zh);
      const rules::Finding* fe = &english;
      const rules::Finding* fz = finding_of(*zh);
      if (fz == nullptr) return "fires in English only";
      if (fz->summary_en != fe->summary) return "its Chinese run's English differs: " + fz->summary_en;
      // The values: the English summary's words that its template does not have (hosts, numbers,
      // codes, signals; "and" joins a list), each of them in the Chinese summary.
      static const re2::RE2 word(R"(([A-Za-z0-9_./+?]+(?::[A-Za-z0-9_./+?]+)*))");  // "ip-10-4" as its pieces
      auto words = [](const std::string& text) {
        std::set<std::string> out;
        re2::StringPiece in(text);
        std::string w;
        while (re2::RE2::FindAndConsume(&in, word, &w)) out.insert(w);
        return out;
      };
      const std::set<std::string> fixed = words(r.summary), zh_words = words(fz->summary);
      for (const std::string& w : words(fe->summary))
        if (fixed.count(w) == 0 && w != "and" && w != "more" && zh_words.count(w) == 0)
          return "the Chinese summary lacks '" + w + "': \"" + fe->summary + "\" vs \"" + fz->summary + "\"";
      return "";
    };
    auto show = [](const rules::Rule::Example& ex) {
      std::string s;
      for (const auto& [path, text] : ex) s += (s.empty() ? "" : " | ") + (ex.size() > 1 ? path + ": " : "") + text.substr(0, 160);
      return s;
    };
    const std::string where = r.file + ":" + std::to_string(r.line) + ": " + r.id;
    for (const auto& ex : r.examples_match) {
      const auto en = run(ex, base::Lang::En);
      const rules::Finding* fe = finding_of(*en);
      if (fe == nullptr) problems.push_back(where + ": should match: " + show(ex));
      else if (const std::string zh = same_in_chinese(ex, *fe); !zh.empty()) problems.push_back(where + ": in Chinese, " + zh + ": " + show(ex));
    }
    for (const auto& ex : r.examples_no_match)
      if (fires(ex)) problems.push_back(where + ": should not match: " + show(ex));
  }
  return problems;
}

}  // namespace dtriage::analysis
