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
  std::string o = "## dtriage: " + v.status + (v.category.empty() ? "" : " — " + v.category) + "\n\n";
  o += "**" + md_cell(v.summary) + "**\n\n";
  if (!v.remedy.empty()) o += "**" + heading(base::Say::LabelFix) + ":** " + md_cell(v.remedy) + "\n\n";
  if (!v.why.empty()) {
    o += "**" + heading(base::Say::HeadingWhy) + ":**\n\n";
    for (const std::string& w : v.why) o += "- " + md_cell(w) + "\n";
    o += "\n";
  }
  if (!v.rule.empty()) o += "Rule `" + v.rule + "`" + (v.rank ? ", rank " + std::to_string(*v.rank) : "") + "\n\n";
  if (!v.nodes.empty()) {
    o += "| node | processes | devices | errors | ranks | first error |\n|---|---|---|---|---|---|\n";
    for (const NodeRow& n : v.nodes)
      o += "| " + md_cell(n.name) + " | " + std::to_string(n.processes) + " | " + n.devices + " | " + std::to_string(n.errors) +
           " | " + n.ranks + " | " + md_cell(n.first_error) + " |\n";
    o += "\n";
  }
  if (!v.evidence.empty()) {
    std::string body;
    for (std::size_t k = 0; k < v.evidence.size() && k < 10; ++k) {
      const EvidenceItem& it = v.evidence[k];
      body += it.loc + "  " + clip_at(it.text, 300, it.focus) + "\n";
      if (!it.key_loc.empty()) body += it.key_loc + "  " + clip_at(it.key_text, 300, it.key_focus) + "\n";
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
      o += "- " + md_cell(v.consequences[g].title) + ": " + md_cell(v.consequences[g].describe()) + ", first " +
           md_code(v.consequence_first[g].loc) + "\n";
    o += "\n</details>\n\n";
  }
  if (!v.ranks.empty()) {
    o += "<details><summary>" + heading(base::Say::HeadingRanks) + " (" + std::to_string(v.ranks.size()) + (v.ranks_rest.empty() ? "" : " shown") +
         ")</summary>\n\n| rank | node | local rank | device | pids | " + std::string(v.rank_steps ? "step | " : "") +
         "ending | detail | line |\n|---|---|---|---|---|---|---|---|" + (v.rank_steps ? "---|" : "") + "\n";
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
  o += "<details><summary>" + heading(base::Say::HeadingInputs) + ": " + std::to_string(inv.files) + " files, " + std::to_string(inv.lines) + " lines, " +
       std::to_string(inv.unreadable.size()) + " unreadable</summary>\n\n";
  o += "- bytes: " + std::to_string(inv.bytes) + ", events: " + std::to_string(v.events) + ", long lines cut: " +
       std::to_string(inv.lines_cut) + (inv.events_folded ? ", repeated lines folded: " + std::to_string(inv.events_folded) : "") +
       (inv.events_dropped ? ", events not kept (--max-event-memory used up): " + std::to_string(inv.events_dropped) : "") + "\n";
  for (const auto& p : inv.unreadable) o += "- unreadable " + md_code(p.path) + ": " + md_cell(p.reason) + "\n";
  for (const auto& p : inv.skipped) o += "- skipped " + md_code(p.path) + ": " + md_cell(p.reason) + "\n";
  o += "\n</details>\n\n_Report by dtriage " + v.version + "._\n";
  return o;
}

}  // namespace dtriage::report
