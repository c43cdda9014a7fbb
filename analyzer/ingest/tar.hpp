// A streaming tar reader: ustar, pax (path, size) and GNU long names, one member at a time.
#pragma once

#include <cstdint>
#include <string>

#include "ingest/byte_reader.hpp"

namespace dtriage::ingest {

class TarReader {
 public:
  enum class Type { Regular, Directory, Link, Other };
  struct Member {
    std::string name;
    std::uint64_t size = 0;
    Type type = Type::Regular;
    std::string damage;  // a damaged pax header before it (its records from the damage on ignored)
  };

  explicit TarReader(ByteReader& in) : in_(in) {}

  // Advances to the next member, skipping what is left of the previous one. Returns false at
  // the end of the archive or on an error (then error() is set).
  bool next(Member& m);
  // The data of the current member; valid until next().
  ByteReader& data() { return data_; }
  const std::string& error() const { return error_; }
  bool stopped_by_limit() const { return in_.stopped_by_limit(); }  // the error is a limit of the run

 private:
  class Data final : public ByteReader {
   public:
    explicit Data(TarReader& t) : t_(t) {}
    std::size_t read(char* buf, std::size_t cap) override;
    void reset(std::uint64_t size) {
      remaining_ = size;
      clear_error();
    }
    std::uint64_t remaining_ = 0;

   private:
    TarReader& t_;
  };

  bool read_exact(char* buf, std::size_t n, bool& eof_at_start);
  bool skip(std::uint64_t n);
  bool read_text(std::uint64_t size, std::string& out);
  void set_error(std::string e) {
    if (error_.empty()) error_ = std::move(e);
  }

  ByteReader& in_;
  Data data_{*this};
  std::uint64_t pad_ = 0;   // padding after the current member's data
  std::uint64_t offset_ = 0;
  std::string error_;
  bool end_ = false;
};

}  // namespace dtriage::ingest
