#include "rules/catalogue.hpp"

#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "model/categories.hpp"
#include "rules/loader.hpp"

namespace dtriage::rules {

const char* role_name(EntryRole r) {
  switch (r) {
    case EntryRole::Cause: return "cause";
    case EntryRole::Consequence: return "consequence";
    case EntryRole::Benign: return "benign";
  }
  return "benign";
}

namespace {

std::string scalar(const YAML::Node& n, const char* key) {
  const YAML::Node v = n[key];
  return v && v.IsScalar() ? v.as<std::string>() : std::string();
}

std::string at(const std::string& file, const YAML::Node& n) { return file + ":" + std::to_string(n.Mark().line + 1); }

// Why `e` cannot be used, or "" when it can.
std::string check(CatalogueEntry& e, const std::string& source) {
  if (e.id.empty()) return "entry without an id";
  if (e.id.rfind(source + ".", 0) != 0) return e.id + ": the id does not start with '" + source + ".'";
  if (e.match.empty() == e.regex.empty()) return e.id + ": needs exactly one of match and regex";
  if (!e.regex.empty()) {
    RE2::Options o;
    o.set_log_errors(false);
    auto re = std::make_shared<const RE2>(e.regex, o);
    if (!re->ok()) return e.id + ": regex does not compile: " + re->error();
    e.re = std::move(re);
  }
  if (e.meaning.empty()) return e.id + ": no meaning";
  if (e.role != EntryRole::Benign && !model::is_category(e.category))
    return e.id + ": category '" + e.category + "' is not one of the contract's ids (docs/CONTRACT.md)";
  if (e.role == EntryRole::Benign && !e.category.empty()) return e.id + ": a benign entry has no category";
  return "";
}

}  // namespace

void Catalogue::load_text(const std::string& text, const std::string& file) {
  try {
    const YAML::Node doc = YAML::Load(text);
    if (std::string p = yaml_expansion_problem(doc, text.size()); !p.empty()) {
      problems_.push_back({file, std::move(p)});
      return;
    }
    if (!doc.IsMap()) {
      problems_.push_back({file, "not a catalogue (a map with source and entries)"});
      return;
    }
    CatalogueSource src{scalar(doc, "source"), scalar(doc, "title"), scalar(doc, "origin"), file};
    if (src.id.empty()) {
      problems_.push_back({file, "no source id"});
      return;
    }
    const YAML::Node list = doc["entries"];
    if (!list || !list.IsSequence()) {
      problems_.push_back({file, "no entries"});
      return;
    }
    std::set<std::string> ids;
    for (const CatalogueEntry& e : entries_) ids.insert(e.id);
    for (const YAML::Node& n : list) {
      if (!n.IsMap()) {
        problems_.push_back({at(file, n), "an entry is not a map"});
        continue;
      }
      CatalogueEntry e;
      e.id = scalar(n, "id");
      e.source = src.id;
      e.match = scalar(n, "match");
      e.regex = scalar(n, "regex");
      e.where = scalar(n, "where");
      e.meaning = scalar(n, "meaning");
      e.category = scalar(n, "category");
      e.of = scalar(n, "of");
      if (const YAML::Node zh = n["zh"]; zh && zh.IsMap()) {
        e.meaning_zh = scalar(zh, "meaning");
        e.of_zh = scalar(zh, "of");
      }
      e.file = at(file, n);
      const std::string role = scalar(n, "role");
      if (role == "cause") e.role = EntryRole::Cause;
      else if (role == "consequence") e.role = EntryRole::Consequence;
      else if (role == "benign") e.role = EntryRole::Benign;
      else {
        problems_.push_back({e.file, e.id + ": role '" + role + "' is not cause, consequence or benign"});
        continue;
      }
      if (const YAML::Node ex = n["examples"]; ex && ex.IsSequence())
        for (const YAML::Node& x : ex)
          if (x.IsScalar()) e.examples.push_back(x.as<std::string>());
      if (std::string why = check(e, src.id); !why.empty()) {
        problems_.push_back({e.file, why});
        continue;
      }
      if (!ids.insert(e.id).second) {
        problems_.push_back({e.file, e.id + ": id used twice"});
        continue;
      }
      entries_.push_back(std::move(e));
    }
    sources_.push_back(std::move(src));
  } catch (const YAML::Exception& e) {
    problems_.push_back({file + ":" + std::to_string(e.mark.line + 1), e.msg});
  }
}

Catalogue Catalogue::load(const std::string& dir) {
  Catalogue c;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    c.problems_.push_back({dir, "no such catalogue directory"});
    return c;
  }
  std::vector<std::pair<std::string, std::string>> problems;
  const std::vector<YamlFile> files = read_yaml_files(dir, problems);
  for (auto& [path, reason] : problems) c.problems_.push_back({std::move(path), std::move(reason)});
  for (const YamlFile& f : files) c.load_text(f.text, f.path);
  return c;
}

