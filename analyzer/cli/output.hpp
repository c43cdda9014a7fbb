// Buffered output to standard output or to the file given with -o.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "base/result.hpp"

namespace dtriage::cli {

class Output {
 public:
  Output() = default;  // standard output
  ~Output();
  Output(Output&& other) noexcept;
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  Output& operator=(Output&& other) noexcept;

  // `path` opened for writing ("" or "-" = standard output), or why it cannot be ("path: reason").
  static base::Result<Output> open(const std::string& path, bool append = false);
  std::string& buffer() { return buf_; }
  void maybe_flush() {
    if (buf_.size() >= (1u << 20)) flush();
  }
  void flush();
  bool is_terminal() const;
  bool failed() const { return failed_; }
  // Flushes and closes: the bytes written in all, or why not everything was (full disk, closed pipe).
  base::Result<std::uint64_t> finish();

 private:
  std::FILE* file_ = stdout;
  bool owned_ = false;
  bool failed_ = false;
  int errno_ = 0;
  std::uint64_t written_ = 0;
  std::string buf_;
};

}  // namespace dtriage::cli
