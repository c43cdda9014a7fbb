// The dtriage binary: exit codes, output formats, -o, stdin, permission errors.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "test_util.hpp"

namespace dtriage::test {
namespace {

std::vector<nlohmann::json> parse_jsonl(const std::string& s) {
  std::vector<nlohmann::json> out;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST(Cli, EventsJsonlHasContractFields) {
  TempDir d;
  static const char kText[] = "first\nsecond \xff with \"quotes\" and \0 nul\n";
  d.write("job/node2/train.log", std::string(kText, sizeof kText - 1));
  const RunResult r = run_dtriage("events --raw '" + d.file("job") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto events = parse_jsonl(r.out);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1]["path"], "node2/train.log");
  EXPECT_EQ(events[1]["line"], 2);
  EXPECT_EQ(events[1]["node"], "node2");
  EXPECT_EQ(events[1]["text"].get<std::string>().substr(0, 7), "second ");
}

TEST(Cli, ExitCodeOneWhenSomeInputIsUnreadable) {
  TempDir d;
  d.write("job/ok.log", "ok\n");
  d.write("job/cut.gz", std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8));
  const RunResult r = run_dtriage("events --raw '" + d.file("job") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cut.gz"), std::string::npos);
  EXPECT_EQ(parse_jsonl(r.out).size(), 1u);
}

TEST(Cli, ExitCodeTwoWhenNothingIsReadable) {
  EXPECT_EQ(run_dtriage("events /nonexistent/x").exit_code, 2);
  EXPECT_EQ(run_dtriage("analyze /nonexistent/x").exit_code, 2);
}

TEST(Cli, ExitCodeTwoOnUsageErrors) {
  EXPECT_EQ(run_dtriage("").exit_code, 2);
  EXPECT_EQ(run_dtriage("events").exit_code, 2);
  EXPECT_EQ(run_dtriage("events --format nope x").exit_code, 2);
  EXPECT_EQ(run_dtriage("events --max-line-bytes zero x").exit_code, 2);
  EXPECT_EQ(run_dtriage("events --node-from-path '(' x").exit_code, 2);
  EXPECT_EQ(run_dtriage("--version").exit_code, 0);
}

// Issue 25: what a user trips on at the command line.
TEST(Cli, AMissingPathIsAnErrorWithoutAReport) {
  TempDir d;
  d.write("job/a.log", "[rank0]: RuntimeError: boom\n");
  for (const std::string cmd : {"analyze", "events", "check", "scan"}) {
    const RunResult r = run_dtriage(cmd + " '" + d.file("job") + "' '" + d.file("no-such-dir") + "'");
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_TRUE(r.out.empty()) << cmd << ": " << r.out;
    EXPECT_NE(r.err.find(d.file("no-such-dir") + ": No such file or directory"), std::string::npos) << cmd << ": " << r.err;
  }
}

TEST(Cli, AMistypedCommandOrOptionGetsTheNearestOne) {
  const RunResult sub = run_dtriage("analyse x");
  EXPECT_EQ(sub.exit_code, 2);
  EXPECT_NE(sub.err.find("did you mean 'analyze'?"), std::string::npos) << sub.err;
  const RunResult none = run_dtriage("frobnicate x");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err.find("did you mean"), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("'frobnicate' is not a command"), std::string::npos) << none.err;
  const RunResult opt = run_dtriage("analyze --fromat json x");
  EXPECT_EQ(opt.exit_code, 2);
  EXPECT_NE(opt.err.find("did you mean --format?"), std::string::npos) << opt.err;
  const RunResult scan = run_dtriage("scan --resme x");
  EXPECT_NE(scan.err.find("did you mean --resume?"), std::string::npos) << scan.err;
}

// Issue 27: usage errors are said in the language asked for, with --lang before or after the command.
TEST(Cli, UsageErrorsAreSaidInTheLanguageAskedFor) {
  const RunResult sub = run_dtriage("--lang zh analyse x");
  EXPECT_EQ(sub.exit_code, 2);
  EXPECT_NE(sub.err.find("'analyse' 不是 dtriage 的命令，是否想用 'analyze'？"), std::string::npos) << sub.err;
  const RunResult opt = run_dtriage("analyze --lang zh --fromat json x");
  EXPECT_EQ(opt.exit_code, 2);
  EXPECT_NE(opt.err.find("analyze 没有选项 --fromat，是否想用 --format？"), std::string::npos) << opt.err;
  const RunResult far = run_dtriage("--lang=zh analyze --qqqqqqqqqq x");
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_NE(far.err.find("--qqqqqqqqqq：该命令不接受这个选项或参数"), std::string::npos) << far.err;
  EXPECT_NE(far.err.find("dtriage --help 或 dtriage 命令 --help"), std::string::npos) << far.err;
  TempDir d;
  const RunResult missing = run_dtriage("--lang zh analyze '" + d.file("no-such-dir") + "'");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("（未分析任何内容）"), std::string::npos) << missing.err;
  // The same mistakes without --lang stay English (the tests run in the C locale).
  EXPECT_NE(run_dtriage("analyze --fromat json x").err.find("has no option --fromat"), std::string::npos);
  const RunResult far_en = run_dtriage("analyze --qqqqqqqqqq x");
  EXPECT_NE(far_en.err.find("--qqqqqqqqqq: not an option or argument this command takes"), std::string::npos) << far_en.err;
  EXPECT_NE(far_en.err.find("dtriage --help, or dtriage COMMAND --help"), std::string::npos) << far_en.err;
}

