#include "cli/output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dtriage::cli {

Output::~Output() {
  flush();
  if (owned_) std::fclose(file_);
}

std::string Output::open(const std::string& path, bool append) {
  if (path.empty() || path == "-") return {};
  std::FILE* f = std::fopen(path.c_str(), append ? "ab" : "wb");
  if (f == nullptr) return path + ": " + std::strerror(errno);
  file_ = f;
  owned_ = true;
  return {};
}

void Output::flush() {
  if (!buf_.empty() && !failed_) {
    if (std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) {
      failed_ = true;
      errno_ = errno;
    }
  }
  buf_.clear();
  if (std::fflush(file_) != 0 && !failed_) {
    failed_ = true;
    errno_ = errno;
  }
}

std::string Output::finish() {
  flush();
  if (owned_) {
    if (std::fclose(file_) != 0 && !failed_) {
      failed_ = true;
      errno_ = errno;
    }
    owned_ = false;
    file_ = stdout;
  }
  if (!failed_) return {};
  return std::string("cannot write the output: ") + std::strerror(errno_ != 0 ? errno_ : EIO);
}

bool Output::is_terminal() const { return !owned_ && ::isatty(::fileno(file_)) != 0; }

}  // namespace dtriage::cli
