#include "formats/gate.hpp"

#include <algorithm>

#include "formats/families.hpp"

namespace dtriage::formats {
namespace {

constexpr int kFact = 0, kRule = 1;  // as listed by `dtriage rules literals`

// Lines that open a block, or change how the next lines are read.
// A worker's own error words (formats/python.cpp, parse_error_print): a leading level word after a
// logger's time ("... ERROR [rank 3] msg", "| ERROR |", "[ERROR]"), "error: " / "fatal: " prints,
// the C++ runtime's abort and faulthandler's report.
constexpr std::string_view kErrorPrints[] = {" error ", "[error]", "error: ", "critical", "fatal", "terminate called"};

constexpr std::string_view kBlockOpeners[] = {"Traceback (most recent call last)", "Root Cause", "Failures:", "npu-smi",
                                              "Starting elastic_operator with launch configs", "Ascend Error Message"};

// The literals a line must be searched for: since any of them sends a line to the parsers, one
// that holds another (ASCII case folded) adds nothing ("error code is 507015" holds "error"), nor
// does a repeat. Fewer literals make both search engines faster.
std::vector<std::string> least_literals(const std::vector<std::string>& lits) {
  std::vector<std::string> folded;
  for (const std::string& l : lits) {
    if (l.empty()) continue;
    std::string f = l;
    for (char& c : f) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
    folded.push_back(std::move(f));
  }
  std::sort(folded.begin(), folded.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  std::vector<std::string> kept;
  for (const std::string& f : folded)
    if (std::none_of(kept.begin(), kept.end(), [&](const std::string& k) { return f.find(k) != std::string::npos; }))
      kept.push_back(f);
  return kept;
}

}  // namespace

Gate::Gate(RuleLiterals rules) : rules_(std::move(rules)) {
  std::vector<std::string> lits;
  auto add = [&](std::string_view s, int g) {
    lits.emplace_back(s);
    listed_.emplace_back(g == kFact ? "fact" : "rule", std::string(s));
  };
  for (std::string_view t : message_triggers()) add(t, kFact);
  for (std::string_view d : device_markers()) add(d, kFact);
  for (std::string_view b : kBlockOpeners) add(b, kFact);
  for (std::string_view b : kErrorPrints) add(b, kFact);
  for (const std::string& a : rules_.atoms) add(a, kRule);
  searched_ = least_literals(lits);
  matcher_ = base::LiteralMatcher(searched_, std::vector<int>(searched_.size(), 0));
  for (const std::string& k : rules_.open_kinds) {
    if (k == "*") open_.fill(true);
    else if (auto kind = model::kind_from_name(k)) open_[static_cast<int>(*kind)] = true;
  }
  std::vector<std::string> marks, loose;
  for (const Family& f : single_line_families())
    for (std::string_view m : f.markers) {
      marks.emplace_back(m);
      (f.name == "error-print" ? loose : exact_markers_).emplace_back(m);
      listed_.emplace_back("marker", std::string(m));
    }
  // Asked one line at a time (search), never over a buffer: the automaton alone.
  markers_ = base::LiteralMatcher(marks, std::vector<int>(marks.size(), 0), base::LiteralMatcher::Engine::Automaton);
  loose_markers_ = base::LiteralMatcher(loose, std::vector<int>(loose.size(), 0), base::LiteralMatcher::Engine::Automaton);
}

namespace {

// True when each line starts right after the previous one's "\n" or "\r\n".
bool contiguous(const std::vector<std::string_view>& lines) {
  for (std::size_t k = 1; k < lines.size(); ++k) {
    const char* end = lines[k - 1].data() + lines[k - 1].size();
    const char* next = lines[k].data();
    if (next == end + 1 && *end == '\n') continue;
    if (next == end + 2 && end[0] == '\r' && end[1] == '\n') continue;
    return false;
  }
  return true;
}

}  // namespace

void Gate::look_many(const std::vector<std::string_view>& lines, std::vector<Look>& looks, Scratch& scratch) const {
  looks.assign(lines.size(), Look::Quiet);
  if (!lines.empty() && contiguous(lines)) {
    const char* start = lines.front().data();
    const std::string_view region(start, static_cast<std::size_t>(lines.back().data() + lines.back().size() - start));
    scratch.hits.clear();
    matcher_.search_lines(region, scratch.hits);
    std::size_t k = 0;
    for (const auto& h : scratch.hits) {
      while (k < lines.size() && static_cast<std::size_t>(lines[k].data() - start) + lines[k].size() <= h.end) ++k;
      if (k == lines.size()) break;
      if (h.end < static_cast<std::size_t>(lines[k].data() - start)) continue;  // between lines
      looks[k] = Look::Parse;  // a fact literal or a rule atom
    }
  } else {  // after a cut line: one at a time
    for (std::size_t k = 0; k < lines.size(); ++k)
      if (matcher_.search(lines[k], 1) != 0) looks[k] = Look::Parse;
  }
}

bool Gate::marked(std::string_view rest) const {
  if (markers_.search(rest, 1) == 0) return false;  // most lines: no marker in any case
  if (loose_markers_.search(rest, 1) != 0) return true;
  return std::any_of(exact_markers_.begin(), exact_markers_.end(),
                     [&](const std::string& m) { return rest.find(m) != std::string_view::npos; });
}

std::vector<std::pair<std::string, std::string>> Gate::literals() const { return listed_; }

}  // namespace dtriage::formats
