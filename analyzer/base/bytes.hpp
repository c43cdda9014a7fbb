// Sixteen bytes at a time, portably: GCC's vector extensions compile to SSE2 on x86-64 and to NEON
// on aarch64 (both baseline for their architecture), and to plain words elsewhere. For the scans
// that look at every byte of every line a gate lets through (formats/glued.cpp, progress.cpp).
#pragma once

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

}  // namespace dtriage::base