// Issue 27: `rules show` prints a rule's description in the language asked for, where it has one.
TEST(Cli, RulesShowSaysTheDescriptionInTheLanguageAskedFor) {
  const RunResult zh = run_dtriage("rules show --lang zh torch.desync-report");
  EXPECT_EQ(zh.exit_code, 0);
  EXPECT_NE(zh.out.find("设置 TORCH_NCCL_DESYNC_DEBUG=1"), std::string::npos) << zh.out;
  const RunResult en = run_dtriage("rules show torch.desync-report");
  EXPECT_NE(en.out.find("With TORCH_NCCL_DESYNC_DEBUG=1"), std::string::npos) << en.out;
  EXPECT_EQ(en.out.find("设置"), std::string::npos) << en.out;
}

// Issue 27: scan's closing line counts the jobs by status in the language asked for.
TEST(Cli, ScanCountsJobsInTheLanguageAskedFor) {
  TempDir d;
  d.write("jobs/a/x.log", "[rank0]: RuntimeError: boom\n");
  d.write("jobs/b/x.log", "step 1 loss 2.0\n");
  const RunResult zh = run_dtriage("scan --lang zh '" + d.file("jobs") + "'");
  EXPECT_EQ(zh.exit_code, 0);
  EXPECT_NE(zh.err.find("2 个作业"), std::string::npos) << zh.err;
  EXPECT_NE(zh.err.find("（失败 1 个，正常 1 个）"), std::string::npos) << zh.err;
  const RunResult en = run_dtriage("scan '" + d.file("jobs") + "'");
  EXPECT_NE(en.err.find("2 jobs in "), std::string::npos) << en.err;
  EXPECT_NE(en.err.find(" (1 failed, 1 healthy)"), std::string::npos) << en.err;
}

