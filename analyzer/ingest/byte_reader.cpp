#include "ingest/byte_reader.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/text.hpp"

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
  if (inner_.failed()) fail_from(inner_);
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
  if (n == 0 && inner_.failed()) fail_from(inner_);
  return n;
}

bool UnicodeReader::fill() {
  if (eof_) return false;
  char buf[64 << 10];
  const std::size_t n = inner_.read(buf, sizeof buf);
  if (n == 0) {
    eof_ = true;
    if (inner_.failed()) fail_from(inner_);
    return false;
  }
  in_.append(buf, n);
  return true;
}

std::size_t UnicodeReader::read(char* buf, std::size_t cap) {
  if (!started_) {  // the byte-order mark, if the stream has one, is not text
    while (in_.size() < 3 && fill()) {
    }
    const std::string_view bom = form_ == Form::Utf8Bom ? "\xef\xbb\xbf" : form_ == Form::Utf16Le ? "\xff\xfe" : "\xfe\xff";
    if (std::string_view(in_).substr(0, bom.size()) == bom) in_.erase(0, bom.size());
    started_ = true;
  }
  constexpr std::uint32_t kReplacement = 0xfffd;
  while (out_pos_ == out_.size()) {
    out_.clear();
    out_pos_ = 0;
    const bool more = fill();  // what the mark's look read is in in_ already
    if (form_ == Form::Utf8Bom) {
      out_.swap(in_);
      in_.clear();
    } else {
      std::size_t i = 0;
      const bool le = form_ == Form::Utf16Le;
      for (; i + 1 < in_.size(); i += 2) {
        const auto a = static_cast<unsigned char>(in_[i]), b = static_cast<unsigned char>(in_[i + 1]);
        const std::uint32_t u = le ? (a | b << 8) : (a << 8 | b);
        if (u >= 0xd800 && u <= 0xdbff) {  // high surrogate: its pair comes next
          if (high_ != 0) base::append_utf8(out_, kReplacement);
          high_ = u;
          continue;
        }
        if (u >= 0xdc00 && u <= 0xdfff) {
          base::append_utf8(out_, high_ != 0 ? 0x10000 + ((high_ - 0xd800) << 10) + (u - 0xdc00) : kReplacement);
          high_ = 0;
          continue;
        }
        if (high_ != 0) {
          base::append_utf8(out_, kReplacement);
          high_ = 0;
        }
        base::append_utf8(out_, u);
      }
      in_.erase(0, i);
      if (eof_ && (!in_.empty() || high_ != 0)) {  // an odd last byte, a lone high surrogate
        base::append_utf8(out_, kReplacement);
        in_.clear();
        high_ = 0;
      }
    }
    if (!more && out_.empty()) return 0;
  }
  const std::size_t n = std::min(cap, out_.size() - out_pos_);
  std::memcpy(buf, out_.data() + out_pos_, n);
  out_pos_ += n;
  return n;
}

}  // namespace dtriage::ingest
