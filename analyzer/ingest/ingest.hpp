// Walks the PATHs of one run: files, directories (recursive), standard input, compressed
// streams and archives nested to any depth. Nothing is extracted to disk: every log reaches the
// sink as a ByteReader over its decoded text, one at a time, so memory stays bounded.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "base/inventory.hpp"
#include "ingest/byte_reader.hpp"
#include "ingest/node_hint.hpp"

namespace dtriage::ingest {

struct Limits {
  std::uint64_t max_total_bytes = 64ull << 30;  // decoded bytes over the whole run
  double max_ratio = 1000.0;                     // decoded / encoded bytes of one container
  std::uint64_t ratio_grace_bytes = 16ull << 20; // ratio checked only past this many bytes
  int max_depth = 16;                            // archives inside archives
  int zstd_window_log_max = 27;                  // zstd frames needing a larger window are refused (memory)
  bool follow_outside_links = false;             // read symlinks that lead out of the PATH given
  // Stop reading at this time (scan --job-timeout); what was read before it is kept, and the
  // inventory says `timed_out`.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

struct Source {
  std::string path;  // as reports show it: "job.tar.gz!node3/plog/plog-1_2025.log"
  std::string node;  // node hint from the path, may be empty
};

class Sink {
 public:
  virtual ~Sink() = default;
  // Called once per text source. `text` yields decoded bytes; reading it to the end is optional.
  virtual void on_text(const Source& source, ByteReader& text) = 0;
};

// A sink whose work can be split by file: each file read on a worker thread goes to a fork of
// it, and the forks are joined back in the order of the walk, so that the result does not depend
// on the number of threads.
class ForkableSink : public Sink {
 public:
  virtual std::unique_ptr<Sink> fork() = 0;
  virtual void join(std::unique_ptr<Sink> fork) = 0;
};

class Ingestor {
 public:
  Ingestor(Limits limits, NodeHints hints, base::Inventory& inventory);
  ~Ingestor();
  Ingestor(const Ingestor&) = delete;
  Ingestor& operator=(const Ingestor&) = delete;

  // Walks every PATH ("-" = standard input). Problems go to the inventory; never throws.
  void run(const std::vector<std::string>& paths, Sink& sink);
  // The same with files (each with the archives and compressed streams inside it) read on `jobs`
  // worker threads; the inventory and the sink's joins come in walk order, as run() gives them.
  // The run-wide byte limit (Limits::max_total_bytes) is shared: once crossed, which files were
  // read before it depends on timing.
  void run(const std::vector<std::string>& paths, ForkableSink& sink, unsigned jobs);
  // Walks one in-memory input shown as `name` (fuzzing, tests).
  void run_memory(std::string_view data, const std::string& name, Sink& sink);

  // True once any input was read (used for exit code 2: nothing readable).
  bool read_anything() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dtriage::ingest
