// Pure functions from an analysis to what people read: text and JSON.
#pragma once

#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/inventory.hpp"
#include "correlate/facts.hpp"
#include "model/event.hpp"
#include "rules/engine.hpp"
#include "rules/loader.hpp"

namespace dtriage::report {

struct Report {
  const std::vector<model::Event>& events;
  const correlate::Facts& facts;
  const rules::Analysis& analysis;
  const base::Inventory& inventory;
  const std::vector<rules::LoadProblem>& rule_problems;
  std::size_t rules_loaded = 0;
  std::string version;
};

// The consequences of the root cause grouped by rule, as every human-readable format shows them:
// "SDMA error on a device: 16 lines on 2 nodes, device 0".
struct ConsequenceGroup {
  std::string title;
  std::size_t lines = 0;
  std::size_t nodes = 0;
  std::string devices;  // "0" or "0,3" ("" when the lines name none)
  correlate::EventIndex first = 0;
  std::string describe() const;  // "16 lines on 2 nodes, device 0"
};
std::vector<ConsequenceGroup> consequence_groups(const Report& r);

// Pieces every human-readable format shows the same way.
std::string ranks_text(const std::set<std::int64_t>& ranks, std::size_t max_runs = 12);  // "0-7,9"
std::string first_error_text(const Report& r, const correlate::Node& n);               // "time code path:line"

std::string render_json(const Report& r);
std::string render_text(const Report& r, bool color);
std::string render_markdown(const Report& r);
std::string render_html(const Report& r);

// Masks what should not leave a customer's site. Host names become node#1, node#2, ... (in the
// order of the node table; hosts that are no node, such as peers and fully qualified names in
// messages, host#1, ...), IPv4 and IPv6 addresses ip#1, ..., e-mail addresses email#1, ...; user
// names in home paths become "user"; token / key / password values, bearer tokens, credentials in
// URLs and well-known token shapes become [redacted]. '#' is in no host name, so a replacement
// never collides with a real name. Text is read once, whole tokens at a time: nothing is replaced
// twice, and the cost is linear in the text.
class Redactor {
 public:
  explicit Redactor(const Report& r);
  std::string apply(const std::string& text);

 private:
  std::string token(const std::string& t);
  std::unordered_map<std::string, std::string> hosts_;  // known host (and node) names
  std::unordered_map<std::string, std::string> seen_;   // addresses, e-mails, other FQDNs met so far
  std::size_t next_host_ = 1, next_ip_ = 1, next_email_ = 1;
};

// A redacted copy of everything a report shows: redaction runs on the analysis, before any format
// renders it, so every format (and every string field of the JSON) is masked the same way.
struct RedactedReport {
  std::vector<model::Event> events;
  correlate::Facts facts;
  rules::Analysis analysis;
  base::Inventory inventory;
  std::vector<rules::LoadProblem> rule_problems;
  std::size_t rules_loaded = 0;
  std::string version;
  Report view() const { return Report{events, facts, analysis, inventory, rule_problems, rules_loaded, version}; }
};
RedactedReport redact(const Report& r);

}  // namespace dtriage::report
