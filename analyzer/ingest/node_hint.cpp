#include "ingest/node_hint.hpp"

#include <re2/re2.h>

#include <array>
#include <cctype>
#include <string>
#include <vector>

#include "base/text.hpp"

namespace dtriage::ingest {
namespace {

const re2::RE2& component_re() {
  // A whole path component that names a host:
  //  - a node-ish word with a number: node3, node-03, worker-2, gpu-a03, host_12, npu7, cn042
  //  - pod names ending in -worker-N / -master-N / -node-N
  //  - an IPv4 address, or one written with dashes as cloud hosts and pods name themselves
  //    (EC2's ip-10-0-4-26, a pod's 10-0-5-13)
  //  - a fully qualified name whose host label has a number: c017.hpc.example.edu, dgx12.cluster.local
  //    (three labels or more, the last all letters and no file extension: file_like)
  //  - a location name: rack, chassis, node as three or four letter-number groups (r07-c11-n12,
  //    rk2-ch04-sl1-n3; two groups, exp1-run2, are too like a run's name), a Cray xname
  //    (x1000c0s7b0n1: cabinet, chassis, slot, board, node)
  static const re2::RE2 re(
      R"((?i)(?:(?:node|host|worker|server|gpu|npu|compute|machine|cn|gn|dn|slave|master)[-_]?[a-z]{0,3}[0-9][-a-z0-9_]*)"
      R"(|w[-_][0-9]+|[a-z0-9][-a-z0-9_]*-(?:worker|master|node|host)-?[0-9]+)"
      R"(|[a-z]{1,4}[0-9]{1,4}(?:-[a-z]{1,4}[0-9]{1,4}){2,3}|x[0-9]{1,5}c[0-9]{1,2}s[0-9]{1,2}b[0-9]n[0-9])"
      R"(|[0-9]{1,3}(?:\.[0-9]{1,3}){3}|(?:ip-)?[0-9]{1,3}(?:-[0-9]{1,3}){3})"
      R"(|[a-z][-a-z0-9]*[0-9][-a-z0-9]*(?:\.[a-z0-9][-a-z0-9]*)+\.[a-z]{2,12}))");
  return re;
}

// A dotted folder name that ends like a file does (exp3.run.log, data1.train.json) is no host.
bool file_like(std::string_view name) {
  const std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos) return false;
  std::string last(name.substr(dot + 1));
  for (char& c : last) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return base::file_extension(last);
}

}  // namespace

std::vector<std::string_view> split_components(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/' || path[i] == '!') {
      if (i > start) out.push_back(path.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::string strip_archive_suffix(std::string_view name) {
  static constexpr std::array<std::string_view, 13> kSuffixes = {
      ".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst", ".tgz", ".tbz2", ".txz",
      ".tar",    ".zip",     ".gz",     ".bz2",     ".xz",      ".zst"};
  // Every layer: node3.tar.gz.gz (an archive compressed once more on the way) is node3 too.
  for (bool cut = true; cut;) {
    cut = false;
    for (std::string_view s : kSuffixes) {
      if (name.size() > s.size() && name.substr(name.size() - s.size()) == s) {
        name.remove_suffix(s.size());
        cut = true;
        break;
      }
    }
  }
  return std::string(name);
}

NodeHints::NodeHints() = default;
NodeHints::~NodeHints() = default;
NodeHints::NodeHints(NodeHints&&) noexcept = default;
NodeHints& NodeHints::operator=(NodeHints&&) noexcept = default;

base::Result<NodeHints> NodeHints::from_pattern(const std::string& pattern) {
  auto re = std::make_unique<re2::RE2>(pattern, re2::RE2::Quiet);
  if (!re->ok()) return base::err("bad --node-from-path pattern: " + re->error());
  NodeHints h;
  h.user_ = std::move(re);
  return h;
}

std::string NodeHints::infer(std::string_view path) const {
  if (user_) {
    re2::StringPiece m[2];
    const int groups = user_->NumberOfCapturingGroups() >= 1 ? 2 : 1;
    if (user_->Match(re2::StringPiece(path.data(), path.size()), 0, path.size(),
                     re2::RE2::UNANCHORED, m, groups)) {
      const re2::StringPiece& hit = groups == 2 ? m[1] : m[0];
      return std::string(hit.data(), hit.size());
    }
    return {};
  }
  const std::vector<std::string_view> parts = split_components(path);
  // The deepest component that names a host wins; the file's own name never counts, except
  // when it is an archive that holds the node's files (then it is not the last component).
  for (std::size_t i = parts.size(); i-- > 0;) {
    if (i + 1 == parts.size()) continue;
    const std::string name = strip_archive_suffix(parts[i]);
    if (re2::RE2::FullMatch(name, component_re()) && !file_like(name)) return name;
  }
  return {};
}

}  // namespace dtriage::ingest
