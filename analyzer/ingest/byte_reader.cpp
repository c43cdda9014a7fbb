#include "ingest/byte_reader.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace dtriage::ingest {

std::size_t MemoryReader::read(char* buf, std::size_t cap) {
  const std::size_t n = std::min(cap, data_.size() - pos_);
  std::memcpy(buf, data_.data() + pos_, n);
  pos_ += n;
  return n;
}

FdReader::~FdReader() {
  if (owned_ && fd_ >= 0) ::close(fd_);
}

std::size_t FdReader::read(char* buf, std::size_t cap) {
  if (failed()) return 0;
  for (;;) {
    const ssize_t n = ::read(fd_, buf, cap);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno == EINTR) continue;
    fail(std::strerror(errno));
    return 0;
  }
}

PeekReader::PeekReader(ByteReader& inner, std::size_t head_size) : inner_(inner) {
  head_.resize(head_size);
  std::size_t got = 0;
  while (got < head_size) {
    const std::size_t n = inner_.read(head_.data() + got, head_size - got);
    if (n == 0) break;
    got += n;
  }
  head_.resize(got);
  if (inner_.failed()) fail(inner_.error());
}

std::size_t PeekReader::read(char* buf, std::size_t cap) {
  if (replayed_ < head_.size()) {
    const std::size_t n = std::min(cap, head_.size() - replayed_);
    std::memcpy(buf, head_.data() + replayed_, n);
    replayed_ += n;
    return n;
  }
  if (failed()) return 0;
  const std::size_t n = inner_.read(buf, cap);
  if (n == 0 && inner_.failed()) fail(inner_.error());
  return n;
}

}  // namespace dtriage::ingest
