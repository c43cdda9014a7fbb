// The sentence catalogue (base/sentences.hpp): every key has its row, in order, with a name of its
// own; placeholders are filled by name, and a missing argument stays visible.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "base/sentences.hpp"

namespace dtriage::base {
namespace {

TEST(Sentences, EveryKeyHasOneNamedTemplate) {
  std::set<std::string> names;
  static const std::regex name_shape(R"(^[a-z]+\.[a-z-]+$)");
  for (int k = 0; k < static_cast<int>(Say::kCount); ++k) {
    const Say key = static_cast<Say>(k);
    const std::string name(say_name(key));
    EXPECT_TRUE(std::regex_match(name, name_shape)) << name;
    EXPECT_TRUE(names.insert(name).second) << "two keys named " << name;
    EXPECT_FALSE(say_template(key).empty()) << name;
  }
}

TEST(Sentences, PlaceholdersAreFilledByName) {
  EXPECT_EQ(say(Say::VerdictUnknownLeadOnNode, {{"message", "EE9999 inner error"}, {"node", "cn07"}, {"where", "a/plog-1_2.log:4"}}),
            "No rule names the cause; the earliest error is a/plog-1_2.log:4 on cn07: EE9999 inner error");
  EXPECT_EQ(say(Say::RankExit, {{"code", "137"}}), "exit code 137");
  // A value that holds braces is not read as a placeholder; a missing argument is left as it is.
  EXPECT_EQ(say(Say::RankStopped, {{"signal", "{node}"}}), "{node} from its launcher");
  EXPECT_EQ(say(Say::RankExit), "exit code {code}");
}

}  // namespace
}  // namespace dtriage::base
