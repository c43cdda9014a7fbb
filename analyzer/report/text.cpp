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
  const char* status_color = v.status == "failed" ? red : v.status == "healthy" ? green : bold;
  o += std::string(status_color) + "verdict: " + v.status + reset;
  if (!v.category.empty()) o += std::string("  [") + v.category + "]";
  o += "\n  " + std::string(bold) + v.summary + reset + "\n";
  if (!v.remedy.empty()) o += "  " + label(base::Say::LabelFix) + ": " + v.remedy + "\n";
  if (!v.why.empty()) {
    o += "  " + label(base::Say::HeadingWhy) + ":\n";
    for (const std::string& w : v.why) o += "    - " + w + "\n";
  }
  auto line = [&](const std::string& where, const std::string& text, std::size_t focus = 0) {
    return std::string("    ") + dim + where + reset + "  " + (text.size() > 220 ? clip_at(text, 217, focus) : text) + "\n";
  };
  if (!v.evidence.empty()) {
    const std::size_t max = v.evidence_rule.empty() ? 1 : 8;
    const std::string evidence = label(base::Say::HeadingEvidence);
    o += v.evidence_rule.empty() ? "\n" + evidence + ":\n" : "\n" + evidence + " (" + v.evidence_rule + "):\n";
    for (std::size_t k = 0; k < v.evidence.size() && k < max; ++k) {
      const EvidenceItem& it = v.evidence[k];
      o += line(it.loc, it.text, it.focus);
      if (!it.key_loc.empty()) o += line(it.key_loc, it.key_text, it.key_focus);
      if (!it.also.empty()) o += std::string("      ") + dim + also_text(it) + reset + "\n";
    }
    if (v.evidence.size() > max) o += "    ... " + std::to_string(v.evidence.size() - max) + " more\n";
  }
  if (!v.consequences.empty()) {
    o += "\n" + label(base::Say::HeadingConsequences) + ":\n";
    for (std::size_t g = 0; g < v.consequences.size(); ++g)
      o += "  - " + v.consequences[g].title + ": " + v.consequences[g].describe() + std::string("  ") + dim +
           "(first: " + v.consequence_first[g].loc + ")" + reset + "\n";
  }
  // The node column fits the longest name (FQDNs), up to 60 characters.
  int width = 22;
  for (const NodeRow& n : v.nodes) width = std::max(width, static_cast<int>(std::min<std::size_t>(n.name.size(), 60)));
  for (const RankRow& k : v.ranks) width = std::max(width, static_cast<int>(std::min<std::size_t>(k.node.size(), 60)));
  if (!v.nodes.empty()) {
    o += "\n" + label(base::Say::HeadingNodes) + ":\n";
    char buf[512];
    std::snprintf(buf, sizeof buf, "  %-*s %5s %7s %6s %-12s %s\n", width, "node", "procs", "devices", "errors", "ranks", "first error");
    o += buf;
    for (const NodeRow& n : v.nodes) {
      std::snprintf(buf, sizeof buf, "  %-*s %5lld %7s %6llu %-12s %s\n", width, n.name.c_str(), static_cast<long long>(n.processes),
                    n.devices.c_str(), static_cast<unsigned long long>(n.errors), n.ranks_short.c_str(), n.first_error.c_str());
      o += buf;
    }
  }
  if (!v.ranks.empty()) {
    o += "\n" + label(base::Say::HeadingRanks) + ":\n";
    char buf[512];
    int steps = 0;  // the step column's width, when some rank printed its progress
    if (v.rank_steps)
      for (const RankRow& k : v.ranks) steps = std::max({steps, 4, static_cast<int>(std::min<std::size_t>(k.step.size(), 24))});
    std::snprintf(buf, sizeof buf, "  %5s %-*s %5s %6s %-13s %-*s%s%-16s %s\n", "rank", width, "node", "local", "device", "pids", steps,
                  steps > 0 ? "step" : "", steps > 0 ? " " : "", "ending", "detail");
    o += buf;
    for (const RankRow& k : v.ranks) {
      std::snprintf(buf, sizeof buf, "  %5lld %-*s %5s %6s %-13s %-*s%s%-16s ", static_cast<long long>(k.rank), width, k.node.c_str(),
                    k.local_rank.c_str(), k.device.c_str(), k.pids.c_str(), steps, steps > 0 ? k.step.c_str() : "", steps > 0 ? " " : "",
                    k.ending.c_str());
      o += buf + k.detail + "\n";
    }
    if (!v.ranks_rest.empty()) o += "  " + v.ranks_rest + "\n";
  }
  if (!v.others.empty()) {
    o += "\n" + label(base::Say::HeadingOthers) + ":\n";
    for (const OtherFinding& f : v.others)
      o += "  - [" + f.role + "] " + f.summary + "  " + dim + "(" + f.rule + ", " + std::to_string(f.count) + " line" +
           (f.count == 1 ? "" : "s") + ")" + reset + "\n";
  }
  const base::Inventory& inv = *v.inputs;
  o += "\n" + label(base::Say::HeadingInputs) + ": " + std::to_string(inv.files) + " files, " + std::to_string(inv.bytes) + " bytes, " +
       std::to_string(inv.lines) + " lines, " + std::to_string(v.events) + " events";
  if (inv.events_not_kept) o += " (+" + std::to_string(inv.events_not_kept) + " informational ones that added no fact)";
  if (inv.events_folded) o += ", " + std::to_string(inv.events_folded) + " repeated lines folded";
  if (inv.lines_cut) o += ", " + std::to_string(inv.lines_cut) + " long lines cut";
  if (inv.events_dropped)
    o += ", " + std::to_string(inv.events_dropped) + " events not kept (event memory used up: --max-event-memory)";
  o += "\n";
  for (const auto& p : inv.unreadable) o += "  unreadable: " + base::visible(p.path) + ": " + base::visible(p.reason) + "\n";
  for (const auto& p : inv.skipped) o += "  skipped: " + base::visible(p.path) + ": " + base::visible(p.reason) + "\n";
  for (const auto& p : *v.rule_problems) o += "  rule problem: " + base::visible(p.where) + ": " + base::visible(p.message) + "\n";
  return o;
}

}  // namespace dtriage::report
