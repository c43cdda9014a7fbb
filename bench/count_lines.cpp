// Reads FILE through the ingest layer and the line reader and prints the line count: the cost of
// getting lines out of a file, without parsing. Used by bench/line_throughput.sh.
#include <cstdio>
#include <string>

#include "base/inventory.hpp"
#include "ingest/ingest.hpp"
#include "lines/line_reader.hpp"

namespace {

class Count final : public dtriage::ingest::Sink {
 public:
  void on_text(const dtriage::ingest::Source&, dtriage::ingest::ByteReader& text) override {
    dtriage::lines::LineReader lr(text);
    dtriage::lines::Line line;
    while (lr.next(line)) {
      ++lines;
      bytes += line.text.size();
    }
  }
  unsigned long long lines = 0, bytes = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: dtriage_count_lines FILE...\n");
    return 2;
  }
  dtriage::base::Inventory inv;
  dtriage::ingest::Limits limits;
  limits.max_ratio = 1e12;
  dtriage::ingest::Ingestor ing(limits, dtriage::ingest::NodeHints(), inv);
  Count c;
  ing.run(std::vector<std::string>(argv + 1, argv + argc), c);
  std::printf("%llu lines, %llu bytes of text\n", c.lines, c.bytes);
  return inv.unreadable.empty() ? 0 : 1;
}
