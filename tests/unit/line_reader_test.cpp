#include "lines/line_reader.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace dtriage::lines {
namespace {

// Returns at most `step` bytes per read, to exercise every buffer boundary.
class DripReader final : public ingest::ByteReader {
 public:
  DripReader(std::string data, std::size_t step) : data_(std::move(data)), step_(step) {}
  std::size_t read(char* buf, std::size_t cap) override {
    const std::size_t n = std::min({cap, step_, data_.size() - pos_});
    std::copy_n(data_.data() + pos_, n, buf);
    pos_ += n;
    return n;
  }

 private:
  std::string data_;
  std::size_t step_;
  std::size_t pos_ = 0;
};

struct Got {
  std::string text;
  std::uint64_t number;
  std::uint64_t offset;
  bool cut;
};

std::vector<Got> read_all(ingest::ByteReader& r, std::size_t max_line = LineReader::kDefaultMaxLine,
                          std::uint64_t* cut = nullptr) {
  LineReader lr(r, max_line);
  std::vector<Got> out;
  Line l;
  while (lr.next(l)) out.push_back({std::string(l.text), l.number, l.offset, l.cut});
  if (cut != nullptr) *cut = lr.lines_cut();
  return out;
}

std::vector<Got> read_str(const std::string& s, std::size_t max_line = LineReader::kDefaultMaxLine) {
  ingest::MemoryReader r(s);
  return read_all(r, max_line);
}

TEST(LineReader, SplitsOnNewlineAndNumbersFromOne) {
  auto got = read_str("a\nbb\n\nccc\n");
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].text, "a");
  EXPECT_EQ(got[1].text, "bb");
  EXPECT_EQ(got[2].text, "");
  EXPECT_EQ(got[3].text, "ccc");
  EXPECT_EQ(got[3].number, 4u);
  EXPECT_EQ(got[1].offset, 2u);
  EXPECT_EQ(got[3].offset, 6u);
}

TEST(LineReader, LastLineWithoutNewlineIsKept) {
  auto got = read_str("one\ntwo");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].text, "two");
}

TEST(LineReader, EmptyInputHasNoLines) { EXPECT_TRUE(read_str("").empty()); }

TEST(LineReader, CrLfLosesTheCarriageReturnOnly) {
  auto got = read_str("a\r\nb\rc\r\n\r\n");
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].text, "a");
  EXPECT_EQ(got[1].text, "b\rc");
  EXPECT_EQ(got[2].text, "");
}

TEST(LineReader, NulBytesAndInvalidUtf8Survive) {
  const std::string s("x\0y\n\xff\xfe\xc3\n", 8);
  auto got = read_str(s);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].text, std::string("x\0y", 3));
  EXPECT_EQ(got[1].text, "\xff\xfe\xc3");
}

TEST(LineReader, FiveMebibyteLineIsCutAndNextLineKeepsItsNumber) {
  std::string s = "first\n";
  s += std::string(5 << 20, 'x');
  s += "\nafter\n";
  for (std::size_t step : {std::size_t(4096), std::size_t(1) << 22}) {
    DripReader r(s, step);
    std::uint64_t cut = 0;
    auto got = read_all(r, 1 << 20, &cut);
    ASSERT_EQ(got.size(), 3u) << "step " << step;
    EXPECT_EQ(got[1].text.size(), 1u << 20);
    EXPECT_TRUE(got[1].cut);
    EXPECT_EQ(got[1].offset, 6u);
    EXPECT_EQ(got[2].text, "after");
    EXPECT_EQ(got[2].number, 3u);
    EXPECT_FALSE(got[2].cut);
    EXPECT_EQ(got[2].offset, 6u + (5u << 20) + 1);
    EXPECT_EQ(cut, 1u);
  }
}

TEST(LineReader, LineOfExactlyTheLimitIsNotCut) {
  auto got = read_str(std::string(100, 'a') + "\n" + std::string(101, 'b') + "\nc", 100);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_FALSE(got[0].cut);
  EXPECT_TRUE(got[1].cut);
  EXPECT_EQ(got[1].text, std::string(100, 'b'));
  EXPECT_EQ(got[2].text, "c");
}

TEST(LineReader, OverlongLastLineWithoutNewlineIsCut) {
  auto got = read_str(std::string(300, 'z'), 100);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(got[0].cut);
  EXPECT_EQ(got[0].text.size(), 100u);
}

TEST(LineReader, SameLinesWhateverTheReadSizes) {
  std::mt19937 rng(7);
  std::string s;
  for (int i = 0; i < 2000; ++i) {
    s += std::string(rng() % 300, static_cast<char>('a' + i % 26));
    s += (i % 7 == 0) ? "\r\n" : "\n";
  }
  ingest::MemoryReader whole(s);
  const auto expected = read_all(whole, 256);
  for (std::size_t step : {1, 2, 3, 17, 255, 256, 257, 4096}) {
    DripReader r(s, step);
    const auto got = read_all(r, 256);
    ASSERT_EQ(got.size(), expected.size()) << "step " << step;
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].text, expected[i].text) << "step " << step << " line " << i;
      EXPECT_EQ(got[i].offset, expected[i].offset);
      EXPECT_EQ(got[i].cut, expected[i].cut);
    }
  }
}

}  // namespace
}  // namespace dtriage::lines

namespace dtriage::lines {
namespace {

// next_batch() gives the lines next() gives, in order, with the same numbers, offsets and cuts,
// whatever the read sizes, line lengths (cut ones included) and line ends; every line of a batch
// stays valid until the next call.
TEST(LineReader, BatchesGiveTheSameLinesAsNext) {
  std::mt19937 rng(7);
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    const std::size_t len = rng() % 7 == 0 ? 300 + rng() % 900 : rng() % 120;
    for (std::size_t j = 0; j < len; ++j) text += static_cast<char>('a' + rng() % 26);
    text += rng() % 5 == 0 ? "\r\n" : "\n";
  }
  text += "last line without a newline";
  for (std::size_t step : {1u, 7u, 4096u, 1u << 20}) {
    for (std::size_t max_batch : {1u, 3u, 4096u}) {
      DripReader a(text, step);
      const std::vector<Got> want = read_all(a, 512);
      DripReader b(text, step);
      LineReader lr(b, 512);
      std::vector<Line> batch;
      std::vector<Got> got;
      while (lr.next_batch(batch, max_batch)) {
        ASSERT_LE(batch.size(), max_batch);
        for (const Line& l : batch) got.push_back({std::string(l.text), l.number, l.offset, l.cut});
      }
      ASSERT_EQ(got.size(), want.size()) << "step " << step << " batch " << max_batch;
      for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].text, want[i].text) << i;
        EXPECT_EQ(got[i].number, want[i].number) << i;
        EXPECT_EQ(got[i].offset, want[i].offset) << i;
        EXPECT_EQ(got[i].cut, want[i].cut) << i;
      }
    }
  }
}

}  // namespace
}  // namespace dtriage::lines
