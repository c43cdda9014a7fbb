// The text report: the verdict and its evidence first, for a terminal.
#include <algorithm>

#include "base/json_escape.hpp"
#include "base/sentences.hpp"
#include "base/text.hpp"
#include "report/view.hpp"

namespace dtriage::report {

std::string render_text(const Report& r, bool color) {
  const View v = make_view(r);
  const char* bold = color ? "\x1b[1m" : "";
  const char* red = color ? "\x1b[1;31m" : "";
  const char* green = color ? "\x1b[1;32m" : "";
  const char* dim = color ? "\x1b[2m" : "";
  const char* reset = color ? "\x1b[0m" : "";
  std::string o;
  const std::string colon = base::say(base::Say::PunctColon), colon_end = base::say(base::Say::PunctColonEnd);
  const char* status_color = v.status == "failed" ? red : v.status == "healthy" ? green : bold;
  o += std::string(status_color) + base::say(base::Say::ReportVerdictLine, {{"status", v.status_word}}) + reset;
  if (!v.category.empty()) o += std::string("  [") + v.category + "]";
  o += "\n  " + std::string(bold) + v.summary + reset + "\n";
  if (!v.remedy.empty()) o += "  " + label(base::Say::LabelFix) + colon + v.remedy + "\n";
  if (!v.repeated.empty()) o += "  " + v.repeated + "\n";
  if (!v.why.empty()) {
    o += "  " + label(base::Say::HeadingWhy) + colon_end + "\n";
    for (const std::string& w : v.why) o += "    - " + w + "\n";
  }
  auto line = [&](const std::string& where, const std::string& text, std::size_t focus = 0) {
    return std::string("    ") + dim + where + reset + "  " + (text.size() > 220 && !r.full ? clip_at(text, 217, focus) : text) + "\n";
  };
  auto context = [&](const EvidenceItem& it, const std::vector<std::pair<std::uint64_t, std::string>>& lines) {
    std::string c;
    for (const auto& [n, text] : lines)
      c += std::string("    ") + dim + it.context_loc(n) + "  " + (text.size() > 220 && !r.full ? clip(text, 217) : text) + reset + "\n";
    return c;
  };
  if (!v.evidence.empty()) {
    const std::size_t max = r.full ? v.evidence.size() : v.evidence_rule.empty() ? 1 : 8;
    const std::string evidence = label(base::Say::HeadingEvidence);
    o += v.evidence_rule.empty() ? "\n" + evidence + colon_end + "\n" : "\n" + evidence + " (" + v.evidence_rule + ")" + colon_end + "\n";
    for (std::size_t k = 0; k < v.evidence.size() && k < max; ++k) {
      const EvidenceItem& it = v.evidence[k];
      if (it.separated) o += std::string("    ") + dim + "--" + reset + "\n";
      o += context(it, it.before);
      o += line(it.loc, it.text, it.focus);
      o += context(it, it.after);
      if (!it.key_loc.empty()) o += line(it.key_loc, it.key_text, it.key_focus);
      if (!it.also.empty()) o += std::string("      ") + dim + also_text(it) + reset + "\n";
    }
    if (v.evidence.size() > max) o += "    " + base::say(base::Say::ReportEvidenceMore, {{"count", std::to_string(v.evidence.size() - max)}}) + "\n";
  }
  if (!v.consequences.empty()) {
    o += "\n" + label(base::Say::HeadingConsequences) + colon_end + "\n";
    for (std::size_t g = 0; g < v.consequences.size(); ++g)
      o += "  - " + v.consequences[g].title + colon + v.consequences[g].describe() + std::string("  ") + dim +
           base::say(base::Say::ReportFirstAt, {{"where", v.consequence_first[g].loc}}) + reset + "\n";
  }
  // The node column fits the longest name (FQDNs), up to 60 characters.
  int width = 22;
  for (const NodeRow& n : v.nodes) width = std::max(width, static_cast<int>(std::min<std::size_t>(n.name.size(), 60)));
  for (const RankRow& k : v.ranks) width = std::max(width, static_cast<int>(std::min<std::size_t>(k.node.size(), 60)));
  using base::Say;
  using base::pad_columns;
  auto col = [](Say key, std::size_t least) { std::string h = base::say(key); return std::pair{h, std::max(least, base::display_width(h))}; };
  if (!v.nodes.empty()) {
    o += "\n" + label(Say::HeadingNodes) + colon_end + "\n";
    const auto [node, node_w] = col(Say::ColNode, static_cast<std::size_t>(width));
    const auto [procs, procs_w] = col(Say::ColProcs, 5);
    const auto [devices, devices_w] = col(Say::ColDevices, 7);
    const auto [errors, errors_w] = col(Say::ColErrors, 6);
    const auto [ranks, ranks_w] = col(Say::ColRanks, 12);
    o += "  " + pad_columns(node, node_w) + " " + pad_columns(procs, procs_w, true) + " " + pad_columns(devices, devices_w, true) + " " +
         pad_columns(errors, errors_w, true) + " " + pad_columns(ranks, ranks_w) + " " + base::say(Say::ColFirstError) + "\n";
    for (const NodeRow& n : v.nodes)
      o += "  " + pad_columns(n.name, node_w) + " " + pad_columns(std::to_string(n.processes), procs_w, true) + " " +
           pad_columns(n.devices, devices_w, true) + " " + pad_columns(std::to_string(n.errors), errors_w, true) + " " +
           pad_columns(n.ranks_short, ranks_w) + " " + n.first_error + "\n";
  }
  if (!v.ranks.empty()) {
    o += "\n" + label(Say::HeadingRanks) + colon_end + "\n";
    std::size_t steps = 0;  // the step column's width, when some rank printed its progress
    if (v.rank_steps)
      for (const RankRow& k : v.ranks) steps = std::max({steps, std::size_t{4}, std::min<std::size_t>(k.step.size(), 24)});
    const auto [rank, rank_w] = col(Say::ColRank, 5);
    const auto [node, node_w] = col(Say::ColNode, static_cast<std::size_t>(width));
    const auto [local, local_w] = col(Say::ColLocal, 5);
    const auto [device, device_w] = col(Say::ColDevice, 6);
    const auto [pids, pids_w] = col(Say::ColPids, 13);
    const auto [step, step_w] = col(Say::ColStep, steps);
    const auto [ending, ending_w] = col(Say::ColEnding, 16);
    const std::string step_head = steps > 0 ? pad_columns(step, step_w) + " " : "";
    o += "  " + pad_columns(rank, rank_w, true) + " " + pad_columns(node, node_w) + " " + pad_columns(local, local_w, true) + " " +
         pad_columns(device, device_w, true) + " " + pad_columns(pids, pids_w) + " " + step_head + pad_columns(ending, ending_w) + " " +
         base::say(Say::ColDetail) + "\n";
    for (const RankRow& k : v.ranks)
      o += "  " + pad_columns(std::to_string(k.rank), rank_w, true) + " " + pad_columns(k.node, node_w) + " " +
           pad_columns(k.local_rank, local_w, true) + " " + pad_columns(k.device, device_w, true) + " " + pad_columns(k.pids, pids_w) + " " +
           (steps > 0 ? pad_columns(k.step, step_w) + " " : "") + pad_columns(k.ending, ending_w) + " " + k.detail + "\n";
    if (!v.ranks_rest.empty()) o += "  " + v.ranks_rest + "\n";
  }
  if (!v.others.empty()) {
    o += "\n" + label(base::Say::HeadingOthers) + colon_end + "\n";
    for (const OtherFinding& f : v.others)
      o += "  - [" + f.role + "] " + f.summary + "  " + dim + "(" + f.rule + ", " +
           base::say(f.count == 1 ? Say::DescribeLine : Say::DescribeLines, {{"count", std::to_string(f.count)}}) + ")" + reset + "\n";
  }
  const base::Inventory& inv = *v.inputs;
  auto n = [](std::uint64_t x) { return std::to_string(x); };
  o += "\n" + label(Say::HeadingInputs) + colon +
       base::say(Say::InputsCounts, {{"files", n(inv.files)}, {"bytes", n(inv.bytes)}, {"lines", n(inv.lines)}, {"events", n(v.events)}});
  if (inv.events_not_kept) o += base::say(Say::InputsNotKept, {{"count", n(inv.events_not_kept)}});
  if (inv.events_folded) o += base::say(Say::InputsFolded, {{"count", n(inv.events_folded)}});
  if (inv.lines_cut) o += base::say(Say::InputsCut, {{"count", n(inv.lines_cut)}});
  if (inv.events_dropped) o += base::say(Say::InputsDropped, {{"count", n(inv.events_dropped)}});
  o += "\n";
  for (const auto& p : inv.unreadable) o += "  " + base::say(Say::LabelUnreadable) + colon + base::visible(p.path) + ": " + base::visible(p.reason) + "\n";
  for (const auto& p : inv.skipped) o += "  " + base::say(Say::LabelSkipped) + colon + base::visible(p.path) + ": " + base::visible(p.reason) + "\n";
  for (const auto& p : *v.rule_problems)
    o += "  " + base::say(Say::LabelRuleProblem) + colon + base::visible(p.where) + ": " + base::visible(p.message) + "\n";
  return o;
}

}  // namespace dtriage::report
