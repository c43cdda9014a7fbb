// Turns the lines of one source into events. Parsers for each log family plug in here.
#pragma once

#include <functional>
#include <memory>

#include "formats/gate.hpp"
#include "ingest/ingest.hpp"
#include "lines/line_reader.hpp"
#include "model/event.hpp"

namespace dtriage::formats {

using EventFn = std::function<void(model::Event&&)>;

struct ParseOptions {
  bool all_lines = false;  // also emit lines no parser recognised (kind "line")
  bool raw = false;        // no parsing: every line is one event with its text only
  // The line gate (gate.hpp); null: every line is parsed. With a gate, `known` must say whether
  // an informational event that binds this node / pid / device / rank would be dropped as
  // already seen (the consumer's keep logic); lines it skips are counted in ParseCounts.
  const Gate* gate = nullptr;
  std::function<bool(const model::Event&)> known;
  // With a gate: whether the event last handed to the consumer was an informational table row it
  // keeps once and drops every later copy of (the same file, binding and fields). The same line
  // again is then counted among the skipped ones (ParseCounts::skipped_info) without being read:
  // a monitor prints each GPU's row in every snapshot. Null: every row is read.
  std::function<bool()> row_kept_once;
};

class SourceParser {
 public:
  SourceParser(const ingest::Source& source, ParseOptions options, EventFn emit);
  ~SourceParser();
  SourceParser(const SourceParser&) = delete;
  SourceParser& operator=(const SourceParser&) = delete;

  void feed(const lines::Line& line);
  // feed() for each line, with the gate's look at all of them taken at once: the only way the gate
  // (ParseOptions::gate) skips lines; feed() alone parses every line.
  void feed_many(const std::vector<lines::Line>& lines);
  void finish();
  // Lines the gate skipped so far.
  std::uint64_t skipped_info() const;
  std::uint64_t skipped_plain() const;
  std::uint64_t plain_last() const;  // the line number of the last line skipped (plain or informational; 0: none)
  std::uint64_t snapshot_lines_not_kept() const;  // a snapshot's lines past its bounds (snapshot.hpp)
  // The ranks and local ranks its lines named, each with the first line that did.
  const std::vector<model::Sighting>& sightings() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct ParseCounts {
  std::uint64_t lines = 0;
  std::uint64_t lines_cut = 0;
  std::uint64_t skipped_info = 0;   // informational events the gate skipped (known binding, nothing else)
  std::uint64_t skipped_plain = 0;  // lines no parser would know, skipped by the gate
  std::uint64_t plain_last = 0;     // the line number of the last line skipped (plain or informational)
  std::uint64_t snapshot_not_kept = 0;  // SourceParser::snapshot_lines_not_kept
  std::vector<model::Sighting> sightings;  // SourceParser::sightings
};

// Splits `text` into lines (cut at `max_line`) and parses them as one source: the loop every
// consumer of a text source runs.
ParseCounts parse_stream(ingest::ByteReader& text, const ingest::Source& source, ParseOptions options,
                         std::size_t max_line, EventFn emit);

}  // namespace dtriage::formats
