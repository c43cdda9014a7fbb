// The HTML report: one self-contained file (no script, font or style from outside), with a timeline.
#include "report/html.hpp"
#include "report/view.hpp"

#include "base/json_escape.hpp"
#include "base/sentences.hpp"

namespace dtriage::report {
namespace {

const char* kCss = R"(
body{font:14px/1.45 "DejaVu Sans","Noto Sans CJK SC","Source Han Sans SC","Microsoft YaHei","PingFang SC",system-ui,sans-serif;margin:0;color:#1d2329;background:#fff}
main{max-width:1000px;margin:0 auto;padding:0 16px 32px}
header.verdict{padding:18px 24px;border-left:8px solid #888;background:#f4f5f7;margin-bottom:12px}
header.failed{border-color:#d62728;background:#fdf1f1} header.healthy{border-color:#2ca02c;background:#f0faf0}
header h1{font-size:20px;margin:4px 0 6px;overflow-wrap:anywhere} .meta{color:#555;margin:0} .fix{margin:8px 0 0}
.source{font-size:12px;overflow-wrap:anywhere} #nodes td:first-child,#ranks td:nth-child(2){white-space:nowrap}
h2{font-size:16px;margin:22px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
pre{background:#f6f8fa;padding:10px;overflow-x:auto;font:12px/1.4 "DejaVu Sans Mono",monospace;white-space:pre-wrap;word-break:break-all}
table{border-collapse:collapse;font-size:13px} th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f4f5f7;white-space:nowrap} .loc{color:#666}
svg text.lane{font:12px "DejaVu Sans",sans-serif;fill:#333} svg text.axis{font:11px "DejaVu Sans",sans-serif;fill:#666}
svg line.lane{stroke:#ccc} svg line.link{stroke:#ff7f0e;stroke-dasharray:4 3;stroke-width:1.2}
svg .root{fill:#b2182b} svg .consequence{fill:#ff7f0e} svg .related{fill:#3b6fb6} svg .first-error{fill:#555}
svg .placed{fill:#fff;stroke-width:2} svg .root.placed{stroke:#b2182b} svg .consequence.placed{stroke:#ff7f0e} svg .related.placed{stroke:#3b6fb6} svg .first-error.placed{stroke:#555}
.legend span{margin-right:14px} .dot{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:4px;vertical-align:middle}
details summary{cursor:pointer}
tr:target,li:target,pre:target{background:#fff3bf} tr.culprit td{background:#fdf1f1;font-weight:600}
)";

}  // namespace

std::string esc(const std::string& s) {
  std::string o;
  for (char c : base::spoofing_controls_shown(base::sanitize_utf8(s))) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') o += "&#xFFFD;";
        else o.push_back(c);
    }
  }
  return o;
}

namespace {

// "rank 37" in the verdict's line: a link to its row when the rank table has one.
std::string rank_link(const View& v) {
  const std::string text = esc(base::say(base::Say::HtmlRank, {{"rank", std::to_string(*v.rank)}}));
  for (const RankRow& k : v.ranks)
    if (k.rank == *v.rank) return "<a href=\"#rank-" + std::to_string(k.rank) + "\">" + text + "</a>";
  return text;
}

}  // namespace

std::string render_html(const Report& r) {
  const View v = make_view(r);
  using base::Say;
  auto n = [](std::uint64_t x) { return std::to_string(x); };
  auto cols = [](std::initializer_list<Say> keys) {
    std::string row = "<tr>";
    for (const Say k : keys) row += "<th>" + esc(base::say(k)) + "</th>";
    return row + "</tr>\n";
  };
  std::string o = "<!doctype html>\n<html lang=\"" + std::string(base::language() == base::Lang::Zh ? "zh-CN" : "en") +
                  "\"><head><meta charset=\"utf-8\">\n";
  // No script, no external resource: the page works offline and log text can never run.
  o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n";
  o += "<title>dtriage: " + esc(v.status) + (r.analysis.verdict.category.empty() ? "" : " - " + esc(r.analysis.verdict.category)) +
       "</title>\n<style>" + kCss + "</style></head>\n<body><main>\n";
  o += "<header class=\"verdict " + esc(v.status) + "\"><p class=\"meta\">" + esc(v.status_word) +
       (v.category.empty() ? "" : " &middot; " + esc(v.category)) + (v.rule.empty() ? "" : " &middot; " + esc(base::say(Say::HtmlRule, {{"rule", v.rule}}))) +
       (v.rank ? " &middot; " + rank_link(v) : "") + "</p>\n<h1 id=\"summary\">" + esc(v.summary) + "</h1>\n";
  // Where the report comes from: the tool, when, and what it read.
  o += "<p class=\"meta source\">dtriage " + esc(r.version.empty() ? std::string("?") : r.version) +
       (r.analysed_at.empty() ? "" : " &middot; " + esc(base::say(Say::HtmlAnalysed, {{"when", r.analysed_at}}))) +
       (r.inputs.empty() ? "" : " &middot; <span class=\"inputs\">" + esc(r.inputs) + "</span>") + "</p>\n";
  if (!v.remedy.empty()) o += "<p class=\"fix\"><b>" + esc(heading(base::Say::LabelFix) + base::say(Say::PunctColonEnd)) + "</b> " + esc(v.remedy) + "</p>\n";
  if (!v.repeated.empty()) o += "<p class=\"repeated\">" + esc(v.repeated) + "</p>\n";
  if (!v.why.empty()) {
    o += "<p class=\"why\"><b>" + esc(heading(base::Say::HeadingWhy) + base::say(Say::PunctColonEnd)) + "</b></p><ul class=\"why\">";
    for (const std::string& w : v.why) o += "<li>" + esc(w) + "</li>";
    o += "</ul>\n";
  }
  o += "</header>\n";
  TimelineCounts drawn;
  o += "<h2>" + esc(heading(Say::HeadingTimeline)) + "</h2>\n" + timeline_svg(r, drawn) + "\n";
  const std::size_t undated = drawn.undated, placed = drawn.placed;
  o += "<p class=\"legend\"><span><i class=\"dot\" style=\"background:#b2182b\"></i>" + esc(base::say(Say::LegendRoot)) + "</span>" +
       "<span><i class=\"dot\" style=\"background:#ff7f0e\"></i>" + esc(base::say(Say::LegendExplained)) + "</span>" +
       (drawn.related > 0 ? "<span><i class=\"dot\" style=\"background:#3b6fb6\"></i>" + esc(base::say(Say::LegendRelated)) + "</span>" : std::string()) +
       "<span><i class=\"dot\" style=\"background:#555\"></i>" + esc(base::say(Say::LegendFirstError)) + "</span>" +
       (placed > 0 ? "<span>" + esc(base::say(Say::LegendPlaced, {{"count", n(placed)}})) + "</span>" : std::string()) +
       (undated > 0 ? "<span>" + esc(base::say(Say::LegendUndated, {{"count", n(undated)}})) + "</span>" : std::string()) + "</p>\n";
  if (!v.evidence.empty()) {
    o += "<h2>" + esc(heading(base::Say::HeadingEvidence)) + "</h2>\n<pre id=\"evidence\">";
    auto cut = [&](const std::string& text, std::size_t focus) { return r.full ? text : clip_at(text, 400, focus); };
    auto context = [&](const EvidenceItem& it, const std::vector<std::pair<std::uint64_t, std::string>>& lines) {
      std::string c;
      for (const auto& [at, text] : lines) c += "<span class=\"loc\">" + esc(it.context_loc(at)) + "  " + esc(cut(text, 0)) + "</span>\n";
      return c;
    };
    for (std::size_t k = 0; k < v.evidence.size() && (r.full || k < 10); ++k) {
      const EvidenceItem& it = v.evidence[k];
      if (it.separated) o += "<span class=\"loc\">--</span>\n";
      o += context(it, it.before);
      o += "<span class=\"loc\">" + esc(it.loc) + "</span>  " + esc(cut(it.text, it.focus)) + "\n";
      o += context(it, it.after);
      if (!it.key_loc.empty())
        o += "<span class=\"loc\">" + esc(it.key_loc) + "</span>  " + esc(cut(it.key_text, it.key_focus)) + "\n";
      if (!it.also.empty()) o += "<span class=\"loc\">  (" + esc(also_text(it)) + ")</span>\n";
    }
    o += "</pre>\n";
  }
  if (!v.consequences.empty()) {
    o += "<h2>" + esc(heading(base::Say::HeadingConsequences)) + "</h2>\n<ul>\n";
    for (std::size_t g = 0; g < v.consequences.size(); ++g)
      o += "<li id=\"consequence-" + esc(v.consequences[g].rule) + "\">" + esc(v.consequences[g].title + base::say(Say::PunctColon) + v.consequences[g].describe()) + " <span class=\"loc\">" +
           esc(base::say(Say::ReportFirst, {{"where", v.consequence_first[g].loc}})) + "</span><details><summary>" + esc(base::say(Say::ReportFirstLine)) +
           "</summary><pre>" +
           esc(clip(v.consequence_first[g].text, 400)) + "</pre></details></li>\n";
    o += "</ul>\n";
  }
  if (!v.nodes.empty()) {
    o += "<h2>" + esc(heading(base::Say::HeadingNodes)) + "</h2>\n<table id=\"nodes\">" +
         cols({Say::ColNode, Say::ColProcesses, Say::ColDevices, Say::ColErrors, Say::ColRanks, Say::ColFirstError});
    for (std::size_t k = 0; k < v.nodes.size(); ++k) {
      const NodeRow& row = v.nodes[k];
      o += "<tr id=\"nrow-" + std::to_string(k) + "\"" + (!v.node.empty() && row.name == v.node ? " class=\"culprit\"" : "") + "><td>" + esc(row.name) + "</td><td>" + std::to_string(row.processes) + "</td><td>" + row.devices + "</td><td>" +
           std::to_string(row.errors) + "</td><td>" + esc(row.ranks) + "</td><td>" + esc(row.first_error) + "</td></tr>\n";
    }
    o += "</table>\n";
  }
  if (!v.ranks.empty()) {
    o += "<h2>" + esc(heading(base::Say::HeadingRanks)) + "</h2>\n<table id=\"ranks\">" +
         (v.rank_steps ? cols({Say::ColRank, Say::ColNode, Say::ColLocalRank, Say::ColDevice, Say::ColPids, Say::ColStep, Say::ColEnding, Say::ColDetail, Say::ColLine})
                       : cols({Say::ColRank, Say::ColNode, Say::ColLocalRank, Say::ColDevice, Say::ColPids, Say::ColEnding, Say::ColDetail, Say::ColLine}));
    // Each rank a row of its own to link to (#rank-N); the verdict's rank marked.
    for (const RankRow& k : v.ranks)
      o += "<tr id=\"rank-" + std::to_string(k.rank) + "\"" + (v.rank && *v.rank == k.rank ? " class=\"culprit\"" : "") + "><td>" + std::to_string(k.rank) + "</td><td>" + esc(k.node) + "</td><td>" + k.local_rank + "</td><td>" + k.device + "</td><td>" + esc(k.pids) +
           (v.rank_steps ? "</td><td>" + esc(k.step) : std::string()) + "</td><td>" + esc(k.ending) + "</td><td>" + esc(k.detail) + "</td><td class=\"loc\">" + esc(k.where) + "</td></tr>\n";
    o += "</table>\n";
    if (!v.ranks_rest.empty()) o += "<p>" + esc(v.ranks_rest) + "</p>\n";
  }
  if (!v.others.empty()) {
    o += "<h2>" + esc(heading(base::Say::HeadingOthers)) + "</h2>\n<ul>\n";
    for (std::size_t k = 0; k < v.others.size(); ++k) {
      const OtherFinding& f = v.others[k];
      o += "<li id=\"finding-" + std::to_string(k) + "\">[" + esc(f.role) + "] " + esc(f.summary) + " <span class=\"loc\">" + esc(f.rule);
      if (f.first)
        o += " &middot; " + esc(base::say(Say::ReportFirst, {{"where", f.first->loc}})) + "</span><details><summary>" +
             esc(base::say(Say::ReportFirstLine)) + "</summary><pre>" + esc(clip(f.first->text, 400)) + "</pre></details></li>\n";
      else
        o += "</span></li>\n";
    }
    o += "</ul>\n";
  }
  const base::Inventory& inv = *v.inputs;
  o += "<h2>" + esc(heading(base::Say::HeadingInputs)) + "</h2>\n<p>" +
       esc(base::say(Say::HtmlInputs, {{"files", n(inv.files)}, {"bytes", n(inv.bytes)}, {"lines", n(inv.lines)}, {"events", n(v.events)},
                                       {"cut", n(inv.lines_cut)},
                                       {"rest", (inv.events_folded ? base::say(Say::InputsFolded, {{"count", n(inv.events_folded)}}) : "") +
                                                    (inv.events_dropped ? base::say(Say::HtmlDropped, {{"count", n(inv.events_dropped)}}) : "")}})) +
       "</p>\n";
  if (!inv.unreadable.empty() || !inv.skipped.empty()) {
    o += "<ul>\n";
    for (const auto& p : inv.unreadable) o += "<li>" + esc(base::say(Say::LabelUnreadable)) + " " + esc(p.path) + ": " + esc(p.reason) + "</li>\n";
    for (const auto& p : inv.skipped) o += "<li>" + esc(base::say(Say::LabelSkipped)) + " " + esc(p.path) + ": " + esc(p.reason) + "</li>\n";
    o += "</ul>\n";
  }
  o += "<footer><p class=\"meta\">" + esc(base::say(Say::ReportBy, {{"version", v.version}})) + "</p></footer>\n</main></body></html>\n";
  return o;
}

}  // namespace dtriage::report
