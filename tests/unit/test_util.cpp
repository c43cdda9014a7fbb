#include "test_util.hpp"

#include <cstdint>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <stdexcept>

#include "cli/commands.hpp"
#include "formats/pipeline.hpp"
#include "lines/line_reader.hpp"
#include "report/report.hpp"

namespace dtriage::test {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "dtriage-test-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
  path_ = tmpl;
  ::chmod(path_.c_str(), 0755);
}

TempDir::~TempDir() {
  std::error_code ec;
  // Restore permissions a test may have removed, then delete.
  std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
  for (auto it = std::filesystem::recursive_directory_iterator(path_, ec);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_symlink(ec))
      std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
  }
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& rel, const std::string& content) const {
  const std::filesystem::path p = std::filesystem::path(path_) / rel;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
  return p.string();
}

int sh(const std::string& command) {
  const int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool exists(const std::string& path) { return std::filesystem::exists(path); }

const analysis::RuleBook& rule_pack() {
  static const analysis::RuleBook book = [] {
    auto b = analysis::RuleBook::load({std::string(DTRIAGE_SOURCE_DIR) + "/rules"});
    if (!b) throw std::runtime_error(b.error());
    return std::move(b.value());
  }();
  return book;
}

std::unique_ptr<analysis::Analysis> analyze_path(const std::string& path, const analysis::Options& options) {
  return analysis::analyze(analysis::Inputs{{path}, {}, {}}, rule_pack(), options);
}

report::Report report_view(const analysis::Analysis& a, const analysis::RuleBook& book) {
  return report::Report{a.events, a.facts, a.outcome, a.inventory, book.set.problems, book.set.rules.size(), "test", "", ""};
}

std::string json_report(const analysis::Analysis& a, const analysis::RuleBook& book) {
  return report::render_json(report_view(a, book));
}

nlohmann::json verdict_of(const std::string& path) { return nlohmann::json::parse(json_report(*analyze_path(path)))["verdict"]; }

int exit_code_of(const analysis::Analysis& a) { return cli::exit_code(a.read_anything, a.inventory); }

nlohmann::json analyze_report(const std::string& path, int* exit_code) {
  const auto a = analyze_path(path);
  if (exit_code != nullptr) *exit_code = exit_code_of(*a);
  return nlohmann::json::parse(json_report(*a));
}

RunResult run_dtriage(const std::string& args, const std::string& stdin_file) {
  TempDir tmp;
  const std::string out = tmp.file("out"), err = tmp.file("err");
  std::string cmd = std::string("'") + DTRIAGE_BINARY + "' " + args + " >" + out + " 2>" + err;
  cmd += stdin_file.empty() ? " </dev/null" : " <'" + stdin_file + "'";
  RunResult r;
  r.exit_code = sh(cmd);
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

namespace {

class CollectSink final : public ingest::Sink {
 public:
  CollectSink(Collected& c, std::size_t max_line, bool parse) : c_(c), max_line_(max_line), parse_(parse) {}
  void on_text(const ingest::Source& source, ingest::ByteReader& text) override {
    formats::ParseOptions opt;
    opt.raw = !parse_;
    const auto counts = formats::parse_stream(text, source, opt, max_line_,
                                              [this](model::Event&& e) { c_.events.push_back(std::move(e)); });
    c_.inventory.lines += counts.lines;
    c_.inventory.lines_cut += counts.lines_cut;
  }

 private:
  Collected& c_;
  std::size_t max_line_;
  bool parse_;
};

Collected collect(const std::vector<std::string>& paths, ingest::Limits limits, std::size_t max_line, bool parse) {
  Collected c;
  ingest::Ingestor ing(limits, ingest::NodeHints(), c.inventory);
  CollectSink sink(c, max_line, parse);
  ing.run(paths, sink);
  c.read_anything = ing.read_anything();
  return c;
}

}  // namespace

Collected collect_lines(const std::vector<std::string>& paths, ingest::Limits limits, std::size_t max_line) {
  return collect(paths, limits, max_line, false);
}

Collected collect_events(const std::vector<std::string>& paths) {
  return collect(paths, {}, 1 << 20, true);
}

std::string events_jsonl(const std::vector<std::string>& paths, int* exit_code) {
  const Collected c = collect_events(paths);
  if (exit_code != nullptr) *exit_code = cli::exit_code(c.read_anything, c.inventory);
  std::string out;
  for (const model::Event& e : c.events) model::append_jsonl(out, e);
  return out;
}

bool in_this_builds_share(const std::string& name) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a: stable across runs and compilers
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h % kSlowBuildShare == 0;
}

std::string corpus_dir() {
  const char* env = std::getenv("DTRIAGE_CORPUS");
  const std::string dir = env != nullptr ? env : DTRIAGE_CORPUS_DIR;
  return std::filesystem::is_directory(dir) ? dir : std::string();
}

}  // namespace dtriage::test
