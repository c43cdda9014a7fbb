#include "ingest/sniff.hpp"

namespace dtriage::ingest {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// A tar header carries "ustar" at offset 257 (POSIX ustar and pax: "ustar\0", GNU: "ustar  ").
bool looks_like_tar(std::string_view head) {
  return head.size() >= 262 && head.substr(257, 5) == "ustar";
}

// Text unless a noticeable share (5%) of the head is control bytes other than the usual
// whitespace and ANSI escapes. Logs with a few NUL bytes or invalid UTF-8 (GBK, Latin-1) stay
// text; random or compressed data has about 10% such bytes, well clear of the line.
bool looks_binary(std::string_view head) {
  if (starts_with(head, "\x7f" "ELF")) return true;
  std::size_t control = 0;
  for (unsigned char c : head) {
    const bool ok = c >= 0x20 || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
                    c == '\v' || c == 0x1b || c == '\b';
    if (!ok || c == 0x7f) ++control;
  }
  return control * 20 > head.size() && control >= 4;  // more than 5% (and more than a stray byte or three)
}

}  // namespace

Content sniff(std::string_view head) {
  if (head.empty()) return Content::Empty;
  if (starts_with(head, "\x1f\x8b")) return Content::Gzip;
  if (starts_with(head, "BZh") && head.size() >= 4 && head[3] >= '1' && head[3] <= '9')
    return Content::Bzip2;
  if (starts_with(head, std::string_view("\xfd" "7zXZ\0", 6))) return Content::Xz;
  if (starts_with(head, "\x28\xb5\x2f\xfd")) return Content::Zstd;
  if (starts_with(head, "PK\x03\x04") || starts_with(head, "PK\x05\x06")) return Content::Zip;
  if (looks_like_tar(head)) return Content::Tar;
  if (looks_binary(head)) return Content::Binary;
  return Content::Text;
}

const char* content_name(Content c) {
  switch (c) {
    case Content::Empty: return "empty";
    case Content::Text: return "text";
    case Content::Binary: return "binary";
    case Content::Gzip: return "gzip";
    case Content::Bzip2: return "bzip2";
    case Content::Xz: return "xz";
    case Content::Zstd: return "zstd";
    case Content::Tar: return "tar";
    case Content::Zip: return "zip";
  }
  return "?";
}

}  // namespace dtriage::ingest
