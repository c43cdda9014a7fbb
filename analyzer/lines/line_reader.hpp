// Splits a byte stream into lines. The one place that owns the read buffer and raw offsets.
//
// - `\n` ends a line; a `\r` right before it is dropped (CRLF).
// - NUL bytes and invalid UTF-8 pass through unchanged.
// - A line longer than the limit is cut to the limit (Line::cut) and the rest of it, up to the
//   next `\n`, is skipped; the next line keeps its true number.
// - The last line may lack a `\n`.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ingest/byte_reader.hpp"

namespace dtriage::lines {

struct Line {
  std::string_view text;     // valid until the next call to next()
  std::uint64_t number = 0;  // 1-based
  std::uint64_t offset = 0;  // byte offset of the first byte in the decoded stream
  bool cut = false;          // longer than the limit; text holds its first `max_line` bytes
};

class LineReader {
 public:
  static constexpr std::size_t kDefaultMaxLine = 1 << 20;
  static constexpr std::size_t kChunk = 256 << 10;

  explicit LineReader(ingest::ByteReader& src, std::size_t max_line = kDefaultMaxLine);

  // Fills `line` with the next line; false at the end of the stream (or on a read error,
  // which the ByteReader reports).
  bool next(Line& line);

  // Fills `lines` with the next lines, as many as the buffer holds (at most `max`), in the order
  // next() gives them; all of them stay valid until the next call. False at the end of the stream.
  bool next_batch(std::vector<Line>& lines, std::size_t max = 4096);

  std::uint64_t lines_cut() const { return lines_cut_; }

 private:
  bool fill();  // reads more; false when nothing more can be read
  bool next_buffered(Line& line);  // next() when a whole line is already buffered, else false
  void take_line(std::size_t pos, Line& line);  // the line ending at the '\n' at buf_[pos]

  ingest::ByteReader& src_;
  std::size_t max_line_;
  std::vector<char> buf_;
  std::size_t begin_ = 0;      // start of unconsumed data
  std::size_t end_ = 0;        // end of valid data
  std::size_t scanned_ = 0;    // [begin_, scanned_) holds no '\n'
  std::uint64_t base_ = 0;     // stream offset of buf_[0]
  std::uint64_t number_ = 0;
  std::uint64_t lines_cut_ = 0;
  bool eof_ = false;
  bool skipping_ = false;      // dropping the tail of a cut line
};

}  // namespace dtriage::lines
