#include "base/literals.hpp"

#include <algorithm>
#include <climits>
#include <deque>

#ifdef DTRIAGE_HAVE_VECTORSCAN
#include <hs.h>
#endif

namespace dtriage::base {
namespace {

constexpr unsigned char fold(unsigned char c) { return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c + 32) : c; }

struct FoldTable {
  unsigned char t[256];
  constexpr FoldTable() : t() {
    for (int c = 0; c < 256; ++c) t[c] = fold(static_cast<unsigned char>(c));
  }
};
constexpr FoldTable kFold;

}  // namespace

#ifdef DTRIAGE_HAVE_VECTORSCAN
// One block-mode database of every non-empty literal, caseless (ASCII, as the automaton folds),
// each with its index as id. Scratch space is per thread (matchers are shared by worker threads)
// and grown to fit whichever database the thread searches (hs_alloc_scratch keeps a big enough one).
struct LiteralMatcher::Accel {
  hs_database_t* db = nullptr;
  ~Accel() { hs_free_database(db); }

  static std::shared_ptr<const Accel> compile(const std::vector<std::string>& literals) {
    if (hs_valid_platform() != HS_SUCCESS) return nullptr;
    std::vector<const char*> exprs;
    std::vector<std::size_t> lens;
    std::vector<unsigned> flags, ids;
    for (std::size_t i = 0; i < literals.size(); ++i) {
      if (literals[i].empty()) continue;
      exprs.push_back(literals[i].data());
      lens.push_back(literals[i].size());
      flags.push_back(HS_FLAG_CASELESS);
      ids.push_back(static_cast<unsigned>(i));
    }
    if (exprs.empty()) return nullptr;
    auto accel = std::make_shared<Accel>();
    hs_compile_error_t* error = nullptr;
    if (hs_compile_lit_multi(exprs.data(), flags.data(), ids.data(), lens.data(), static_cast<unsigned>(exprs.size()),
                             HS_MODE_BLOCK, nullptr, &accel->db, &error) != HS_SUCCESS) {
      hs_free_compile_error(error);
      return nullptr;  // the automaton gives the same hits
    }
    return accel;
  }

  struct Scratch {
    hs_scratch_t* s = nullptr;
    ~Scratch() { hs_free_scratch(s); }
  };

  // False when Vectorscan could not search (no scratch space, a text over 4 GiB): the caller
  // falls back to the automaton, with nothing appended.
  bool search(std::string_view text, std::vector<LiteralMatcher::Hit>& hits) const {
    thread_local Scratch scratch;
    if (text.size() > UINT_MAX || hs_alloc_scratch(db, &scratch.s) != HS_SUCCESS) return false;
    const std::size_t first = hits.size();
    auto on_match = [](unsigned id, unsigned long long, unsigned long long to, unsigned, void* ctx) -> int {
      static_cast<std::vector<LiteralMatcher::Hit>*>(ctx)->push_back(
          LiteralMatcher::Hit{static_cast<std::size_t>(to - 1), static_cast<int>(id)});
      return 0;
    };
    if (hs_scan(db, text.data(), static_cast<unsigned>(text.size()), 0, scratch.s, on_match, &hits) != HS_SUCCESS) {
      hits.resize(first);
      return false;
    }
    // Increasing offset, and one order at each offset, whatever order the engines reported in
    // (mostly already so: a check is cheaper than a sort).
    const auto before = [](const LiteralMatcher::Hit& a, const LiteralMatcher::Hit& b) {
      return a.end != b.end ? a.end < b.end : a.id < b.id;
    };
    const auto from = hits.begin() + static_cast<std::ptrdiff_t>(first);
    if (!std::is_sorted(from, hits.end(), before)) std::sort(from, hits.end(), before);
    return true;
  }
};
#else
struct LiteralMatcher::Accel {
  static std::shared_ptr<const Accel> compile(const std::vector<std::string>&) { return nullptr; }
  bool search(std::string_view, std::vector<LiteralMatcher::Hit>&) const { return false; }
};
#endif

