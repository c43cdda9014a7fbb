#include "cli/output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dtriage::cli {

Output::~Output() {
  flush();
  if (owned_) std::fclose(file_);
}

std::string Output::open(const std::string& path) {
  if (path.empty() || path == "-") return {};
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return path + ": " + std::strerror(errno);
  file_ = f;
  owned_ = true;
  return {};
}

void Output::flush() {
  if (!buf_.empty() && !failed_) {
    if (std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) failed_ = true;
  }
  buf_.clear();
  std::fflush(file_);
}

bool Output::is_terminal() const { return !owned_ && ::isatty(::fileno(file_)) != 0; }

}  // namespace dtriage::cli
