// Sub-commands that live in files of their own (cli.cpp parses the command line).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ingest/ingest.hpp"

namespace dtriage::cli {

// tools/dtriage-snapshot.sh, as built into the binary.
std::string_view snapshot_script();

struct CheckArgs {
  std::vector<std::string> paths;
  std::string launch;              // --launch "torchrun ..."
  std::string format = "text";     // text, json, markdown
  std::string output;              // -o
  std::size_t max_line = 0;
  ingest::Limits limits;
  ingest::NodeHints hints;
};

// `dtriage check`: the six pre-launch checks over snapshots, smoke-test output and training logs.
// Exit code: 0 no check failed, 3 a check failed, 1 some input unreadable (and none failed),
// 2 usage error or nothing readable.
inline constexpr int kExitCheckFailed = 3;
int cmd_check(CheckArgs& args);

}  // namespace dtriage::cli
