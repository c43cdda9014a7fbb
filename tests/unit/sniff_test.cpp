#include "ingest/sniff.hpp"

#include <gtest/gtest.h>

#include <string>

namespace dtriage::ingest {
namespace {

TEST(Sniff, RecognisesMagicBytes) {
  EXPECT_EQ(sniff(std::string("\x1f\x8b\x08\x00", 4)), Content::Gzip);
  EXPECT_EQ(sniff("BZh91AY&SY"), Content::Bzip2);
  EXPECT_EQ(sniff(std::string("\xfd" "7zXZ\0\0", 7)), Content::Xz);
  EXPECT_EQ(sniff(std::string("\x28\xb5\x2f\xfd\x00", 5)), Content::Zstd);
  EXPECT_EQ(sniff("PK\x03\x04rest"), Content::Zip);
  std::string tar(512, '\0');
  tar.replace(0, 5, "a.log");
  tar.replace(257, 6, std::string("ustar\0", 6));
  EXPECT_EQ(sniff(tar), Content::Tar);
}

TEST(Sniff, TextWithSomeNulBytesStaysText) {
  std::string s = "[ERROR] RUNTIME(971,):2026-06-17-12:12:04.882.278 something failed\n";
  s += std::string(3, '\0');
  s += "next line\n";
  EXPECT_EQ(sniff(s), Content::Text);
  EXPECT_EQ(sniff("caf\xc3\xa9 \xff\xfe latin-1 bytes\n"), Content::Text);
}

TEST(Sniff, MostlyControlBytesIsBinary) {
  std::string s;
  for (int i = 0; i < 1000; ++i) s.push_back(static_cast<char>(i % 32));
  EXPECT_EQ(sniff(s), Content::Binary);
  EXPECT_EQ(sniff("\x7f" "ELF\x02\x01\x01"), Content::Binary);
  EXPECT_EQ(sniff(""), Content::Empty);
}

TEST(Sniff, GzipMagicMustBeAtTheStart) { EXPECT_EQ(sniff("log line \x1f\x8b\n"), Content::Text); }

}  // namespace
}  // namespace dtriage::ingest
