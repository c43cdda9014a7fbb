// Fuzz target: any bytes, as a file of any codec or archive, must be read or reported, never crash.
#include <cstdint>
#include <string_view>

#include "base/inventory.hpp"
#include "formats/pipeline.hpp"
#include "ingest/ingest.hpp"
#include "lines/line_reader.hpp"

namespace {

class Sink final : public dtriage::ingest::Sink {
 public:
  void on_text(const dtriage::ingest::Source& source, dtriage::ingest::ByteReader& text) override {
    dtriage::formats::parse_stream(text, source, {}, 4096, [](dtriage::model::Event&&) {});
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  dtriage::base::Inventory inv;
  dtriage::ingest::Limits limits;
  limits.max_total_bytes = 64 << 20;
  limits.ratio_grace_bytes = 1 << 20;
  limits.max_ratio = 200;
  dtriage::ingest::Ingestor ing(limits, dtriage::ingest::NodeHints(), inv);
  Sink sink;
  ing.run_memory(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz", sink);
  return 0;
}
