// Markdown and self-contained HTML reports, and redaction.
#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <set>

#include "base/json_escape.hpp"
#include "report/report.hpp"

namespace dtriage::report {
namespace {

std::string clip(const std::string& s, std::size_t max) {
  std::string t = base::sanitize_utf8(s);
  if (t.size() <= max) return t;
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(t[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
  return t.substr(0, cut) + "...";
}

std::string loc(const model::Event& e) { return e.path + ":" + std::to_string(e.line); }

// ---- markdown ---------------------------------------------------------------------------------

std::string md_cell(const std::string& s) {
  std::string o;
  for (char c : base::sanitize_utf8(s)) {
    if (c == '|') o += "\\|";
    else if (c == '\n') o += ' ';
    else o.push_back(c);
  }
  return o;
}

std::string fence_for(const std::string& body) { return body.find("```") == std::string::npos ? "```" : "~~~~"; }

// ---- html -------------------------------------------------------------------------------------

std::string esc(const std::string& s) {
  std::string o;
  for (char c : base::sanitize_utf8(s)) {
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

// Seconds since the epoch of an ISO time as the parsers write it (no zone: read as UTC, which is
// only used to place events relative to each other).
std::optional<double> seconds(const std::string& iso) {
  if (iso.size() < 19 || iso[4] != '-' || iso[10] != 'T') return std::nullopt;
  std::tm tm{};
  tm.tm_year = std::atoi(iso.substr(0, 4).c_str()) - 1900;
  tm.tm_mon = std::atoi(iso.substr(5, 2).c_str()) - 1;
  tm.tm_mday = std::atoi(iso.substr(8, 2).c_str());
  tm.tm_hour = std::atoi(iso.substr(11, 2).c_str());
  tm.tm_min = std::atoi(iso.substr(14, 2).c_str());
  tm.tm_sec = std::atoi(iso.substr(17, 2).c_str());
  double t = static_cast<double>(timegm(&tm));
  if (iso.size() > 20 && iso[19] == '.') t += std::atof(("0" + iso.substr(19)).c_str());
  return t;
}

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
};

std::string timeline_svg(const Report& r, std::size_t& undated) {
  std::vector<std::string> lanes;
  for (const auto& n : r.facts.nodes) lanes.push_back(n.name.empty() ? "(this host)" : n.name);
  auto lane_of = [&](const std::string& node) { return node.empty() ? std::string("(this host)") : node; };
  std::vector<Mark> marks;
  undated = 0;
  for (const auto& n : r.facts.nodes) {
    if (!n.first_error) continue;
    const model::Event& e = r.events[*n.first_error];
    if (auto t = seconds(e.time)) marks.push_back({lane_of(n.name), *t, "first-error", "first error: " + loc(e) + "  " + clip(e.text, 160)});
    else ++undated;
  }
  for (const rules::Finding& f : r.analysis.findings) {
    if (f.role != "root-cause" && f.role != "consequence") continue;
    if (f.events.empty()) continue;
    // one mark per node the finding's evidence touches: its earliest event there
    std::map<std::string, const model::Event*> first_on;
    for (auto i : f.events) {
      const model::Event& e = r.events[i];
      auto& slot = first_on[lane_of(e.node)];
      if (slot == nullptr || (!e.time.empty() && (slot->time.empty() || e.time < slot->time))) slot = &e;
    }
    for (const auto& [lane, e] : first_on) {
      if (auto t = seconds(e->time)) marks.push_back({lane, *t, f.role == "root-cause" ? "root" : "consequence",
                                                      f.rule->title + ": " + loc(*e) + "  " + clip(e->text, 160)});
      else ++undated;
    }
  }
  if (lanes.empty()) lanes.push_back("(this host)");
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
  auto y = [&](const std::string& lane) {
    const auto it = std::find(lanes.begin(), lanes.end(), lane);
    const double i = it == lanes.end() ? 0 : static_cast<double>(it - lanes.begin());
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
      if (m.kind == "root") {
        s += "<rect class=\"root\" x=\"" + fmt(x(m.t) - 8) + "\" y=\"" + fmt(y(m.lane) - 8) +
             "\" width=\"16\" height=\"16\" transform=\"rotate(45 " + cx + " " + cy + ")\"><title>" + esc(m.title) +
             "</title></rect>\n";
      } else {
        s += "<circle class=\"" + m.kind + "\" cx=\"" + cx + "\" cy=\"" + cy + "\" r=\"" +
             (m.kind == "first-error" ? "4" : "6") + "\"><title>" + esc(m.title) + "</title></circle>\n";
      }
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

const char* kCss = R"(
body{font:14px/1.45 "DejaVu Sans",system-ui,sans-serif;margin:0;color:#1d2329;background:#fff}
main{max-width:1000px;margin:0 auto;padding:0 16px 32px}
header.verdict{padding:18px 24px;border-left:8px solid #888;background:#f4f5f7;margin-bottom:12px}
header.failed{border-color:#d62728;background:#fdf1f1} header.healthy{border-color:#2ca02c;background:#f0faf0}
header h1{font-size:20px;margin:4px 0 6px} .meta{color:#555;margin:0} .fix{margin:8px 0 0}
h2{font-size:16px;margin:22px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
pre{background:#f6f8fa;padding:10px;overflow-x:auto;font:12px/1.4 "DejaVu Sans Mono",monospace;white-space:pre-wrap;word-break:break-all}
table{border-collapse:collapse;font-size:13px} th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f4f5f7} .loc{color:#666}
svg text.lane{font:12px "DejaVu Sans",sans-serif;fill:#333} svg text.axis{font:11px "DejaVu Sans",sans-serif;fill:#666}
svg line.lane{stroke:#ccc} svg line.link{stroke:#ff7f0e;stroke-dasharray:4 3;stroke-width:1.2}
svg .root{fill:#b2182b} svg .consequence{fill:#ff7f0e} svg .first-error{fill:#555}
.legend span{margin-right:14px} .dot{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:4px;vertical-align:middle}
details summary{cursor:pointer}
)";

}  // namespace

std::string render_markdown(const Report& r) {
  const rules::Verdict& v = r.analysis.verdict;
  std::string o = "## dtriage: " + v.status + (v.category.empty() || v.status == "healthy" ? "" : " — " + v.category) + "\n\n";
  o += "**" + md_cell(v.summary) + "**\n\n";
  if (!v.remedy.empty()) o += "**Fix:** " + md_cell(v.remedy) + "\n\n";
  if (!v.rule.empty()) o += "Rule `" + v.rule + "`" + (v.rank ? ", rank " + std::to_string(*v.rank) : "") + "\n\n";
  if (!r.facts.nodes.empty()) {
    o += "| node | processes | devices | errors | ranks | first error |\n|---|---|---|---|---|---|\n";
    for (const auto& n : r.facts.nodes)
      o += "| " + md_cell(n.name.empty() ? "(this host)" : n.name) + " | " + std::to_string(n.processes()) + " | " +
           (n.devices ? std::to_string(*n.devices) : "?") + " | " + std::to_string(n.errors) + " | " + ranks_text(n.ranks) +
           " | " + md_cell(first_error_text(r, n)) + " |\n";
    o += "\n";
  }
  std::vector<correlate::EventIndex> evidence;
  std::string title = "Evidence";
  if (v.root >= 0) {
    const auto& f = r.analysis.findings[static_cast<std::size_t>(v.root)];
    evidence = f.events;
    title += " (`" + f.rule->id + "`)";
  } else if (v.lead) {
    evidence = {*v.lead};
  }
  if (!evidence.empty()) {
    std::string body;
    for (std::size_t k = 0; k < evidence.size() && k < 10; ++k) {
      const model::Event& e = r.events[evidence[k]];
      body += loc(e) + "  " + clip(e.text, 300) + "\n";
      if (auto at = e.get_int("exception_line"))
        body += e.path + ":" + std::to_string(*at) + "  " + clip(e.get_str("exception_text"), 300) + "\n";
    }
    const std::string fence = fence_for(body);
    o += "### " + title + "\n\n" + fence + "text\n" + body + fence + "\n\n";
  }
  const auto groups = consequence_groups(r);
  if (!groups.empty()) {
    o += "<details><summary>Explained by the root cause (" + std::to_string(groups.size()) + ")</summary>\n\n";
    for (const ConsequenceGroup& g : groups)
      o += "- " + md_cell(g.title) + ": " + md_cell(g.describe()) + ", first `" + md_cell(loc(r.events[g.first])) + "`\n";
    o += "\n</details>\n\n";
  }
  std::string other;
  for (const rules::Finding& f : r.analysis.findings)
    if (f.role == "related" || f.role == "warning")
      other += "- [" + f.role + "] " + md_cell(f.summary) + " (`" + f.rule->id + "`)\n";
  if (!other.empty()) o += "<details><summary>Other findings</summary>\n\n" + other + "\n</details>\n\n";
  const base::Inventory& inv = r.inventory;
  o += "<details><summary>Inputs: " + std::to_string(inv.files) + " files, " + std::to_string(inv.lines) + " lines, " +
       std::to_string(inv.unreadable.size()) + " unreadable</summary>\n\n";
  o += "- bytes: " + std::to_string(inv.bytes) + ", events: " + std::to_string(r.events.size()) + ", long lines cut: " +
       std::to_string(inv.lines_cut) + "\n";
  for (const auto& p : inv.unreadable) o += "- unreadable `" + md_cell(p.path) + "`: " + md_cell(p.reason) + "\n";
  for (const auto& p : inv.skipped) o += "- skipped `" + md_cell(p.path) + "`: " + md_cell(p.reason) + "\n";
  o += "\n</details>\n\n_Report by dtriage " + r.version + "._\n";
  return o;
}

std::string render_html(const Report& r) {
  const rules::Verdict& v = r.analysis.verdict;
  std::string o = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  // No script, no external resource: the page works offline and log text can never run.
  o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n";
  o += "<title>dtriage: " + esc(v.status) + (v.category.empty() ? "" : " - " + esc(v.category)) + "</title>\n<style>" +
       kCss + "</style></head>\n<body><main>\n";
  o += "<header class=\"verdict " + esc(v.status) + "\"><p class=\"meta\">" + esc(v.status) +
       (v.category.empty() || v.status == "healthy" ? "" : " &middot; " + esc(v.category)) +
       (v.rule.empty() ? "" : " &middot; rule " + esc(v.rule)) + (v.rank ? " &middot; rank " + std::to_string(*v.rank) : "") +
       "</p>\n<h1 id=\"summary\">" + esc(v.summary) + "</h1>\n";
  if (!v.remedy.empty()) o += "<p class=\"fix\"><b>Fix:</b> " + esc(v.remedy) + "</p>\n";
  o += "</header>\n";
  std::size_t undated = 0;
  o += "<h2>Timeline</h2>\n" + timeline_svg(r, undated) + "\n";
  o += "<p class=\"legend\"><span><i class=\"dot\" style=\"background:#b2182b\"></i>root cause</span>"
       "<span><i class=\"dot\" style=\"background:#ff7f0e\"></i>explained by it</span>"
       "<span><i class=\"dot\" style=\"background:#555\"></i>first error of a node</span>" +
       (undated > 0 ? "<span>" + std::to_string(undated) + " mark(s) without a time are not drawn</span>" : std::string()) +
       "</p>\n";
  std::vector<correlate::EventIndex> evidence;
  if (v.root >= 0) evidence = r.analysis.findings[static_cast<std::size_t>(v.root)].events;
  else if (v.lead) evidence = {*v.lead};
  if (!evidence.empty()) {
    o += "<h2>Evidence</h2>\n<pre id=\"evidence\">";
    for (std::size_t k = 0; k < evidence.size() && k < 10; ++k) {
      const model::Event& e = r.events[evidence[k]];
      o += "<span class=\"loc\">" + esc(loc(e)) + "</span>  " + esc(clip(e.text, 400)) + "\n";
      if (auto at = e.get_int("exception_line"))
        o += "<span class=\"loc\">" + esc(e.path + ":" + std::to_string(*at)) + "</span>  " +
             esc(clip(e.get_str("exception_text"), 400)) + "\n";
    }
    o += "</pre>\n";
  }
  const auto groups = consequence_groups(r);
  if (!groups.empty()) {
    o += "<h2>Explained by the root cause</h2>\n<ul>\n";
    for (const ConsequenceGroup& g : groups) {
      const model::Event& e = r.events[g.first];
      o += "<li>" + esc(g.title) + ": " + esc(g.describe()) + " <span class=\"loc\">first " + esc(loc(e)) +
           "</span><details><summary>first line</summary><pre>" + esc(clip(e.text, 400)) + "</pre></details></li>\n";
    }
    o += "</ul>\n";
  }
  if (!r.facts.nodes.empty()) {
    o += "<h2>Nodes</h2>\n<table id=\"nodes\"><tr><th>node</th><th>processes</th><th>devices</th><th>errors</th><th>ranks</th>"
         "<th>first error</th></tr>\n";
    for (const auto& n : r.facts.nodes)
      o += "<tr><td>" + esc(n.name.empty() ? "(this host)" : n.name) + "</td><td>" + std::to_string(n.processes()) +
           "</td><td>" + (n.devices ? std::to_string(*n.devices) : "?") + "</td><td>" + std::to_string(n.errors) +
           "</td><td>" + esc(ranks_text(n.ranks)) + "</td><td>" + esc(first_error_text(r, n)) + "</td></tr>\n";
    o += "</table>\n";
  }
  std::string other;
  for (const rules::Finding& f : r.analysis.findings)
    if (f.role == "related" || f.role == "warning")
      other += "<li>[" + esc(f.role) + "] " + esc(f.summary) + " <span class=\"loc\">" + esc(f.rule->id) + "</span></li>\n";
  if (!other.empty()) o += "<h2>Other findings</h2>\n<ul>\n" + other + "</ul>\n";
  const base::Inventory& inv = r.inventory;
  o += "<h2>Inputs</h2>\n<p>" + std::to_string(inv.files) + " files, " + std::to_string(inv.bytes) + " bytes, " +
       std::to_string(inv.lines) + " lines, " + std::to_string(r.events.size()) + " events, " +
       std::to_string(inv.lines_cut) + " long lines cut.</p>\n";
  if (!inv.unreadable.empty() || !inv.skipped.empty()) {
    o += "<ul>\n";
    for (const auto& p : inv.unreadable) o += "<li>unreadable " + esc(p.path) + ": " + esc(p.reason) + "</li>\n";
    for (const auto& p : inv.skipped) o += "<li>skipped " + esc(p.path) + ": " + esc(p.reason) + "</li>\n";
    o += "</ul>\n";
  }
  o += "<footer><p class=\"meta\">Report by dtriage " + esc(r.version) + ".</p></footer>\n</main></body></html>\n";
  return o;
}

// ---- redaction ----------------------------------------------------------------------------------

Redactor::Redactor(const Report& r) {
  std::vector<std::string> names;
  for (const auto& n : r.facts.nodes)
    if (!n.name.empty()) names.push_back(n.name);
  std::map<std::string, std::string> map;
  for (std::size_t i = 0; i < names.size(); ++i) map[names[i]] = "node-" + std::to_string(i + 1);
  // Host names that are not node names (FQDNs, peers named in messages) get the next numbers.
  std::size_t next = names.size() + 1;
  for (const auto& e : r.events) {
    for (const char* k : {"host"}) {
      const std::string h = e.get_str(k);
      if (h.empty() || map.count(h) != 0) continue;
      const std::string shortname = h.substr(0, h.find('.'));
      auto it = map.find(shortname);
      map[h] = it != map.end() ? it->second : "node-" + std::to_string(next++);
    }
    if (!e.node.empty() && map.count(e.node) == 0) map[e.node] = "node-" + std::to_string(next++);
  }
  for (const auto& [from, to] : map) {
    bool ip = !from.empty();
    for (char c : from) ip = ip && (std::isdigit(static_cast<unsigned char>(c)) || c == '.');
    if (!ip && from.size() >= 2) hosts_.emplace_back(from, to);
  }
  std::sort(hosts_.begin(), hosts_.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

std::string Redactor::apply(const std::string& text) const {
  std::string s = text;
  auto is_name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; };
  for (const auto& [from, to] : hosts_) {
    std::string out;
    std::size_t pos = 0;
    while (true) {
      const std::size_t at = s.find(from, pos);
      if (at == std::string::npos) break;
      const bool left_ok = at == 0 || !is_name_char(s[at - 1]);
      const bool right_ok = at + from.size() >= s.size() || !is_name_char(s[at + from.size()]);
      out.append(s, pos, at - pos);
      out += left_ok && right_ok ? to : from;
      pos = at + from.size();
    }
    out.append(s, pos, std::string::npos);
    s = std::move(out);
  }
  // IPv4 addresses, numbered in order of appearance.
  static const RE2 ip(R"((\b(?:\d{1,3}\.){3}\d{1,3}\b))");
  std::map<std::string, std::string> ips;
  std::string out;
  re2::StringPiece in(s), m;
  const char* last = s.data();
  while (RE2::FindAndConsume(&in, ip, &m)) {
    out.append(last, static_cast<std::size_t>(m.data() - last));
    const std::string key(m);
    auto it = ips.find(key);
    if (it == ips.end()) it = ips.emplace(key, "ip-" + std::to_string(ips.size() + 1)).first;
    out += it->second;
    last = m.data() + m.size();
  }
  out.append(last, static_cast<std::size_t>(s.data() + s.size() - last));
  s = std::move(out);
  // User names in home paths.
  static const RE2 home(R"(/(home|Users)/[^/\s"'<>&\\]+)");
  RE2::GlobalReplace(&s, home, "/\\1/user");
  // Tokens, keys, passwords.
  static const RE2 kv(R"((?i)((?:token|api[_-]?key|secret|password|passwd|access[_-]?key)["']?\s*[:=]\s*["']?)[^\s"'&<>,;]+)");
  RE2::GlobalReplace(&s, kv, "\\1[redacted]");
  static const RE2 known(R"(\b(?:hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|xox[abp]-[A-Za-z0-9-]{10,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})\b)");
  RE2::GlobalReplace(&s, known, "[redacted]");
  return s;
}

}  // namespace dtriage::report
