// docs/CONTRACT.md is what scripts rely on: its category table, the code's list and the report
// schema's enum are one list; the rank table's endings are the schema's.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "correlate/facts.hpp"
#include "model/categories.hpp"
#include "test_util.hpp"

namespace dtriage::test {
namespace {

std::set<std::string> code_categories() {
  std::set<std::string> out;
  for (std::string_view c : model::kCategories) out.emplace(c);
  return out;
}

TEST(Contract, CategoryTableMatchesTheCode) {
  std::istringstream in(read_file(std::string(DTRIAGE_SOURCE_DIR) + "/docs/CONTRACT.md"));
  std::string line;
  bool in_section = false;
  std::set<std::string> documented;
  static const std::regex row(R"(^\| ([a-z]+(?:-[a-z]+)*) \| )");
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Root-cause categories";
    std::smatch m;
    if (in_section && std::regex_search(line, m, row) && m[1] != "id") documented.insert(m[1]);
  }
  EXPECT_EQ(documented, code_categories());
}

TEST(Contract, SchemaCategoryAndEndingEnumsMatchTheCode) {
  const auto schema = nlohmann::json::parse(read_file(std::string(DTRIAGE_SOURCE_DIR) + "/docs/report.schema.json"));
  std::set<std::string> in_schema;
  for (const auto& c : schema["$defs"]["category"]["enum"]) in_schema.insert(c.get<std::string>());
  EXPECT_EQ(in_schema, code_categories());
  std::set<std::string> endings, schema_endings;
  for (int e = 0; e <= static_cast<int>(correlate::Ending::NeverHeardFrom); ++e)
    endings.insert(correlate::ending_name(static_cast<correlate::Ending>(e)));
  for (const auto& e : schema["properties"]["ranks"]["items"]["properties"]["ending"]["enum"]) schema_endings.insert(e.get<std::string>());
  EXPECT_EQ(endings, schema_endings);
  EXPECT_EQ(endings.size(), 8u);
}

}  // namespace
}  // namespace dtriage::test
