#include "ingest/ingest.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include "base/sentences.hpp"
#include "ingest/decompress.hpp"
#include "ingest/sniff.hpp"
#include "ingest/tar.hpp"

namespace dtriage::ingest {

using base::Say;
using base::say;

namespace {

constexpr std::size_t kArchiveChunk = 16 * 1024;

std::string basename_of(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const auto slash = p.rfind('/');
  std::string base = slash == std::string::npos ? p : p.substr(slash + 1);
  if (base.empty() || base == "." || base == "..") {
    char buf[4096];
    if (::realpath(path.c_str(), buf) != nullptr) {
      std::string abs(buf);
      const auto s = abs.rfind('/');
      base = s == std::string::npos ? abs : abs.substr(s + 1);
    }
  }
  return base.empty() ? std::string("/") : base;
}

std::string join(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  if (a.back() == '/') return a + b;
  return a + "/" + b;
}

using FileId = std::pair<dev_t, ino_t>;

}  // namespace

struct Ingestor::Impl {
  Limits limits;
  NodeHints own_hints;
  const NodeHints& hints;
  base::Inventory& inv;
  // Decoded text bytes handed to the sink over the whole run, shared with the workers' readers.
  std::shared_ptr<std::atomic<std::uint64_t>> total_shared = std::make_shared<std::atomic<std::uint64_t>>(0);
  std::shared_ptr<std::atomic<bool>> exceeded_shared = std::make_shared<std::atomic<bool>>(false);
  std::atomic<std::uint64_t>& total = *total_shared;
  std::atomic<bool>& total_exceeded = *exceeded_shared;
  bool read_any = false;
  RatioBudget budget;  // of the top-level input being read (walk_file)
  std::string root_real, root_arg;  // the directory PATH being walked: links must stay inside it
  std::shared_ptr<RunBudget> run_budget = std::make_shared<RunBudget>();  // shared with the workers' readers
  RatioLimit ratio_limit() {
    return RatioLimit{limits.max_ratio, limits.ratio_grace_bytes, &budget, limits.zstd_window_log_max, run_budget.get()};
  }
  std::map<FileId, std::string> seen;  // files and directories already walked
  std::set<FileId> ancestors;          // directories on the current walk path

  Impl(Limits l, NodeHints h, base::Inventory& i) : limits(l), own_hints(std::move(h)), hints(own_hints), inv(i) {}
  // A worker's reader of one file: its own inventory, the run's hints and byte count.
  Impl(const Impl& root, base::Inventory& i)
      : limits(root.limits), hints(root.hints), inv(i), total_shared(root.total_shared),
        exceeded_shared(root.exceeded_shared), total(*total_shared), total_exceeded(*exceeded_shared),
        run_budget(root.run_budget) {}

  // ---- parallel files (run with jobs) ----------------------------------------------------------
  // The walk queues one task per file; workers read them; the walking thread joins finished tasks
  // in queue order. Notes the walk itself makes (skipped links, unreadable folders) go to a task
  // of their own in the same queue, so that the inventory keeps the walk's order.
  struct Task {
    std::string fs_path, display, hint;
    base::Inventory inv;
    std::unique_ptr<Impl> reader;
    std::unique_ptr<Sink> sink;  // null for a task of walk notes
    bool done = false;
  };
  ForkableSink* forkable = nullptr;
  std::deque<std::unique_ptr<Task>> tasks;
  std::size_t next_task = 0;  // index in `tasks` of the first not yet taken by a worker
  std::size_t max_pending = 0;
  std::mutex mu;
  std::condition_variable work_cv, done_cv;
  bool stopping = false;

  base::Inventory& notes() {
    if (forkable == nullptr) return inv;
    std::lock_guard<std::mutex> lock(mu);
    if (tasks.empty() || tasks.back()->sink != nullptr) {
      auto t = std::make_unique<Task>();
      t->done = true;
      tasks.push_back(std::move(t));  // done already: workers pass over it
    }
    return tasks.back()->inv;
  }

