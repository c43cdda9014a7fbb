#include "formats/pipeline.hpp"

namespace dtriage::formats {

struct SourceParser::Impl {
  const ingest::Source& source;
  ParseOptions options;
  EventFn emit;
};

SourceParser::SourceParser(const ingest::Source& source, ParseOptions options, EventFn emit)
    : impl_(std::make_unique<Impl>(Impl{source, options, std::move(emit)})) {}
SourceParser::~SourceParser() = default;

void SourceParser::feed(const lines::Line& line) {
  model::Event e;
  e.path = impl_->source.path;
  e.line = line.number;
  e.text = std::string(line.text);
  e.node = impl_->source.node;
  if (line.cut) e.set("cut", true);
  impl_->emit(std::move(e));
}

void SourceParser::finish() {}

}  // namespace dtriage::formats
