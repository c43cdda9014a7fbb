#include "diff/diff.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "base/json_escape.hpp"
#include "base/sentences.hpp"
#include "base/text.hpp"
#include "ingest/ingest.hpp"
#include "lines/line_reader.hpp"
#include "report/html.hpp"

namespace dtriage::diff {
namespace {

// The bytes of a word: ASCII letters and digits, '_', '-', '.'. A table, not std::isalnum: the
// template pass calls it for every byte of both jobs (a libc call per byte was a fifth of its time).
constexpr std::array<bool, 256> kWordByte = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[static_cast<std::size_t>(c)] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-' || c == '.';
  return t;
}();
bool word_byte(unsigned char c) { return kWordByte[c]; }
bool digit_byte(unsigned char c) { return c >= '0' && c <= '9'; }

// EE8888, EI0006, ERR02005, E90000: letters then digits, a code of a catalogue.
bool error_code(std::string_view w) {
  std::size_t i = 0;
  while (i < w.size() && std::isupper(static_cast<unsigned char>(w[i]))) ++i;
  if (i < 1 || i > 4 || w.size() - i < 3 || w.size() - i > 6) return false;
  // A glog prefix (I0604, W1104: severity, month, day) is a date, not a code.
  if (i == 1 && w.size() == 5 && std::string_view("IWEF").find(w[0]) != std::string_view::npos) return false;
  for (std::size_t k = i; k < w.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(w[k]))) return false;
  return true;
}

// The environment variables lines print: "NCCL_IB_HCA=mlx5", "NCCL_SOCKET_IFNAME set by
// environment to eth0", "export HCCL_CONNECT_TIMEOUT=1200", "'CUDA_VISIBLE_DEVICES': '0,1'".
// The words before the '_' of the variables env_re() takes (a quick test before the regex).
constexpr std::string_view kEnvWords[] = {"NCCL", "HCCL", "ASCEND", "CUDA", "TORCH", "PYTORCH", "GLOO", "OMP",
                                          "NPU",  "MASTER", "WORLD", "LOCAL", "TORCHELASTIC", "UCX", "FI", "MLX5"};
const RE2& env_re() {
  static const RE2 re(
      R"(\b((?:NCCL|HCCL|ASCEND|CUDA|TORCH|PYTORCH|GLOO|OMP|NPU|MASTER|TORCHELASTIC|UCX|FI|MLX5)_[A-Z0-9_]+|WORLD_SIZE|LOCAL_RANK)['"]?(?:\s*[=:]\s*|\s+set by environment to\s+|\s+set to\s+)['"]?([^\s,;'"}\]]+))");
  return re;
}

class TemplateSink final : public ingest::Sink {
 public:
  TemplateSink(Side& side, std::size_t max_line) : side_(side), max_line_(max_line) {}
  void on_text(const ingest::Source& source, ingest::ByteReader& text) override {
    lines::LineReader reader(text, max_line_);
    lines::Line line;
    while (reader.next(line)) {
      ++side_.lines;
      std::string_view t = line.text;
      while (!t.empty() && (t.back() == '\r' || t.back() == '\n')) t.remove_suffix(1);
      if (t.find_first_not_of(" \t") == std::string_view::npos) continue;
      env(t);
      template_into(key_, t);  // one buffer for every line: a line of a known template allocates nothing
      auto it = side_.templates.find(key_);
      if (it == side_.templates.end()) {
        if (side_.templates.size() >= kMaxTemplates) {
          ++side_.lines_untemplated;
          continue;
        }
        Template tp;
        tp.text = key_;
        tp.level = level_of_template(key_);
        tp.order = order_++;
        tp.path = source.path;
        tp.line = line.number;
        tp.first = std::string(t.substr(0, 400));
        it = side_.templates.emplace(key_, std::move(tp)).first;
      }
      ++it->second.count;
    }
  }

