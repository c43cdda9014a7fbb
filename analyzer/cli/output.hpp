// Buffered output to standard output or to the file given with -o.
#pragma once

#include <cstdio>
#include <string>

namespace dtriage::cli {

class Output {
 public:
  Output() = default;
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  // Opens `path` for writing ("" or "-" = standard output). Returns an error message or "".
  std::string open(const std::string& path, bool append = false);
  std::string& buffer() { return buf_; }
  void maybe_flush() {
    if (buf_.size() >= (1u << 20)) flush();
  }
  void flush();
  bool is_terminal() const;
  bool failed() const { return failed_; }
  // Flushes and closes; "" when everything was written, else why not (full disk, closed pipe).
  std::string finish();

 private:
  std::FILE* file_ = stdout;
  bool owned_ = false;
  bool failed_ = false;
  int errno_ = 0;
  std::string buf_;
};

}  // namespace dtriage::cli
