#include "ingest/tar.hpp"

#include <algorithm>
#include <cstring>

#include "base/sentences.hpp"

namespace dtriage::ingest {

using base::Say;
using base::say;
namespace {

constexpr std::size_t kBlock = 512;
constexpr std::uint64_t kMaxMetaSize = 1 << 20;  // pax headers and GNU long names
constexpr std::size_t kMaxName = 4096;            // member names longer than this are cut

// Octal field, or GNU base-256 when the high bit of the first byte is set.
bool parse_number(const char* f, std::size_t len, std::uint64_t& out) {
  const auto* u = reinterpret_cast<const unsigned char*>(f);
  if (u[0] & 0x80) {
    std::uint64_t v = u[0] & 0x3f;
    for (std::size_t i = 1; i < len; ++i) {
      if (v >> 55) return false;
      v = (v << 8) | u[i];
    }
    out = v;
    return true;
  }
  std::size_t i = 0;
  while (i < len && (f[i] == ' ' || f[i] == '\0')) ++i;
  std::uint64_t v = 0;  // an all-blank field reads as 0, as tar does
  for (; i < len && f[i] >= '0' && f[i] <= '7'; ++i) {
    if (v >> 60) return false;
    v = v * 8 + static_cast<std::uint64_t>(f[i] - '0');
  }
  for (; i < len; ++i)
    if (f[i] != ' ' && f[i] != '\0') return false;
  out = v;
  return true;
}

std::string field(const char* f, std::size_t len) { return std::string(f, strnlen(f, len)); }

bool checksum_ok(const char* h) {
  std::uint64_t stored = 0;
  if (!parse_number(h + 148, 8, stored)) return false;
  std::uint64_t unsigned_sum = 0;
  std::int64_t signed_sum = 0;
  for (std::size_t i = 0; i < kBlock; ++i) {
    const bool in_field = i >= 148 && i < 156;
    unsigned_sum += in_field ? ' ' : static_cast<unsigned char>(h[i]);
    signed_sum += in_field ? ' ' : static_cast<signed char>(h[i]);
  }
  return stored == unsigned_sum || static_cast<std::int64_t>(stored) == signed_sum;
}

// pax records: "<len> <key>=<value>\n". False when a record is damaged (a length that is no
// number or does not fit): the records from there on are ignored.
bool parse_pax(const std::string& text, std::string& path, std::uint64_t& size, bool& has_size) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t sp = text.find(' ', pos);
    if (sp == std::string::npos) return text.find_first_not_of(std::string_view("\0", 1), pos) == std::string::npos;
    std::uint64_t len = 0;
    for (std::size_t i = pos; i < sp; ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      len = len * 10 + static_cast<std::uint64_t>(text[i] - '0');
      if (len > text.size()) return false;  // longer than the header: damaged (and no overflow)
    }
    // The record must hold its own length field and the space (so that pos always moves on).
    if (len <= sp - pos || len > text.size() - pos) return false;
    const std::string rec = text.substr(sp + 1, pos + len - sp - 1);  // key=value\n
    const std::size_t eq = rec.find('=');
    if (eq != std::string::npos) {
      std::string value = rec.substr(eq + 1);
      if (!value.empty() && value.back() == '\n') value.pop_back();
      const std::string key = rec.substr(0, eq);
      if (key == "path") path = value;
      else if (key == "size") {
        std::uint64_t v = 0;
        bool ok = !value.empty();
        for (char c : value) {
          if (c < '0' || c > '9' || v > (UINT64_MAX - 9) / 10) ok = false;
          else v = v * 10 + static_cast<std::uint64_t>(c - '0');
        }
        if (ok) {
          size = v;
          has_size = true;
        }
      }
    }
    pos += len;
  }
  return true;
}

}  // namespace

std::size_t TarReader::Data::read(char* buf, std::size_t cap) {
  if (failed() || remaining_ == 0) return 0;
  const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(cap, remaining_));
  const std::size_t n = t_.in_.read(buf, want);
  remaining_ -= n;
  t_.offset_ += n;
  if (n == 0) {
    if (t_.in_.failed()) fail_from(t_.in_);
    else fail(say(Say::InputTarMemberCut));
    t_.set_error(error());
  }
  return n;
}

bool TarReader::read_exact(char* buf, std::size_t n, bool& eof_at_start) {
  std::size_t got = 0;
  eof_at_start = false;
  while (got < n) {
    const std::size_t r = in_.read(buf + got, n - got);
    if (r == 0) {
      if (in_.failed()) set_error(in_.error());
      eof_at_start = got == 0 && !in_.failed();
      return false;
    }
    got += r;
  }
  offset_ += n;
  return true;
}

