// The sentence catalogue (base/sentences.hpp): every key has its row, in order, with a name of its
// own; placeholders are filled by name, and a missing argument stays visible; the pre-launch checks
// fill every placeholder of what they say.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <set>
#include <string>

#include "base/sentences.hpp"
#include "check/check.hpp"
#include "formats/snapshot.hpp"
#include "snapshot_fixture.hpp"

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
    // Braces only around a placeholder's name.
    static const std::regex braces(R"(\{[a-z]+\}|[{}])");
    const std::string t(say_template(key));
    for (std::sregex_iterator it(t.begin(), t.end(), braces), end; it != end; ++it)
      EXPECT_GT(it->str().size(), 1u) << name << ": a lone brace in " << t;
  }
}

TEST(Sentences, KeysAreNamedAfterTheirGroup) {
  for (int k = 0; k < static_cast<int>(Say::kCount); ++k) {
    const Say key = static_cast<Say>(k);
    const std::string name(say_name(key));
    if (k >= static_cast<int>(Say::CheckTitleDevices) && k <= static_cast<int>(Say::CheckReportColumns)) {
      EXPECT_EQ(name.rfind("check.", 0), 0u) << name;
    }
    if (k >= static_cast<int>(Say::InputNotReadToEnd) && k <= static_cast<int>(Say::InputJobTwice)) {
      EXPECT_EQ(name.rfind("input.", 0), 0u) << name;
    }
  }
  EXPECT_EQ(say_name(Say::CheckNprocBelowDevices), "check.nproc-below-devices");
  EXPECT_EQ(say_name(Say::InputTruncated), "input.truncated");
}

TEST(Sentences, ChecksAndInputReasonsSayWhatTheyDidBefore) {
  EXPECT_EQ(say(Say::CheckNprocBelowDevices, {{"nproc", "4"}, {"count", "8"}}),
            "nproc_per_node=4 uses 4 of 8 devices: code that picks devices itself may put two processes on one");
  EXPECT_EQ(say(Say::InputInStream, {{"codec", "gzip"}, {"reason", say(Say::InputTruncated)}}),
            "gzip: truncated input (the stream ends before its end marker)");
  EXPECT_EQ(say(Say::InputRatio, {{"ratio", "1000"}, {"out", "2.0 GiB"}, {"in", "1.0 MiB"}}),
            "expands more than 1000 times (2.0 GiB from 1.0 MiB; a decompression bomb?); raise --max-ratio to read it");
}

// Every check failing or warning at once (and each passing, on the other nodes): no message keeps a
// placeholder.
TEST(Sentences, ChecksFillEveryPlaceholder) {
  auto job = test::healthy_job(4);
  job[0].devices = 7;
  job[0].holders = {{0, 4242, "python", 1024}, {1, 4243, "", 0}};
  job[1].driver = "550.54.15";
  job[1].cuda_driver = "11.8";
  job[1].env["NCCL_IB_DISABLE"] = "1";
  job[1].env["WORLD_SIZE"] = "5";
  job[1].env["NODE_RANK"] = "9";
  job[1].env["MASTER_PORT"] = "29501";
  job[1].reach = "timeout";
  job[1].link = "SYS";
  job[2].models = {"NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"};
  job[2].memory_of = {{1, 40960}};
  job[2].port_state = "bound";
  job[2].port_pid = 77;
  job[2].port_process = "python train.py";
  job[2].leftovers = {"python train.py --resume"};
  job[3].torch_devices = 4;
  job[3].env["CUDA_VISIBLE_DEVICES"] = "0,1,2,3";
  check::Input in;
  for (const auto& n : job) {
    std::vector<std::string> lines;
    std::istringstream text(test::make_snapshot(n));
    for (std::string l; std::getline(text, l);) lines.push_back(l);
    in.snapshots.push_back(formats::parse_snapshot(lines, n.host + ".snapshot"));
  }
  in.launch = check::parse_launch("torchrun --nnodes 3 --nproc_per_node 8 train.py");
  for (const std::string line : {"DTRIAGE_SMOKE host=gpu-a01 rank=0 world_size=4 device=cuda:0 status=ok reduced=6 expected=6 first_batch=1,2 checkpoint=/c/x.pt dataset=100 per_rank=100",
                                 "DTRIAGE_SMOKE host=gpu-a01 rank=1 world_size=4 device=cuda:0 status=error error=boom first_batch=1,2 checkpoint=/c/x.pt dataset=100 per_rank=100",
                                 "DTRIAGE_SMOKE host=gpu-a02 rank=1 world_size=5 device=cuda:0 status=ok reduced=5 expected=6"}) {
    check::SmokeRank r;
    ASSERT_TRUE(check::parse_smoke_line(line, r));
    r.path = "smoke.log";
    r.line = 1;
    r.text = line;
    in.smoke.push_back(r);
  }
  const check::Report r = check::run_checks(in);
  static const std::regex placeholder(R"(\{[a-z]+\})");
  for (const std::string& out : {check::render_text(r), check::render_json(r), check::render_markdown(r)})
    EXPECT_FALSE(std::regex_search(out, placeholder)) << out;
  check::Input none;
  for (const std::string& out : {check::render_text(check::run_checks(none)), check::render_markdown(check::run_checks(none))})
    EXPECT_FALSE(std::regex_search(out, placeholder)) << out;
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