 private:
  std::string key_;
  void env(std::string_view t) {
    // One of the words right before an '_': found from the underscores, one memchr per '_',
    // rather than a search of the line per word (that was a sixth of the template pass).
    bool maybe = false;
    for (std::size_t u = t.find('_'); u != std::string_view::npos && !maybe; u = t.find('_', u + 1))
      for (std::string_view w : kEnvWords)
        if (u >= w.size() && t.substr(u - w.size(), w.size()) == w) {
          maybe = true;
          break;
        }
    if (!maybe) return;
    re2::StringPiece in(t.data(), t.size());
    std::string name, value;
    while (RE2::FindAndConsume(&in, env_re(), &name, &value)) {
      if (side_.env.size() >= kMaxEnv && side_.env.count(name) == 0) continue;  // memory bound on crafted input
      std::string& v = side_.env[name];
      if (v.empty()) {
        v = value;
        continue;
      }
      bool seen = false;  // the values so far, split on " | ", compared whole
      for (std::size_t at = 0; at <= v.size() && !seen;) {
        const std::size_t end = std::min(v.find(" | ", at), v.size());
        seen = v.compare(at, end - at, value) == 0;
        at = end + 3;
      }
      if (!seen && v.size() < 200) v += " | " + value;
    }
  }

  Side& side_;
  std::size_t max_line_;
  std::uint64_t order_ = 0;
};

std::string join(const std::set<std::string>& s) {
  std::string o;
  for (const auto& v : s) o += (o.empty() ? "" : ", ") + v;
  return o;
}

// The configuration the facts give: job values, and per-node values joined over the nodes.
void config_of(Side& s) {
  const correlate::Facts& f = s.job->facts;
  auto& c = s.config;
  if (f.job.world_size) c["world_size"] = std::to_string(*f.job.world_size);
  if (f.job.expected_nodes) c["nnodes"] = std::to_string(*f.job.expected_nodes);
  if (!f.job.master_addr.empty()) c["master_addr"] = f.job.master_addr;
  if (f.job.master_port) c["master_port"] = std::to_string(*f.job.master_port);
  std::map<std::string, std::set<std::string>> per;
  for (const correlate::Node& n : f.nodes) {
    if (n.name.empty()) continue;
    s.nodes.push_back(n.name);
    if (n.nproc_per_node) per["nproc_per_node"].insert(std::to_string(*n.nproc_per_node));
    if (n.devices) per["devices per node"].insert(std::to_string(*n.devices));
    if (!n.chip.empty()) per["device model"].insert(n.chip);
    for (const auto& [k, v] : n.versions) per["version " + k].insert(v);
    for (const auto& [k, v] : n.launch)
      if (k != "node_rank") per[k == "nnodes" || k == "master_addr" || k == "master_port" ? k : "launch " + k].insert(v);
  }
  for (const auto& [k, v] : per) {
    if (k == "nnodes" || k == "master_addr" || k == "master_port") {
      std::set<std::string> all = v;
      if (auto it = c.find(k); it != c.end()) all.insert(it->second);
      c[k] = join(all);
    } else {
      c[k] = join(v);
    }
  }
  c["nodes"] = std::to_string(s.nodes.size());
  for (const auto& r : f.rank_table)
    if (r.progress) {
      if (!s.step || r.progress->step > *s.step) {
        s.step = r.progress->step;
        s.steps = r.progress->steps;
      }
    }
  s.finished = !f.steps_done.empty();
}

int order_of(const std::string& key) {
  if (key == "nproc_per_node" || key == "nnodes" || key == "world_size" || key == "nodes" || key == "devices per node") return 0;
  // A port is drawn anew for each run by many launch scripts (MASTER_PORT=$((RANDOM + 20000)))
  // and rendezvous setups: the last change to name, unless the failure ties it (relevant()).
  if (key == "master_port" || key == "env MASTER_PORT") return 4;
  if (key == "master_addr" || key.rfind("launch ", 0) == 0) return 1;
  if (key == "device model" || key.rfind("version ", 0) == 0) return 2;
  return 3;  // environment
}