  void queue_file(const std::string& fs_path, const std::string& display, const std::string& hint) {
    auto t = std::make_unique<Task>();
    t->fs_path = fs_path;
    t->display = display;
    t->hint = hint;
    t->sink = forkable->fork();
    t->reader = std::make_unique<Impl>(*this, t->inv);
    {
      std::lock_guard<std::mutex> lock(mu);
      tasks.push_back(std::move(t));
    }
    work_cv.notify_one();
    join_ready(max_pending);
  }

  // Joins finished tasks from the front while more than `keep` are queued (waiting for the front
  // one to finish when needed).
  void join_ready(std::size_t keep) {
    for (;;) {
      std::unique_ptr<Task> t;
      {
        std::unique_lock<std::mutex> lock(mu);
        if (tasks.size() <= keep) return;
        done_cv.wait(lock, [&] { return tasks.front()->done; });
        t = std::move(tasks.front());
        tasks.pop_front();
        if (next_task > 0) --next_task;
      }
      inv.absorb(std::move(t->inv));
      if (t->reader) read_any = read_any || t->reader->read_any;
      if (t->sink) forkable->join(std::move(t->sink));
    }
  }

  void worker() {
    for (;;) {
      Task* t = nullptr;
      {
        std::unique_lock<std::mutex> lock(mu);
        work_cv.wait(lock, [&] {
          while (next_task < tasks.size() && tasks[next_task]->done) ++next_task;
          return stopping || next_task < tasks.size();
        });
        if (next_task >= tasks.size()) return;  // stopping, nothing left
        t = tasks[next_task++].get();
      }
      try {
        t->reader->walk_file(t->fs_path, t->display, t->hint, *t->sink);
      } catch (const std::exception& e) {  // out of memory, say: this file is lost, not the run
        t->inv.add_unreadable(t->display, say(Say::InputNotReadToEnd, {{"error", e.what()}}));
      }
      {
        std::lock_guard<std::mutex> lock(mu);
        t->done = true;
      }
      done_cv.notify_all();
    }
  }

  // The time budget or the byte limit, with `used` bytes counted against the latter: the reason
  // reading stops, "" while it goes on. Either stops the run (no further file is opened either).
  std::string over_budget(std::uint64_t used) {
    if (limits.deadline && std::chrono::steady_clock::now() > *limits.deadline) {
      total_exceeded = true;
      inv.timed_out = true;
      return say(Say::InputTimeBudget);
    }
    if (used >= limits.max_total_bytes) {
      total_exceeded = true;
      return say(Say::InputTotalLimit, {{"size", format_bytes(limits.max_total_bytes)}});
    }
    return "";
  }

  // Counts the bytes read from a top-level input (the ratio budget's denominator), and holds the
  // time budget and the byte limit on them too: bytes a decoder skips (garbage between members, a
  // zip's tail) or that decode to nothing are no text, but they are read (`cat a.gz /dev/zero`).
  class CountingReader final : public ByteReader {
   public:
    CountingReader(ByteReader& inner, std::uint64_t& count, Impl& impl) : inner_(inner), count_(count), impl_(impl) {}
    std::size_t read(char* buf, std::size_t cap) override {
      if (failed()) return 0;
      if (std::string why = impl_.over_budget(count_); !why.empty()) {
        fail_limit(std::move(why));
        return 0;
      }
      cap = static_cast<std::size_t>(std::min<std::uint64_t>(cap, impl_.limits.max_total_bytes - count_));
      const std::size_t n = inner_.read(buf, cap);
      if (n == 0 && inner_.failed()) fail_from(inner_);
      if (n == 0 && cap > 0 && !failed()) at_end = true;
      count_ += n;
      impl_.run_budget->in += n;
      return n;
    }
    bool at_end = false;  // the input said it has no more

   private:
    ByteReader& inner_;
    std::uint64_t& count_;
    Impl& impl_;
  };

  // ---- text sources ------------------------------------------------------------------------

