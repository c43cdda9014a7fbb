// The Markdown report, for a ticket: verdict, fix, node table and fenced evidence first, the rest folded.
#include <algorithm>

#include "base/json_escape.hpp"
#include "base/sentences.hpp"
#include "base/text.hpp"
#include "report/view.hpp"

namespace dtriage::report {
namespace {

std::string md_cell(const std::string& s) { return base::markdown_inline(s); }
std::string md_code(const std::string& s) { return base::markdown_code(s); }

// A fence longer than any backtick run in the body (which holds no newline but its own).
std::string fence_for(const std::string& body) { return std::string(std::max<std::size_t>(3, base::longest_run(body, '`') + 1), '`'); }

}  // namespace

std::string render_markdown(const Report& r) {
  const View v = make_view(r);
  using base::Say;
  auto n = [](std::uint64_t x) { return std::to_string(x); };
  auto cols = [](std::initializer_list<Say> keys) {
    std::string head = "|", rule = "|";
    for (const Say k : keys) head += " " + base::say(k) + " |", rule += "---|";
    return head + "\n" + rule + "\n";
  };
  const std::string colon = base::say(Say::PunctColon), colon_end = base::say(Say::PunctColonEnd), comma = base::say(Say::PunctComma);
  std::string o = "## dtriage: " + v.status_word + (v.category.empty() ? "" : " — " + v.category) + "\n\n";
  o += "**" + md_cell(v.summary) + "**\n\n";
  if (!v.remedy.empty()) o += "**" + heading(base::Say::LabelFix) + colon_end + "** " + md_cell(v.remedy) + "\n\n";
  if (!v.repeated.empty()) o += md_cell(v.repeated) + "\n\n";
  if (!v.why.empty()) {
    o += "**" + heading(base::Say::HeadingWhy) + colon_end + "**\n\n";
    for (const std::string& w : v.why) o += "- " + md_cell(w) + "\n";
    o += "\n";
  }
  if (!v.rule.empty())
    o += base::say(Say::MarkdownRule, {{"rule", "`" + v.rule + "`"}}) + (v.rank ? base::say(Say::MarkdownRank, {{"rank", n(*v.rank)}}) : "") + "\n\n";
  if (!v.nodes.empty()) {
    o += cols({Say::ColNode, Say::ColProcesses, Say::ColDevices, Say::ColErrors, Say::ColRanks, Say::ColFirstError});
    for (const NodeRow& row : v.nodes)
      o += "| " + md_cell(row.name) + " | " + std::to_string(row.processes) + " | " + row.devices + " | " + std::to_string(row.errors) +
           " | " + row.ranks + " | " + md_cell(row.first_error) + " |\n";
    o += "\n";
  }
  if (!v.evidence.empty()) {
    std::string body;
    auto cut = [&](const std::string& text, std::size_t focus) { return r.full ? text : clip_at(text, 300, focus); };
    for (std::size_t k = 0; k < v.evidence.size() && (r.full || k < 10); ++k) {
      const EvidenceItem& it = v.evidence[k];
      if (it.separated) body += "--\n";
      for (const auto& [at, text] : it.before) body += it.context_loc(at) + "  " + cut(text, 0) + "\n";
      body += it.loc + "  " + cut(it.text, it.focus) + "\n";
      for (const auto& [at, text] : it.after) body += it.context_loc(at) + "  " + cut(text, 0) + "\n";
      if (!it.key_loc.empty()) body += it.key_loc + "  " + cut(it.key_text, it.key_focus) + "\n";
      if (!it.also.empty()) body += "  (" + also_text(it) + ")\n";
    }
    const std::string fence = fence_for(body);
    const std::string evidence = heading(base::Say::HeadingEvidence);
    const std::string title = v.evidence_rule.empty() ? evidence : evidence + " (`" + v.evidence_rule + "`)";
    o += "### " + title + "\n\n" + fence + "text\n" + body + fence + "\n\n";
  }
  if (!v.consequences.empty()) {
    o += "<details><summary>" + heading(base::Say::HeadingConsequences) + " (" + std::to_string(v.consequences.size()) + ")</summary>\n\n";
    for (std::size_t g = 0; g < v.consequences.size(); ++g)
      o += "- " + md_cell(v.consequences[g].title) + colon + md_cell(v.consequences[g].describe()) + comma +
           base::say(Say::ReportFirst, {{"where", md_code(v.consequence_first[g].loc)}}) + "\n";
    o += "\n</details>\n\n";
  }
  if (!v.ranks.empty()) {
    const std::string shown = v.ranks_rest.empty() ? n(v.ranks.size()) : base::say(Say::RanksShown, {{"count", n(v.ranks.size())}});
    o += "<details><summary>" + heading(Say::HeadingRanks) + " (" + shown + ")</summary>\n\n" +
         (v.rank_steps ? cols({Say::ColRank, Say::ColNode, Say::ColLocalRank, Say::ColDevice, Say::ColPids, Say::ColStep, Say::ColEnding, Say::ColDetail, Say::ColLine})
                       : cols({Say::ColRank, Say::ColNode, Say::ColLocalRank, Say::ColDevice, Say::ColPids, Say::ColEnding, Say::ColDetail, Say::ColLine}));
    for (const RankRow& k : v.ranks)
      o += "| " + std::to_string(k.rank) + " | " + md_cell(k.node) + " | " + k.local_rank + " | " + k.device + " | " + k.pids + " | " +
           (v.rank_steps ? k.step + " | " : "") + k.ending + " | " + md_cell(k.detail) + " | " + md_cell(k.where) + " |\n";
    if (!v.ranks_rest.empty()) o += "\n" + md_cell(v.ranks_rest) + "\n";
    o += "\n</details>\n\n";
  }
  if (!v.others.empty()) {
    o += "<details><summary>" + heading(base::Say::HeadingOthers) + "</summary>\n\n";
    for (const OtherFinding& f : v.others) o += "- [" + f.role + "] " + md_cell(f.summary) + " (`" + f.rule + "`)\n";
    o += "\n</details>\n\n";
  }
  const base::Inventory& inv = *v.inputs;
  o += "<details><summary>" + heading(Say::HeadingInputs) + colon +
       base::say(Say::MarkdownInputsHead, {{"files", n(inv.files)}, {"lines", n(inv.lines)}, {"unreadable", n(inv.unreadable.size())}}) +
       "</summary>\n\n";
  o += "- " + base::say(Say::MarkdownInputsDetail, {{"bytes", n(inv.bytes)}, {"events", n(v.events)}, {"cut", n(inv.lines_cut)}}) +
       (inv.events_folded ? base::say(Say::MarkdownFolded, {{"count", n(inv.events_folded)}}) : "") +
       (inv.events_dropped ? base::say(Say::MarkdownDropped, {{"count", n(inv.events_dropped)}}) : "") + "\n";
  for (const auto& p : inv.unreadable) o += "- " + base::say(Say::LabelUnreadable) + " " + md_code(p.path) + ": " + md_cell(p.reason) + "\n";
  for (const auto& p : inv.skipped) o += "- " + base::say(Say::LabelSkipped) + " " + md_code(p.path) + ": " + md_cell(p.reason) + "\n";
  o += "\n</details>\n\n_" + base::say(Say::ReportBy, {{"version", v.version}}) + "_\n";
  return o;
}

}  // namespace dtriage::report