// The keys a category's failure can come from: a change in one of them is named first.
bool relevant(const std::string& category, const std::string& key) {
  auto any = [&key](std::initializer_list<std::string_view> keys) {
    for (std::string_view k : keys)
      if (key == k || (k.back() == '*' && key.rfind(k.substr(0, k.size() - 1), 0) == 0)) return true;
    return false;
  };
  if (category == "nproc-device-mismatch") return any({"nproc_per_node", "devices per node", "world_size", "env ASCEND_RT_VISIBLE_DEVICES", "env CUDA_VISIBLE_DEVICES"});
  if (category == "device-binding-duplicate" || category == "device-visibility-config")
    return any({"nproc_per_node", "devices per node", "env CUDA_VISIBLE_DEVICES", "env ASCEND_RT_VISIBLE_DEVICES", "env ASCEND_VISIBLE_DEVICES", "env LOCAL_RANK"});
  if (category == "rendezvous-failure" || category == "port-in-use")
    return any({"master_addr", "master_port", "launch rdzv*", "nnodes", "nodes", "env MASTER_*", "env TORCHELASTIC_*"});
  if (category == "world-size-mismatch") return any({"nnodes", "world_size", "nproc_per_node", "nodes", "env WORLD_SIZE"});
  if (category == "env-version-mismatch") return any({"version *", "device model", "env CUDA_*", "env ASCEND_*"});
  if (category == "collective-timeout" || category == "network-transport-error" || category == "collective-mismatch")
    return any({"env NCCL_*", "env HCCL_*", "env GLOO_*", "env UCX_*", "env FI_*", "version nccl*", "version hccl*", "nnodes", "nodes", "world_size"});
  if (category == "shm-insufficient") return any({"env NCCL_SHM*", "nproc_per_node"});
  if (category == "device-oom" || category == "host-oom-killed") return any({"nproc_per_node", "world_size", "env PYTORCH_*", "env OMP_*"});
  if (category == "device-hardware-error" || category == "operator-error") return any({"version *", "device model", "env ASCEND_*", "env CUDA_*"});
  return false;
}

using base::Say;
using base::say;

std::string shown(const std::string& v) { return v.empty() ? say(Say::DiffNotShown) : v; }

std::string change_text(const Change& c) { return c.key + " " + shown(c.good) + " -> " + shown(c.bad); }

std::string status_word(rules::Status s) {
  return say(s == rules::Status::Failed    ? Say::ReportStatusFailed
             : s == rules::Status::Healthy ? Say::ReportStatusHealthy
                                           : Say::ReportStatusInconclusive);
}

std::string verdict_line(const Side& s) {
  const rules::Verdict& v = s.job->outcome.verdict;
  const std::string status = status_word(v.status);
  return (v.category.empty() ? status : say(Say::DiffStatusCategory, {{"status", status}, {"category", v.category}})) + say(Say::PunctColon) +
         v.summary;
}

std::string progress_text(const Side& s) {
  if (!s.step) return say(Say::DiffNoProgress);
  std::string o = s.steps ? say(Say::DiffStepOf, {{"step", std::to_string(*s.step)}, {"steps", std::to_string(*s.steps)}})
                          : say(Say::DiffStep, {{"step", std::to_string(*s.step)}});
  if (s.finished) o += say(Say::DiffFinished);
  return o;
}

}  // namespace

std::string template_of(std::string_view line) {
  std::string o;
  template_into(o, line);
  return o;
}

void template_into(std::string& o, std::string_view line) {
  if (line.size() > kTemplateMax) line = line.substr(0, kTemplateMax);
  o.clear();
  o.reserve(line.size());
  std::size_t i = 0;
  while (i < line.size()) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c == ' ' || c == '\t') {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (!o.empty()) o += ' ';
      continue;
    }
    if (!word_byte(c)) {
      o += static_cast<char>(c);
      ++i;
      continue;
    }
    std::size_t e = i;
    bool digit = false;
    while (e < line.size() && word_byte(static_cast<unsigned char>(line[e]))) digit |= digit_byte(static_cast<unsigned char>(line[e++]));
    const std::string_view w = line.substr(i, e - i);
    if (digit && !error_code(w)) o += "<*>";
    else o.append(w);
    i = e;
  }
  while (!o.empty() && o.back() == ' ') o.pop_back();
}

// A level word as a word of the message, not a piece of a file or field name: "error.json",
// "--error_file", "/errors/" and "on_failure_hook" say nothing of the line's level.
bool level_word_in(const std::string& lower, std::string_view w) {
  auto name_byte = [](char c) { return c == '.' || c == '_' || c == '/' || c == '-'; };
  for (std::size_t at = lower.find(w); at != std::string::npos; at = lower.find(w, at + 1)) {
    const std::size_t end = at + w.size();
    const bool glued_before = at > 0 && name_byte(lower[at - 1]);
    const bool glued_after = end + 1 < lower.size() && name_byte(lower[end]) && lower[end + 1] != ' ';
    if (!glued_before && !glued_after) return true;
  }
  return false;
}

