// Streaming decoders for gzip (multi-member), bzip2 (multi-stream), xz (concatenated) and
// zstd (multi-frame). Every byte decoded before a truncation or corruption is delivered before
// the reader reports the error, so the lines before the damage are kept.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "ingest/byte_reader.hpp"
#include "ingest/sniff.hpp"

namespace dtriage::ingest {

// Bytes of one top-level input (a file given or found in a folder): read from disk, and decoded by
// every layer inside it (streams in streams, members of archives). The ratio must hold for the
// whole input, not only per layer: gz(gz(text)) or a tar of many small bz2 members is one bomb.
struct RatioBudget {
  std::uint64_t in = 0;
  std::uint64_t out = 0;
};

// The whole run's: every byte read from its inputs, every byte its decoders made (shared by the
// threads). 2,000 files of gz(gz(16 MiB)), each inside its own grace, are one bomb too.
struct RunBudget {
  std::atomic<std::uint64_t> in{0};
  std::atomic<std::uint64_t> out{0};
  static constexpr std::uint64_t kGraceFactor = 4;  // the run's grace: 4 inputs' worth
};

struct RatioLimit {
  double max_ratio = 1000.0;
  std::uint64_t grace_bytes = 16ull << 20;
  RatioBudget* budget = nullptr;  // the top-level input's, checked as well when set
  int zstd_window_log_max = 27;   // zstd frames needing a larger window (memory) are refused
  RunBudget* run = nullptr;       // the run's, checked as well when set
  // True when `out` decoded bytes from `in` encoded ones is past the limit.
  bool exceeded(std::uint64_t out, std::uint64_t in) const {
    return out > grace_bytes && static_cast<double>(out) > max_ratio * static_cast<double>(in > 0 ? in : 1);
  }
  // Adds `produced` decoded bytes to the top-level budget and the run's; the message when either
  // ratio is now past the limit, else "".
  std::string spend(std::uint64_t produced) const;
};

// A ByteReader that decodes `inner`. `codec` must be Gzip, Bzip2, Xz or Zstd.
std::unique_ptr<ByteReader> make_decoder(ByteReader& inner, Content codec, RatioLimit limit);

// Message for a container that expanded too much (shared with archive readers).
std::string ratio_message(double max_ratio, std::uint64_t out, std::uint64_t in);
std::string format_bytes(std::uint64_t n);

}  // namespace dtriage::ingest