bool CatalogueEntry::matches(std::string_view text) const {
  if (re) return RE2::PartialMatch(text, *re);
  return text.find(match) != std::string_view::npos;
}

namespace {

// The literal characters of a regex: what it asks of a line to the letter ("NCCL error in: \S+:\d+, "
// asks 18, the same as its constant pieces; its classes, repeats and groups ask no letter).
std::size_t literal_size(std::string_view re) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < re.size(); ++i) {
    const char c = re[i];
    if (c == '\\' && i + 1 < re.size()) {
      ++i;
      if (!std::isalnum(static_cast<unsigned char>(re[i]))) ++n;  // an escaped character is itself
    } else if (std::string_view("()[]{}|?*+.^$").find(c) == std::string_view::npos) {
      ++n;
    }
  }
  return n;
}

// How much an entry says: a cause before a consequence (each with a category that says why) before
// a failure of category "unknown" before a benign entry; then the longer match in letters (a
// wrapper's "NCCL error in: file:line, " says less than the "unhandled cuda error" inside it).
std::pair<int, std::size_t> weight(const CatalogueEntry& e) {
  const int role = e.role == EntryRole::Benign ? 0 : !e.classifies() ? 1 : e.role == EntryRole::Cause ? 3 : 2;
  return {role, e.re ? literal_size(e.regex) : e.match.size()};
}

}  // namespace

const CatalogueEntry* Catalogue::classify(std::string_view text) const {
  const CatalogueEntry* best = nullptr;
  for (const CatalogueEntry& e : entries_)
    if (e.matches(text) && (best == nullptr || weight(e) > weight(*best))) best = &e;
  return best;
}

const CatalogueEntry* Catalogue::classify(const model::Event& e, std::string* said) const {
  const std::string exception_text = e.get_str("exception_text");
  // The body's lines after the exception line (stack frames before it are code, not the error);
  // all of it for an exception printed without a traceback.
  std::size_t from = 0;
  for (std::size_t k = e.body.size(); !exception_text.empty() && k-- > 0;)
    if (!e.body[k].empty() && exception_text.ends_with(e.body[k])) {
      from = k + 1;
      break;
    }
  std::vector<std::string_view> texts = {e.text, e.message, exception_text};
  const std::size_t own = texts.size();  // the event's own line and message; further lines after
  for (std::size_t k = from; k < e.body.size() && k < from + 8; ++k) texts.push_back(e.body[k]);
  const CatalogueEntry* best = nullptr;
  if (said != nullptr) said->clear();
  for (std::size_t k = 0; k < texts.size(); ++k) {
    const std::size_t a = texts[k].find_first_not_of(" \t"), b = texts[k].find_last_not_of(" \t\r");
    if (a == std::string_view::npos) continue;
    const std::string_view t = texts[k].substr(a, b - a + 1);
    const CatalogueEntry* c = classify(t);
    if (c == nullptr || (best != nullptr && weight(*c) <= weight(*best))) continue;
    best = c;
    if (said != nullptr) *said = k < own ? std::string() : std::string(t);
  }
  return best;
}

const Catalogue& CatalogueShelf::get() const {
  std::call_once(once_, [this] { catalogue_ = std::make_unique<Catalogue>(Catalogue::load(dir_)); });
  return *catalogue_;
}

std::string default_catalogue_dir() {
#ifdef DTRIAGE_SOURCE_CATALOGUES
  return data_dir("DTRIAGE_CATALOGUE_DIR", "catalogues", DTRIAGE_SOURCE_CATALOGUES);
#else
  return data_dir("DTRIAGE_CATALOGUE_DIR", "catalogues", "catalogues");
#endif
}

}  // namespace dtriage::rules