const char* level_of_template(const std::string& t) {
  std::string lower(t);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view w : {"error", "exception", "traceback", "fatal", "failed", "failure", "killed", "abort", "timed out", "timeout",
                             "segmentation fault", "out of memory", "cannot", "refused", "[e]"})
    if (level_word_in(lower, w)) return "error";
  if (lower.find("warn") != std::string::npos) return "warning";
  return "info";
}

Side read_side(const std::vector<std::string>& paths, const std::string& path, const analysis::RuleBook& book,
               const analysis::Options& options, std::unique_ptr<analysis::Analysis> analysed) {
  Side s;
  s.path = path;
  s.job = analysed ? std::move(analysed) : analysis::analyze({paths, {}, {}}, book, options);
  base::Inventory inv;  // the analysis' inventory says what could not be read
  ingest::Ingestor ingestor(options.limits, {}, inv);
  TemplateSink sink(s, options.max_line);
  ingestor.run(paths, sink);
  config_of(s);
  for (const auto& [k, v] : s.env) s.config["env " + k] = v;
  return s;
}

namespace {

// The one sentence: a change of a kind tied to BAD's failure, else the failure with the changes
// beside it, else the most relevant change, else BAD's first new error. Said in `lang`; the
// verdict's own summary in the same language.
std::string answer(const Side& bad, const Diff& d, base::Lang lang) {
  base::LangScope scope(lang);
  const rules::Verdict& bv = bad.job->outcome.verdict;
  const std::string& summary = lang == base::Lang::En ? bv.english() : bv.summary;
  const bool bad_failed = bv.status != rules::Status::Healthy;
  // The change compare() found tied to BAD's failure (d.relevant_key), if any.
  const auto tied = std::find_if(d.changed.begin(), d.changed.end(), [&](const Change& c) { return !d.relevant_key.empty() && c.key == d.relevant_key; });
  const Change* named = tied == d.changed.end() ? nullptr : &*tied;
  const std::string outcome =
      !bad_failed           ? say(Say::DiffOutcomeHealthy, {{"summary", summary}})
      : bv.category.empty() ? say(Say::DiffOutcomeFailedPlain, {{"status", status_word(bv.status)}, {"summary", summary}})
                            : say(Say::DiffOutcomeFailed, {{"status", status_word(bv.status)}, {"category", bv.category}, {"summary", summary}});
  if (named != nullptr) {
    // A change in processes per node reads best beside the devices the nodes have.
    if (named->key == "nproc_per_node")
      if (auto dv = bad.config.find("devices per node"); dv != bad.config.end())
        return say(Say::DiffNprocChanged, {{"bad", named->bad}, {"devices", dv->second}, {"good", named->good}, {"outcome", outcome}});
    return say(Say::DiffWhatChanged, {{"key", named->key}, {"good", named->good}, {"bad", named->bad}, {"outcome", outcome}});
  }
  if (bad_failed && !bv.category.empty() && !d.changed.empty()) {
    // Changes, none of a kind that causes this failure (a launcher's port drawn anew each run):
    // the failure is the answer, the changes are said beside it.
    std::string others;
    for (std::size_t i = 0; i < d.changed.size() && i < 3; ++i) others += (i ? ", " : "") + change_text(d.changed[i]);
    return say(Say::DiffNotTied, {{"outcome", outcome}, {"category", bv.category}, {"changes", others}});
  }
  if (!d.changed.empty() || !d.nodes_added.empty() || !d.nodes_removed.empty()) {
    const std::string added = std::to_string(d.nodes_added.size()), removed = std::to_string(d.nodes_removed.size());
    const std::string what = !d.changed.empty()     ? change_text(d.changed.front())
                             : d.nodes_renamed      ? say(Say::DiffOtherNodes, {{"count", added}})
                             : d.nodes_removed.empty() ? say(Say::DiffNodesAdded, {{"count", added}})
                             : d.nodes_added.empty()   ? say(Say::DiffNodesRemoved, {{"count", removed}})
                                                       : say(Say::DiffNodesAddedRemoved, {{"added", added}, {"removed", removed}});
    return say(Say::DiffMostRelevant, {{"what", what}, {"outcome", outcome}});
  }
  for (const Template& t : d.new_messages)
    if (std::string_view(t.level) == "error")
      return say(Say::DiffNoChangeFirstError, {{"text", t.first}, {"where", t.path + ":" + std::to_string(t.line)}});
  return say(Say::DiffNoChangeNoError, {{"outcome", outcome}});
}

}  // namespace