bool TarReader::skip(std::uint64_t n) {
  char buf[16 * 1024];
  while (n > 0) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(n, sizeof buf));
    bool eof = false;
    if (!read_exact(buf, want, eof)) {
      set_error(in_.failed() ? in_.error() : say(Say::InputTarMemberCut));
      return false;
    }
    n -= want;
  }
  return true;
}

bool TarReader::read_text(std::uint64_t size, std::string& out) {
  if (size > kMaxMetaSize) {
    set_error(say(Say::InputTarHeaderOversized, {{"size", std::to_string(size)}}));
    return false;
  }
  out.assign(static_cast<std::size_t>(size), '\0');
  bool eof = false;
  if (size > 0 && !read_exact(out.data(), out.size(), eof)) {
    set_error(say(Say::InputTarExtendedHeaderCut));
    return false;
  }
  out.resize(strnlen(out.data(), out.size()));
  const std::uint64_t pad = (kBlock - size % kBlock) % kBlock;
  return skip(pad);
}

bool TarReader::next(Member& m) {
  if (end_ || !error_.empty()) return false;
  // Finish the previous member.
  if (data_.remaining_ > 0 || pad_ > 0) {
    if (!skip(data_.remaining_ + pad_)) return false;
    data_.remaining_ = 0;
    pad_ = 0;
  }
  m.damage.clear();
  std::string long_name;
  std::string pax_path;
  std::uint64_t pax_size = 0;
  bool has_pax_size = false;
  for (;;) {
    char h[kBlock];
    bool eof = false;
    const std::uint64_t at = offset_;
    if (!read_exact(h, kBlock, eof)) {
      if (eof) {  // no end-of-archive blocks: accept, as GNU tar does with a warning
        end_ = true;
        return false;
      }
      set_error(say(Say::InputTarHeaderCut, {{"offset", std::to_string(at)}}));
      return false;
    }
    if (std::all_of(h, h + kBlock, [](char c) { return c == 0; })) {
      end_ = true;
      return false;
    }
    if (!checksum_ok(h)) {
      set_error(say(Say::InputTarBadChecksum, {{"offset", std::to_string(at)}}));
      return false;
    }
    std::uint64_t size = 0;
    if (!parse_number(h + 124, 12, size)) {
      set_error(say(Say::InputTarBadSize, {{"offset", std::to_string(at)}}));
      return false;
    }
    const char type = h[156];
    if (type == 'S') {  // old GNU sparse: more of the sparse map in extension blocks while "isextended"
      bool extended = h[482] != 0;
      while (extended) {
        char ext[kBlock];
        bool ext_eof = false;
        if (!read_exact(ext, kBlock, ext_eof)) {
          set_error(say(Say::InputTarSparseHeaderCut, {{"offset", std::to_string(offset_)}}));
          return false;
        }
        extended = ext[504] != 0;
      }
    }
    if (type == 'L') {  // GNU long name for the next member
      if (!read_text(size, long_name)) return false;
      continue;
    }
    if (type == 'K') {  // GNU long link name: not needed
      std::string ignored;
      if (!read_text(size, ignored)) return false;
      continue;
    }
    if (type == 'x') {
      std::string pax;
      if (!read_text(size, pax)) return false;
      if (!parse_pax(pax, pax_path, pax_size, has_pax_size)) m.damage = say(Say::InputTarPaxDamaged);
      continue;
    }
    if (type == 'g') {  // global pax header
      std::string ignored;
      if (!read_text(size, ignored)) return false;
      continue;
    }
    if (has_pax_size) size = pax_size;
    std::string name;
    if (!pax_path.empty()) name = pax_path;
    else if (!long_name.empty()) name = long_name;
    else {
      name = field(h, 100);
      if (std::memcmp(h + 257, "ustar", 5) == 0) {
        const std::string prefix = field(h + 345, 155);
        if (!prefix.empty()) name = prefix + "/" + name;
      }
    }
    while (name.size() > 2 && name.compare(0, 2, "./") == 0) name.erase(0, 2);
    // No real file name is this long (PATH_MAX is 4096); a longer one would be copied into every
    // event of the member.
    if (name.size() > kMaxName) name = say(Say::InputNameCut, {{"name", name.substr(0, kMaxName)}, {"size", std::to_string(name.size())}});
    m.name = name;
    m.size = size;
    switch (type) {
      case '0': case '\0': case '7': case 'S': m.type = Type::Regular; break;  // 'S': the data without its holes
      case '5': m.type = Type::Directory; break;
      case '1': case '2': m.type = Type::Link; break;
      default: m.type = Type::Other; break;
    }
    data_.reset(size);
    pad_ = (kBlock - size % kBlock) % kBlock;
    return true;
  }
}

}  // namespace dtriage::ingest
