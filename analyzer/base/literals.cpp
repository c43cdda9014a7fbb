#include "base/literals.hpp"

#include <deque>

namespace dtriage::base {
namespace {

unsigned char fold(unsigned char c) { return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c + 32) : c; }

}  // namespace

LiteralMatcher::LiteralMatcher(const std::vector<std::string>& literals, const std::vector<int>& groups) {
  // Byte classes: every folded byte that occurs in a literal gets its own class.
  for (const std::string& lit : literals)
    for (unsigned char c : lit) {
      const unsigned char f = fold(c);
      if (cls_[f] == 0) cls_[f] = static_cast<std::uint8_t>(classes_ < 255 ? classes_++ : 255);
    }
  for (int c = 'A'; c <= 'Z'; ++c) cls_[c] = cls_[c + 32];
  // The trie: goto edges, -1 where none.
  std::vector<std::vector<int>> go(1, std::vector<int>(static_cast<std::size_t>(classes_), -1));
  accept_.assign(1, 0);
  ends_.assign(1, {});
  for (std::size_t i = 0; i < literals.size(); ++i) {
    if (literals[i].empty()) continue;
    int s = 0;
    for (unsigned char c : literals[i]) {
      const std::size_t k = cls_[c];
      if (go[static_cast<std::size_t>(s)][k] < 0) {
        go[static_cast<std::size_t>(s)][k] = static_cast<int>(go.size());
        go.emplace_back(static_cast<std::size_t>(classes_), -1);
        accept_.push_back(0);
        ends_.emplace_back();
      }
      s = go[static_cast<std::size_t>(s)][k];
    }
    accept_[static_cast<std::size_t>(s)] |= static_cast<Groups>(1u << (groups[i] & 7));
    ends_[static_cast<std::size_t>(s)].push_back(static_cast<int>(i));
  }
  // Breadth-first: fill missing edges from the failure state, inherit its accepting groups.
  const std::size_t n = go.size();
  const std::size_t k = static_cast<std::size_t>(classes_);
  next_.assign(n * k, 0);
  std::vector<std::uint32_t> fail(n, 0);
  std::deque<std::uint32_t> queue;
  for (std::size_t c = 0; c < k; ++c) {
    const int t = go[0][c];
    if (t > 0) {
      next_[c] = static_cast<std::uint32_t>(t);
      queue.push_back(static_cast<std::uint32_t>(t));
    }
  }
  while (!queue.empty()) {
    const std::uint32_t s = queue.front();
    queue.pop_front();
    accept_[s] |= accept_[fail[s]];
    ends_[s].insert(ends_[s].end(), ends_[fail[s]].begin(), ends_[fail[s]].end());
    for (std::size_t c = 0; c < k; ++c) {
      const int t = go[s][c];
      if (t > 0) {
        fail[static_cast<std::size_t>(t)] = next_[fail[s] * k + c];
        next_[s * k + c] = static_cast<std::uint32_t>(t);
        queue.push_back(static_cast<std::uint32_t>(t));
      } else {
        next_[s * k + c] = next_[fail[s] * k + c];
      }
    }
  }
  // Class 0 (bytes in no literal) always leads back to the root: next_[s * k + 0] == 0.
}

LiteralMatcher::Groups LiteralMatcher::search(std::string_view text, Groups want, std::vector<int>* ids) const {
  if (next_.empty()) return 0;
  Groups seen = 0;
  std::uint32_t s = 0;
  const std::size_t k = static_cast<std::size_t>(classes_);
  const std::uint32_t* next = next_.data();
  const Groups* accept = accept_.data();
  for (unsigned char c : text) {
    s = next[s * k + cls_[c]];
    if (accept[s] != 0) {
      seen |= accept[s];
      if (ids != nullptr) ids->insert(ids->end(), ends_[s].begin(), ends_[s].end());
      else if ((seen & want) == want) break;
    }
  }
  return seen;
}

}  // namespace dtriage::base
