// Regression over the real logs in ../shared/corpus (skipped where it is absent):
//  - every key-evidence line a CASE.md quotes must come out of `dtriage events` as (part of) an event;
//  - `dtriage analyze` must give the category CASE.md names, for at least as many cases as today.
// Both print a per-case score so that a change shows what it gained and lost.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <fstream>
#include <regex>
#include <sstream>

#include "report/report.hpp"
#include "test_util.hpp"

namespace dtriage::test {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name;
  std::string dir;
  std::string category;
  std::vector<std::string> key_evidence;
  std::optional<std::int64_t> root_rank;  // where CASE.md names one rank
  std::string root_node;                  // where CASE.md names one host
};

std::vector<Case> load_cases(const std::string& corpus) {
  std::vector<Case> out;
  std::vector<fs::path> dirs;
  for (const auto& family : fs::directory_iterator(corpus)) {
    if (!family.is_directory()) continue;
    for (const auto& c : fs::directory_iterator(family.path()))
      if (fs::exists(c.path() / "CASE.md") && fs::is_directory(c.path() / "logs")) dirs.push_back(c.path());
  }
  std::sort(dirs.begin(), dirs.end());
  static const std::regex category_re(R"(^(?:- )?category:\s*([a-z-]+))");
  static const std::regex evidence_re(R"(^\s*- `([^`]{12,})`)");
  static const std::regex rank_re(R"(^(?:- )?root_rank:\s*(\d+)\b)");
  static const std::regex node_re(R"(^(?:- )?root_node:\s*([A-Za-z0-9][\w.-]*))");
  for (const auto& d : dirs) {
    Case c;
    c.name = d.filename().string();
    c.dir = (d / "logs").string();
    std::ifstream in(d / "CASE.md");
    std::string line;
    bool in_evidence = false;
    while (std::getline(in, line)) {
      std::smatch m;
      if (c.category.empty() && std::regex_search(line, m, category_re)) c.category = m[1];
      if (std::regex_search(line, m, rank_re)) c.root_rank = std::stoll(m[1]);
      if (std::regex_search(line, m, node_re)) {
        const std::string n = m[1];
        static const std::vector<std::string> not_a_host = {"single", "none", "not", "n", "unknown", "the", "all"};
        if (std::find(not_a_host.begin(), not_a_host.end(), n) == not_a_host.end()) c.root_node = n;
      }
      if (line.find("key_evidence") != std::string::npos) {
        in_evidence = true;
        continue;
      }
      if (in_evidence) {
        if (std::regex_search(line, m, evidence_re)) c.key_evidence.push_back(m[1]);
        else if (!line.empty() && line[0] != ' ' && line[0] != '-') in_evidence = false;
      }
    }
    if (!c.category.empty()) out.push_back(std::move(c));
  }
  return out;
}

// The first 50 characters of a quoted line, without the "..." a CASE.md may use for elisions.
std::string probe_of(const std::string& quote) {
  std::string q = quote.substr(0, quote.find("..."));
  if (q.size() > 50) q = q.substr(0, 50);
  return q;
}

TEST(Corpus, KeyEvidenceLinesBecomeEvents) {
  const std::string corpus = corpus_dir();
  if (corpus.empty()) GTEST_SKIP() << "../shared/corpus is not beside the checkout";
  std::size_t total = 0, found = 0;
  std::ostringstream misses;
  for (const Case& c : load_cases(corpus)) {
    const Collected got = collect_events({c.dir});
    for (const std::string& quote : c.key_evidence) {
      const std::string probe = probe_of(quote);
      if (probe.size() < 12) continue;
      ++total;
      bool hit = false;
      for (const auto& e : got.events) {
        if (e.kind == model::Kind::None || e.kind == model::Kind::Line) continue;
        hit = e.text.find(probe) != std::string::npos;
        for (const auto& b : e.body) hit = hit || b.find(probe) != std::string::npos;
        if (hit) break;
      }
      if (hit) ++found;
      else misses << "  " << c.name << ": " << probe << "\n";
    }
  }
  std::printf("key evidence recognised: %zu of %zu\n%s", found, total, misses.str().c_str());
  // Floor from the state of the parsers when this test was written; raise it as they improve.
  EXPECT_GE(found * 100, total * 95) << "fewer key-evidence lines are recognised than before";
}

