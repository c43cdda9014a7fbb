// Decides what a stream holds from its first bytes, never from its name.
#pragma once

#include <string_view>

namespace dtriage::ingest {

// Utf8Bom, Utf16Le, Utf16Be: text in another Unicode form (UnicodeReader makes it UTF-8).
enum class Content { Empty, Text, Utf8Bom, Utf16Le, Utf16Be, Binary, Gzip, Bzip2, Xz, Zstd, Tar, Zip };

// How many leading bytes sniff() wants to see (a tar header is 512 bytes).
inline constexpr std::size_t kSniffBytes = 8192;

Content sniff(std::string_view head);
const char* content_name(Content c);

// Archives and compressors dtriage does not read (RAR, 7-Zip, LZ4, lzip, compress, cpio), known
// by their magic bytes: their name and the command that unpacks them; nullptr for any other head.
struct Unsupported {
  const char* name;
  const char* how;
};
const Unsupported* unsupported_format(std::string_view head);
inline bool is_container(Content c) {
  return c == Content::Gzip || c == Content::Bzip2 || c == Content::Xz || c == Content::Zstd ||
         c == Content::Tar || c == Content::Zip;
}

}  // namespace dtriage::ingest
