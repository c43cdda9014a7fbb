// Ingest: every codec and container gives the same lines; bad input is reported, never fatal.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "test_util.hpp"

namespace dtriage::test {
namespace {

const char* kLog =
    "[ERROR] RUNTIME(51302,python):2025-06-04-10:11:12.123.456 [device.cc:120]51302 Init: device 0 failed\r\n"
    "EE8888: [PID: 51302] 2025-06-04-10:11:12.200.000 memcpy exception\n"
    "        Possible Cause: there is a sdma error\n"
    "\n"
    "line with unicode \xe4\xb8\xad and a tab\tend\n"
    "last line without newline";

std::vector<std::string> texts(const Collected& c) {
  std::vector<std::string> out;
  for (const auto& e : c.events) out.push_back(e.text);
  return out;
}

bool have(const char* tool) { return sh(std::string("command -v ") + tool + " >/dev/null 2>&1") == 0; }

class CodecMatrix : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* tool : {"gzip", "bzip2", "xz", "zstd", "tar", "zip"})
      if (!have(tool)) GTEST_SKIP() << tool << " is not installed (tools/install-deps.sh installs it)";
    dir_.write("src/node3/plog/plog-51302_20250604.log", kLog);
    const std::string d = dir_.path();
    const std::string f = d + "/src/node3/plog/plog-51302_20250604.log";
    ASSERT_EQ(sh("cd '" + d + "' && mkdir -p in && cp '" + f + "' in/plain.log"), 0);
    ASSERT_EQ(sh("cd '" + d + "' && gzip -c '" + f + "' > in/a.log.gz"), 0);
    // Concatenated members: the first half and the second half gzipped separately.
    ASSERT_EQ(sh("cd '" + d + "' && head -c 100 '" + f + "' | gzip -c > in/cat.gz && tail -c +101 '" + f +
                 "' | gzip -c >> in/cat.gz"),
              0);
    ASSERT_EQ(sh("cd '" + d + "' && bzip2 -c '" + f + "' > in/a.log.bz2"), 0);
    ASSERT_EQ(sh("cd '" + d + "' && xz -c '" + f + "' > in/a.log.xz"), 0);
    ASSERT_EQ(sh("cd '" + d + "' && zstd -q -c '" + f + "' > in/a.log.zst"), 0);
    ASSERT_EQ(sh("cd '" + d + "/src' && tar cf ../in/a.tar node3"), 0);
    ASSERT_EQ(sh("cd '" + d + "/src' && tar czf ../in/a.tar.gz node3"), 0);
    ASSERT_EQ(sh("cd '" + d + "/src' && zip -q -r ../in/a.zip node3"), 0);
    ASSERT_EQ(sh("cd '" + d + "/in' && tar cf nested.tar a.tar.gz"), 0);
    ASSERT_EQ(sh("cd '" + d + "/src' && tar --format=gnu -cf ../in/gnu.tar node3 && tar --format=pax -cf ../in/pax.tar node3"), 0);
  }
  TempDir dir_;
};

TEST_F(CodecMatrix, EveryCodecAndContainerGivesTheSameLines) {
  const auto expected = texts(collect_lines({dir_.file("in/plain.log")}));
  ASSERT_EQ(expected.size(), 6u);
  EXPECT_EQ(expected[0].find('\r'), std::string::npos);  // CRLF: the \r is gone
  for (const char* name : {"a.log.gz", "cat.gz", "a.log.bz2", "a.log.xz", "a.log.zst", "a.tar", "a.tar.gz",
                           "a.zip", "nested.tar", "gnu.tar", "pax.tar"}) {
    const Collected c = collect_lines({dir_.file(std::string("in/") + name)});
    EXPECT_EQ(texts(c), expected) << name;
    EXPECT_TRUE(c.inventory.unreadable.empty()) << name << ": " << (c.inventory.unreadable.empty() ? "" : c.inventory.unreadable[0].reason);
  }
}

TEST_F(CodecMatrix, MemberPathsAndNodeHints) {
  const Collected c = collect_lines({dir_.file("in/nested.tar")});
  ASSERT_FALSE(c.events.empty());
  EXPECT_EQ(c.events[0].path, "nested.tar!a.tar.gz!node3/plog/plog-51302_20250604.log");
  EXPECT_EQ(c.events[0].node, "node3");
  EXPECT_EQ(c.events[0].line, 1u);
  const Collected z = collect_lines({dir_.file("in/a.log.gz")});
  EXPECT_EQ(z.events[0].path, "a.log.gz");
}

