// `dtriage diff GOOD BAD`: what changed between a run that worked and one that failed.
#include <cstdio>

#include "cli/commands.hpp"
#include "diff/diff.hpp"

namespace dtriage::cli {

int cmd_diff(Config& config) {
  if (config.paths.size() != 2) {
    std::fprintf(stderr, "dtriage: diff wants two PATHs: GOOD (a run that worked) and BAD (the one that failed)\n");
    return 2;
  }
  // Each side is read twice (its analysis, then its templates): standard input cannot be.
  for (const std::string& p : config.paths)
    if (p == "-") {
      std::fprintf(stderr, "dtriage: diff reads each side twice: give files or folders, not - (standard input)\n");
      return 2;
    }
  Output out;
  if (!open_output(out, config.output)) return 2;
  const auto book = load_rules(config);
  if (!book) return 2;
  diff::Side good = diff::read_side(config.paths[0], *book, config.analysis);
  diff::Side bad = diff::read_side(config.paths[1], *book, config.analysis);
  int code = 0;
  for (const diff::Side* s : {&good, &bad}) {
    print_problems(s->job->inventory);
    if (!s->job->read_anything) {
      std::fprintf(stderr, "dtriage: %s: nothing readable\n", s->path.c_str());
      return 2;
    }
    code = std::max(code, exit_code(s->job->read_anything, s->job->inventory));
  }
  diff::Diff d = diff::compare(good, bad);
  if (config.redact) {  // after the comparison, which is of the real names
    report::Redactor red;
    diff::redact(good, bad, d, red);
  }
  const std::string& f = config.format;
  out.buffer() += f == "json" ? diff::render_json(good, bad, d) : f == "markdown" ? diff::render_markdown(good, bad, d)
                  : f == "html" ? diff::render_html(good, bad, d) : diff::render_text(good, bad, d);
  if (!finish_output(out)) return 2;
  return code;
}

}  // namespace dtriage::cli
