// Fuzz target: `dtriage check`'s readers and checks. The input is split at a line "\x1e" into
// files, each read as `dtriage check` reads a file (check::read_source: a snapshot, or a training log
// through the parsers into check::LogFacts with its smoke-test lines);
// the first line of the input is also read as the launch command. The six checks and the three
// renderings must not crash, whatever the values (counts, sizes, versions, ports) say.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "check/check.hpp"
#include "ingest/byte_reader.hpp"
#include "lines/line_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dtriage;
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> files;
  for (std::size_t from = 0;;) {
    const std::size_t cut = all.find("\n\x1e\n", from);
    files.push_back(all.substr(from, cut == std::string_view::npos ? std::string_view::npos : cut + 1 - from));
    if (cut == std::string_view::npos) break;
    from = cut + 3;
  }
  check::Input in;
  in.launch = check::parse_launch(std::string(all.substr(0, all.find('\n'))));
  for (std::size_t i = 0; i < files.size(); ++i) {
    const ingest::Source source{"node-" + std::to_string(i) + "/f.log", "node-" + std::to_string(i % 3)};
    ingest::MemoryReader reader(files[i]);
    lines::LineReader lr(reader, 4096);
    (void)check::read_source(source, lr, in);
  }
  const check::Report r = check::run_checks(in);
  (void)check::render_text(r);
  (void)check::render_json(r);
  (void)check::render_markdown(r);
  return 0;
}