Diff compare(const Side& good, const Side& bad) {
  Diff d;
  std::set<std::string> keys;
  for (const auto& [k, v] : good.config) keys.insert(k);
  for (const auto& [k, v] : bad.config) keys.insert(k);
  for (const std::string& k : keys) {
    const auto g = good.config.find(k), b = bad.config.find(k);
    const std::string gv = g == good.config.end() ? "" : g->second, bv = b == bad.config.end() ? "" : b->second;
    if (gv == bv) continue;
    Change c{k, gv, bv, order_of(k)};
    (gv.empty() || bv.empty() ? d.one_sided : d.changed).push_back(std::move(c));
  }
  auto by_order = [](const Change& a, const Change& b) { return std::tie(a.order, a.key) < std::tie(b.order, b.key); };
  std::stable_sort(d.changed.begin(), d.changed.end(), by_order);
  std::stable_sort(d.one_sided.begin(), d.one_sided.end(), by_order);
  const std::set<std::string> gn(good.nodes.begin(), good.nodes.end()), bn(bad.nodes.begin(), bad.nodes.end());
  for (const auto& n : bn)
    if (gn.count(n) == 0) d.nodes_added.push_back(n);
  for (const auto& n : gn)
    if (bn.count(n) == 0) d.nodes_removed.push_back(n);
  d.nodes_renamed = !gn.empty() && gn.size() == bn.size() && d.nodes_added.size() == bn.size();

  auto level_rank = [](const char* l) { return std::string_view(l) == "error" ? 0 : std::string_view(l) == "warning" ? 1 : 2; };
  for (const auto& [k, t] : bad.templates)
    if (good.templates.count(k) == 0) {
      ++d.new_total;
      d.new_messages.push_back(t);
    }
  for (const auto& [k, t] : good.templates)
    if (bad.templates.count(k) == 0) {
      ++d.gone_total;
      d.gone_messages.push_back(t);
    }
  for (auto* v : {&d.new_messages, &d.gone_messages})
    std::sort(v->begin(), v->end(), [&](const Template& a, const Template& b) {
      return std::make_pair(level_rank(a.level), a.order) < std::make_pair(level_rank(b.level), b.order);
    });

  if (bad.job->outcome.verdict.status != rules::Status::Healthy)
    for (const Change& c : d.changed)
      if (relevant(bad.job->outcome.verdict.category, c.key)) {
        d.relevant_key = c.key;
        break;
      }
  // The answer, in English (what tools and grouping read) and in the language asked for.
  d.sentence_en = answer(bad, d, base::Lang::En);
  d.sentence = base::language() == base::Lang::En ? d.sentence_en : answer(bad, d, base::language());
  return d;
}

namespace {
constexpr std::size_t kShownNew = 20, kShownGone = 10;
}

