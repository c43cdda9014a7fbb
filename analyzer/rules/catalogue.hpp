// The catalogues (catalogues/<source>.yaml): every message and error code a source of the stack can
// print, with what it means for a post-mortem (a cause and its category, a consequence of what, or
// not a failure). They give a failed job with no rule's root cause its lead, and `rules coverage`
// its figures. catalogues/README.md has the format.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "base/sentences.hpp"
#include <string_view>
#include <vector>

#include "rules/loader.hpp"

namespace re2 {
class RE2;
}

namespace dtriage::rules {

enum class EntryRole { Cause, Consequence, Benign };
const char* role_name(EntryRole r);

struct CatalogueEntry {
  std::string id;        // <source>.<name>
  std::string source;    // the catalogue's source id
  std::string match;     // a constant piece of the printed text, or
  std::string regex;     // an RE2 pattern (exactly one of the two)
  std::string where;     // the source's file(s)
  std::string meaning;   // what it says, in a sentence
  EntryRole role = EntryRole::Benign;
  std::string category;  // a contract category; empty for benign
  std::string of;        // a consequence: of what
  std::string meaning_zh, of_zh;  // the same in Chinese (the entry's `zh:`), "" where none is written
  const std::string& meaning_in(base::Lang lang) const { return lang == base::Lang::Zh && !meaning_zh.empty() ? meaning_zh : meaning; }
  const std::string& of_in(base::Lang lang) const { return lang == base::Lang::Zh && !of_zh.empty() ? of_zh : of; }
  std::vector<std::string> examples;
  std::string file;      // catalogue file:line of the entry
  std::shared_ptr<const re2::RE2> re;  // compiled `regex`

  bool matches(std::string_view text) const;
  // A failure with a category that says why (not benign, not "unknown").
  bool classifies() const { return role != EntryRole::Benign && category != "unknown"; }
};

struct CatalogueSource {
  std::string id, title, origin, file;
};

class Catalogue {
 public:
  // Every *.yaml below `dir` but README-like files; a broken file or entry is a problem, never a
  // crash. A missing directory is an empty catalogue with one problem.
  static Catalogue load(const std::string& dir);
  // From YAML text (tests). `file` names it in problems.
  void load_text(const std::string& text, const std::string& file);

  // The entry that says most of `text`: a cause before a consequence (each with a category that
  // says why) before a failure of category "unknown" before a benign entry, then the longer match;
  // null when none matches.
  const CatalogueEntry* classify(std::string_view text) const;
  // The same over what an event says: its line, its message, its exception line and the further
  // lines of that exception's message (after the exception line, at most 8: NCCL's "Last error:"
  // and its reason under a DistBackendError); the entry that says most of any of them, and in
  // `said` (when given) that further line, trimmed, when it was one that matched (else empty).
  const CatalogueEntry* classify(const model::Event& e, std::string* said = nullptr) const;
  // The words a verdict quotes for such a match: `said` when classify gave one, else the event's
  // message, else its line.
  static const std::string& quoted(const model::Event& e, const std::string& said) {
    return !said.empty() ? said : !e.message.empty() ? e.message : e.text;
  }

  const std::vector<CatalogueEntry>& entries() const { return entries_; }
  const std::vector<CatalogueSource>& sources() const { return sources_; }
  const std::vector<LoadProblem>& problems() const { return problems_; }

 private:
  std::vector<CatalogueEntry> entries_;
  std::vector<CatalogueSource> sources_;
  std::vector<LoadProblem> problems_;
};

// The catalogues of a directory, read the first time they are asked for (from any thread): most
// jobs never need them (a rule names their cause), and reading them costs a run ~40 ms and 3 MB.
class CatalogueShelf {
 public:
  explicit CatalogueShelf(std::string dir) : dir_(std::move(dir)) {}
  const Catalogue& get() const;
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  mutable std::once_flag once_;
  mutable std::unique_ptr<Catalogue> catalogue_;
};

// catalogues/ beside the rule pack: <prefix>/share/dtriage/catalogues when installed, the source
// tree's in a build; $DTRIAGE_CATALOGUE_DIR first.
std::string default_catalogue_dir();

}  // namespace dtriage::rules