TEST(Cli, TheReportFormatComesFromTheOutputFileUnlessGiven) {
  TempDir d;
  d.write("job/a.log", "[rank0]: RuntimeError: boom\n");
  const std::string job = " '" + d.file("job") + "'";
  ASSERT_EQ(run_dtriage("analyze -o '" + d.file("r.html") + "'" + job).exit_code, 0);
  EXPECT_EQ(read_file(d.file("r.html")).rfind("<!doctype html>", 0), 0u);
  ASSERT_EQ(run_dtriage("analyze -o '" + d.file("r.json") + "'" + job).exit_code, 0);
  EXPECT_TRUE(nlohmann::json::accept(read_file(d.file("r.json"))));
  ASSERT_EQ(run_dtriage("analyze -o '" + d.file("r.md") + "'" + job).exit_code, 0);
  EXPECT_EQ(read_file(d.file("r.md")).rfind("## ", 0), 0u) << read_file(d.file("r.md")).substr(0, 80);
  ASSERT_EQ(run_dtriage("analyze --format text -o '" + d.file("t.html") + "'" + job).exit_code, 0);
  EXPECT_EQ(read_file(d.file("t.html")).rfind("verdict:", 0), 0u);
  ASSERT_EQ(run_dtriage("analyze -o '" + d.file("r.out") + "'" + job).exit_code, 0);
  EXPECT_EQ(read_file(d.file("r.out")).rfind("verdict:", 0), 0u);
  const RunResult j = run_dtriage("analyze --json" + job);
  EXPECT_TRUE(nlohmann::json::accept(j.out)) << j.out.substr(0, 80);
  EXPECT_EQ(run_dtriage("analyze --json --format html" + job).exit_code, 2);
}

TEST(Cli, CiPutsTheVerdictInTheExitCode) {
  TempDir d;
  d.write("failed/a.log", "[rank0]: RuntimeError: boom\n");
  d.write("healthy/a.log", "[rank0]: step 1/10 loss 2.0\n[rank0]: step 2/10 loss 1.9\n");
  d.write("nothing/a.log", "");
  EXPECT_EQ(run_dtriage("analyze --ci '" + d.file("failed") + "'").exit_code, 3);
  EXPECT_EQ(run_dtriage("analyze --ci '" + d.file("healthy") + "'").exit_code, 0);
  EXPECT_EQ(run_dtriage("analyze --ci '" + d.file("nothing") + "'").exit_code, 4);
  EXPECT_EQ(run_dtriage("analyze '" + d.file("failed") + "'").exit_code, 0);  // the contract's 0 without --ci
}

TEST(Cli, CheckWithNothingToCheckIsAnError) {
  TempDir d;
  d.write("logs/a.log", "[rank0]: RuntimeError: boom\n");
  const RunResult r = run_dtriage("check '" + d.file("logs") + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("nothing to check"), std::string::npos) << r.err;
}

