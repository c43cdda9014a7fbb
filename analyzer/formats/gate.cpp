#include "formats/gate.hpp"

#include <algorithm>

#include "formats/families.hpp"

namespace dtriage::formats {
namespace {

constexpr int kFact = 0, kRule = 1;  // as listed by `dtriage rules literals`
constexpr base::LiteralMatcher::Groups kMarkerBit = 2;  // group 1 of matcher_: the family markers

// Lines that open a block, or change how the next lines are read.
// A worker's own error words (formats/python.cpp, parse_error_print): a leading level word after a
// logger's time ("... ERROR [rank 3] msg", "| ERROR |", "[ERROR]"), "error: " / "fatal: " prints,
// the C++ runtime's abort and faulthandler's report.
constexpr std::string_view kErrorPrints[] = {" error ", "[error]", "error: ", "critical", "fatal", "terminate called"};

constexpr std::string_view kBlockOpeners[] = {"Traceback (most recent call last)", "Root Cause", "Failures:", "npu-smi",
                                              "Starting elastic_operator with launch configs", "Ascend Error Message",
                                              "Rendezvous complete for workers"};

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
  // Family markers (group 1) ride the same pass: a line with none, in any case, needs no look for
  // them (marked). A marker that holds a searched literal adds nothing: such lines are parsed.
  std::vector<std::string> batch = searched_;
  std::vector<int> groups(searched_.size(), 0);
  for (const Family& f : single_line_families())
    for (std::string_view m : f.markers) {
      std::string folded(m);
      for (char& c : folded) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
      if (std::any_of(searched_.begin(), searched_.end(), [&](const std::string& l) { return folded.find(l) != std::string::npos; }))
        continue;
      auto at = std::find(batch.begin(), batch.end(), folded);
      if (at == batch.end()) {
        batch.push_back(folded);
        groups.push_back(1);
        marker_forms_.emplace_back();
        at = batch.end() - 1;
      }
      marker_forms_[static_cast<std::size_t>(at - batch.begin()) - searched_.size()].push_back({std::string(m), f.name == "error-print"});
    }
  matcher_ = base::LiteralMatcher(batch, groups);
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

bool Gate::marker_at(std::string_view text, std::size_t last, int id) const {
  const auto& forms = marker_forms_[static_cast<std::size_t>(id) - searched_.size()];
  for (const auto& [form, any_case] : forms) {
    if (any_case) return true;  // the folded search found it
    if (last + 1 >= form.size() && text.compare(last + 1 - form.size(), form.size(), form) == 0) return true;
  }
  return false;
}

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
      if (matcher_.group_of(h.id) == kMarkerBit) {  // a family marker: in its case?
        if (looks[k] == Look::Quiet && marker_at(region, h.end, h.id)) looks[k] = Look::Marked;
      } else {
        looks[k] = Look::Parse;  // a fact literal or a rule atom
      }
    }
  } else {  // after a cut line: one at a time
    for (std::size_t k = 0; k < lines.size(); ++k) {
      const base::LiteralMatcher::Groups g = matcher_.search(lines[k], 1);
      if ((g & 1) != 0) looks[k] = Look::Parse;
      else if ((g & kMarkerBit) != 0 && marked(lines[k])) looks[k] = Look::Marked;
    }
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
