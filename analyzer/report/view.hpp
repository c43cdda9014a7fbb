// The sections every human-readable report shows (verdict, evidence, consequences, node table,
// other findings, inputs), built once from an analysis; each format only lays them out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/sentences.hpp"
#include "report/report.hpp"

namespace dtriage::report {

struct EvidenceItem {
  std::string loc;       // path:line
  std::string text;      // the line (valid UTF-8, not clipped)
  std::string key_loc;   // the line of a block that says what happened: a traceback's exception
  std::string key_text;  // line, the body line the rule's pattern found ("" when none)
  std::size_t focus = 0;      // where in `text` the rule's pattern matched: a clip keeps it in view
  std::size_t key_focus = 0;  // the same in `key_text`
  std::vector<std::string> also;  // where the same line was seen again (folded: shown once)
  // -C N: the lines around it, (number, text), shown as "path-N" (grep's mark for a context line).
  // Lines another item shows already are left out. `separated`: a "--" goes before it, as grep puts
  // one between groups: context was read for it or the item before, and it does not follow on from
  // that item's last line.
  std::string path;
  std::uint64_t line = 0;
  std::vector<std::pair<std::uint64_t, std::string>> before, after;
  bool separated = false;
  std::string context_loc(std::uint64_t n) const { return path + "-" + std::to_string(n); }
};

struct NodeRow {
  std::string name;          // the node, or kUnnamedNode
  std::int64_t processes = 0;
  std::string devices;       // "16", or "?" when no inventory says
  std::uint64_t errors = 0;
  std::string ranks;         // "0-7,9"
  std::string ranks_short;   // at most 4 runs
  std::string first_error;   // "time code path:line" or "-"
};

// One row of the rank table as reports show it (every text already made visible).
struct RankRow {
  std::int64_t rank = 0;
  std::string node;        // "-" when unknown
  std::string local_rank;  // "-" when unknown
  std::string device;      // "-" when unknown
  std::string pids;        // "12261" or "12261,13000"; per restart attempt "12261->13000" ("-" when none)
  std::string step;        // its last progress print: "1200" or "1200/5000" ("-" when none)
  std::string ending;      // correlate::ending_name
  std::string detail;      // clipped
  std::string where;       // path:line of the ending's line ("" when none)
};

// Up to this many ranks, every rank is a row; past it, only the ranks whose ending few others
// share (and the verdict's rank), the rest counted by ending.
inline constexpr std::size_t kAllRankRows = 32;

struct OtherFinding {
  std::string role, summary, rule;
  std::size_t count = 0;
  std::optional<EvidenceItem> first;  // its first line (none for a job's settings alone)
};

struct View {
  std::string status, category;  // category "" when healthy
  std::string status_word;       // the status as the report's language says it
  std::string summary, remedy, rule;
  std::optional<std::int64_t> rank;
  std::string node;                     // the culprit's node as the node table names it ("" when none)
  std::vector<std::string> why;         // why this rank (the culprit policy's deciding facts)
  std::string repeated;                 // the same failure ended an earlier restart attempt (said), or ""
  std::string evidence_rule;            // the root's rule id ("" for the lead error of an unknown failure)
  std::vector<EvidenceItem> evidence;   // all of the root's evidence; formats show the first few
  std::vector<ConsequenceGroup> consequences;
  std::vector<EvidenceItem> consequence_first;  // the first line of each group
  std::vector<NodeRow> nodes;
  std::vector<RankRow> ranks;           // empty for a job of fewer than two ranks
  bool rank_steps = false;              // some rank printed its progress: the step column is shown
  std::string ranks_rest;               // "240 more: 232 timeout (8-239), 8 never-heard-from (240-247)"
  std::vector<OtherFinding> others;     // related findings and warnings
  const base::Inventory* inputs = nullptr;
  std::size_t events = 0;
  const std::vector<rules::LoadProblem>* rule_problems = nullptr;
  std::string version;
};

// How a node without a host name or folder is shown.
inline constexpr const char* kUnnamedNode = "(no host name)";

View make_view(const Report& r);

// A heading from the sentence catalogue (base/sentences.hpp) as titles show it ("Other findings"),
// and as the text report's labels show it, first letter in lower case ("other findings").
std::string heading(base::Say key);
std::string label(base::Say key);

// Clips to `max` bytes at a UTF-8 boundary, adding "..."; the text is made valid UTF-8 first.
std::string clip(const std::string& s, std::size_t max);
// The same, but a long line whose `focus` lies past the first part of `max` is shown from a third
// of `max` before it ("...", then the window): the deciding field is never the part cut away.
std::string clip_at(const std::string& s, std::size_t max, std::size_t focus);
// "also seen at a.log:3, b.log:9 and 4 more" for folded evidence ("" when none).
std::string also_text(const EvidenceItem& it, std::size_t max_locs = 3);
std::string loc(const model::Event& e);

}  // namespace dtriage::report