TEST(Cli, ArchivesOfFormatsNotReadAreNamed) {
  TempDir d;
  d.write("job/a.rar", std::string("Rar!\x1a\x07\x01\x00", 8) + std::string(64, '\x01'));
  d.write("job/b.7z", std::string("7z\xbc\xaf\x27\x1c", 6) + std::string(64, '\x02'));
  d.write("job/ok.log", "[rank0]: RuntimeError: boom\n");
  const RunResult r = run_dtriage("analyze --json '" + d.file("job") + "'");
  EXPECT_EQ(r.exit_code, 1);
  const auto j = nlohmann::json::parse(r.out);
  std::string reasons;
  for (const auto& u : j["inputs"]["unreadable"]) reasons += u["path"].get<std::string>() + ": " + u["reason"].get<std::string>() + "\n";
  EXPECT_NE(reasons.find("a.rar: a RAR archive, a format dtriage does not read: unpack it (unrar x FILE)"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("b.7z: a 7-Zip archive"), std::string::npos) << reasons;
}

TEST(Cli, AFolderOfJobsGivenToAnalyzeGetsAHintToScan) {
  TempDir d;
  for (const char* job : {"job-101", "job-102", "job-103"})
    for (const char* node : {"n1", "n2"})
      d.write(std::string("jobs/") + job + "/" + node + "/train.log",
              std::string(node) == "n1" ? "[rank0]: step 3/10 loss 2.0\n[rank0]: RuntimeError: boom\n" : "[rank1]: step 3/10 loss 2.0\n");
  const RunResult many = run_dtriage("analyze '" + d.file("jobs") + "'");
  EXPECT_NE(many.err.find("looks like 3 jobs (job-101, job-102, job-103"), std::string::npos) << many.err;
  EXPECT_NE(many.err.find("dtriage scan"), std::string::npos) << many.err;
  const RunResult one = run_dtriage("analyze '" + d.file("jobs/job-101") + "'");
  EXPECT_EQ(one.err.find("looks like"), std::string::npos) << one.err;
}

// The HTML report says what made it, when and from what (SOURCE_DATE_EPOCH fixes the time).
TEST(Cli, HtmlReportNamesVersionTimeAndInput) {
  TempDir d;
  d.write("job-4711/gpu-q07/a.log", "[rank0]: RuntimeError: boom\n");
  ::setenv("SOURCE_DATE_EPOCH", "1767225600", 1);
  const RunResult r = run_dtriage("analyze --format html '" + d.file("job-4711") + "'");
  const RunResult red = run_dtriage("analyze --redact --format html '" + d.file("job-4711/gpu-q07") + "'");
  ::unsetenv("SOURCE_DATE_EPOCH");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string version = run_dtriage("--version").out.substr(0, 5);
  EXPECT_NE(r.out.find("<p class=\"meta source\">dtriage " + version), std::string::npos) << r.out.substr(0, 3000);
  EXPECT_NE(r.out.find(" &middot; analysed 2026-01-01T00:00:00Z &middot; <span class=\"inputs\">" + d.file("job-4711") + "</span>"),
            std::string::npos)
      << r.out.substr(0, 3000);
  EXPECT_EQ(red.out.find("gpu-q07"), std::string::npos) << "the input path is masked with --redact";
}

TEST(Cli, StdinIsAnInput) {
  TempDir d;
  const std::string f = d.write("in.log", "from stdin\n");
  ASSERT_EQ(sh("gzip -k '" + f + "'"), 0);
  const RunResult r = run_dtriage("events --raw -", f + ".gz");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto events = parse_jsonl(r.out);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["path"], "<stdin>");
  EXPECT_EQ(events[0]["text"], "from stdin");
}

TEST(Cli, OutputFileOption) {
  TempDir d;
  d.write("a.log", "x\n");
  const RunResult r = run_dtriage("events --raw -o '" + d.file("out.jsonl") + "' '" + d.file("a.log") + "'");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(parse_jsonl(read_file(d.file("out.jsonl"))).size(), 1u);
}

TEST(Cli, ScanSummaryThatCannotBeWrittenIsSaidOnceWithItsPath) {
  TempDir d;
  d.write("jobs/a/x.log", "x\n");
  const std::string where = d.file("no-such-dir") + "/summary.md";
  const RunResult r =
      run_dtriage("scan -o '" + d.file("out.jsonl") + "' --summary '" + where + "' '" + d.file("jobs") + "'");
  EXPECT_NE(r.err.find("cannot write " + where + ": "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("cannot write cannot write"), std::string::npos) << r.err;
  EXPECT_EQ(parse_jsonl(read_file(d.file("out.jsonl"))).size(), 1u);  // the scan itself went on
}

TEST(Cli, LongLinesAreCutAndCounted) {
  TempDir d;
  d.write("a.log", std::string(5 << 20, 'q') + "\nnext\n");
  const RunResult r = run_dtriage("events --raw '" + d.file("a.log") + "'");
  ASSERT_EQ(r.exit_code, 0);
  const auto events = parse_jsonl(r.out);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["text"].get<std::string>().size(), 1u << 20);
  EXPECT_EQ(events[0]["cut"], true);
  EXPECT_EQ(events[1]["line"], 2);
  EXPECT_NE(r.err.find("1 lines longer"), std::string::npos);
  const RunResult small = run_dtriage("events --raw --max-line-bytes 1K '" + d.file("a.log") + "'");
  EXPECT_EQ(parse_jsonl(small.out)[0]["text"].get<std::string>().size(), 1024u);
}

