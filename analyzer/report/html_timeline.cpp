// The HTML report's SVG timeline.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <string_view>
#include <unordered_map>

#include "report/html.hpp"
#include "report/view.hpp"

namespace dtriage::report {
namespace {

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

struct Mark {
  std::string lane;
  double t;
  std::string kind;  // root | consequence | first-error
  std::string title;
  std::string href;  // what it links to in the report: the evidence, the consequence, the node's row
};

}  // namespace

std::string timeline_svg(const Report& r, std::size_t& undated) {
  std::vector<std::string> lanes;
  for (const auto& n : r.facts.nodes) lanes.push_back(n.name.empty() ? kUnnamedNode : n.name);
  auto lane_of = [&](const std::string& node) { return node.empty() ? std::string(kUnnamedNode) : node; };
  std::vector<Mark> marks;
  undated = 0;
  for (std::size_t k = 0; k < r.facts.nodes.size(); ++k) {
    const auto& n = r.facts.nodes[k];
    if (!n.first_error) continue;
    const model::Event& e = r.events[*n.first_error];
    if (auto t = e.time.seconds())
      marks.push_back({lane_of(n.name), *t, "first-error", base::say(base::Say::TimelineFirstError, {{"where", loc(e)}}) + "  " + clip(e.text, 160),
                       "#nrow-" + std::to_string(k)});
    else ++undated;
  }
  for (const rules::Finding& f : r.analysis.findings) {
    if (f.role != rules::FindingRole::RootCause && f.role != rules::FindingRole::Consequence) continue;
    if (f.events.empty()) continue;
    // one mark per node the finding's evidence touches: its earliest event there
    std::map<std::string, const model::Event*> first_on;
    for (auto i : f.events) {
      const model::Event& e = r.events[i];
      auto& slot = first_on[lane_of(e.node)];
      if (slot == nullptr || (!e.time.empty() && (slot->time.empty() || e.time < slot->time))) slot = &e;
    }
    for (const auto& [lane, e] : first_on) {
      const bool root = f.role == rules::FindingRole::RootCause;
      if (auto t = e->time.seconds())
        marks.push_back({lane, *t, root ? "root" : "consequence", f.rule->title_in(base::language()) + ": " + loc(*e) + "  " + clip(e->text, 160),
                         root ? "#evidence" : "#consequence-" + f.rule->id});
      else ++undated;
    }
  }
  if (lanes.empty()) lanes.push_back(kUnnamedNode);
  const double width = 960, left = 180, right = 30, lane_h = 38, top = 28;
  const double height = top + lane_h * static_cast<double>(lanes.size()) + 34;
  double lo = 0, hi = 1;
  if (!marks.empty()) {
    lo = hi = marks.front().t;
    for (const Mark& m : marks) {
      lo = std::min(lo, m.t);
      hi = std::max(hi, m.t);
    }
  }
  if (hi - lo < 1) hi = lo + 1;
  auto x = [&](double t) { return left + (t - lo) / (hi - lo) * (width - left - right); };
  std::unordered_map<std::string_view, std::size_t> lane_index;  // a lane's first row (thousands of nodes: no scan per mark)
  for (std::size_t i = 0; i < lanes.size(); ++i) lane_index.emplace(lanes[i], i);
  auto y = [&](const std::string& lane) {
    const auto it = lane_index.find(lane);
    const double i = it == lane_index.end() ? 0 : static_cast<double>(it->second);
    return top + lane_h * i + lane_h / 2;
  };
  std::string s = "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fmt(width) + "\" height=\"" +
                  fmt(height) + "\" viewBox=\"0 0 " + fmt(width) + " " + fmt(height) + "\" role=\"img\" aria-label=\"timeline\">\n";
  for (const std::string& lane : lanes) {
    s += "<text class=\"lane\" x=\"8\" y=\"" + fmt(y(lane) + 4) + "\">" + esc(clip(lane, 24)) + "</text>";
    s += "<line class=\"lane\" x1=\"" + fmt(left) + "\" x2=\"" + fmt(width - right) + "\" y1=\"" + fmt(y(lane)) +
         "\" y2=\"" + fmt(y(lane)) + "\"/>\n";
  }
  // cause -> consequence links
  const Mark* root = nullptr;
  for (const Mark& m : marks)
    if (m.kind == "root" && (root == nullptr || m.t < root->t)) root = &m;
  if (root != nullptr) {
    for (const Mark& m : marks) {
      if (m.kind != "consequence") continue;
      s += "<line class=\"link\" x1=\"" + fmt(x(root->t)) + "\" y1=\"" + fmt(y(root->lane)) + "\" x2=\"" + fmt(x(m.t)) +
           "\" y2=\"" + fmt(y(m.lane)) + "\"/>\n";
    }
  }
  // Root markers last, so that they are drawn on top.
  for (int pass = 0; pass < 2; ++pass) {
    for (const Mark& m : marks) {
      if ((m.kind == "root") != (pass == 1)) continue;
      const std::string cx = fmt(x(m.t)), cy = fmt(y(m.lane));
      s += "<a href=\"" + esc(m.href) + "\">";
      if (m.kind == "root") {
        s += "<rect class=\"root\" x=\"" + fmt(x(m.t) - 8) + "\" y=\"" + fmt(y(m.lane) - 8) +
             "\" width=\"16\" height=\"16\" transform=\"rotate(45 " + cx + " " + cy + ")\"><title>" + esc(m.title) +
             "</title></rect>\n";
      } else {
        s += "<circle class=\"" + m.kind + "\" cx=\"" + cx + "\" cy=\"" + cy + "\" r=\"" +
             (m.kind == "first-error" ? "4" : "6") + "\"><title>" + esc(m.title) + "</title></circle>\n";
      }
      s += "</a>";
    }
  }
  char lo_s[64] = "", hi_s[64] = "";
  if (!marks.empty()) {
    const std::time_t a = static_cast<std::time_t>(lo), b = static_cast<std::time_t>(hi);
    std::strftime(lo_s, sizeof lo_s, "%Y-%m-%d %H:%M:%S", std::gmtime(&a));
    std::strftime(hi_s, sizeof hi_s, "%Y-%m-%d %H:%M:%S", std::gmtime(&b));
  }
  const double axis_y = height - 12;
  s += "<text class=\"axis\" x=\"" + fmt(left) + "\" y=\"" + fmt(axis_y) + "\">" + esc(lo_s) + "</text>";
  s += "<text class=\"axis\" text-anchor=\"end\" x=\"" + fmt(width - right) + "\" y=\"" + fmt(axis_y) + "\">" + esc(hi_s) +
       "</text>\n</svg>";
  return s;
}

}  // namespace dtriage::report