  // Counts what the sink reads and enforces the run-wide byte limit.
  class TextReader final : public ByteReader {
   public:
    TextReader(ByteReader& inner, Impl& impl) : inner_(inner), impl_(impl) {}
    std::size_t read(char* buf, std::size_t cap) override {
      if (failed()) return 0;
      if (std::string why = impl_.over_budget(impl_.total); !why.empty()) {
        fail_limit(std::move(why));
        return 0;
      }
      cap = static_cast<std::size_t>(
          std::min<std::uint64_t>(cap, impl_.limits.max_total_bytes - impl_.total));
      const std::size_t n = inner_.read(buf, cap);
      if (n == 0 && inner_.failed()) fail_from(inner_);
      bytes += n;
      impl_.total += n;
      return n;
    }
    std::uint64_t bytes = 0;

   private:
    ByteReader& inner_;
    Impl& impl_;
  };

  void read_text(ByteReader& reader, const std::string& display, const std::string& hint_path, Sink& sink) {
    TextReader text(reader, *this);
    const Source src{display, hints.infer(hint_path)};
    sink.on_text(src, text);
    read_any = true;
    ++inv.files;
    inv.bytes += text.bytes;
    if (text.failed()) inv.add_unreadable(display, say(Say::InputLinesKept, {{"reason", text.error()}}));
    if (text.stopped_by_limit()) ++inv.stopped_by_limit;
  }

  // Sniffs one stream and sends it where it belongs: sink, archive walker, or the inventory.
  void dispatch(ByteReader& reader, const std::string& display, const std::string& hint_path,
                int depth, Sink& sink) {
    if (total_exceeded) return;
    PeekReader peek(reader, kSniffBytes);
    if (peek.head().empty() && peek.failed()) {
      inv.add_unreadable(display, peek.error());
      return;
    }
    if (const Unsupported* u = unsupported_format(peek.head())) {
      inv.add_unreadable(display, say(Say::InputUnsupportedFormat, {{"format", u->name}, {"how", u->how}}));
      return;
    }
    const Content content = sniff(peek.head());
    switch (content) {
      case Content::Binary:
        inv.add_unreadable(display, say(Say::InputBinary));
        return;
      case Content::Empty:
      case Content::Text:
        read_text(peek, display, hint_path, sink);
        return;
      case Content::Utf8Bom:
      case Content::Utf16Le:
      case Content::Utf16Be: {
        using Form = UnicodeReader::Form;
        UnicodeReader utf8(peek, content == Content::Utf8Bom   ? Form::Utf8Bom
                                 : content == Content::Utf16Le ? Form::Utf16Le
                                                               : Form::Utf16Be);
        read_text(utf8, display, hint_path, sink);
        return;
      }
      default:
        if (depth >= limits.max_depth) {
          inv.add_unreadable(display, say(Say::InputNestedTooDeep, {{"depth", std::to_string(limits.max_depth)}}));
          ++inv.stopped_by_limit;
          return;
        }
        walk_container(peek, content, display, hint_path, depth + 1, sink);
        return;
    }
  }

  // ---- compressed streams and archives -------------------------------------------------------

  void walk_container(ByteReader& reader, Content content, const std::string& display,
                      const std::string& hint_path, int depth, Sink& sink) {
    switch (content) {
      case Content::Tar: walk_tar(reader, display, hint_path, depth, sink); return;
      case Content::Zip: walk_zip(reader, display, hint_path, depth, sink); return;
      default: break;
    }
    // A compressed stream: decode it and look again at what it holds (text, tar, ...).
    auto decoder = make_decoder(reader, content, ratio_limit());
    dispatch(*decoder, display, hint_path, depth, sink);
  }

  static std::string member_display(const std::string& display, const std::string& name) {
    return display + "!" + name;
  }