// -C N: the lines around the verdict's evidence, read again from the inputs (here inside a gzip
// file), marked "path-N" as grep marks context; neighbouring evidence shares its context; none from
// standard input; --redact masks them too; --full keeps a long evidence line whole.
TEST(Cli, ContextLinesAroundTheEvidence) {
  TempDir d;
  std::string log;
  for (int i = 1; i <= 40; ++i) log += "[default3]: iteration " + std::to_string(i) + "/ 900 | lm loss: 2.61E+00 | grad norm: 0.3\n";
  log += "[rank3]: mail ops-oncall@example.org when the node is back\n";
  log += "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered " + std::string(300, 'x') + "\n";
  log += "[rank3]: Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n";
  for (int i = 41; i <= 60; ++i) log += "[default3]: iteration " + std::to_string(i) + "/ 900 | lm loss: 2.60E+00\n";
  const std::string f = d.write("job/h800-n7/rank3.log", log);
  ASSERT_EQ(sh("gzip '" + f + "'"), 0);
  const std::string job = d.file("job");

  const RunResult plain = run_dtriage("analyze --color never '" + job + "'");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.out.find("h800-n7/rank3.log.gz:42"), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("h800-n7/rank3.log.gz-41"), std::string::npos) << plain.out;
  auto evidence_line = [](const std::string& out) {  // the evidence line of line 42, as shown
    const std::size_t at = out.find("h800-n7/rank3.log.gz:42  ");
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
  };
  EXPECT_EQ(evidence_line(plain.out).find(std::string(300, 'x')), std::string::npos) << plain.out;  // cut to the width

  const RunResult two = run_dtriage("analyze --color never -C 2 '" + job + "'");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_NE(two.out.find("h800-n7/rank3.log.gz-40  [default3]: iteration 40/ 900"), std::string::npos) << two.out;
  EXPECT_NE(two.out.find("h800-n7/rank3.log.gz-41  [rank3]: mail ops-oncall@example.org"), std::string::npos) << two.out;
  EXPECT_NE(two.out.find("h800-n7/rank3.log.gz-43  [rank3]: Compile with"), std::string::npos) << two.out;
  EXPECT_NE(two.out.find("h800-n7/rank3.log.gz-44  [default3]: iteration 41/ 900"), std::string::npos) << two.out;
  EXPECT_EQ(two.out.find("h800-n7/rank3.log.gz-39"), std::string::npos) << two.out;
  EXPECT_EQ(two.out.find("h800-n7/rank3.log.gz-45"), std::string::npos) << two.out;

  const RunResult json = run_dtriage("analyze --json -C 1 '" + job + "'");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  bool seen = false;
  for (const auto& fj : j["findings"])
    for (const auto& e : fj["evidence"])
      if (e["line"] == 42 && e.contains("before")) {
        seen = true;
        ASSERT_EQ(e["before"].size(), 1u);
        EXPECT_EQ(e["before"][0]["line"], 41);
        EXPECT_EQ(e["after"][0]["line"], 43);
      }
  EXPECT_TRUE(seen) << json.out;

  const RunResult masked = run_dtriage("analyze --color never --redact -C 2 '" + job + "'");
  EXPECT_EQ(masked.out.find("ops-oncall@example.org"), std::string::npos) << masked.out;
  EXPECT_NE(masked.out.find("[rank3]: mail "), std::string::npos) << masked.out;

  const RunResult piped = run_dtriage("analyze --color never -C 2 -", f + ".gz");
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_NE(piped.out.find("<stdin>:42"), std::string::npos) << piped.out;
  EXPECT_EQ(piped.out.find("<stdin>-41"), std::string::npos) << piped.out;

  const RunResult full = run_dtriage("analyze --color never --full '" + job + "'");
  EXPECT_NE(evidence_line(full.out).find(std::string(300, 'x')), std::string::npos) << full.out;
}

