// nvidia-smi: -L lines, the header with driver / CUDA versions, GPU and process rows.
#include "formats/families.hpp"
#include "formats/parse_util.hpp"

namespace dtriage::formats {
namespace {

DT_RE(re_nvsmi_header, R"(NVIDIA-SMI ([\d.]+)\s+Driver Version: ([\d.]+)(?:\s+CUDA Version: ([\d.]+))?)")
DT_RE(re_nvsmi_list, R"(^GPU (\d+): (.+?) \(UUID: (GPU-[\w-]+)\))")
DT_RE(re_nvsmi_gpu,
      R"(^\|\s+(\d+)\s+(.+?)\s+(?:On|Off)\s+\|\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s+(?:On|Off)\s+\|)")
DT_RE(re_nvsmi_proc,
      R"(^\|\s+(\d+)\s+(?:N/A|\d+)\s+(?:N/A|\d+)\s+(\d+)\s+(C|G|C\+G)\s+(\S+)\s+(\d+)MiB\s+\|)")

}  // namespace

bool parse_nvidia_smi(std::string_view s, model::Event& e) {
  M m;
  if (starts_with(s, "GPU ") && rx(re_nvsmi_list(), s, m)) {
    e.kind = model::Kind::NvidiaSmi;
    e.level = model::Level::Info;
    e.code = "gpu";
    e.device = int_of(m[1]);
    e.set("gpu_name", std::string(m[2]));
    e.set("uuid", std::string(m[3]));
    return true;
  }
  if (s.empty() || s.front() != '|') return false;
  if (contains(s, "NVIDIA-SMI") && rx(re_nvsmi_header(), s, m, RE2::UNANCHORED)) {
    e.kind = model::Kind::NvidiaSmi;
    e.level = model::Level::Info;
    e.code = "versions";
    e.set("nvidia_smi_version", std::string(m[1]));
    e.set("driver_version", std::string(m[2]));
    if (!m[3].empty()) e.set("cuda_version", std::string(m[3]));
    return true;
  }
  if (rx(re_nvsmi_gpu(), s, m)) {
    e.kind = model::Kind::NvidiaSmi;
    e.level = model::Level::Info;
    e.code = "gpu";
    e.device = int_of(m[1]);
    e.set("gpu_name", std::string(trim(m[2])));
    e.set("bus_id", std::string(m[3]));
    return true;
  }
  if (rx(re_nvsmi_proc(), s, m)) {
    e.kind = model::Kind::NvidiaSmi;
    e.level = model::Level::Info;
    e.code = "gpu-process";
    e.device = int_of(m[1]);
    e.pid = int_of(m[2]);
    e.set("process", std::string(m[4]));
    set_int(e, "memory_mib", m[5]);
    return true;
  }
  return false;
}

}  // namespace dtriage::formats
