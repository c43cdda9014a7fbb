#include "lines/line_reader.hpp"

#include <algorithm>
#include <cstring>

namespace dtriage::lines {

LineReader::LineReader(ingest::ByteReader& src, std::size_t max_line)
    : src_(src), max_line_(std::max<std::size_t>(max_line, 1)) {
  buf_.resize(std::min(kChunk, max_line_ + 1) + kChunk);
}

bool LineReader::fill() {
  if (eof_) return false;
  if (begin_ > 0) {  // compact
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    base_ += begin_;
    end_ -= begin_;
    scanned_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buf_.size()) {
    // Grow only as far as a maximal line needs; past that next() cuts the line.
    const std::size_t want = std::min(buf_.size() * 2, max_line_ + kChunk);
    if (want <= buf_.size()) return true;  // full of one long line: caller cuts it
    buf_.resize(want);
  }
  const std::size_t n = src_.read(buf_.data() + end_, buf_.size() - end_);
  if (n == 0) {
    eof_ = true;
    return false;
  }
  end_ += n;
  return true;
}

bool LineReader::next(Line& line) {
  for (;;) {
    const char* base = buf_.data();
    const void* nl = scanned_ < end_ ? std::memchr(base + scanned_, '\n', end_ - scanned_) : nullptr;
    if (skipping_) {
      if (nl != nullptr) {
        begin_ = scanned_ = static_cast<std::size_t>(static_cast<const char*>(nl) - base) + 1;
        skipping_ = false;
        continue;
      }
      begin_ = scanned_ = end_;  // drop everything buffered
      if (!fill()) return false;
      continue;
    }
    if (nl != nullptr) {
      const std::size_t pos = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
      const std::size_t len = pos - begin_;
      if (len > max_line_) {  // the newline came in the same read as the overflow
        line.text = std::string_view(base + begin_, max_line_);
        line.number = ++number_;
        line.offset = base_ + begin_;
        line.cut = true;
        ++lines_cut_;
        begin_ = scanned_ = pos + 1;
        return true;
      }
      take_line(pos, line);
      return true;
    }
    scanned_ = end_;
    if (end_ - begin_ > max_line_) {
      line.text = std::string_view(base + begin_, max_line_);
      line.number = ++number_;
      line.offset = base_ + begin_;
      line.cut = true;
      ++lines_cut_;
      begin_ = scanned_ = end_;
      skipping_ = true;
      return true;
    }
    if (!fill()) {
      if (end_ > begin_) {  // last line without '\n'
        std::size_t len = end_ - begin_;
        const bool cut = len > max_line_;
        if (cut) {
          len = max_line_;
          ++lines_cut_;
        }
        line.text = std::string_view(buf_.data() + begin_, len);
        line.number = ++number_;
        line.offset = base_ + begin_;
        line.cut = cut;
        begin_ = scanned_ = end_;
        return true;
      }
      return false;
    }
  }
}

bool LineReader::next_buffered(Line& line) {
  if (skipping_ || scanned_ >= end_) return false;
  const char* base = buf_.data();
  const void* nl = std::memchr(base + scanned_, '\n', end_ - scanned_);
  if (nl == nullptr) return false;
  const std::size_t pos = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
  if (pos - begin_ > max_line_) return false;  // next() cuts it
  take_line(pos, line);
  return true;
}

void LineReader::take_line(std::size_t pos, Line& line) {
  const char* base = buf_.data();
  std::size_t len = pos - begin_;
  if (len > 0 && base[pos - 1] == '\r') --len;
  line.text = std::string_view(base + begin_, len);
  line.number = ++number_;
  line.offset = base_ + begin_;
  line.cut = false;
  begin_ = scanned_ = pos + 1;
}

bool LineReader::next_batch(std::vector<Line>& lines, std::size_t max) {
  lines.clear();
  Line line;
  if (!next(line)) return false;  // the only call that may read (and move the buffer)
  lines.push_back(line);
  while (lines.size() < max && next_buffered(line)) lines.push_back(line);
  return true;
}

}  // namespace dtriage::lines
