// Sixteen bytes at a time, portably: GCC's vector extensions compile to SSE2 on x86-64 and to NEON
// on aarch64 (both baseline for their architecture), and to plain words elsewhere. For the scans
// that look at every byte of every line a gate lets through (formats/glued.cpp, progress.cpp).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace dtriage::base {

using Bytes16 = unsigned char __attribute__((vector_size(16)));

inline Bytes16 load16(const char* p) {
  Bytes16 v;
  std::memcpy(&v, p, 16);
  return v;
}

// True when some byte of a comparison's result (0 or all ones per byte) is set.
template <typename Mask>
inline bool any_set(Mask m) {
  std::uint64_t lo, hi;
  static_assert(sizeof(Mask) == 16);
  std::memcpy(&lo, &m, 8);
  std::memcpy(&hi, reinterpret_cast<const char*>(&m) + 8, 8);
  return (lo | hi) != 0;
}

// Calls f(k) for each byte k (0-15) of a comparison's result that is set, in order, until f
// returns true; true when it did. Only the set bytes are visited (a count of trailing zeros per
// hit), so a block with one '[' costs one call, not sixteen.
template <typename Mask, typename F>
inline bool each_set(Mask m, F&& f) {
  static_assert(sizeof(Mask) == 16);
  std::uint64_t half[2];
  std::memcpy(half, &m, 16);
  for (int h = 0; h < 2; ++h) {
    std::uint64_t w = half[h];
    while (w != 0) {
      // The lowest address first: the low byte of a word on little-endian machines (x86-64,
      // aarch64), the high byte elsewhere.
      const int byte = std::endian::native == std::endian::little ? __builtin_ctzll(w) / 8 : __builtin_clzll(w) / 8;
      if (f(h * 8 + byte)) return true;
      w &= ~(0xFFull << ((std::endian::native == std::endian::little ? byte : 7 - byte) * 8));
    }
  }
  return false;
}

// Which of three bytes occur in [p, p + n): bit 0 for a, 1 for b, 2 for c. One pass, sixteen
// bytes at a time, for checks that would otherwise call memchr once per byte looked for; where
// any of them occurs (rarely), each is then looked for on its own.
inline unsigned which_of(const char* p, std::size_t n, char a, char b, char c) {
  const auto ua = static_cast<unsigned char>(a), ub = static_cast<unsigned char>(b), uc = static_cast<unsigned char>(c);
  bool any = false;
  if (n >= 16) {
    Bytes16 acc{};
    for (std::size_t i = 0; i + 16 <= n; i += 16) {
      const Bytes16 w = load16(p + i);
      acc |= (w == ua) | (w == ub) | (w == uc);
    }
    const Bytes16 w = load16(p + n - 16);  // the last sixteen, read again where they overlap
    acc |= (w == ua) | (w == ub) | (w == uc);
    any = any_set(acc);
  } else {
    for (std::size_t i = 0; !any && i < n; ++i) any = p[i] == a || p[i] == b || p[i] == c;
  }
  if (!any) return 0;
  return (std::memchr(p, a, n) != nullptr ? 1u : 0u) | (std::memchr(p, b, n) != nullptr ? 2u : 0u) |
         (std::memchr(p, c, n) != nullptr ? 4u : 0u);
}

}  // namespace dtriage::base
