// Fuzz target: the parsers. The first byte picks the path the source appears under (so path-derived
// facts are exercised too); the rest is fed line by line through every parser.
#include <cstdint>
#include <string>
#include <string_view>

#include "formats/pipeline.hpp"
#include "lines/line_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  static const char* paths[] = {"x.log", "node3/ascend/log/debug/plog/plog-51302_20250604101405123.log",
                                "n/attempt_0/3/stderr.log", "worker-1/device-2/device-77_20240101000000000.log"};
  const dtriage::ingest::Source src{paths[data[0] % 4], data[0] & 4 ? "node3" : ""};
  dtriage::formats::ParseOptions opt;
  opt.all_lines = (data[0] & 8) != 0;
  std::size_t events = 0;
  dtriage::formats::SourceParser parser(src, opt, [&](dtriage::model::Event&& e) {
    std::string out;
    dtriage::model::append_jsonl(out, e);
    events += out.empty() ? 0 : 1;
  });
  dtriage::ingest::MemoryReader mem(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  dtriage::lines::LineReader lr(mem, 4096);
  dtriage::lines::Line line;
  while (lr.next(line)) parser.feed(line);
  parser.finish();
  return 0;
}