  void walk_tar(ByteReader& reader, const std::string& display, const std::string& hint_path,
                int depth, Sink& sink) {
    TarReader tar(reader);
    TarReader::Member m;
    std::uint64_t members = 0;
    while (!total_exceeded && tar.next(m)) {
      ++members;
      const std::string child = member_display(display, m.name);
      if (!m.damage.empty()) inv.add_unreadable(child, m.damage);
      switch (m.type) {
        case TarReader::Type::Directory: continue;
        case TarReader::Type::Link: inv.add_skipped(child, say(Say::InputLinkInArchive)); continue;
        case TarReader::Type::Other: inv.add_skipped(child, say(Say::InputNotRegularInArchive)); continue;
        case TarReader::Type::Regular: break;
      }
      const std::size_t before = inv.unreadable.size();
      dispatch(tar.data(), child, member_display(hint_path, m.name), depth, sink);
      // A member cut short is reported by dispatch; do not report it twice below.
      if (!tar.error().empty() && inv.unreadable.size() > before) return;
    }
    if (!tar.error().empty()) {
      if (tar.stopped_by_limit()) ++inv.stopped_by_limit;
      inv.add_unreadable(display, members > 0 ? say(Say::InputAfterMembers, {{"reason", tar.error()}, {"count", std::to_string(members)}})
                                              : tar.error());
    }
  }

  // Zip needs its central directory and per-member codecs: libarchive reads it as a stream.
  struct ZipCtx {
    Impl* impl;
    ByteReader* parent;
    archive* a = nullptr;
    std::uint64_t in = 0;
    std::uint64_t out = 0;
    std::string abort_reason;
    std::string tail;  // the last bytes of the zip (its central directory is at the end)
    char buf[kArchiveChunk];
    void keep(const char* p, std::size_t n) {
      tail.append(p, n);
      if (tail.size() > (8u << 20)) tail.erase(0, tail.size() - (4u << 20));
    }
  };

  // Names the central directory at the end of a zip lists (empty when it is not in `tail`).
  static std::vector<std::string> central_names(const std::string& tail) {
    std::vector<std::string> names;
    const std::size_t from = tail.size() > 65557 ? tail.size() - 65557 : 0;
    const std::size_t eocd = tail.rfind(std::string("PK\x05\x06", 4));
    if (eocd == std::string::npos || eocd < from || eocd + 22 > tail.size()) return names;
    auto u16 = [&](std::size_t at) { return static_cast<std::uint32_t>(static_cast<unsigned char>(tail[at])) | static_cast<std::uint32_t>(static_cast<unsigned char>(tail[at + 1])) << 8; };
    auto u32 = [&](std::size_t at) { return u16(at) | u16(at + 2) << 16; };
    const std::uint32_t cd_size = u32(eocd + 12);
    if (cd_size > eocd) return names;
    std::size_t at = eocd - cd_size;
    while (at + 46 <= eocd && tail.compare(at, 4, std::string("PK\x01\x02", 4)) == 0) {
      const std::size_t name_len = u16(at + 28), extra = u16(at + 30), comment = u16(at + 32);
      if (at + 46 + name_len > eocd) break;
      names.push_back(tail.substr(at + 46, name_len));
      at += 46 + name_len + extra + comment;
    }
    return names;
  }

  static la_ssize_t zip_read_cb(archive* a, void* client, const void** out) {
    auto* ctx = static_cast<ZipCtx*>(client);
    if (!ctx->abort_reason.empty()) {
      archive_set_error(a, EIO, "%s", ctx->abort_reason.c_str());
      return -1;
    }
    const std::size_t n = ctx->parent->read(ctx->buf, sizeof ctx->buf);
    if (n == 0 && ctx->parent->failed()) {
      if (ctx->parent->stopped_by_limit()) ctx->abort_reason = ctx->parent->error();
      archive_set_error(a, EIO, "%s", ctx->parent->error().c_str());
      return -1;
    }
    ctx->keep(ctx->buf, n);
    ctx->in += n;
    *out = ctx->buf;
    return static_cast<la_ssize_t>(n);
  }

