// torch_npu error lines: "[ERROR] 2025-01-01-10:00:00 (PID:1, Device:2, RankID:3) ERR00100 ...".
#include "formats/families.hpp"
#include "formats/parse_util.hpp"

namespace dtriage::formats {
namespace {

DT_RE(re_torch_npu,
      R"(^\[ERROR\] (\d{4}-\d{2}-\d{2})-(\d{2}:\d{2}:\d{2}) \(PID:(\d+), Device:(-?\d+), RankID:(-?\d+)\) (ERR\d{5}) ?(.*)$)")

}  // namespace

bool parse_torch_npu(std::string_view s, model::Event& e) {
  if (!starts_with(s, "[ERROR] ")) return false;
  M m;
  if (!rx(re_torch_npu(), s, m)) return false;
  e.kind = model::Kind::TorchNpu;
  e.level = model::Level::Error;
  set_time_full(e, m[1], m[2], {});
  e.pid = int_of(m[3]);
  if (auto d = int_of(m[4]); d && *d >= 0) e.device = d;
  if (auto r = int_of(m[5]); r && *r >= 0) e.rank = r;
  e.code = std::string(m[6]);
  e.message = std::string(m[7]);
  return true;
}


}  // namespace dtriage::formats
