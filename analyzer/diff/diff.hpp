// `dtriage diff GOOD BAD`: what changed between a run that worked and one that failed, from their
// logs alone, deterministically. Each side is analysed as `analyze` does (its verdict and facts:
// launch options, nodes, devices, versions, progress) and read once more for what `analyze` does
// not keep: every line's message template (numbers, hex, paths, hosts and ranks masked; counted,
// not kept) and the environment variables the lines show (NCCL_*, HCCL_*, ASCEND_*, ...).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/analysis.hpp"
#include "report/report.hpp"

namespace dtriage::diff {

// A line's template: each word with a digit in it (numbers, hex, times, hosts like gpu-a01, ranks
// like rank3) becomes <*>, but error codes (EE8888, ERR02005, EI0006) stay; runs of spaces are
// one; at most kTemplateMax bytes of the line are read.
inline constexpr std::size_t kTemplateMax = 240;
std::string template_of(std::string_view line);
void template_into(std::string& out, std::string_view line);  // the same into `out` (its buffer reused)
// error, warning or info, from the words of a template.
const char* level_of_template(const std::string& t);

struct Template {
  std::string text;
  const char* level = "info";
  std::uint64_t count = 0;
  std::uint64_t order = 0;  // when it first appeared, in the walk's order
  std::string path;         // its first line
  std::uint64_t line = 0;
  std::string first;        // that line's text (cut at 400 bytes)
};

// At most this many distinct templates per side are kept (memory bound); lines of others are counted.
inline constexpr std::size_t kMaxTemplates = 50000;
inline constexpr std::size_t kMaxEnv = 1000;  // environment variables per side

// One side of a diff, read: its analysis, its templates and its environment.
struct Side {
  std::string path;
  std::unique_ptr<analysis::Analysis> job;
  // By template text; a hash map: every line of both jobs looks its template up, and a tree's
  // compares of long shared prefixes ("[default5]: iteration <*>/ <*> | ...") were an eighth of the
  // pass. Anything shown comes out sorted by level and `order`, never in the map's order.
  std::unordered_map<std::string, Template> templates;
  std::uint64_t lines = 0, lines_untemplated = 0;
  std::map<std::string, std::string> env;  // NAME -> value as printed ("a | b" when lines disagree)
  // The configuration the facts give, key -> value (values of several nodes sorted and joined).
  std::map<std::string, std::string> config;
  std::vector<std::string> nodes;
  std::optional<std::int64_t> step, steps;  // the furthest progress any rank printed
  bool finished = false;                    // its training loop reached its last step
};

// Reads `paths` as one side (shown as `path`); with `analysed`, that analysis of them is used
// instead of a new one (analyze --baseline has analysed BAD already).
Side read_side(const std::vector<std::string>& paths, const std::string& path, const analysis::RuleBook& book,
               const analysis::Options& options, std::unique_ptr<analysis::Analysis> analysed = nullptr);
inline Side read_side(const std::string& path, const analysis::RuleBook& book, const analysis::Options& options) {
  return read_side({path}, path, book, options);
}

struct Change {
  std::string key, good, bad;  // "" = not shown on that side
  int order = 0;               // launch and nodes first, then devices, versions, environment
};

struct Diff {
  std::vector<Change> changed;    // shown on both sides, different
  std::vector<Change> one_sided;  // shown on one side only
  std::vector<std::string> nodes_added, nodes_removed;
  bool nodes_renamed = false;     // the same number of nodes, none in common
  std::vector<Template> new_messages;   // in BAD, never in GOOD: errors first, then by first appearance
  std::vector<Template> gone_messages;  // in GOOD, never in BAD
  std::uint64_t new_total = 0, gone_total = 0;
  std::string sentence;                 // the answer: a change tied to BAD's failure, else the most relevant one
  std::string sentence_en;              // the same in English (equal to sentence when that is English)
  std::string relevant_key;             // the change the sentence names, "" when none
};

Diff compare(const Side& good, const Side& bad);

// `--redact`: masks, in both sides and the comparison, every host, address, user and secret that
// `red` knows or learns from them (keys, levels, counts and the templates' shape stay). `red` is
// the BAD report's (analyze --baseline) or new (diff); BAD's names are learned before GOOD's, so
// BAD's nodes are node#1, ... as in BAD's own redacted report. Run after compare(): the comparison
// is of the real names.
void redact(Side& good, Side& bad, Diff& d, report::Redactor& red);
// What redact() learns first: every name both sides use for a host (BAD's nodes first), and the
// hosts and users their lines, templates, environment and configuration name.
void learn_names(const Side& good, const Side& bad, report::Redactor& red);

std::string render_text(const Side& good, const Side& bad, const Diff& d);
std::string render_markdown(const Side& good, const Side& bad, const Diff& d);
std::string render_html(const Side& good, const Side& bad, const Diff& d);
std::string render_json(const Side& good, const Side& bad, const Diff& d);
// The diff as a section of a job's report (analyze --baseline): a heading and its body in the
// report's format (text, markdown, html: a <section>); for json, the object render_json writes.
std::string render_section(const Side& good, const Side& bad, const Diff& d, const std::string& format);

}  // namespace dtriage::diff
