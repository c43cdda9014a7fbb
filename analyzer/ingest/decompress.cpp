#include "ingest/decompress.hpp"

#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "base/sentences.hpp"

namespace dtriage::ingest {

using base::Say;
using base::say;

std::string format_bytes(std::uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = static_cast<double>(n);
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

std::string ratio_message(double max_ratio, std::uint64_t out, std::uint64_t in) {
  char ratio[64];
  std::snprintf(ratio, sizeof ratio, "%.0f", max_ratio);
  return say(Say::InputRatio, {{"ratio", ratio}, {"out", format_bytes(out)}, {"in", format_bytes(in)}});
}

std::string RatioLimit::spend(std::uint64_t produced) const {
  if (budget != nullptr) {
    budget->out += produced;
    if (exceeded(budget->out, budget->in))
      return say(Say::InputAllLayers, {{"reason", ratio_message(max_ratio, budget->out, budget->in)}});
  }
  if (run != nullptr) {
    const std::uint64_t out = run->out += produced, in = run->in.load();
    if (out > RunBudget::kGraceFactor * grace_bytes && static_cast<double>(out) > max_ratio * static_cast<double>(in > 0 ? in : 1))
      return say(Say::InputRunRatio, {{"reason", ratio_message(max_ratio, out, in)}});
  }
  return "";
}

namespace {

constexpr std::size_t kInChunk = 64 * 1024;

// Common input buffering, accounting and ratio check; subclasses implement one decode step.
class Decoder : public ByteReader {
 public:
  Decoder(ByteReader& inner, RatioLimit limit, const char* name)
      : inner_(inner), limit_(limit), name_(name), in_(kInChunk) {}

  std::size_t read(char* buf, std::size_t cap) override {
    while (!failed() && !done_) {
      if (avail_ == 0 && !in_eof_) refill();
      std::size_t produced = 0;
      const Step s = step(buf, cap, produced);
      out_total_ += produced;
      if (limit_.exceeded(out_total_, in_total_)) {
        fail_limit(ratio_message(limit_.max_ratio, out_total_, in_total_));
        return produced;
      }
      if (std::string why = limit_.spend(produced); !why.empty()) {
        fail_limit(std::move(why));
        return produced;
      }
      if (s == Step::Error) return produced;  // error set by step(); data so far is delivered
      if (s == Step::End) {
        // Another member / stream may follow (concatenated files).
        if (avail_ == 0 && !in_eof_) refill();
        if (avail_ > 0 && starts_new_member()) {
          restart();
        } else if (avail_ > 0 && !magic().empty() && resync()) {
          restart();  // garbage between members: noted, and the members after it are read
        } else {
          done_ = true;
        }
      }
      if (produced > 0) return produced;
      if (s == Step::NeedInput && in_eof_ && avail_ == 0) {
        error(say(Say::InputTruncated));
        return 0;
      }
    }
    if (!garbage_.empty() && !failed()) {
      // Everything readable was delivered; now say what was not.
      fail(garbage_);
      garbage_.clear();
    }
    return 0;
  }

 protected:
  enum class Step { Progress, NeedInput, End, Error };
  // The bytes that start a member (gzip, bzip2); "" for formats that find their own next frame.
  virtual std::string_view magic() const { return {}; }
  virtual Step step(char* out, std::size_t cap, std::size_t& produced) = 0;
  virtual bool starts_new_member() const = 0;
  virtual void restart() = 0;

  const unsigned char* next_in() const { return in_.data() + pos_; }
  std::size_t avail() const { return avail_; }
  void consume(std::size_t n) {
    pos_ += n;
    avail_ -= n;
  }
  bool in_eof() const { return in_eof_ && avail_ == 0; }
  void error(const std::string& what) { fail(say(Say::InputInStream, {{"codec", name_}, {"reason", what}})); }

 private:
  void refill() {
    pos_ = 0;
    avail_ = inner_.read(reinterpret_cast<char*>(in_.data()), in_.size());
    in_total_ += avail_;
    if (avail_ == 0) {
      in_eof_ = true;
      if (inner_.failed()) fail_from(inner_);
    }
  }

  // Reads more without losing the bytes not consumed yet.
  void top_up() {
    std::memmove(in_.data(), in_.data() + pos_, avail_);
    pos_ = 0;
    const std::size_t n = inner_.read(reinterpret_cast<char*>(in_.data()) + avail_, in_.size() - avail_);
    in_total_ += n;
    avail_ += n;
    if (n == 0) {
      in_eof_ = true;
      if (inner_.failed()) fail_from(inner_);
    }
  }

  // After a member's end, bytes that do not start another: skips to the next member's magic.
  // True when one was found. Non-zero garbage is reported once the stream is read (zero padding,
  // as tar or dd leave, is not).
  // At most kMaxGarbage bytes are skipped: past them the rest of the input is not read (a stream
  // of zeros or noise behind a member would otherwise be read to its end).
  static constexpr std::uint64_t kMaxGarbage = 16ull << 20;
  bool resync() {
    const std::string_view m = magic();
    const std::uint64_t at = in_total_ - avail_;
    std::uint64_t skipped = 0;
    bool nonzero = false, found = false;
    for (;;) {
      if (avail_ < m.size() && !in_eof_) {
        top_up();
        if (failed()) return false;
        continue;
      }
      if (avail_ == 0) break;
      if (avail_ >= m.size() && std::memcmp(next_in(), m.data(), m.size()) == 0) {
        found = true;
        break;
      }
      if (skipped >= kMaxGarbage) {
        fail(say(Say::InputInStream, {{"codec", name_}, {"reason", say(Say::InputGarbageTooLong, {{"count", std::to_string(kMaxGarbage)},
                                                                                                {"offset", std::to_string(at)}})}}));
        return false;
      }
      // Up to the next byte that could start a member, in one step.
      const std::size_t span = avail_ >= m.size() ? avail_ - m.size() + 1 : avail_;
      const void* hit = std::memchr(next_in() + 1, m[0], span > 1 ? span - 1 : 0);
      const std::size_t step = hit != nullptr ? static_cast<std::size_t>(static_cast<const unsigned char*>(hit) - next_in()) : span;
      if (!nonzero)
        for (std::size_t i = 0; i < step; ++i)
          if (next_in()[i] != 0) {
            nonzero = true;
            break;
          }
      consume(step);
      skipped += step;
    }
    if (nonzero && garbage_.empty())
      garbage_ = say(Say::InputInStream, {{"codec", name_},
                                          {"reason", say(found ? Say::InputGarbageSkipped : Say::InputGarbageAtEnd,
                                                         {{"count", std::to_string(kMaxGarbage)}, {"offset", std::to_string(at)}})}});
    return found;
  }

  ByteReader& inner_;
  RatioLimit limit_;
  std::string garbage_;  // what resync() skipped, reported at the end
  const char* name_;
  std::vector<unsigned char> in_;
  std::size_t pos_ = 0;
  std::size_t avail_ = 0;
  bool in_eof_ = false;
  bool done_ = false;
  std::uint64_t in_total_ = 0;
  std::uint64_t out_total_ = 0;
};

class GzipDecoder final : public Decoder {
 public:
  GzipDecoder(ByteReader& inner, RatioLimit limit) : Decoder(inner, limit, "gzip") {
    std::memset(&zs_, 0, sizeof zs_);
    if (inflateInit2(&zs_, 16 + MAX_WBITS) != Z_OK) error(say(Say::InputCannotInitialise, {{"library", "zlib"}}));
  }
  ~GzipDecoder() override { inflateEnd(&zs_); }

 protected:
  Step step(char* out, std::size_t cap, std::size_t& produced) override {
    zs_.next_in = const_cast<Bytef*>(next_in());
    zs_.avail_in = static_cast<uInt>(avail());
    zs_.next_out = reinterpret_cast<Bytef*>(out);
    zs_.avail_out = static_cast<uInt>(std::min<std::size_t>(cap, 1u << 30));
    const int r = inflate(&zs_, Z_NO_FLUSH);
    consume(avail() - zs_.avail_in);
    produced = static_cast<std::size_t>(reinterpret_cast<char*>(zs_.next_out) - out);
    if (r == Z_STREAM_END) return Step::End;
    if (r == Z_OK) return Step::Progress;
    if (r == Z_BUF_ERROR) return Step::NeedInput;
    error(say(Say::InputCorrupt, {{"detail", zs_.msg != nullptr ? std::string(zs_.msg) : say(Say::InputInflateFailed)}}));
    return Step::Error;
  }
  bool starts_new_member() const override { return avail() >= 2 && next_in()[0] == 0x1f && next_in()[1] == 0x8b; }
  std::string_view magic() const override { return {"\x1f\x8b", 2}; }
  void restart() override { inflateReset(&zs_); }

 private:
  z_stream zs_;
};

class Bzip2Decoder final : public Decoder {
 public:
  Bzip2Decoder(ByteReader& inner, RatioLimit limit) : Decoder(inner, limit, "bzip2") { init(); }
  ~Bzip2Decoder() override { BZ2_bzDecompressEnd(&bs_); }

 protected:
  Step step(char* out, std::size_t cap, std::size_t& produced) override {
    bs_.next_in = const_cast<char*>(reinterpret_cast<const char*>(next_in()));
    bs_.avail_in = static_cast<unsigned>(avail());
    bs_.next_out = out;
    bs_.avail_out = static_cast<unsigned>(std::min<std::size_t>(cap, 1u << 30));
    const int r = BZ2_bzDecompress(&bs_);
    consume(avail() - bs_.avail_in);
    produced = static_cast<std::size_t>(bs_.next_out - out);
    if (r == BZ_STREAM_END) return Step::End;
    if (r == BZ_OK) return produced == 0 && avail() == 0 ? Step::NeedInput : Step::Progress;
    error(say(Say::InputCorruptCode, {{"code", std::to_string(r)}}));
    return Step::Error;
  }
  bool starts_new_member() const override {
    return avail() >= 3 && std::memcmp(next_in(), "BZh", 3) == 0;
  }
  std::string_view magic() const override { return "BZh"; }
  void restart() override {
    BZ2_bzDecompressEnd(&bs_);
    init();
  }

 private:
  void init() {
    std::memset(&bs_, 0, sizeof bs_);
    if (BZ2_bzDecompressInit(&bs_, 0, 0) != BZ_OK) error(say(Say::InputCannotInitialise, {{"library", "libbz2"}}));
  }
  bz_stream bs_;
};

class XzDecoder final : public Decoder {
 public:
  // The decoder's memory is capped as zstd's window is: a header may claim a dictionary of 4 GiB.
  // 2^27 (the default) decodes whatever `xz -9` or `xz -e` wrote (a 64 MiB dictionary).
  XzDecoder(ByteReader& inner, RatioLimit limit)
      : Decoder(inner, limit, "xz"), memlimit_((std::uint64_t{1} << limit.zstd_window_log_max) + (16u << 20)) {
    if (lzma_stream_decoder(&ls_, memlimit_, LZMA_CONCATENATED) != LZMA_OK) error(say(Say::InputCannotInitialise, {{"library", "liblzma"}}));
  }
  ~XzDecoder() override { lzma_end(&ls_); }

 protected:
  Step step(char* out, std::size_t cap, std::size_t& produced) override {
    ls_.next_in = next_in();
    ls_.avail_in = avail();
    ls_.next_out = reinterpret_cast<uint8_t*>(out);
    ls_.avail_out = cap;
    const lzma_ret r = lzma_code(&ls_, in_eof() ? LZMA_FINISH : LZMA_RUN);
    consume(avail() - ls_.avail_in);
    produced = static_cast<std::size_t>(reinterpret_cast<char*>(ls_.next_out) - out);
    if (r == LZMA_STREAM_END) return Step::End;
    if (r == LZMA_OK) return produced == 0 && avail() == 0 ? Step::NeedInput : Step::Progress;
    if (r == LZMA_BUF_ERROR) return Step::NeedInput;
    if (r == LZMA_MEMLIMIT_ERROR) {
      error(say(Say::InputXzMemory, {{"limit", std::to_string(memlimit_ >> 20) + " MiB"}}));
      return Step::Error;
    }
    error(say(Say::InputCorruptLibraryCode, {{"library", "liblzma"}, {"code", std::to_string(static_cast<int>(r))}}));
    return Step::Error;
  }
  bool starts_new_member() const override { return false; }  // LZMA_CONCATENATED handles it
  void restart() override {}

 private:
  lzma_stream ls_ = LZMA_STREAM_INIT;
  std::uint64_t memlimit_;
};

class ZstdDecoder final : public Decoder {
 public:
  ZstdDecoder(ByteReader& inner, RatioLimit limit)
      : Decoder(inner, limit, "zstd"), ds_(ZSTD_createDStream()), window_log_max_(limit.zstd_window_log_max) {
    if (ds_ == nullptr) error(say(Say::InputCannotInitialise, {{"library", "libzstd"}}));
    ZSTD_DCtx_setParameter(ds_, ZSTD_d_windowLogMax, limit.zstd_window_log_max);
  }
  ~ZstdDecoder() override { ZSTD_freeDStream(ds_); }

 protected:
  Step step(char* out, std::size_t cap, std::size_t& produced) override {
    if (avail() == 0 && in_eof() && !frame_open_) return Step::End;
    ZSTD_inBuffer in{next_in(), avail(), 0};
    ZSTD_outBuffer ob{out, cap, 0};
    const std::size_t r = ZSTD_decompressStream(ds_, &ob, &in);
    consume(in.pos);
    produced = ob.pos;
    if (ZSTD_isError(r)) {
      if (ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge)
        error(say(Say::InputZstdWindow, {{"log", std::to_string(window_log_max_)}}));
      else
        error(say(Say::InputCorrupt, {{"detail", ZSTD_getErrorName(r)}}));
      return Step::Error;
    }
    if (r == 0) {  // a frame ended and is flushed; more frames may follow
      frame_open_ = false;
      return Step::Progress;
    }
    frame_open_ = true;
    return produced == 0 && avail() == 0 ? Step::NeedInput : Step::Progress;
  }
  bool starts_new_member() const override { return false; }
  void restart() override {}

 private:
  ZSTD_DStream* ds_;
  int window_log_max_;
  bool frame_open_ = false;
};

}  // namespace

std::unique_ptr<ByteReader> make_decoder(ByteReader& inner, Content codec, RatioLimit limit) {
  switch (codec) {
    case Content::Gzip: return std::make_unique<GzipDecoder>(inner, limit);
    case Content::Bzip2: return std::make_unique<Bzip2Decoder>(inner, limit);
    case Content::Xz: return std::make_unique<XzDecoder>(inner, limit);
    case Content::Zstd: return std::make_unique<ZstdDecoder>(inner, limit);
    default: return nullptr;
  }
}

}  // namespace dtriage::ingest