LiteralMatcher::LiteralMatcher(const std::vector<std::string>& literals, const std::vector<int>& groups, Engine engine) {
  if (engine == Engine::Best) accel_ = Accel::compile(literals);
  tails_.resize(literals.size());
  group_.resize(literals.size());
  for (std::size_t i = 0; i < literals.size(); ++i) group_[i] = static_cast<Groups>(1u << (groups[i] & 7));
  // Byte classes: every folded byte that occurs in a prefix gets its own class.
  for (const std::string& lit : literals)
    for (std::size_t i = 0; i < lit.size() && i < kPrefix; ++i) {
      const unsigned char f = fold(static_cast<unsigned char>(lit[i]));
      if (cls_[f] == 0) cls_[f] = static_cast<std::uint8_t>(classes_++);
    }
  for (int c = 'A'; c <= 'Z'; ++c) cls_[c] = cls_[c + 32];
  const std::size_t k = classes_;
  // The trie of prefixes: goto edges, -1 where none.
  std::vector<std::vector<int>> go(1, std::vector<int>(k, -1));
  outs_.assign(1, {});
  for (std::size_t i = 0; i < literals.size(); ++i) {
    const std::string& lit = literals[i];
    if (lit.empty()) continue;
    int s = 0;
    for (std::size_t j = 0; j < lit.size() && j < kPrefix; ++j) {
      const std::size_t c = cls_[static_cast<unsigned char>(lit[j])];
      if (go[static_cast<std::size_t>(s)][c] < 0) {
        go[static_cast<std::size_t>(s)][c] = static_cast<int>(go.size());
        go.emplace_back(k, -1);
        outs_.emplace_back();
      }
      s = go[static_cast<std::size_t>(s)][c];
    }
    const bool verify = lit.size() > kPrefix;
    if (verify)
      for (std::size_t j = kPrefix; j < lit.size(); ++j) tails_[i] += static_cast<char>(fold(static_cast<unsigned char>(lit[j])));
    outs_[static_cast<std::size_t>(s)].push_back(Out{static_cast<int>(i), static_cast<Groups>(1u << (groups[i] & 7)), verify});
  }
  // Breadth-first: fill missing edges from the failure state. A state inherits the outputs of its
  // failure chain that need no comparison (whole short literals): a prefix to verify ends only at
  // its own depth-kPrefix state.
  const std::size_t n = go.size();
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
    for (const Out& o : outs_[fail[s]])
      if (!o.verify) outs_[s].push_back(o);
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
  for (std::uint32_t& t : next_) t = static_cast<std::uint32_t>(t * k) | (outs_[t].empty() ? 0 : kHasOut);
  inverse_ = ((std::uint64_t{1} << 32) + k - 1) / k;
}

bool LiteralMatcher::tail_at(int id, const unsigned char* p, std::size_t n, std::size_t at) const {
  const std::string& tail = tails_[static_cast<std::size_t>(id)];
  if (n - at < tail.size()) return false;
  for (std::size_t j = 0; j < tail.size(); ++j)
    if (kFold.t[p[at + j]] != static_cast<unsigned char>(tail[j])) return false;
  return true;
}

void LiteralMatcher::outputs(std::size_t row, const unsigned char* p, std::size_t n, std::size_t i, Groups& seen,
                             std::vector<int>* ids) const {
  for (const Out& o : outs_[(row * inverse_) >> 32]) {
    if ((seen & o.group) != 0 && ids == nullptr) continue;
    if (o.verify && !tail_at(o.id, p, n, i + 1)) continue;
    seen |= o.group;
    if (ids != nullptr) ids->push_back(o.id);
  }
}

void LiteralMatcher::hits_at(std::size_t row, const unsigned char* p, std::size_t n, std::size_t i,
                             std::vector<Hit>& hits) const {
  for (const Out& o : outs_[(row * inverse_) >> 32]) {
    if (o.verify) {
      if (tail_at(o.id, p, n, i + 1)) hits.push_back(Hit{i + tails_[static_cast<std::size_t>(o.id)].size(), o.id});
    } else {
      hits.push_back(Hit{i, o.id});
    }
  }
}

void LiteralMatcher::search_lines(std::string_view text, std::vector<Hit>& hits) const {
  if (accel_ != nullptr && accel_->search(text, hits)) return;
  search_lines_automaton(text, hits);
}

