// Fuzz target: what `summary` and `merge` read, scan result lines. Each line of the input is read
// as a result line; the lines read are summarized (the first line, when it reads as two days,
// gives --since / --until) and the summary rendered in every format. Nothing may crash, whatever
// the fields hold (types, sizes, dates, nodes, reports, baselines).
#include <cstdint>
#include <string>
#include <string_view>

#include "batch/batch.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dtriage;
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  batch::SummaryOptions o;
  const std::string first(all.substr(0, all.find('\n')));
  if (first.size() == 21 && first[10] == ' ') {
    o.since = first.substr(0, 10);
    o.until = first.substr(11);
  }
  batch::Summarizer sum(o);
  for (std::size_t from = 0; from < all.size();) {
    std::size_t end = all.find('\n', from);
    if (end == std::string_view::npos) end = all.size();
    if (auto l = batch::parse_result_line(std::string(all.substr(from, end - from)))) {
      (void)batch::normalize_pattern(l->summary);
      sum.add(*l);
    }
    from = end + 1;
  }
  const batch::Summary s = sum.finish();
  for (const char* f : {"text", "json", "markdown", "html"}) (void)batch::render_summary(s, f);
  return 0;
}
