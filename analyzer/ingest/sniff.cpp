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

// UTF-16 without a byte-order mark: most code units of the head are ASCII, so every other byte
// is NUL (at odd offsets for little endian, even for big endian) and the others are not.
Content utf16_without_bom(std::string_view head) {
  const std::size_t pairs = head.size() / 2;
  if (pairs < 16) return Content::Text;
  std::size_t le = 0, be = 0;
  for (std::size_t i = 0; i + 1 < head.size(); i += 2) {
    const bool a = head[i] == '\0', b = head[i + 1] == '\0';
    le += !a && b;
    be += a && !b;
  }
  if (le * 10 >= pairs * 9) return Content::Utf16Le;
  if (be * 10 >= pairs * 9) return Content::Utf16Be;
  return Content::Text;
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
  if (starts_with(head, "\xef\xbb\xbf")) return Content::Utf8Bom;
  if (starts_with(head, "\xff\xfe") && !starts_with(head, std::string_view("\xff\xfe\0\0", 4))) return Content::Utf16Le;
  if (starts_with(head, "\xfe\xff")) return Content::Utf16Be;
  if (const Content u = utf16_without_bom(head); u != Content::Text) return u;
  if (looks_binary(head)) return Content::Binary;
  return Content::Text;
}

const Unsupported* unsupported_format(std::string_view head) {
  struct Magic {
    std::string_view bytes;
    Unsupported what;
  };
  static const Magic kMagic[] = {
      {std::string_view("Rar!\x1a\x07", 6), {"a RAR archive", "unrar x FILE"}},
      {std::string_view("7z\xbc\xaf\x27\x1c", 6), {"a 7-Zip archive", "7z x FILE"}},
      {std::string_view("\x04\x22\x4d\x18", 4), {"LZ4-compressed data", "lz4 -d FILE"}},
      {std::string_view("LZIP", 4), {"lzip-compressed data", "lzip -d FILE"}},
      {std::string_view("\x1f\x9d", 2), {"compress (.Z) data", "uncompress FILE"}},
      {std::string_view("070701", 6), {"a cpio archive", "cpio -id < FILE"}},
      {std::string_view("070707", 6), {"a cpio archive", "cpio -id < FILE"}},
  };
  for (const Magic& m : kMagic)
    if (starts_with(head, m.bytes)) return &m.what;
  return nullptr;
}

const char* content_name(Content c) {
  switch (c) {
    case Content::Empty: return "empty";
    case Content::Text: return "text";
    case Content::Utf8Bom: return "text (UTF-8 with a byte-order mark)";
    case Content::Utf16Le: return "text (UTF-16LE)";
    case Content::Utf16Be: return "text (UTF-16BE)";
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