// Evidence groups apart in a file are separated by "--", as grep -C separates them; lines read from
// standard input have no context, so nothing separates them there.
TEST(Cli, ContextSeparatorOnlyBetweenGroupsWithContext) {
  TempDir d;
  std::string log;
  for (int i = 1; i <= 30; ++i) log += "step " + std::to_string(i) + " loss 1.9\n";
  log += "[rank2]: RuntimeError: CUDA error: an illegal memory access was encountered\n";
  for (int i = 31; i <= 50; ++i) log += "step " + std::to_string(i) + " loss 1.8\n";
  log += "[rank6]: RuntimeError: CUDA error: an illegal memory access was encountered\n";
  const std::string f = d.write("job/gpu-b11/train.log", log);
  auto separators = [](const std::string& out) {
    std::size_t n = 0;
    for (std::size_t at = out.find("\n    --\n"); at != std::string::npos; at = out.find("\n    --\n", at + 1)) ++n;
    return n;
  };
  const RunResult file = run_dtriage("analyze --color never -C 1 '" + d.file("job") + "'");
  ASSERT_EQ(file.exit_code, 0) << file.err;
  ASSERT_NE(file.out.find("train.log:52"), std::string::npos) << file.out;
  EXPECT_NE(file.out.find("train.log-30"), std::string::npos) << file.out;
  EXPECT_EQ(separators(file.out), 1u) << file.out;
  const RunResult piped = run_dtriage("analyze --color never -C 1 -", f);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  ASSERT_NE(piped.out.find("<stdin>:52"), std::string::npos) << piped.out;
  EXPECT_EQ(separators(piped.out), 0u) << piped.out;
}

// The HTML report's timeline markers link to what they mark: the root's to the evidence, a
// consequence's to its line in the list, a node's first error to the node's row; every link of the
// page has its target, on every sample.
TEST(Cli, HtmlMarkersLinkToTheirEvidence) {
  for (const auto& sample : std::filesystem::directory_iterator(std::string(DTRIAGE_SOURCE_DIR) + "/samples")) {
    if (!sample.is_directory()) continue;
    const RunResult r = run_dtriage("analyze --format html '" + sample.path().string() + "'");
    ASSERT_EQ(r.exit_code, 0) << sample.path() << r.err;
    std::set<std::string> ids, hrefs;
    const std::regex id("id=\"([^\"]+)\""), href("<a href=\"#([^\"]+)\"");
    for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), id); it != std::sregex_iterator(); ++it) ids.insert((*it)[1]);
    for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), href); it != std::sregex_iterator(); ++it) hrefs.insert((*it)[1]);
    for (const std::string& h : hrefs) EXPECT_EQ(ids.count(h), 1u) << sample.path() << ": #" << h;
    if (sample.path().filename() == "seed-nproc-sdma") {
      EXPECT_EQ(hrefs.count("evidence"), 1u);
      EXPECT_EQ(hrefs.count("consequence-ascend.sdma-error"), 1u);
      EXPECT_EQ(hrefs.count("nrow-0"), 1u);
      // Each other finding is anchored and says where its first line is.
      EXPECT_EQ(ids.count("finding-0"), 1u);
      EXPECT_NE(r.out.find("launcher.closing-signal &middot; first npu-a01/train.log:"), std::string::npos);
    }
  }
}

// A related finding (listed under "Other findings") is marked on the timeline too, on each node its
// evidence touches, and its mark links to its own entry of that list (a real two-fault lab job: a
// SIGSEGV on one node, a SIGKILL on another).
TEST(Cli, HtmlRelatedFindingsAreMarkedAndLinked) {
  const std::string job = std::string(DTRIAGE_SOURCE_DIR) + "/tests/lab/cases/lab-40005-two-faults";
  if (!std::filesystem::exists(job)) GTEST_SKIP() << job;
  const RunResult r = run_dtriage("analyze --format html '" + job + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::regex mark("<a href=\"#(finding-[0-9]+)\"><circle class=\"related");
  std::size_t marks = 0;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), mark); it != std::sregex_iterator(); ++it, ++marks) {
    const std::string target = "<li id=\"" + (*it)[1].str() + "\">[related]";
    EXPECT_NE(r.out.find(target), std::string::npos) << target;
  }
  EXPECT_GE(marks, 2u) << r.out;
  EXPECT_NE(r.out.find("other finding (listed below)"), std::string::npos);  // the legend says what they are
}