std::string render_text(const Side& good, const Side& bad, const Diff& d) {
  using base::visible;
  std::string o = "dtriage diff\n  GOOD " + visible(good.path) + ": " + visible(verdict_line(good)) + "\n  BAD  " + visible(bad.path) + ": " +
                  visible(verdict_line(bad)) + "\n\n" + visible(d.sentence) + "\n\n" + say(Say::DiffConfiguration) + "\n";
  if (d.changed.empty() && d.nodes_added.empty() && d.nodes_removed.empty()) o += "  " + say(Say::DiffNoConfigChange) + "\n";
  for (const Change& c : d.changed) o += "  " + visible(c.key) + ": " + visible(c.good) + " -> " + visible(c.bad) + "\n";
  if (d.nodes_renamed) o += "  " + say(Say::DiffAllOtherNodes, {{"count", std::to_string(d.nodes_added.size())}}) + "\n";
  else {
    for (const auto& n : d.nodes_added) o += "  " + say(Say::DiffNodeAdded, {{"node", visible(n)}}) + "\n";
    for (const auto& n : d.nodes_removed) o += "  " + say(Say::DiffNodeRemoved, {{"node", visible(n)}}) + "\n";
  }
  if (!d.one_sided.empty()) {
    o += say(Say::DiffOneSided) + "\n";
    for (const Change& c : d.one_sided) o += "  " + visible(c.key) + ": " + visible(shown(c.good)) + " -> " + visible(shown(c.bad)) + "\n";
  }
  o += "\n" + say(Say::DiffWhereStopped, {{"good", progress_text(good)}, {"bad", progress_text(bad)}});
  if (good.step && bad.step && *good.step > 0) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f", 100.0 * static_cast<double>(*bad.step) / static_cast<double>(*good.step));
    o += say(Say::DiffPercentOfGood, {{"percent", b}});
  }
  o += "\n\n" + say(Say::DiffNewMessages, {{"count", std::to_string(d.new_total)}}) + "\n";
  for (std::size_t i = 0; i < d.new_messages.size() && i < kShownNew; ++i) {
    const Template& t = d.new_messages[i];
    o += "  " + std::string(t.level) + "  x" + std::to_string(t.count) + "  " + visible(t.text) + "\n      " + visible(t.path) + ":" +
         std::to_string(t.line) + "\n";
  }
  if (d.new_total > kShownNew) o += "  " + say(Say::SummaryMore, {{"count", std::to_string(d.new_total - kShownNew)}}) + "\n";
  o += "\n" + say(Say::DiffGoneMessages, {{"count", std::to_string(d.gone_total)}}) + "\n";
  for (std::size_t i = 0; i < d.gone_messages.size() && i < kShownGone; ++i) {
    const Template& t = d.gone_messages[i];
    o += "  " + std::string(t.level) + "  x" + std::to_string(t.count) + "  " + visible(t.text) + "\n";
  }
  if (d.gone_total > kShownGone) o += "  " + say(Say::SummaryMore, {{"count", std::to_string(d.gone_total - kShownGone)}}) + "\n";
  return o;
}

namespace {

// The sections Markdown and HTML show, as tables: one model, two syntaxes.
struct Table {
  std::string title;  // "" for the head table
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  int code_column = -1;  // a column of templates (shown as code)
  std::string empty;     // said when there are no rows
  int count_column = -1;  // a column of numbers (aligned right)
};

std::vector<Table> tables_of(const Side& good, const Side& bad, const Diff& d) {
  std::vector<Table> t;
  t.push_back({"", {"", say(Say::DiffColPath), say(Say::DiffColVerdict), say(Say::DiffColProgress)},
               {{"GOOD", good.path, verdict_line(good), progress_text(good)}, {"BAD", bad.path, verdict_line(bad), progress_text(bad)}}, -1, "", -1});
  Table config{say(Say::DiffTableConfiguration), {"", "GOOD", "BAD"}, {}, -1, say(Say::DiffTableNoChange), -1};
  for (const Change& c : d.changed) config.rows.push_back({c.key, c.good, c.bad});
  for (const Change& c : d.one_sided) config.rows.push_back({c.key, shown(c.good), shown(c.bad)});
  for (const auto& n : d.nodes_added) config.rows.push_back({say(Say::DiffColNode), "", say(Say::DiffAdded, {{"node", n}})});
  for (const auto& n : d.nodes_removed) config.rows.push_back({say(Say::DiffColNode), say(Say::DiffRemoved, {{"node", n}}), ""});
  t.push_back(std::move(config));
  const std::string level = say(Say::DiffColLevel), count = say(Say::DiffColCount), templ = say(Say::DiffColTemplate);
  Table fresh{say(Say::DiffTableNew, {{"count", std::to_string(d.new_total)}}), {level, count, templ, say(Say::DiffColFirst)}, {}, 2,
              say(Say::DiffTableNone), 1};
  for (std::size_t i = 0; i < d.new_messages.size() && i < kShownNew; ++i) {
    const Template& m = d.new_messages[i];
    fresh.rows.push_back({m.level, std::to_string(m.count), m.text, m.path + ":" + std::to_string(m.line)});
  }
  t.push_back(std::move(fresh));
  Table gone{say(Say::DiffTableGone, {{"count", std::to_string(d.gone_total)}}), {level, count, templ}, {}, 2, say(Say::DiffTableNone), 1};
  for (std::size_t i = 0; i < d.gone_messages.size() && i < kShownGone; ++i) {
    const Template& m = d.gone_messages[i];
    gone.rows.push_back({m.level, std::to_string(m.count), m.text});
  }
  t.push_back(std::move(gone));
  return t;
}

}  // namespace

