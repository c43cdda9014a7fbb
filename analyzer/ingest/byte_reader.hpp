// A pull-based byte stream. Every stage (file, decompressor, archive member) is one of these,
// so stages nest without knowing about each other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dtriage::ingest {

class ByteReader {
 public:
  virtual ~ByteReader() = default;
  // Reads up to `cap` bytes into `buf`. Returns 0 at the end of the stream or on error;
  // after an error, failed() is true and error() says why. Never throws.
  virtual std::size_t read(char* buf, std::size_t cap) = 0;

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  // The error is a limit the run set (time, bytes, ratio), not damage: the rest was not read.
  bool stopped_by_limit() const { return limit_; }

 protected:
  void fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
  }
  void fail_limit(std::string why) {
    if (error_.empty()) {
      error_ = std::move(why);
      limit_ = true;
    }
  }
  // Takes over the error of the reader this one reads from.
  void fail_from(const ByteReader& inner) {
    if (error_.empty()) {
      error_ = inner.error_;
      limit_ = inner.limit_;
    }
  }
  void clear_error() {
    error_.clear();
    limit_ = false;
  }

 private:
  std::string error_;
  bool limit_ = false;
};

// Reads from a memory buffer (tests, fuzzers, benchmarks).
class MemoryReader final : public ByteReader {
 public:
  explicit MemoryReader(std::string_view data) : data_(data) {}
  std::size_t read(char* buf, std::size_t cap) override;

 private:
  std::string_view data_;
  std::size_t pos_ = 0;
};

// Reads a file descriptor; owns it when `owned`.
class FdReader final : public ByteReader {
 public:
  FdReader(int fd, bool owned) : fd_(fd), owned_(owned) {}
  ~FdReader() override;
  FdReader(const FdReader&) = delete;
  FdReader& operator=(const FdReader&) = delete;
  std::size_t read(char* buf, std::size_t cap) override;

 private:
  int fd_;
  bool owned_;
};

// Keeps the first bytes of another reader so that they can be inspected (sniffed) and then
// replayed: read() returns the head first, then the rest of the inner stream.
class PeekReader final : public ByteReader {
 public:
  PeekReader(ByteReader& inner, std::size_t head_size);
  std::string_view head() const { return head_; }
  std::size_t read(char* buf, std::size_t cap) override;

 private:
  ByteReader& inner_;
  std::string head_;
  std::size_t replayed_ = 0;
};

// Text as UTF-8 from a stream in another Unicode form: UTF-16 (little or big endian, after its
// byte-order mark or without one) is converted, a UTF-8 byte-order mark is dropped. Logs saved by
// a Windows editor ("Unicode") on the way to a ticket come so. A lone surrogate or an odd last
// byte becomes U+FFFD.
class UnicodeReader final : public ByteReader {
 public:
  enum class Form { Utf8Bom, Utf16Le, Utf16Be };
  // `inner` starts at the stream's first byte; a byte-order mark there is skipped.
  UnicodeReader(ByteReader& inner, Form form) : inner_(inner), form_(form) {}
  std::size_t read(char* buf, std::size_t cap) override;

 private:
  bool fill();  // more input into in_; false at its end
  ByteReader& inner_;
  Form form_;
  bool started_ = false, eof_ = false;
  std::string in_;      // input not converted yet
  std::string out_;     // converted, not handed over yet
  std::size_t out_pos_ = 0;
  std::uint32_t high_ = 0;  // a high surrogate waiting for its pair
};

}  // namespace dtriage::ingest