  class ZipEntryReader final : public ByteReader {
   public:
    explicit ZipEntryReader(ZipCtx& ctx) : ctx_(ctx) {}
    std::size_t read(char* buf, std::size_t cap) override {
      if (failed()) return 0;
      const la_ssize_t n = archive_read_data(ctx_.a, buf, cap);
      if (n < 0) {
        const char* msg = archive_error_string(ctx_.a);
        if (!ctx_.abort_reason.empty()) fail_limit(ctx_.abort_reason);  // only a limit aborts
        else fail(msg != nullptr ? say(Say::InputZip, {{"message", msg}}) : say(Say::InputZipReadError));
        return 0;
      }
      ctx_.out += static_cast<std::uint64_t>(n);
      const RatioLimit limit = ctx_.impl->ratio_limit();
      if (limit.exceeded(ctx_.out, ctx_.in)) {
        ctx_.abort_reason = ratio_message(limit.max_ratio, ctx_.out, ctx_.in);
        fail_limit(ctx_.abort_reason);
      } else if (std::string why = limit.spend(static_cast<std::uint64_t>(n)); !why.empty()) {
        ctx_.abort_reason = std::move(why);
        fail_limit(ctx_.abort_reason);
      }
      return static_cast<std::size_t>(n);
    }

   private:
    ZipCtx& ctx_;
  };

  void walk_zip(ByteReader& reader, const std::string& display, const std::string& hint_path,
                int depth, Sink& sink) {
    auto ctx = std::make_unique<ZipCtx>();
    ctx->impl = this;
    ctx->parent = &reader;
    archive* a = archive_read_new();
    ctx->a = a;
    archive_read_support_format_zip(a);
    std::uint64_t members = 0;
    std::set<std::string> streamed;  // names reached reading front to back, backslashes as '/'
    // libarchive gives a DOS zip's C:\x\y.log as C:/x/y.log; the central directory keeps it raw.
    auto slashed = [](std::string n) {
      std::replace(n.begin(), n.end(), '\\', '/');
      return n;
    };
    bool clean_end = false;
    auto report = [&](const std::string& where) {
      const char* msg = archive_error_string(a);
      if (!ctx->abort_reason.empty()) ++inv.stopped_by_limit;
      inv.add_unreadable(where, !ctx->abort_reason.empty() ? ctx->abort_reason
                                : msg != nullptr               ? say(Say::InputZip, {{"message", msg}})
                                                               : say(Say::InputZipUnreadable));
    };
    if (archive_read_open(a, ctx.get(), nullptr, &zip_read_cb, nullptr) != ARCHIVE_OK) {
      report(display);
      archive_read_free(a);
      return;
    }
    for (;;) {
      if (total_exceeded) break;
      archive_entry* entry = nullptr;
      const int r = archive_read_next_header(a, &entry);
      if (r == ARCHIVE_EOF) {
        clean_end = true;
        break;
      }
      if (r < ARCHIVE_WARN) {
        report(members == 0 ? display : say(Say::InputPathAfterMembers, {{"path", display}, {"count", std::to_string(members)}}));
        break;
      }
      ++members;
      std::string name;
      if (const char* p = archive_entry_pathname(entry)) name = p;
      else if (const char* u = archive_entry_pathname_utf8(entry)) name = u;
      else name = say(Say::InputUnnamedMember);
      const std::string child = member_display(display, name);
      streamed.insert(slashed(name));
      if (archive_entry_filetype(entry) == AE_IFDIR) continue;
      if (archive_entry_filetype(entry) != AE_IFREG) {
        inv.add_skipped(child, say(Say::InputNotRegularInArchive));
        continue;
      }
      if (archive_entry_is_encrypted(entry)) {
        inv.add_unreadable(child, say(Say::InputZipEncrypted));
        continue;
      }
      ZipEntryReader member(*ctx);
      dispatch(member, child, member_display(hint_path, name), depth, sink);
      if (!ctx->abort_reason.empty()) {
        inv.add_unreadable(display, say(Say::InputRestOfArchive, {{"reason", ctx->abort_reason}}));
        break;
      }
    }
    // Members the central directory lists that no local header led to (a zip edited in place, or
    // made to hide them from streaming readers): listed, not silently lost.
    if (clean_end && ctx->abort_reason.empty()) {
      char rest[kArchiveChunk];
      for (std::size_t n; (n = reader.read(rest, sizeof rest)) > 0;) ctx->keep(rest, n);
      for (const std::string& name : central_names(ctx->tail))
        if (!name.empty() && name.back() != '/' && streamed.count(slashed(name)) == 0)
          inv.add_unreadable(member_display(display, name), say(Say::InputZipCentralOnly));
    }
    archive_read_free(a);
  }

