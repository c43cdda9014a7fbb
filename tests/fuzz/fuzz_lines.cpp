// Fuzz target: the line reader must never crash, lose bytes or return a line over the limit.
#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "lines/line_reader.hpp"

namespace {

class Chunky final : public dtriage::ingest::ByteReader {
 public:
  Chunky(std::string_view d, std::size_t step) : d_(d), step_(step) {}
  std::size_t read(char* buf, std::size_t cap) override {
    std::size_t n = std::min({cap, step_, d_.size() - pos_});
    for (std::size_t i = 0; i < n; ++i) buf[i] = d_[pos_ + i];
    pos_ += n;
    return n;
  }

 private:
  std::string_view d_;
  std::size_t step_;
  std::size_t pos_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  // First two bytes choose the read size and line limit; the rest is the stream.
  const std::size_t step = 1 + data[0] % 64;
  const std::size_t max_line = 1 + data[1] % 128;
  const std::string_view text(reinterpret_cast<const char*>(data) + 2, size - 2);
  Chunky r(text, step);
  dtriage::lines::LineReader lr(r, max_line);
  dtriage::lines::Line line;
  std::uint64_t last = 0;
  while (lr.next(line)) {
    if (line.text.size() > max_line) std::abort();
    if (line.number != last + 1) std::abort();
    if (line.offset + line.text.size() > text.size()) std::abort();
    if (text.substr(line.offset, line.text.size()) != line.text) std::abort();
    last = line.number;
  }
  return 0;
}
