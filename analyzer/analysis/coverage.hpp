// How much of the stack's vocabulary dtriage knows: every catalogue entry's examples read through
// the whole analysis (`rules coverage`).
#pragma once

#include <string>
#include <vector>

#include "analysis/analysis.hpp"
#include "rules/catalogue.hpp"

namespace dtriage::analysis {

struct EntryCoverage {
  const rules::CatalogueEntry* entry = nullptr;
  std::string rule;      // a rule of the entry's category that fired on one of its examples
  std::string verdict;   // the verdict's category on its first example, alone ("" when not failed)
  bool by_rule = false;  // `rule` found
  bool by_verdict = false;     // some example, alone, gets the entry's category as the verdict's
  bool quiet = false;          // benign: no example, alone, fails the job
  bool rule_example = false;   // a rule's own examples hold a line the entry matches
};

struct SourceCoverage {
  std::string source, title;
  std::size_t entries = 0;       // messages and codes in its catalogue
  std::size_t classified = 0;    // of them, a cause or consequence with a category that says why (not "unknown")
  std::size_t by_rule = 0;       // classified, and a rule of that category fires on an example
  std::size_t by_verdict = 0;    // classified, and the verdict on an example alone has that category
  std::size_t rule_example = 0;  // classified, and a rule's examples hold such a line
  std::size_t benign = 0, quiet = 0;  // not failures, and of them the ones judged healthy alone
};

struct Coverage {
  std::vector<SourceCoverage> sources;  // in the catalogue's order, then "all"
  std::vector<EntryCoverage> entries;
};

// Every example of every entry of book.catalogue, each as a job of its own (one file of one node).
Coverage coverage(const RuleBook& book);

}  // namespace dtriage::analysis
