// Text, JSON and Markdown for the pre-launch checks.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <string_view>

#include "base/sentences.hpp"
#include "base/text.hpp"
#include "check/check.hpp"

namespace dtriage::check {
namespace {

using base::Say;
using base::say;

std::string upper(const char* s) {
  std::string o(s);
  for (char& c : o) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  return o;
}

std::string node_label(const NodeResult& n) { return n.node.empty() ? say(Say::CheckReportJob) : n.node; }

std::string failed_names(const Report& r, Status which) {
  std::string out;
  for (const CheckResult& c : r.checks)
    if (c.status == which) out += (out.empty() ? "" : ", ") + std::to_string(c.id) + " " + c.name;
  return out;
}

std::string md_cell(const std::string& s) { return base::markdown_inline(s); }
std::string md_code(const std::string& s) { return base::markdown_code(s); }

std::string not_kept(const Report& r) {
  return say(Say::CheckValuesNotKept, {{"count", std::to_string(r.values_not_kept)}, {"limit", std::to_string(LogFacts::kMaxValues)}});
}

}  // namespace

std::string render_text(const Report& r, bool color) {
  const char* bold = color ? "\x1b[1m" : "";
  const char* dim = color ? "\x1b[2m" : "";
  const char* reset = color ? "\x1b[0m" : "";
  auto paint = [&](Status st) -> const char* {
    if (!color) return "";
    switch (st) {
      case Status::Fail: return "\x1b[1;31m";
      case Status::Warn: return "\x1b[1;33m";
      case Status::Pass: return "\x1b[32m";
      case Status::Skip: return "\x1b[2m";
    }
    return "";
  };
  std::string o = say(r.nodes.size() == 1 ? Say::CheckReportNodesOne : Say::CheckReportNodesMany, {{"count", std::to_string(r.nodes.size())}});
  if (!r.nodes.empty()) {
    o += " (";
    for (std::size_t i = 0; i < r.nodes.size(); ++i) o += (i ? ", " : "") + base::visible(r.nodes[i]);
    o += ")";
  }
  o += "\n\n";
  for (const CheckResult& c : r.checks) {
    o += std::string(bold) + std::to_string(c.id) + ". " + c.name + ": " + reset + paint(c.status) + upper(status_name(c.status)) + reset +
         "   (" + c.title + ")\n";
    for (const NodeResult& n : c.results) {
      o += "   " + std::string(paint(n.status)) + upper(status_name(n.status)) + reset +
           std::string(5 - std::string(status_name(n.status)).size(), ' ') + base::visible(node_label(n)) + ": " +
           base::visible(n.message) + "\n";
      if (n.status == Status::Fail || n.status == Status::Warn)
        for (const Evidence& e : n.evidence)
          o += "         " + std::string(dim) + base::visible(e.path) + ":" + std::to_string(e.line) + reset + "  " +
               base::visible(e.text.substr(0, 160)) + "\n";
    }
    o += "\n";
  }
  for (const auto& [path, reason] : r.unreadable)
    o += say(Say::CheckReportUnreadable, {{"path", base::visible(path)}, {"reason", base::visible(reason)}}) + "\n";
  if (r.values_not_kept != 0) o += not_kept(r) + "\n";
  o += std::string(bold) + say(Say::CheckReportResult, {{"status", std::string(paint(r.status)) + upper(status_name(r.status)) + reset + bold}});
  if (r.status == Status::Fail) o += say(Say::CheckReportFailed, {{"checks", failed_names(r, Status::Fail)}});
  else if (r.status == Status::Warn) o += say(Say::CheckReportWarnings, {{"checks", failed_names(r, Status::Warn)}});
  o += reset;
  o += "\n";
  return o;
}

std::string render_json(const Report& r) {
  nlohmann::ordered_json j;
  j["status"] = status_name(r.status);
  j["nodes"] = r.nodes;
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const CheckResult& c : r.checks) {
    nlohmann::ordered_json jc;
    jc["id"] = c.id;
    jc["name"] = c.name;
    jc["title"] = c.title;
    jc["status"] = status_name(c.status);
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    for (const NodeResult& n : c.results) {
      nlohmann::ordered_json jn;
      jn["node"] = n.node.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(n.node);
      jn["status"] = status_name(n.status);
      jn["message"] = n.message;
      jn["category"] = n.category.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(n.category);
      nlohmann::ordered_json values = nlohmann::ordered_json::object();
      for (const auto& [k, v] : n.values) values[k] = v;
      jn["values"] = values;
      nlohmann::ordered_json ev = nlohmann::ordered_json::array();
      for (const Evidence& e : n.evidence) ev.push_back({{"path", e.path}, {"line", e.line}, {"text", e.text}});
      jn["evidence"] = ev;
      results.push_back(jn);
    }
    jc["results"] = results;
    checks.push_back(jc);
  }
  j["checks"] = checks;
  nlohmann::ordered_json unreadable = nlohmann::ordered_json::array();
  for (const auto& [path, reason] : r.unreadable) unreadable.push_back({{"path", path}, {"reason", reason}});
  j["inputs"] = {{"files", r.files}, {"unreadable", unreadable}, {"values_not_kept", r.values_not_kept}};
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string render_markdown(const Report& r) {
  std::string o = "## " + say(Say::CheckReportStatus, {{"status", upper(status_name(r.status))}}) + "\n\n";
  o += say(Say::HeadingNodes) + ": ";
  for (std::size_t i = 0; i < r.nodes.size(); ++i) o += (i ? ", " : "") + md_cell(r.nodes[i]);
  o += "\n\n" + say(Say::CheckReportColumns) + "\n|---|---|---|---|---|\n";
  for (const CheckResult& c : r.checks)
    for (const NodeResult& n : c.results)
      o += "| " + std::to_string(c.id) + " | " + c.name + " | " + (n.status == Status::Fail ? "**FAIL**" : upper(status_name(n.status))) +
           " | " + md_cell(node_label(n)) + " | " + md_cell(n.message) + " |\n";
  bool any = false;
  for (const CheckResult& c : r.checks)
    for (const NodeResult& n : c.results) {
      if (n.evidence.empty() || (n.status != Status::Fail && n.status != Status::Warn)) continue;
      if (!any) o += "\n### " + say(Say::HeadingEvidence) + "\n";
      any = true;
      o += "\n- " + std::to_string(c.id) + " " + c.name + ", " + md_cell(node_label(n)) + ":\n";
      for (const Evidence& e : n.evidence)
        o += "  - " + md_code(e.path + ":" + std::to_string(e.line)) + " " + md_cell(e.text.substr(0, 160)) + "\n";
    }
  for (const auto& [path, reason] : r.unreadable)
    o += "\n" + say(Say::CheckReportUnreadableMarkdown, {{"path", md_code(path)}, {"reason", md_cell(reason)}}) + "\n";
  if (r.values_not_kept != 0) o += "\n" + not_kept(r) + "\n";
  return o;
}

}  // namespace dtriage::check