TEST_F(CodecMatrix, DirectoryWalkIsSortedAndRelative) {
  const Collected c = collect_lines({dir_.file("src")});
  ASSERT_FALSE(c.events.empty());
  EXPECT_EQ(c.events[0].path, "node3/plog/plog-51302_20250604.log");
  EXPECT_EQ(c.inventory.files, 1u);
  // Several PATHs: each path starts with the PATH's own name.
  const Collected two = collect_lines({dir_.file("src"), dir_.file("in/a.zip")});
  EXPECT_EQ(two.events.front().path, "src/node3/plog/plog-51302_20250604.log");
  EXPECT_EQ(two.events.back().path, "a.zip!node3/plog/plog-51302_20250604.log");
}

TEST(IngestBadInput, TruncatedGzipKeepsTheLinesBeforeTheCut) {
  TempDir d;
  std::string big;
  for (int i = 0; i < 200000; ++i) big += "line " + std::to_string(i) + "\n";
  d.write("big.log", big);
  ASSERT_EQ(sh("cd '" + d.path() + "' && gzip -c big.log | head -c 300000 > cut.gz"), 0);
  const Collected c = collect_lines({d.file("cut.gz")});
  ASSERT_EQ(c.inventory.unreadable.size(), 1u);
  EXPECT_EQ(c.inventory.unreadable[0].path, "cut.gz");
  EXPECT_NE(c.inventory.unreadable[0].reason.find("truncated"), std::string::npos);
  ASSERT_GT(c.events.size(), 10000u);
  // Every line but the last (cut mid-way) is intact and in order.
  for (std::size_t i = 0; i + 1 < c.events.size(); ++i)
    ASSERT_EQ(c.events[i].text, "line " + std::to_string(i));
}

TEST(IngestBadInput, CorruptTarReportsAndKeepsEarlierMembers) {
  TempDir d;
  d.write("t/a.log", "alpha\n");
  d.write("t/b.log", "beta\n");
  ASSERT_EQ(sh("cd '" + d.path() + "/t' && tar cf ../ok.tar a.log b.log"), 0);
  // Damage the second header (offset 1024): its checksum no longer matches.
  std::string tar = read_file(d.file("ok.tar"));
  ASSERT_GT(tar.size(), 1100u);
  tar[1024 + 10] = 'X';
  d.write("bad.tar", tar);
  const Collected c = collect_lines({d.file("bad.tar")});
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0].text, "alpha");
  ASSERT_EQ(c.inventory.unreadable.size(), 1u);
  EXPECT_EQ(c.inventory.unreadable[0].path, "bad.tar");
  EXPECT_NE(c.inventory.unreadable[0].reason.find("checksum"), std::string::npos);
}

TEST(IngestBadInput, TarCutInsideAMember) {
  TempDir d;
  std::string body;
  for (int i = 0; i < 5000; ++i) body += "row " + std::to_string(i) + "\n";
  d.write("t/a.log", body);
  ASSERT_EQ(sh("cd '" + d.path() + "/t' && tar cf - a.log | head -c 20000 > ../cut.tar"), 0);
  const Collected c = collect_lines({d.file("cut.tar")});
  ASSERT_EQ(c.inventory.unreadable.size(), 1u);
  EXPECT_EQ(c.inventory.unreadable[0].path, "cut.tar!a.log");
  EXPECT_GT(c.events.size(), 2000u);  // 20000 - 512 header bytes of rows
}

TEST(IngestBadInput, BinaryFileIsUnreadableAndTheRunGoesOn) {
  TempDir d;
  std::string bin;
  for (int i = 0; i < 4096; ++i) bin.push_back(static_cast<char>(i * 7 % 31));
  d.write("dir/blob.bin", bin);
  d.write("dir/ok.log", "fine\n");
  const Collected c = collect_lines({d.file("dir")});
  ASSERT_EQ(c.events.size(), 1u);
  ASSERT_EQ(c.inventory.unreadable.size(), 1u);
  EXPECT_EQ(c.inventory.unreadable[0].path, "blob.bin");
  EXPECT_NE(c.inventory.unreadable[0].reason.find("binary"), std::string::npos);
}