  // ---- files and directories ----------------------------------------------------------------

  // One file of the walk: read here, or queued for a worker.
  void file(const std::string& fs_path, const std::string& display, const std::string& hint, Sink& sink) {
    if (forkable != nullptr) queue_file(fs_path, display, hint);
    else walk_file(fs_path, display, hint, sink);
  }

  void walk_file(const std::string& fs_path, const std::string& display, const std::string& hint,
                 Sink& sink) {
    budget = RatioBudget{};
    if (fs_path == "-") {
      FdReader in(STDIN_FILENO, false);
      CountingReader counted(in, budget.in, *this);
      dispatch(counted, display, hint, 0, sink);
      return;
    }
    const int fd = ::open(fs_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      inv.add_unreadable(display, std::strerror(errno));
      return;
    }
    struct stat before {};
    const bool regular = ::fstat(fd, &before) == 0 && S_ISREG(before.st_mode);
    FdReader reader(fd, true);
    CountingReader counted(reader, budget.in, *this);
    dispatch(counted, display, hint, 0, sink);
    // A file that ended before its size: truncated (or rewritten) while it was read.
    if (regular && counted.at_end && budget.in < static_cast<std::uint64_t>(before.st_size))
      inv.add_unreadable(display, say(Say::InputShrank, {{"read", std::to_string(budget.in)}, {"size", std::to_string(before.st_size)}}));
  }

