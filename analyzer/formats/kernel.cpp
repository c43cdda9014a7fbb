// Kernel messages (dmesg / journalctl -k): the OOM killer and NVIDIA Xid.
#include "formats/families.hpp"
#include "formats/parse_util.hpp"

namespace dtriage::formats {
namespace {

DT_RE(re_kernel_oom, R"((?:Out of memory|Memory cgroup out of memory): Kill(?:ed)? process (\d+) \(([^)]*)\))")
DT_RE(re_kernel_oomkill, R"(oom-kill:.*?task=([^,]+),pid=(\d+))")
DT_RE(re_xid, R"(NVRM: Xid \(PCI:([^)]+)\): (\d+),\s*(.*))")
DT_RE(re_dmesg_ts, R"(^\[\s*(\d+\.\d+)\] )")

}  // namespace

bool parse_kernel(std::string_view s, model::Event& e) {
  if (!contains(s, "Kill") && !contains(s, "oom-kill") && !contains(s, "NVRM: Xid")) return false;
  M m;
  std::string_view rest = s;
  if (rx(re_dmesg_ts(), s, m)) {
    e.set("uptime", std::string(m[1]));
    rest = s.substr(m[0].size());
  }
  if (rx(re_kernel_oom(), rest, m, RE2::UNANCHORED)) {
    e.kind = model::Kind::Kernel;
    e.level = model::Level::Error;
    e.code = "oom-kill";
    e.pid = int_of(m[1]);
    e.set("process", std::string(m[2]));
  } else if (rx(re_kernel_oomkill(), rest, m, RE2::UNANCHORED)) {
    e.kind = model::Kind::Kernel;
    e.level = model::Level::Error;
    e.code = "oom-kill";
    e.pid = int_of(m[2]);
    e.set("process", std::string(m[1]));
  } else if (rx(re_xid(), rest, m, RE2::UNANCHORED)) {
    e.kind = model::Kind::Kernel;
    e.level = model::Level::Error;
    e.code = "Xid-" + std::string(m[2]);
    e.set("bus_id", std::string(m[1]));
    set_int(e, "xid", m[2]);
  } else {
    return false;
  }
  e.message = std::string(rest);
  return true;
}

}  // namespace dtriage::formats