// Logs saved by a Windows editor on the way to a ticket: UTF-16 (with a byte-order mark or
// without), a UTF-8 byte-order mark. Each is read as the same UTF-8 lines, gzipped too.
std::string utf16(const std::string& ascii_and_more, bool le, bool bom) {
  // ascii_and_more: UTF-8 holding ASCII, "é" (U+00E9), "中" (U+4E2D) and "😀" (U+1F600)
  std::vector<std::uint32_t> cps;
  for (std::size_t i = 0; i < ascii_and_more.size();) {
    const auto c = static_cast<unsigned char>(ascii_and_more[i]);
    const int n = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    std::uint32_t cp = n == 1 ? c : c & (0xff >> (n + 1));
    for (int k = 1; k < n; ++k) cp = cp << 6 | (static_cast<unsigned char>(ascii_and_more[i + k]) & 0x3f);
    cps.push_back(cp);
    i += n;
  }
  std::string out = bom ? (le ? "\xff\xfe" : "\xfe\xff") : "";
  auto unit = [&](std::uint32_t u) {
    const char lo = static_cast<char>(u & 0xff), hi = static_cast<char>(u >> 8);
    out += le ? lo : hi;
    out += le ? hi : lo;
  };
  for (std::uint32_t cp : cps) {
    if (cp >= 0x10000) {
      unit(0xd800 + ((cp - 0x10000) >> 10));
      unit(0xdc00 + ((cp - 0x10000) & 0x3ff));
    } else {
      unit(cp);
    }
  }
  return out;
}

TEST(IngestEncodings, Utf16AndByteOrderMarksAreReadAsUtf8) {
  const std::string text = "[ERROR] RUNTIME(51302,python3):2025-06-04-10:14:21.402.250 caf\xc3\xa9\r\n"
                           "\xe4\xb8\xad line two \xf0\x9f\x98\x80\nlast line without end";
  TempDir d;
  d.write("le-bom.log", utf16(text, true, true));
  d.write("be-bom.log", utf16(text, false, true));
  d.write("le.log", utf16(text, true, false));
  d.write("be.log", utf16(text, false, false));
  d.write("utf8-bom.log", "\xef\xbb\xbf" + text);
  ASSERT_EQ(sh("gzip -k '" + d.file("le-bom.log") + "'"), 0);
  for (const char* f : {"le-bom.log", "be-bom.log", "le.log", "be.log", "utf8-bom.log", "le-bom.log.gz"}) {
    const Collected c = collect_lines({d.file(f)});
    ASSERT_EQ(c.events.size(), 3u) << f;
    EXPECT_TRUE(c.inventory.unreadable.empty()) << f;
    EXPECT_EQ(c.events[0].text, "[ERROR] RUNTIME(51302,python3):2025-06-04-10:14:21.402.250 caf\xc3\xa9") << f;
    EXPECT_EQ(c.events[1].text, "\xe4\xb8\xad line two \xf0\x9f\x98\x80") << f;
    EXPECT_EQ(c.events[2].text, "last line without end") << f;
  }
  // A lone surrogate and an odd last byte become U+FFFD; nothing is lost around them.
  d.write("broken.log", std::string("\xff\xfe" "a\0\x00\xd8" "b\0\n\0c", 11));  // ends on a lone byte
  const Collected b = collect_lines({d.file("broken.log")});
  ASSERT_EQ(b.events.size(), 2u);
  EXPECT_EQ(b.events[0].text, "a\xef\xbf\xbd" "b");
  EXPECT_EQ(b.events[1].text, "\xef\xbf\xbd");
  // Binary data with NUL bytes at random places is still binary.
  std::string bin;
  for (int i = 0; i < 4096; ++i) bin.push_back(static_cast<char>(i % 3 == 0 ? 0 : i * 7 % 31));
  d.write("blob.bin", bin);
  EXPECT_EQ(collect_lines({d.file("blob.bin")}).inventory.unreadable.size(), 1u);
}

// Reads every byte of every text and keeps nothing: what the ingest layer does, without the cost
// of an event per line.
struct Drain final : ingest::Sink {
  void on_text(const ingest::Source&, ingest::ByteReader& text) override {
    static char buf[1 << 16];
    while (text.read(buf, sizeof buf) > 0) {
    }
  }
};

base::Inventory drained(const std::string& path, ingest::Limits limits = {}) {
  base::Inventory inv;
  ingest::Ingestor ing(limits, ingest::NodeHints{}, inv);
  Drain sink;
  ing.run({path}, sink);
  return inv;
}

