#pragma once

namespace dtriage::cli {

// Runs the command line; returns the process exit code (docs/CONTRACT.md: 0 done, 1 some input
// unreadable, 2 usage error or nothing readable).
int run(int argc, char** argv);

}  // namespace dtriage::cli
