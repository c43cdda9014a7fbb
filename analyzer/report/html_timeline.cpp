// The HTML report's SVG timeline.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <iterator>
#include <map>
#include <optional>
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
  std::string kind;  // root | consequence | related (a finding listed under "Other findings") | first-error
  std::string title;
  std::string href;  // what it links to in the report: the evidence, the consequence, the other finding, the node's row
  bool placed = false;  // no time of its own: at a neighbour's in its file (drawn hollow)
};

// Untimed events placed by their file's order: each at the time of the timed event of its file
// nearest in lines, before it or after (a traceback printed without a stamp between stamped lines,
// whose progress lines were not kept); a tie goes to the one before. Files with no timed event
// place nothing.
class ByOrder {
 public:
  explicit ByOrder(const std::vector<model::Event>& events) {
    for (const model::Event& e : events)
      if (auto t = e.time.seconds()) timed_[e.path].emplace_back(e.line, *t);
    for (auto& [path, v] : timed_) std::sort(v.begin(), v.end());
  }
  // The time and the line it is taken from; nullopt when the file has no timed event.
  std::optional<std::pair<double, std::uint64_t>> place(const model::Event& e) const {
    const auto it = timed_.find(e.path);
    if (it == timed_.end()) return std::nullopt;
    const auto& v = it->second;
    auto after = std::lower_bound(v.begin(), v.end(), std::make_pair(e.line, -1e300));
    auto at = after;
    if (after == v.end() || (after != v.begin() && e.line - std::prev(after)->first <= after->first - e.line)) at = std::prev(after);
    return std::make_pair(at->second, at->first);
  }

 private:
  std::unordered_map<std::string, std::vector<std::pair<std::uint64_t, double>>> timed_;
};

}  // namespace

std::string timeline_svg(const Report& r, TimelineCounts& counts) {
  counts = {};
  std::size_t& undated = counts.undated;
  std::size_t& placed = counts.placed;
  const ByOrder by_order(r.events);
  std::vector<std::string> lanes;
  for (const auto& n : r.facts.nodes) lanes.push_back(n.name.empty() ? kUnnamedNode : n.name);
  auto lane_of = [&](const std::string& node) { return node.empty() ? std::string(kUnnamedNode) : node; };
  std::vector<Mark> marks;
  for (std::size_t k = 0; k < r.facts.nodes.size(); ++k) {
    const auto& n = r.facts.nodes[k];
    if (!n.first_error) continue;
    const model::Event& e = r.events[*n.first_error];
    const std::string title = base::say(base::Say::TimelineFirstError, {{"where", loc(e)}}) + "  " + clip(e.text, 160);
    if (auto t = e.time.seconds()) {
      marks.push_back({lane_of(n.name), *t, "first-error", title, "#nrow-" + std::to_string(k)});
    } else if (auto p = by_order.place(e)) {
      marks.push_back({lane_of(n.name), p->first, "first-error", title + base::say(base::Say::TimelinePlaced, {{"line", std::to_string(p->second)}}),
                       "#nrow-" + std::to_string(k), true});
      ++placed;
    } else {
      ++undated;
    }
  }
  std::size_t other = 0;  // a related finding's place in the report's "Other findings" (#finding-K)
  for (const rules::Finding& f : r.analysis.findings) {
    const bool listed_other = f.role == rules::FindingRole::Related || f.role == rules::FindingRole::Warning;
    const std::size_t other_index = listed_other ? other++ : 0;
    if (f.role == rules::FindingRole::Warning) continue;
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
      const std::string title = f.rule->title_in(base::language()) + ": " + loc(*e) + "  " + clip(e->text, 160);
      const std::string kind = root ? "root" : listed_other ? "related" : "consequence";
      const std::string href = root ? "#evidence" : listed_other ? "#finding-" + std::to_string(other_index) : "#consequence-" + f.rule->id;
      if (auto t = e->time.seconds()) {
        marks.push_back({lane, *t, kind, title, href});
      } else if (auto p = by_order.place(*e)) {
        marks.push_back({lane, p->first, kind, title + base::say(base::Say::TimelinePlaced, {{"line", std::to_string(p->second)}}), href, true});
        ++placed;
      } else {
        ++undated;
      }
    }
  }
  counts.related = static_cast<std::size_t>(std::count_if(marks.begin(), marks.end(), [](const Mark& m) { return m.kind == "related"; }));
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
      const std::string hollow = m.placed ? " placed" : "";
      if (m.kind == "root") {
        s += "<rect class=\"root" + hollow + "\" x=\"" + fmt(x(m.t) - 8) + "\" y=\"" + fmt(y(m.lane) - 8) +
             "\" width=\"16\" height=\"16\" transform=\"rotate(45 " + cx + " " + cy + ")\"><title>" + esc(m.title) +
             "</title></rect>\n";
      } else {
        s += "<circle class=\"" + m.kind + hollow + "\" cx=\"" + cx + "\" cy=\"" + cy + "\" r=\"" +
             (m.kind == "first-error" ? "4" : m.kind == "related" ? "5" : "6") + "\"><title>" + esc(m.title) + "</title></circle>\n";
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