// The node table's times share one precision (the finest its rows have, at most ms), so that a
// column of first errors reads in order (issue 25: nanosecond and second stamps were mixed).
TEST(Cli, NodeTableTimesShareOnePrecision) {
  TempDir d;
  d.write("job/gpu-k3/train.log", "2026-01-02 10:00:00,123456789 [rank0]: RuntimeError: CUDA error: an illegal memory access was encountered\n");
  d.write("job/gpu-k4/train.log", "2026-01-02 10:00:05 [rank1]: ValueError: bad value\n");
  const RunResult r = run_dtriage("analyze '" + d.file("job") + "'");
  EXPECT_NE(r.out.find("2026-01-02T10:00:00.123 RuntimeError"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2026-01-02T10:00:05.000 ValueError"), std::string::npos) << r.out;
  d.write("job/gpu-k3/train.log", "2026-01-02 10:00:00 [rank0]: RuntimeError: CUDA error: an illegal memory access was encountered\n");
  EXPECT_NE(run_dtriage("analyze '" + d.file("job") + "'").out.find("2026-01-02T10:00:05 ValueError"), std::string::npos);
}

// A root cause printed without a time, in a file whose other lines have one, is drawn on the HTML
// timeline at its file's order (hollow, said in the legend and its title); with no timed line in
// its file it is counted as not drawn.
TEST(Cli, HtmlTimelinePlacesUntimedMarksByTheirFilesOrder) {
  TempDir d;
  d.write("job/gpu-p1/train.log",
          "2026-02-03 11:20:00 [rank0]: step 10 loss 2.1\n[rank0]: Traceback (most recent call last):\n"
          "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
          "2026-02-03 11:30:00 gpu-p1:91:93 [0] NCCL INFO comm 0x1 rank 0 nranks 2 - Abort COMPLETE\n");
  d.write("job/gpu-p2/train.log", "2026-02-03 11:40:00 [rank1]: RuntimeError: NCCL communicator was aborted on rank 1.\n");
  const RunResult r = run_dtriage("analyze --format html '" + d.file("job") + "'");
  EXPECT_NE(r.out.find("class=\"root placed\""), std::string::npos) << r.out.substr(0, 3000);
  EXPECT_NE(r.out.find("drawn at the time of line 4 of the same file"), std::string::npos);  // the next timed event
  EXPECT_NE(r.out.find("placed by their file&#39;s order"), std::string::npos);
  d.write("job/gpu-p1/train.log", "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n");
  const RunResult u = run_dtriage("analyze --format html '" + d.file("job") + "'");
  EXPECT_EQ(u.out.find("root placed"), std::string::npos);
  EXPECT_NE(u.out.find("without a time are not drawn"), std::string::npos) << u.out.substr(0, 3000);
}

TEST(Cli, PermissionDeniedFileIsUnreadable) {
  TempDir d;
  d.write("job/ok.log", "ok\n");
  const std::string denied = d.write("job/secret.log", "hidden\n");
  ASSERT_EQ(::chmod(denied.c_str(), 0), 0);
  std::string prefix;
  if (::geteuid() == 0) {
    // root reads anything: run as nobody instead.
    if (sh("command -v setpriv >/dev/null") != 0) GTEST_SKIP() << "running as root without setpriv";
    ::chmod(d.file("job").c_str(), 0755);
    ::chmod(d.file("job/ok.log").c_str(), 0644);
    prefix = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  }
  const std::string cmd = prefix + "'" + DTRIAGE_BINARY + "' events --raw '" + d.file("job") + "' >'" +
                          d.file("out") + "' 2>'" + d.file("err") + "'";
  EXPECT_EQ(sh(cmd), 1);
  EXPECT_NE(read_file(d.file("err")).find("secret.log: Permission denied"), std::string::npos) << read_file(d.file("err"));
  EXPECT_EQ(parse_jsonl(read_file(d.file("out"))).size(), 1u);
}

}  // namespace
}  // namespace dtriage::test