  void walk_dir(const std::string& fs_path, const std::string& display_prefix,
                const std::string& hint_prefix, const FileId& id, Sink& sink) {
    DIR* dir = ::opendir(fs_path.c_str());
    if (dir == nullptr) {
      notes().add_unreadable(display_prefix.empty() ? fs_path : display_prefix, std::strerror(errno));
      return;
    }
    std::vector<std::string> names;
    while (dirent* d = ::readdir(dir)) {
      const std::string name = d->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    ancestors.insert(id);
    for (const std::string& name : names) {
      if (total_exceeded) break;
      const std::string child = join(fs_path, name);
      const std::string display = join(display_prefix, name);
      const std::string hint = join(hint_prefix, name);
      struct stat st {};
      struct stat lst {};
      const bool is_link = ::lstat(child.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode);
      if (is_link && !limits.follow_outside_links && !root_real.empty()) {
        // A link out of the PATH given could pull the engineer's own files into the evidence.
        char* target = ::realpath(child.c_str(), nullptr);
        if (target != nullptr) {
          const std::string t(target);
          std::free(target);
          if (t != root_real && t.compare(0, root_real.size() + 1, root_real + "/") != 0) {
            notes().add_skipped(display, say(Say::InputSymlinkOutside, {{"target", t}, {"root", root_arg}}));
            continue;
          }
        }
      }
      if (::stat(child.c_str(), &st) != 0) {
        if (is_link)
          notes().add_skipped(display, say(Say::InputBrokenSymlink, {{"error", std::strerror(errno)}}));
        else
          notes().add_unreadable(display, std::strerror(errno));
        continue;
      }
      const FileId cid{st.st_dev, st.st_ino};
      if (S_ISDIR(st.st_mode)) {
        if (ancestors.count(cid) != 0) {
          notes().add_skipped(display, say(Say::InputSymlinkLoop));
          continue;
        }
        if (auto it = seen.find(cid); it != seen.end()) {
          notes().add_skipped(display, say(Say::InputSameDirectory, {{"path", it->second}}));
          continue;
        }
        seen.emplace(cid, display);
        walk_dir(child, display, hint, cid, sink);
      } else if (S_ISREG(st.st_mode)) {
        if (auto it = seen.find(cid); it != seen.end()) {
          notes().add_skipped(display, say(Say::InputSameFile, {{"path", it->second}}));
          continue;
        }
        seen.emplace(cid, display);
        file(child, display, hint, sink);
      } else {
        notes().add_skipped(display, say(Say::InputNotRegular));
      }
    }
    ancestors.erase(id);
  }

  void walk_path(const std::string& arg, bool several, Sink& sink) {
    if (arg == "-") {
      file("-", "<stdin>", "", sink);
      return;
    }
    struct stat st {};
    if (::stat(arg.c_str(), &st) != 0) {
      notes().add_unreadable(arg, std::strerror(errno));
      return;
    }
    const FileId id{st.st_dev, st.st_ino};
    if (auto it = seen.find(id); it != seen.end()) {
      notes().add_skipped(arg, say(Say::InputSameInput, {{"path", it->second}}));
      return;
    }
    if (S_ISDIR(st.st_mode)) {
      const std::string prefix = several ? basename_of(arg) : std::string();
      seen.emplace(id, prefix.empty() ? arg : prefix);
      if (char* real = ::realpath(arg.c_str(), nullptr)) {
        root_real = real;
        std::free(real);
      }
      root_arg = arg;
      walk_dir(arg, prefix, arg, id, sink);
      root_real.clear();
    } else {
      // Regular files, and pipes or devices named explicitly (e.g. <(zcat x)).
      const std::string display = basename_of(arg);
      seen.emplace(id, display);
      file(arg, display, arg, sink);
    }
  }
};

Ingestor::Ingestor(Limits limits, NodeHints hints, base::Inventory& inventory)
    : impl_(std::make_unique<Impl>(limits, std::move(hints), inventory)) {}
Ingestor::~Ingestor() = default;

void Ingestor::run(const std::vector<std::string>& paths, Sink& sink) {
  for (const std::string& p : paths) {
    if (impl_->total_exceeded) {
      impl_->inv.add_unreadable(p, say(Say::InputTotalLimitNotRead));
      ++impl_->inv.stopped_by_limit;
      continue;
    }
    impl_->walk_path(p, paths.size() > 1, sink);
  }
}

void Ingestor::run(const std::vector<std::string>& paths, ForkableSink& sink, unsigned jobs) {
  if (jobs <= 1) {
    run(paths, static_cast<Sink&>(sink));
    return;
  }
  Impl& im = *impl_;
  im.forkable = &sink;
  im.max_pending = 4 * static_cast<std::size_t>(jobs);  // bounds the memory of finished, unjoined files
  std::vector<std::thread> workers;
  try {
    for (unsigned i = 0; i < jobs; ++i) workers.emplace_back([&im] { im.worker(); });
  } catch (const std::system_error&) {
    // No more threads (a container's pids limit): read with those there are, or on this one.
    if (workers.empty()) {
      im.forkable = nullptr;
      run(paths, static_cast<Sink&>(sink));
      return;
    }
  }
  for (const std::string& p : paths) {
    if (im.total_exceeded) {
      im.notes().add_unreadable(p, say(Say::InputTotalLimitNotRead));
      ++im.notes().stopped_by_limit;
      continue;
    }
    im.walk_path(p, paths.size() > 1, sink);
  }
  {
    std::lock_guard<std::mutex> lock(im.mu);
    im.stopping = true;
  }
  im.work_cv.notify_all();
  im.join_ready(0);
  for (std::thread& w : workers) w.join();
  im.forkable = nullptr;
}

void Ingestor::run_memory(std::string_view data, const std::string& name, Sink& sink) {
  MemoryReader reader(data);
  impl_->dispatch(reader, name, name, 0, sink);
}

bool Ingestor::read_anything() const { return impl_->read_any; }

}  // namespace dtriage::ingest
