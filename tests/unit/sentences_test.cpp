// The sentence catalogue (base/sentences.hpp): every key has its row, in order, with a name of its
// own; placeholders are filled by name, and a missing argument stays visible; the pre-launch checks
// fill every placeholder of what they say.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <set>
#include <string>

#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>

#include "base/sentences.hpp"
#include "base/sentences_tables.hpp"
#include "base/text.hpp"
#include "check/check.hpp"
#include "rules/loader.hpp"
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

// ---- the Chinese texts (--lang zh) ----------------------------------------------------------------
namespace dtriage::base {
namespace {
namespace zh_texts {

std::set<std::string> placeholders_of(const std::string& t) {
  static const std::regex ph(R"(\{([a-z_.]+)\})");
  std::set<std::string> out;
  for (std::sregex_iterator it(t.begin(), t.end(), ph), end; it != end; ++it) out.insert((*it)[1]);
  return out;
}

struct Term {
  std::string en_pattern, zh;
};

std::vector<Term> glossary() {
  std::vector<Term> out;
  const YAML::Node doc = YAML::LoadFile(std::string(DTRIAGE_SOURCE_DIR) + "/docs/zh/glossary.yaml");
  for (const YAML::Node& t : doc["terms"]) out.push_back({t["en"].as<std::string>(), t["zh"].as<std::string>()});
  return out;
}

// Each glossary term the English text uses (outside placeholders, `code`, identifiers_with_underscores
// --flags and DataLoader workers) is rendered by its one Chinese term.
std::vector<std::string> term_problems(const std::string& en, const std::string& zh, const std::vector<Term>& terms) {
  static const re2::RE2 strip(R"(\{[\w.]+\}|`[^`]*`|\b\w+_\w+\b|--[\w-]+|DataLoader workers?)");
  std::string plain = en;
  re2::RE2::GlobalReplace(&plain, strip, "");
  std::vector<std::string> out;
  for (const Term& t : terms) {
    const re2::RE2 re("(?i)" + t.en_pattern);
    if (re2::RE2::PartialMatch(plain, re) && zh.find(t.zh) == std::string::npos)
      out.push_back("'" + t.en_pattern + "' is " + t.zh + " in Chinese: \"" + en + "\" -> \"" + zh + "\"");
  }
  return out;
}

}  // namespace zh_texts

TEST(SentencesZh, EveryKeyHasChineseWithTheSamePlaceholders) {
  for (int k = 0; k < static_cast<int>(Say::kCount); ++k) {
    const Say key = static_cast<Say>(k);
    EXPECT_EQ(detail::kChinese[static_cast<std::size_t>(k)].key, key) << "row " << k << " is out of the enum's order";
    const std::string en(say_template(key, Lang::En)), zh(say_template(key, Lang::Zh));
    EXPECT_FALSE(detail::kChinese[static_cast<std::size_t>(k)].text.empty()) << say_name(key) << ": no Chinese";
    EXPECT_EQ(zh_texts::placeholders_of(en), zh_texts::placeholders_of(zh)) << say_name(key) << ": " << en << " | " << zh;
    // Chinese text where English has words (a key that is only values or identifiers may stay as it is).
    if (std::regex_search(en, std::regex("[a-z]{4,}")) && en.find('{') == std::string::npos && en != "local" && en != "rank") {
      EXPECT_NE(zh, en) << say_name(key) << " is not translated";
    }
  }
}

TEST(SentencesZh, TheGlossarysTermsAreAlwaysTheSame) {
  const auto terms = zh_texts::glossary();
  ASSERT_GT(terms.size(), 20u);
  for (int k = 0; k < static_cast<int>(Say::kCount); ++k) {
    const Say key = static_cast<Say>(k);
    for (const std::string& p : zh_texts::term_problems(std::string(say_template(key, Lang::En)), std::string(say_template(key, Lang::Zh)), terms))
      ADD_FAILURE() << say_name(key) << ": " << p;
  }
  const rules::RuleSet set = rules::load_rules({std::string(DTRIAGE_SOURCE_DIR) + "/rules"});
  ASSERT_GT(set.rules.size(), 50u);
  for (const rules::Rule& r : set.rules)
    for (const auto& [en, zh] : {std::pair{&r.title, &r.zh.title}, {&r.summary, &r.zh.summary}, {&r.remedy, &r.zh.remedy},
                                 {&r.description, &r.zh.description}})
      for (const std::string& p : zh_texts::term_problems(*en, *zh, terms)) ADD_FAILURE() << r.id << ": " << p;
  // Every catalogue entry's meaning (and, for a consequence, what of) in Chinese, in the same terms.
  std::size_t entries = 0;
  for (const auto& file : std::filesystem::directory_iterator(std::string(DTRIAGE_SOURCE_DIR) + "/catalogues")) {
    if (file.path().extension() != ".yaml") continue;
    const YAML::Node doc = YAML::LoadFile(file.path().string());
    for (const YAML::Node& e : doc["entries"]) {
      ++entries;
      const std::string id = e["id"].as<std::string>();
      for (const char* field : {"meaning", "of"}) {
        if (!e[field]) continue;
        const YAML::Node zh = e["zh"] ? e["zh"][field] : YAML::Node();
        if (!zh) {
          ADD_FAILURE() << id << ": no zh." << field;
          continue;
        }
        for (const std::string& p : zh_texts::term_problems(e[field].as<std::string>(), zh.as<std::string>(), terms)) ADD_FAILURE() << id << ": " << p;
      }
    }
  }
  EXPECT_GT(entries, 500u);
  // The test can fail: "timed out" wants 超时.
  EXPECT_EQ(zh_texts::term_problems("rank 3 timed out", "rank 3 超时", terms).size(), 0u);
  EXPECT_EQ(zh_texts::term_problems("rank 3 timed out", "rank 3 等待过久", terms).size(), 1u);
  EXPECT_EQ(zh_texts::term_problems("set {node} and `node`", "设置", terms).size(), 0u);
}

TEST(SentencesZh, TheLanguageComesFromTheScopeTheDefaultOrTheLocale) {
  EXPECT_EQ(language(), Lang::En);
  {
    const LangScope zh(Lang::Zh);
    EXPECT_EQ(say(Say::HeadingEvidence), say_template(Say::HeadingEvidence, Lang::Zh));
    EXPECT_NE(say(Say::HeadingEvidence), "Evidence");
  }
  EXPECT_EQ(say(Say::HeadingEvidence), "Evidence");
  EXPECT_EQ(parse_language("zh_CN"), Lang::Zh);
  EXPECT_EQ(parse_language("zh-TW"), Lang::Zh);
  EXPECT_EQ(parse_language("ZH"), Lang::Zh);
  EXPECT_EQ(parse_language("en_US"), Lang::En);
  EXPECT_EQ(parse_language("C"), Lang::En);
  EXPECT_FALSE(parse_language("fr").has_value());
  // The locale: LC_ALL before LC_MESSAGES before LANG; an unknown one is English.
  auto with = [](const char* all, const char* messages, const char* lang) {
    for (const auto& [var, value] : {std::pair{"LC_ALL", all}, {"LC_MESSAGES", messages}, {"LANG", lang}}) {
      if (value == nullptr) unsetenv(var);
      else setenv(var, value, 1);
    }
    return language_from_environment();
  };
  const std::string saved_all = getenv("LC_ALL") ? getenv("LC_ALL") : "", saved_lang = getenv("LANG") ? getenv("LANG") : "";
  EXPECT_EQ(with(nullptr, nullptr, "zh_CN.UTF-8"), Lang::Zh);
  EXPECT_EQ(with("C.UTF-8", nullptr, "zh_CN.UTF-8"), Lang::En);
  EXPECT_EQ(with(nullptr, "zh_TW.Big5", "en_US.UTF-8"), Lang::Zh);
  EXPECT_EQ(with(nullptr, nullptr, "de_DE.UTF-8"), Lang::En);
  EXPECT_EQ(with(nullptr, nullptr, nullptr), Lang::En);
  with(saved_all.empty() ? nullptr : saved_all.c_str(), nullptr, saved_lang.empty() ? nullptr : saved_lang.c_str());
}

TEST(SentencesZh, TerminalColumnsCountWideCharactersTwice) {
  EXPECT_EQ(display_width("node"), 4u);
  EXPECT_EQ(display_width("节点"), 4u);
  EXPECT_EQ(display_width("rank 节点，"), 11u);
  EXPECT_EQ(pad_columns("节点", 6), "节点  ");
  EXPECT_EQ(pad_columns("8", 3, true), "  8");
  EXPECT_EQ(pad_columns("gpu-a01", 3), "gpu-a01");
}

}  // namespace
}  // namespace dtriage::base
