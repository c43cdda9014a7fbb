#include "base/json_escape.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace dtriage::base {
namespace {

std::string lit(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

TEST(JsonEscape, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(lit("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(lit(std::string("x\0y\x01\t", 5)), R"("x\u0000y\u0001\t")");
}

TEST(JsonEscape, KeepsValidUtf8AndReplacesInvalid) {
  EXPECT_EQ(lit("caf\xc3\xa9 \xe4\xb8\xad"), "\"caf\xc3\xa9 \xe4\xb8\xad\"");
  EXPECT_EQ(lit("\xff"), "\"\xef\xbf\xbd\"");
  EXPECT_EQ(lit("\xc3"), "\"\xef\xbf\xbd\"");              // cut sequence
  EXPECT_EQ(lit("\xed\xa0\x80"), "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");  // surrogate
}

TEST(JsonEscape, OutputAlwaysParses) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  const auto j = nlohmann::json::parse(lit(all));
  EXPECT_TRUE(j.is_string());
  EXPECT_EQ(sanitize_utf8("ok\xff"), "ok\xef\xbf\xbd");
}

}  // namespace
}  // namespace dtriage::base