void LiteralMatcher::search_lines_automaton(std::string_view text, std::vector<Hit>& hits) const {
  if (next_.empty()) return;
  constexpr std::uint32_t kRow = kHasOut - 1;
  const std::uint32_t* next = next_.data();
  const std::uint8_t* cls = cls_;
  const unsigned char* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  // Lane bounds: quarters, moved forward to just after a line end.
  std::size_t cut[5] = {0, 0, 0, 0, n};
  for (int l = 1; l < 4; ++l) {
    std::size_t c = std::max(cut[l - 1], n * static_cast<std::size_t>(l) / 4);
    while (c < n && c > 0 && p[c - 1] != '\n') ++c;
    cut[l] = c;
  }
  // No call inside the hot loop, so that the lanes' states stay in registers: a state with outputs
  // (rare) is noted in a block-sized buffer per lane, and the notes become hits after each block.
  constexpr std::size_t kBlock = 256;
  struct Note {
    std::uint32_t at;   // offset in the lane
    std::uint32_t row;
  };
  Note notes[4][kBlock + 1];
  std::vector<Hit> lane_hits[4];
  const unsigned char* q0 = p + cut[0];
  const unsigned char* q1 = p + cut[1];
  const unsigned char* q2 = p + cut[2];
  const unsigned char* q3 = p + cut[3];
  std::uint32_t r0 = 0, r1 = 0, r2 = 0, r3 = 0;
  auto flush = [&](int lane, std::size_t count) {
    for (std::size_t j = 0; j < count; ++j) hits_at(notes[lane][j].row, p, n, cut[lane] + notes[lane][j].at, lane_hits[lane]);
  };
  // Four lanes in lockstep while all have bytes left, then each alone.
  const std::size_t steps = std::min(std::min(cut[1] - cut[0], cut[2] - cut[1]), std::min(cut[3] - cut[2], cut[4] - cut[3]));
  for (std::size_t base = 0; base < steps; base += kBlock) {
    const std::size_t stop = std::min(steps, base + kBlock);
    std::size_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    for (std::size_t k = base; k < stop; ++k) {
      const std::uint32_t v0 = next[r0 + cls[q0[k]]];
      const std::uint32_t v1 = next[r1 + cls[q1[k]]];
      const std::uint32_t v2 = next[r2 + cls[q2[k]]];
      const std::uint32_t v3 = next[r3 + cls[q3[k]]];
      r0 = v0 & kRow;
      r1 = v1 & kRow;
      r2 = v2 & kRow;
      r3 = v3 & kRow;
      if (((v0 | v1 | v2 | v3) & kHasOut) == 0) [[likely]]
        continue;
      if (v0 & kHasOut) notes[0][c0++] = Note{static_cast<std::uint32_t>(k), r0};
      if (v1 & kHasOut) notes[1][c1++] = Note{static_cast<std::uint32_t>(k), r1};
      if (v2 & kHasOut) notes[2][c2++] = Note{static_cast<std::uint32_t>(k), r2};
      if (v3 & kHasOut) notes[3][c3++] = Note{static_cast<std::uint32_t>(k), r3};
    }
    flush(0, c0);
    flush(1, c1);
    flush(2, c2);
    flush(3, c3);
  }
  const std::uint32_t rows[4] = {r0, r1, r2, r3};
  for (int l = 0; l < 4; ++l) {
    std::size_t r = rows[l];
    for (std::size_t i = cut[l] + steps; i < cut[l + 1]; ++i) {
      const std::uint32_t v = next[r + cls[p[i]]];
      r = v & kRow;
      if (v & kHasOut) hits_at(r, p, n, i, lane_hits[l]);
    }
  }
  // Lanes are in text order; within a lane, a state's outputs may end at different offsets.
  for (auto& h : lane_hits) {
    std::sort(h.begin(), h.end(), [](const Hit& a, const Hit& b) { return a.end != b.end ? a.end < b.end : a.id < b.id; });
    hits.insert(hits.end(), h.begin(), h.end());
  }
}

LiteralMatcher::Groups LiteralMatcher::search(std::string_view text, Groups want, std::vector<int>* ids) const {
  if (next_.empty()) return 0;
  Groups seen = 0;
  std::size_t row = 0;
  const std::uint32_t* next = next_.data();
  const unsigned char* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t t = next[row + cls_[p[i]]];
    row = t & (kHasOut - 1);
    if ((t & kHasOut) == 0) continue;
    outputs(row, p, n, i, seen, ids);
    if (ids == nullptr && (seen & want) == want) break;
  }
  return seen;
}

}  // namespace dtriage::base
