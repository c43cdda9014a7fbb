#include "formats/path_facts.hpp"

#include <re2/re2.h>

#include "formats/util.hpp"

namespace dtriage::formats {

using re2::RE2;

PathFacts path_facts(const std::string& path) {
  static const RE2 plog_name(R"((?:^|[/!])(?:plog|device)-(\d+)_(\d{4})(\d{2})(\d{2})\d{6,9}\.log)");
  static const RE2 device_dir(R"((?:^|[/!])device-(\d+)/)");
  static const RE2 rank_part(R"((?:^|[/!_-])rank[_-]?(\d+)(?:[/._-]|$))");
  // torchrun --log-dir: RUN_ID/attempt_N/LOCAL_RANK/stdout.log, compressed or not
  static const RE2 attempt(R"(attempt_\d+/(\d+)/(?:stdout|stderr)\.log(?:\.(?:gz|bz2|xz|zst))?$)");
  static const RE2 pid_part(R"((?:^|[/!_.-])pid[_-]?(\d+)(?:[/._-]|$))");
  static const RE2 any_date(R"((20\d{2})-(\d{2})-(\d{2})(?:[^\d]|$))");
  static const RE2 stamp(R"((?:^|[^\d])(20\d{2})(\d{2})(\d{2})\d{6,9}(?:[^\d]|$))");
  PathFacts f;
  std::string a, y, mo, d;
  if (RE2::PartialMatch(path, plog_name, &a, &y, &mo, &d)) {
    f.pid = to_int(a);
    f.date = y + "-" + mo + "-" + d;
  } else if (RE2::PartialMatch(path, any_date, &y, &mo, &d) || RE2::PartialMatch(path, stamp, &y, &mo, &d)) {
    f.date = y + "-" + mo + "-" + d;
  }
  if (RE2::PartialMatch(path, device_dir, &a)) f.device = to_int(a);
  if (RE2::PartialMatch(path, rank_part, &a)) f.rank = to_int(a);
  if (RE2::PartialMatch(path, attempt, &a)) f.local_rank = to_int(a);
  if (!f.pid && RE2::PartialMatch(path, pid_part, &a)) f.pid = to_int(a);
  return f;
}

std::optional<AttemptFolder> attempt_folder(std::string_view path) {
  constexpr std::string_view kWord = "attempt_";
  std::optional<AttemptFolder> found;
  for (std::size_t at = path.find(kWord); at != std::string_view::npos; at = path.find(kWord, at + 1)) {
    if (at != 0 && path[at - 1] != '/') continue;
    std::size_t k = at + kWord.size();
    std::int64_t v = 0;
    while (k < path.size() && path[k] >= '0' && path[k] <= '9' && v < 1000000) v = v * 10 + (path[k++] - '0');
    if (k > at + kWord.size() && k < path.size() && path[k] == '/')
      found = AttemptFolder{path.substr(0, at == 0 ? 0 : at - 1), v};
  }
  return found;
}

}  // namespace dtriage::formats