// Each case's result is compared with tests/corpus_expected.json: every point CASE.md names
// (category, root rank, root node) is right unless the file records it as a known miss with its
// reason. A difference either way fails, so no case is lost silently while another is gained.
TEST(Corpus, AnalyzeGivesTheRecordedResultOfEachCase) {
  const std::string corpus = corpus_dir();
  if (corpus.empty()) GTEST_SKIP() << "../shared/corpus is not beside the checkout";
  const auto expected = nlohmann::json::parse(read_file(std::string(DTRIAGE_SOURCE_DIR) + "/tests/corpus_expected.json"));
  const auto& misses = expected["misses"];
  std::size_t total = 0, right = 0, ranks = 0, ranks_right = 0, nodes = 0, nodes_right = 0;
  std::ostringstream report, differences;
  for (const Case& c : load_cases(corpus)) {
    const auto v = verdict_of(c.dir);
    auto check = [&](const char* point, bool ok, const std::string& want, const std::string& got) {
      const bool known_miss = misses.contains(c.name) && misses[c.name].contains(point);
      report << (ok ? "  ok    " : "  MISS  ") << c.name << ": " << point << " expected " << want << ", got " << got
             << (known_miss && !ok ? "  (known: " + misses[c.name][point].get<std::string>() + ")" : "") << "\n";
      if (ok && known_miss)
        differences << "  " << c.name << ": " << point << " is now right; remove it from corpus_expected.json\n";
      if (!ok && !known_miss) differences << "  " << c.name << ": " << point << " lost: expected " << want << ", got " << got << "\n";
    };
    const std::string got = v["category"].is_string() ? v["category"].get<std::string>() : "(" + v["status"].get<std::string>() + ")";
    ++total;
    right += got == c.category ? 1 : 0;
    check("category", got == c.category, c.category, got);
    if (c.root_rank) {
      ++ranks;
      const bool ok = v["rank"].is_number_integer() && v["rank"].get<std::int64_t>() == *c.root_rank;
      ranks_right += ok ? 1 : 0;
      check("rank", ok, std::to_string(*c.root_rank), v["rank"].dump());
    }
    if (!c.root_node.empty()) {
      ++nodes;
      const bool ok = v["node"].is_string() && v["node"].get<std::string>() == c.root_node;
      nodes_right += ok ? 1 : 0;
      check("node", ok, c.root_node, v["node"].dump());
    }
  }
  std::printf("categories: %zu passed, %zu failed; root ranks named %zu of %zu, root nodes %zu of %zu\n%s", right,
              total - right, ranks_right, ranks, nodes_right, nodes, report.str().c_str());
  ASSERT_GT(total, 0u);
  EXPECT_TRUE(differences.str().empty()) << "results differ from tests/corpus_expected.json:\n" << differences.str();
}

// --redact masks identities and keeps meaning: on every case, each word of the verdict's and the
// findings' sentences is the same with --redact, or the masked form of the same word where only
// an identity (node#N, host#N, ip#N, email#N, user#N, [redacted]) stands for a part of it, and that
// part is no exception or module name, error code or well-known address. No node name survives.
TEST(Corpus, RedactKeepsEveryWordOfTheVerdictThatIsNoIdentity) {
  const std::string corpus = corpus_dir();
  if (corpus.empty()) GTEST_SKIP() << "../shared/corpus is not beside the checkout";
  static const std::regex identity(R"((?:node|host|ip|email|user)#\d+|\[redacted\])");
  static const std::regex meaning(R"((?:[A-Za-z_]+\.)+[A-Z]\w*|Error|Exception|^0\.0\.0\.0$|^127\.|^E[A-Z]\d{4}$|^(?:torch|nccl|hccl|cuda|c10d)$)");
  auto words = [](const std::string& s) {
    std::vector<std::string> w;
    std::istringstream in(s);
    for (std::string x; in >> x;) w.push_back(x);
    return w;
  };
  std::size_t cases = 0, masked_words = 0;
  std::ostringstream problems;
  for (const Case& c : load_cases(corpus)) {
    const auto a = analyze_path(c.dir);
    const report::Report plain = report_view(*a);
    const report::RedactedReport red = report::redact(plain);
    ++cases;
    std::vector<std::pair<std::string, std::string>> sentences = {{plain.analysis.verdict.summary, red.analysis.verdict.summary}};
    for (std::size_t i = 0; i < plain.analysis.findings.size(); ++i)
      sentences.emplace_back(plain.analysis.findings[i].summary, red.analysis.findings[i].summary);
    for (const auto& [x, y] : sentences) {
      const auto wx = words(x), wy = words(y);
      if (wx.size() != wy.size()) {
        problems << c.name << ": \"" << x << "\" became \"" << y << "\"\n";
        continue;
      }
      for (std::size_t i = 0; i < wx.size(); ++i) {
        if (wx[i] == wy[i]) continue;
        // The masked word as a pattern: each identity stands for some text of the plain word.
        std::string pattern;
        std::size_t at = 0;
        for (auto it = std::sregex_iterator(wy[i].begin(), wy[i].end(), identity); it != std::sregex_iterator(); ++it) {
          pattern += std::regex_replace(wy[i].substr(at, it->position() - at), std::regex(R"([.^$|()\[\]{}*+?\\])"), "\\$&");
          pattern += "(.+?)";
          at = it->position() + it->length();
        }
        pattern += std::regex_replace(wy[i].substr(at), std::regex(R"([.^$|()\[\]{}*+?\\])"), "\\$&");
        std::smatch m;
        if (at == 0 || !std::regex_match(wx[i], m, std::regex(pattern))) {
          problems << c.name << ": '" << wx[i] << "' became '" << wy[i] << "'\n";
          continue;
        }
        ++masked_words;
        for (std::size_t g = 1; g < m.size(); ++g)
          if (std::regex_search(m[g].str(), meaning)) problems << c.name << ": '" << wx[i] << "' lost '" << m[g].str() << "'\n";
      }
    }
    std::string shown = red.analysis.verdict.summary + "\n" + red.analysis.verdict.node;
    for (const auto& f : red.analysis.findings) shown += "\n" + f.summary;
    for (const auto& n : plain.facts.nodes)
      if (n.name.size() >= 4 && n.name != "localhost" && std::regex_search(shown, std::regex("(^|[^A-Za-z0-9])" + std::regex_replace(n.name, std::regex(R"([.^$|()\[\]{}*+?\\])"), "\\$&") + "($|[^A-Za-z0-9])")))
        problems << c.name << ": node " << n.name << " shown in clear\n";
  }
  std::printf("%zu cases, %zu words masked in their sentences\n", cases, masked_words);
  ASSERT_GT(cases, 0u);
  EXPECT_TRUE(problems.str().empty()) << problems.str();
}

}  // namespace
}  // namespace dtriage::test
