#include "cli/output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "base/sentences.hpp"

namespace dtriage::cli {

Output::~Output() {
  flush();
  if (owned_) std::fclose(file_);
}

Output::Output(Output&& other) noexcept
    : file_(other.file_), owned_(other.owned_), failed_(other.failed_), errno_(other.errno_), written_(other.written_),
      buf_(std::move(other.buf_)) {
  other.file_ = stdout;
  other.owned_ = false;
  other.buf_.clear();
}

Output& Output::operator=(Output&& other) noexcept {
  if (this == &other) return *this;
  flush();
  if (owned_) std::fclose(file_);
  file_ = other.file_;
  owned_ = other.owned_;
  failed_ = other.failed_;
  errno_ = other.errno_;
  written_ = other.written_;
  buf_ = std::move(other.buf_);
  other.file_ = stdout;
  other.owned_ = false;
  other.buf_.clear();
  return *this;
}

base::Result<Output> Output::open(const std::string& path, bool append) {
  Output out;
  if (path.empty() || path == "-") return out;
  std::FILE* f = std::fopen(path.c_str(), append ? "ab" : "wb");
  if (f == nullptr) return base::err(base::say(base::Say::OutputFileError, {{"path", path}, {"error", std::strerror(errno)}}));
  // Output keeps its own buffer: with stdio's on top, one flush of several lines became two
  // write() calls where stdio's buffer filled, and a scan killed between them left a line cut in
  // half. Unbuffered, each flush is one write, so a kill leaves whole lines (scan's resume relies
  // on that; it still drops a half line if the system cut one).
  std::setvbuf(f, nullptr, _IONBF, 0);
  out.file_ = f;
  out.owned_ = true;
  return out;
}

void Output::flush() {
  if (!buf_.empty() && !failed_) {
    if (std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) {
      failed_ = true;
      errno_ = errno;
    } else {
      written_ += buf_.size();
    }
  }
  buf_.clear();
  if (std::fflush(file_) != 0 && !failed_) {
    failed_ = true;
    errno_ = errno;
  }
}

base::Result<std::uint64_t> Output::finish() {
  flush();
  if (owned_) {
    if (std::fclose(file_) != 0 && !failed_) {
      failed_ = true;
      errno_ = errno;
    }
    owned_ = false;
    file_ = stdout;
  }
  if (!failed_) return written_;
  return base::err(base::say(base::Say::OutputWriteFailed, {{"error", std::strerror(errno_ != 0 ? errno_ : EIO)}}));
}

bool Output::is_terminal() const { return !owned_ && ::isatty(::fileno(file_)) != 0; }

}  // namespace dtriage::cli