std::string render_markdown(const Side& good, const Side& bad, const Diff& d) {
  auto md = [](const std::string& s) { return base::markdown_inline(s); };
  std::string o = "## dtriage diff\n\n**" + md(d.sentence) + "**\n";
  for (const Table& t : tables_of(good, bad, d)) {
    o += t.title.empty() ? "\n" : "\n### " + md(t.title) + "\n\n";
    if (t.rows.empty()) {
      o += t.empty + "\n";
      continue;
    }
    std::string rule;
    for (std::size_t c = 0; c < t.head.size(); ++c) {
      o += "| " + md(t.head[c]) + " ";
      rule += static_cast<int>(c) == t.count_column ? "|---:" : "|---";
    }
    o += "|\n" + rule + "|\n";
    for (const auto& row : t.rows) {
      for (const std::string& cell : row) o += "| " + md(cell) + " ";
      o += "|\n";
    }
  }
  return o;
}

namespace {
std::string html_body(const Side& good, const Side& bad, const Diff& d, const char* heading) {
  using report::esc;
  std::string o = std::string("<section class=\"diff\">\n<") + heading + ">" + esc(say(Say::DiffHeading)) + "</" + heading +
                  ">\n<p class=\"answer\">" + esc(d.sentence) + "</p>\n";
  for (const Table& t : tables_of(good, bad, d)) {
    if (!t.title.empty()) o += "<h3>" + esc(t.title) + "</h3>\n";
    if (t.rows.empty()) {
      o += "<p>" + esc(t.empty) + "</p>\n";
      continue;
    }
    o += "<table><tr>";
    for (const std::string& h : t.head) o += "<th>" + esc(h) + "</th>";
    o += "</tr>\n";
    for (const auto& row : t.rows) {
      o += "<tr>";
      for (std::size_t c = 0; c < row.size(); ++c)
        o += static_cast<int>(c) == t.code_column ? "<td><code>" + esc(row[c]) + "</code></td>"
             : static_cast<int>(c) == t.count_column ? "<td class=\"n\">" + esc(row[c]) + "</td>"
                                                  : "<td>" + esc(row[c]) + "</td>";
      o += "</tr>\n";
    }
    o += "</table>\n";
  }
  o += "</section>\n";
  return o;
}
}  // namespace


std::string render_html(const Side& good, const Side& bad, const Diff& d) {
  return std::string("<!doctype html>\n<html lang=\"") + (base::language() == base::Lang::Zh ? "zh-CN" : "en") + "\"><head><meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
         "<title>dtriage diff</title>\n<style>body{font:14px/1.45 \"DejaVu Sans\",\"Noto Sans CJK SC\",\"Source Han Sans SC\",\"Microsoft YaHei\",\"PingFang SC\",system-ui,sans-serif;margin:2em auto;max-width:80em;color:#222;padding:0 1em}"
         "table{border-collapse:collapse;width:100%;margin:1em 0}td,th{border-bottom:1px solid #ddd;padding:.3em .5em;text-align:left;"
         "vertical-align:top;overflow-wrap:anywhere}th,td:first-child{white-space:nowrap;overflow-wrap:normal}td.n{text-align:right}.answer{font-size:16px;font-weight:600}"
         "code{font-size:12px}</style></head>\n<body><main>\n" +
         html_body(good, bad, d, "h1") + "</main></body></html>\n";
}

std::string render_section(const Side& good, const Side& bad, const Diff& d, const std::string& format) {
  if (format == "json") return render_json(good, bad, d);
  if (format == "html") return html_body(good, bad, d, "h2");
  if (format == "markdown") return "\n" + render_markdown(good, bad, d);
  return "\n" + render_text(good, bad, d);
}

void learn_names(const Side& good, const Side& bad, report::Redactor& red) {
  static const std::vector<rules::LoadProblem> kNoProblems;
  for (const Side* s : {&bad, &good}) {
    const analysis::Analysis& a = *s->job;
    red.add_report(report::Report{a.events, a.facts, a.outcome, a.inventory, kNoProblems});
  }
  // What the second read kept beyond the events: the lines of the templates, the environment.
  for (const Side* s : {&bad, &good}) {
    std::vector<const Template*> in_order;  // learned in the order the lines came, not the hash map's
    in_order.reserve(s->templates.size());
    for (const auto& [key, t] : s->templates) in_order.push_back(&t);
    std::sort(in_order.begin(), in_order.end(), [](const Template* a, const Template* b) { return a->order < b->order; });
    for (const Template* t : in_order) red.learn(t->first);
    for (const auto& [name, value] : s->env) red.learn(name + "=" + value);
    for (const auto& [key, value] : s->config) red.learn(key + "=" + value);
  }
}

