// Pure functions from an analysis to what people read: text and JSON.
#pragma once

#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/inventory.hpp"
#include "correlate/facts.hpp"
#include "model/context.hpp"
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
  std::string inputs;       // the PATHs given, as given (the HTML report's head)
  std::string analysed_at;  // when, ISO 8601 UTC (SOURCE_DATE_EPOCH when set: reproducible reports)
  const model::Context* context = nullptr;  // -C N: the lines around evidence lines (null: none)
  bool full = false;                        // --full: evidence lines uncut, every evidence line listed
};

// The consequences of the root cause grouped by rule, as every human-readable format shows them:
// "SDMA error on a device: 16 lines on 2 nodes, device 0".
struct ConsequenceGroup {
  std::string title;
  std::size_t lines = 0;
  std::size_t nodes = 0;
  std::string devices;  // "0" or "0,3" ("" when the lines name none)
  correlate::EventIndex first = 0;
  std::string rule;  // its rule's id (the HTML report's anchor: "consequence-" + rule)
  std::string describe() const;  // "16 lines on 2 nodes, device 0"
};
std::vector<ConsequenceGroup> consequence_groups(const Report& r);

// Pieces every human-readable format shows the same way.
std::string ranks_text(const std::set<std::int64_t>& ranks, std::size_t max_runs = 12);  // "0-7,9"
// "time code path:line", the time with `digits` fraction digits (the node table's one precision)
std::string first_error_text(const Report& r, const correlate::Node& n, std::uint8_t digits);

std::string render_json(const Report& r);
std::string render_text(const Report& r, bool color);
std::string render_markdown(const Report& r);
std::string render_html(const Report& r);

// Masks identities and keeps meaning (`--redact`). Masked: host names (node#1, node#2, ... in the
// order of the node table; other hosts host#1, ...), IPv4 and IPv6 addresses (ip#1, ...), e-mail
// addresses (email#1, ...), user names (user#1, ...: home and users paths, ~name, user=, name@host),
// and secrets ([redacted]: password / token / key values, --password and the like, cookies, bearer
// tokens, credentials in URLs, well-known token shapes, private-key blocks). Kept: exception,
// module and class names (torch.cuda.OutOfMemoryError), file and library paths, error codes,
// versions, 0.0.0.0, 127.0.0.1 and localhost. A word is a host when the job uses it as one: a node,
// a launcher's master address, the value after peer / host / node / address / endpoint / master /
// pod, the part before :PORT or after @, a fully qualified name under a known top-level domain;
// once learned, it is masked wherever it appears, also inside file names (gpu-a01_rank3.log).
// '#' is in no host name, so a replacement never collides with a real name; text is read once per
// pass and nothing is replaced twice. A JSON line (a container runtime's) is masked value by value
// after unescaping, and stays JSON.
class Redactor {
 public:
  Redactor() = default;
  explicit Redactor(const Report& r) { add_report(r); }
  // Every name a job's report uses for a host, its nodes first (numbered after those already met),
  // and the hosts and users its lines name.
  void add_report(const Report& r);
  // A host the caller knows of (a node first: they are numbered node#N in the order given).
  void add_node(const std::string& name);
  void add_host(const std::string& name);
  // Learns the hosts and users that `text` names by its grammar (without masking anything).
  void learn(std::string_view text);
  std::string apply(const std::string& text);
  // Every string an event shows (its lines learned first).
  void apply(model::Event& e);

 private:
  std::string token(const std::string& t);
  std::string inside(const std::string& t);
  std::string apply_plain(const std::string& text);
  std::string user(const std::string& name);
  std::unordered_map<std::string, std::string> hosts_;  // known host (and node) names
  std::unordered_map<std::string, std::string> users_;  // user names met in paths and fields
  std::unordered_map<std::string, std::string> seen_;   // addresses, e-mails, other FQDNs met so far
  std::size_t next_node_ = 1, next_host_ = 1, next_ip_ = 1, next_email_ = 1, next_user_ = 1;
};

// A job's name as `scan --redact` writes it: "job-" and a hash of the name (the same in every run and
// shard, so --resume and merge still match), with the name's archive extension kept.
std::string masked_job_name(const std::string& name);

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
  std::string inputs, analysed_at;
  model::Context context;
  bool has_context = false, full = false;
  Report view() const {
    return Report{events, facts, analysis, inventory, rule_problems, rules_loaded, version, inputs, analysed_at, has_context ? &context : nullptr, full};
  }
};
RedactedReport redact(const Report& r);
// The same with a Redactor the caller keeps (given `r` already: Redactor(r) or add_report(r)), so
// that what is shown beside the report (analyze --baseline's comparison) masks the same names alike.
RedactedReport redact(const Report& r, Redactor& red);

}  // namespace dtriage::report
