// Pure functions from an analysis to what people read: text and JSON.
#pragma once

#include <string>
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

std::string render_json(const Report& r);
std::string render_text(const Report& r, bool color);

}  // namespace dtriage::report
