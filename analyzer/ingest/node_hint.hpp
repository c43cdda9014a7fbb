// Infers which node a file belongs to from its path: a directory per host (node3/, gpu-a03/,
// worker-2/, 10.0.0.12/) or a per-node archive (node3.tar.gz).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace re2 {
class RE2;
}

namespace dtriage::ingest {

class NodeHints {
 public:
  // Default heuristics on path components.
  NodeHints();
  // A user pattern, searched in the whole path: capture group 1 if it has one, else the match.
  static base::Result<NodeHints> from_pattern(const std::string& pattern);
  ~NodeHints();
  NodeHints(NodeHints&&) noexcept;
  NodeHints& operator=(NodeHints&&) noexcept;

  // `path` uses '/' between directories and '!' between an archive and its members.
  std::string infer(std::string_view path) const;

 private:
  std::unique_ptr<re2::RE2> user_;
};

// The folders, archives and file name of a path ('/' between folders, '!' after an archive).
std::vector<std::string_view> split_components(std::string_view path);

// "node3.tar.gz" -> "node3"; used for archive components of a path.
std::string strip_archive_suffix(std::string_view name);

}  // namespace dtriage::ingest