void redact(Side& good, Side& bad, Diff& d, report::Redactor& red) {
  learn_names(good, bad, red);
  for (Side* s : {&good, &bad}) {
    s->path = red.apply(s->path);
    for (std::string& n : s->nodes) n = red.apply(n);
    for (auto& [key, value] : s->config) value = red.apply(value);
    for (auto& [name, value] : s->env) value = red.apply(value);
    for (auto& [key, t] : s->templates) {
      t.text = red.apply(t.text);
      t.path = red.apply(t.path);
      t.first = red.apply(t.first);
    }
    rules::Verdict& v = s->job->outcome.verdict;
    v.summary = red.apply(v.summary);
    v.summary_en = red.apply(v.summary_en);
    v.node = red.apply(v.node);
  }
  for (std::vector<Change>* list : {&d.changed, &d.one_sided})
    for (Change& c : *list) {
      c.good = red.apply(c.good);
      c.bad = red.apply(c.bad);
    }
  for (std::vector<std::string>* list : {&d.nodes_added, &d.nodes_removed})
    for (std::string& n : *list) n = red.apply(n);
  for (std::vector<Template>* list : {&d.new_messages, &d.gone_messages})
    for (Template& t : *list) {
      t.text = red.apply(t.text);
      t.path = red.apply(t.path);
      t.first = red.apply(t.first);
    }
  d.sentence = red.apply(d.sentence);
  d.sentence_en = red.apply(d.sentence_en);
}

std::string render_json(const Side& good, const Side& bad, const Diff& d) {
  using oj = nlohmann::ordered_json;
  auto side = [](const Side& s) {
    const rules::Verdict& v = s.job->outcome.verdict;
    oj j{{"path", s.path},
         {"status", rules::status_name(v.status)},
         {"category", v.category.empty() ? oj() : oj(v.category)},
         {"summary", v.summary},
         {"summary_en", v.english()},
         {"nodes", s.nodes},
         {"step", s.step ? oj(*s.step) : oj()},
         {"steps", s.steps ? oj(*s.steps) : oj()},
         {"finished", s.finished},
         {"lines", s.lines},
         {"templates", s.templates.size()},
         {"lines_untemplated", s.lines_untemplated}};
    return j;
  };
  auto changes = [](const std::vector<Change>& v) {
    oj a = oj::array();
    for (const Change& c : v) a.push_back({{"key", c.key}, {"good", c.good.empty() ? oj() : oj(c.good)}, {"bad", c.bad.empty() ? oj() : oj(c.bad)}});
    return a;
  };
  auto templates = [](const std::vector<Template>& v, std::size_t most) {
    oj a = oj::array();
    for (std::size_t i = 0; i < v.size() && i < most; ++i)
      a.push_back({{"level", v[i].level}, {"count", v[i].count}, {"template", v[i].text}, {"path", v[i].path}, {"line", v[i].line}, {"text", v[i].first}});
    return a;
  };
  oj j{{"schema", "dtriage.diff/1"},
       {"lang", base::language_name(base::language())},
       {"sentence", d.sentence},
       {"sentence_en", d.sentence_en},
       {"relevant_change", d.relevant_key.empty() ? oj() : oj(d.relevant_key)},
       {"good", side(good)},
       {"bad", side(bad)},
       {"changed", changes(d.changed)},
       {"one_sided", changes(d.one_sided)},
       {"nodes", {{"added", d.nodes_added}, {"removed", d.nodes_removed}, {"renamed", d.nodes_renamed}}},
       {"new_messages", {{"templates", d.new_total}, {"first", templates(d.new_messages, 100)}}},
       {"gone_messages", {{"templates", d.gone_total}, {"first", templates(d.gone_messages, 50)}}}};
  std::string out = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  base::escape_spoofing_controls_in_json(out);
  return out;
}

}  // namespace dtriage::diff
