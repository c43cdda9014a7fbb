// What a file's path says about every line in it: the pid and date of a plog file name
// (plog-<pid>_<YYYYMMDDhhmmss...>.log), device-N/ folders, rank and pid parts, torchrun's
// attempt_N/<local_rank>/ files. The one reader of these; the parsers and correlation use it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dtriage::formats {

struct PathFacts {
  std::optional<std::int64_t> pid, rank, local_rank, device;
  std::string date;  // YYYY-MM-DD from a plog-style file name, or any date in the path
};

PathFacts path_facts(const std::string& path);

// torchrun --log-dir keeps each restart attempt's files under RUN/attempt_N/: the last such folder
// in a path (at its start or after a '/'), with the run folder before it ("" at the start).
struct AttemptFolder {
  std::string_view run;
  std::int64_t number = 0;
};
std::optional<AttemptFolder> attempt_folder(std::string_view path);

}  // namespace dtriage::formats