TEST(IngestBadInput, ExpansionRatioBombIsStopped) {
  if (!have("zstd")) GTEST_SKIP() << "zstd not installed";
  TempDir d;
  ASSERT_EQ(sh("cd '" + d.path() + "' && yes 'all work and no play' | head -c 64000000 | zstd -q -3 -c > bomb.zst"), 0);
  const base::Inventory stopped = drained(d.file("bomb.zst"));
  ASSERT_EQ(stopped.unreadable.size(), 1u);
  EXPECT_NE(stopped.unreadable[0].reason.find("--max-ratio"), std::string::npos);
  EXPECT_LT(stopped.bytes, 32u << 20);  // stopped early, not after 64 MB
  // The same file is read in full when the limit allows it.
  ingest::Limits generous;
  generous.max_ratio = 1e9;
  const base::Inventory full = drained(d.file("bomb.zst"), generous);
  EXPECT_TRUE(full.unreadable.empty());
  EXPECT_EQ(full.bytes, 64000000u);
}

TEST(IngestBadInput, ZipBombInsideAZip) {
  if (!have("zip")) GTEST_SKIP() << "zip not installed";
  TempDir d;
  ASSERT_EQ(sh("cd '" + d.path() + "' && yes 'aaaaaaaaaaaaaaaaaaaaaaaaa' | head -c 100000000 > big.log && zip -q -9 b.zip big.log && rm big.log"), 0);
  ingest::Limits l;
  l.max_ratio = 100;
  const Collected c = collect_lines({d.file("b.zip")}, l);
  ASSERT_FALSE(c.inventory.unreadable.empty());
  EXPECT_NE(c.inventory.unreadable[0].reason.find("--max-ratio"), std::string::npos);
}

TEST(IngestBadInput, TotalSizeLimit) {
  TempDir d;
  d.write("a/1.log", std::string(1000, 'x') + "\n");
  d.write("a/2.log", std::string(1000, 'y') + "\n");
  ingest::Limits l;
  l.max_total_bytes = 1500;
  const Collected c = collect_lines({d.file("a")}, l);
  ASSERT_EQ(c.inventory.unreadable.size(), 1u);
  EXPECT_EQ(c.inventory.unreadable[0].path, "2.log");
  EXPECT_NE(c.inventory.unreadable[0].reason.find("--max-total-bytes"), std::string::npos);
  EXPECT_EQ(c.inventory.bytes, 1500u);
}

TEST(IngestBadInput, SymlinkLoopIsSkippedNotFollowedForever) {
  TempDir d;
  d.write("root/node1/a.log", "a\n");
  ASSERT_EQ(::symlink("..", d.file("root/node1/up").c_str()), 0);
  ASSERT_EQ(::symlink("a.log", d.file("root/node1/same.log").c_str()), 0);
  ASSERT_EQ(::symlink("missing", d.file("root/node1/dangling").c_str()), 0);
  const Collected c = collect_lines({d.file("root")});
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_TRUE(c.inventory.unreadable.empty());
  ASSERT_EQ(c.inventory.skipped.size(), 3u);
  bool loop = false, same = false, dangling = false;
  for (const auto& s : c.inventory.skipped) {
    loop |= s.path == "node1/up" && s.reason.find("loop") != std::string::npos;
    same |= s.path == "node1/same.log" && s.reason.find("same file") != std::string::npos;
    dangling |= s.path == "node1/dangling" && s.reason.find("broken symlink") != std::string::npos;
  }
  EXPECT_TRUE(loop && same && dangling);
}

TEST(IngestBadInput, MissingPathIsUnreadable) {
  const Collected c = collect_lines({"/nonexistent/dtriage/path"});
  EXPECT_FALSE(c.read_anything);
  ASSERT_EQ(c.inventory.unreadable.size(), 1u);
  EXPECT_NE(c.inventory.unreadable[0].reason.find("No such file"), std::string::npos);
}

TEST(IngestBadInput, ArchivesNestedTooDeep) {
  if (!have("gzip")) GTEST_SKIP();
  TempDir d;
  d.write("x.log", "deep\n");
  // 20 layers of gzip around one line.
  ASSERT_EQ(sh("cd '" + d.path() + "' && cp x.log l && for i in $(seq 20); do gzip -c l > l.gz && mv l.gz l; done && mv l deep.gz"), 0);
  const Collected c = collect_lines({d.file("deep.gz")});
  EXPECT_TRUE(c.events.empty());
  ASSERT_EQ(c.inventory.unreadable.size(), 1u);
  EXPECT_NE(c.inventory.unreadable[0].reason.find("nested deeper"), std::string::npos);
}

}  // namespace
}  // namespace dtriage::test
