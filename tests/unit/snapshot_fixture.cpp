#include "snapshot_fixture.hpp"

#include <cstdarg>
#include <cstdio>

namespace dtriage::test {
namespace {

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

std::string model_of(const NodeSpec& s, int i) {
  return i < static_cast<int>(s.models.size()) ? s.models[static_cast<std::size_t>(i)] : s.model;
}
int memory_of(const NodeSpec& s, int i) {
  auto it = s.memory_of.find(i);
  return it == s.memory_of.end() ? s.memory_mib : it->second;
}
int used_of(const NodeSpec& s, int i) {
  int used = 4;
  for (const auto& h : s.holders)
    if (h.device == i) used += h.mib;
  return used;
}
std::string uuid_of(const NodeSpec& s, int i) {
  unsigned h = 2166136261u;
  for (char c : s.host) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return fmt("GPU-%08x-%04x-%04x-%04x-%012x", h, 0x1000 + i, 0x4a2b, 0x8c3d, 0x5e6f70 + i);
}
std::string bus_of(int i) {
  static const char* kBus[] = {"07", "0B", "48", "4C", "88", "8B", "C8", "CB", "D1", "D5", "DA", "DE", "E1", "E5", "EA", "EE"};
  return fmt("00000000:%s:00.0", kBus[i % 16]);
}
std::string link_between(const NodeSpec& s, int a, int b) {
  if (auto it = s.link_of.find(a); it != s.link_of.end()) return it->second;
  if (auto it = s.link_of.find(b); it != s.link_of.end()) return it->second;
  return s.link;
}

}  // namespace

std::string nvidia_smi_list(const NodeSpec& s) {
  std::string o;
  for (int i = 0; i < s.devices; ++i) o += fmt("GPU %d: %s (UUID: %s)\n", i, model_of(s, i).c_str(), uuid_of(s, i).c_str());
  return o;
}

std::string nvidia_smi_query(const NodeSpec& s) {
  std::string o;
  for (int i = 0; i < s.devices; ++i)
    o += fmt("%d, %s, %d, %d, %s, %s, %s\n", i, model_of(s, i).c_str(), memory_of(s, i), used_of(s, i), s.driver.c_str(),
             bus_of(i).c_str(), uuid_of(s, i).c_str());
  return o;
}

std::string nvidia_smi_apps(const NodeSpec& s) {
  std::string o;
  for (const auto& h : s.holders) o += fmt("%s, %d, %s, %d\n", uuid_of(s, h.device).c_str(), h.pid, h.name.c_str(), h.mib);
  return o;
}

std::string nvidia_smi_table(const NodeSpec& s) {
  std::string o = "Mon Dec  1 05:12:44 2026       \n";
  o += "+---------------------------------------------------------------------------------------+\n";
  o += fmt("| NVIDIA-SMI %-21s Driver Version: %-12s CUDA Version: %-8s|\n", s.driver.c_str(), s.driver.c_str(), s.cuda_driver.c_str());
  o += "|-----------------------------------------+----------------------+----------------------+\n";
  o += "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n";
  o += "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |\n";
  o += "|                                         |                      |               MIG M. |\n";
  o += "|=========================================+======================+======================|\n";
  for (int i = 0; i < s.devices; ++i) {
    o += fmt("| %3d  %-28s  On  | %s Off |                    0 |\n", i, model_of(s, i).c_str(), bus_of(i).c_str());
    o += fmt("| N/A   %dC    P0              %dW / 400W | %6dMiB / %dMiB |      0%%      Default |\n", 30 + i, 60 + i,
             used_of(s, i), memory_of(s, i));
    o += "|                                         |                      |             Disabled |\n";
    o += "+-----------------------------------------+----------------------+----------------------+\n";
  }
  o += "                                                                                         \n";
  o += "+---------------------------------------------------------------------------------------+\n";
  o += "| Processes:                                                                            |\n";
  o += "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |\n";
  o += "|        ID   ID                                                             Usage      |\n";
  o += "|=======================================================================================|\n";
  if (s.holders.empty()) o += "|  No running processes found                                                           |\n";
  for (const auto& h : s.holders) o += fmt("|  %4d   N/A  N/A  %9d      C   %-38s %6dMiB |\n", h.device, h.pid, h.name.c_str(), h.mib);
  o += "+---------------------------------------------------------------------------------------+\n";
  return o;
}

std::string nvidia_smi_topo(const NodeSpec& s) {
  std::string o = "\t\x1b[4m";
  for (int i = 0; i < s.devices; ++i) o += fmt("GPU%d\t", i);
  o += "NIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n";
  for (int i = 0; i < s.devices; ++i) {
    o += fmt("GPU%d\t", i);
    for (int j = 0; j < s.devices; ++j) o += (i == j ? std::string(" X ") : link_between(s, i, j)) + "\t";
    const bool low = i < s.devices / 2;
    o += fmt("%s\t%s\t%s\t%d\t\tN/A\n", low ? "PXB" : "SYS", low ? "SYS" : "PXB", low ? "0-63,128-191" : "64-127,192-255", low ? 0 : 1);
  }
  o += "NIC0\t";
  for (int j = 0; j < s.devices; ++j) o += std::string(j < s.devices / 2 ? "PXB" : "SYS") + "\t";
  o += " X \tSYS\t\t\t\t\n";
  o += "NIC1\t";
  for (int j = 0; j < s.devices; ++j) o += std::string(j < s.devices / 2 ? "SYS" : "PXB") + "\t";
  o += "SYS\t X \t\t\t\t\n\n";
  o += "Legend:\n\n  X    = Self\n  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n";
  o += "  NV#  = Connection traversing a bonded set of # NVLinks\n\nNIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n";
  return o;
}

std::string npu_smi_info(const NodeSpec& s) {
  std::string o;
  o += "+------------------------------------------------------------------------------------------------+\n";
  o += fmt("| npu-smi %-24s Version: %-45s|\n", s.npu_driver.c_str(), s.npu_driver.c_str());
  o += "+---------------------------+---------------+----------------------------------------------------+\n";
  o += "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|\n";
  o += "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |\n";
  o += "+===========================+===============+====================================================+\n";
  for (int i = 0; i < s.devices; ++i) {
    o += fmt("| %-5d %-19s | %-13s | %-11.1f %-17d 0    / 0             |\n", i, model_of(s, i).c_str(), "OK", 92.5 + i, 35 + i);
    o += fmt("| 0                         | 0000:%s:00.0  | 0           0    / 0          %-5d/ %-13d|\n",
             bus_of(i).substr(9, 2).c_str(), used_of(s, i) + 3370, memory_of(s, i));
    o += "+===========================+===============+====================================================+\n";
  }
  o += "+---------------------------+---------------+----------------------------------------------------+\n";
  o += "| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |\n";
  o += "+===========================+===============+====================================================+\n";
  for (int i = 0; i < s.devices; ++i) {
    bool any = false;
    for (const auto& h : s.holders)
      if (h.device == i) {
        o += fmt("| %-7d 0                 | %-13d | %-24s | %-24d|\n", i, h.pid, h.name.c_str(), h.mib);
        any = true;
      }
    if (!any) o += fmt("| No running processes found in NPU %-61d|\n", i);
    o += "+===========================+===============+====================================================+\n";
  }
  return o;
}

std::string npu_smi_topo(const NodeSpec& s) {
  std::string o = "           ";
  for (int i = 0; i < s.devices; ++i) o += fmt("NPU%-8d", i);
  o += "CPU Affinity\n";
  for (int i = 0; i < s.devices; ++i) {
    o += fmt("NPU%-8d", i);
    for (int j = 0; j < s.devices; ++j) o += fmt("%-11s", i == j ? "X" : link_between(s, i, j).c_str());
    o += i < s.devices / 2 ? "0-23\n" : "24-47\n";
  }
  o += "\nLegend:\n\n  X    = Self\n  HCCS = Connection traversing HCCS.\n  PIX  = Connection traversing at most a single PCIe bridge\n";
  return o;
}

std::string make_snapshot(const NodeSpec& s) {
  std::string o = "# dtriage snapshot 1\n";
  o += "# written by dtriage-snapshot.sh; sections: \"@@ NAME STATUS $ COMMAND\", then its output\n";
  o += "@@ time ok $ date -u +%Y-%m-%dT%H:%M:%SZ\n2026-12-01T05:12:44Z\n";
  o += "@@ host.name ok $ hostname\n" + s.host + "\n";
  o += "@@ host.fqdn ok $ hostname -f\n" + s.host + ".cluster.local\n";
  o += "@@ host.addresses ok $ hostname -I\n";
  for (const std::string& a : s.addresses) o += a + " ";
  o += "\n@@ host.os ok $ uname -srm\nLinux 5.15.0-91-generic x86_64\n";
  o += "@@ host.shm ok $ df -Pk /dev/shm\nFilesystem     1024-blocks  Used Available Capacity Mounted on\n"
       "tmpfs            263921168     0 263921168       0% /dev/shm\n";
  const bool nv = s.platform == "nvidia", asc = s.platform == "ascend";
  auto sec = [&](const char* name, const char* cmd, bool present, const std::string& out) {
    o += std::string("@@ ") + name + (present ? " ok $ " : " missing $ ") + cmd + "\n";
    if (present) o += out;
  };
  sec("nvidia.list", "nvidia-smi -L", nv, nv ? nvidia_smi_list(s) : "");
  sec("nvidia.query",
      "nvidia-smi --query-gpu=index,name,memory.total,memory.used,driver_version,pci.bus_id,uuid --format=csv,noheader,nounits", nv,
      nv ? nvidia_smi_query(s) : "");
  sec("nvidia.apps", "nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv,noheader,nounits", nv,
      nv ? nvidia_smi_apps(s) : "");
  sec("nvidia.smi", "nvidia-smi", nv, nv ? nvidia_smi_table(s) : "");
  sec("nvidia.topo", "nvidia-smi topo -m", nv, nv ? nvidia_smi_topo(s) : "");
  sec("npu.info", "npu-smi info", asc, asc ? npu_smi_info(s) : "");
  sec("npu.topo", "npu-smi info -t topo", asc, asc ? npu_smi_topo(s) : "");
  sec("cann.toolkit", "cat /usr/local/Ascend/ascend-toolkit/latest/ascend_toolkit_install.info", asc,
      asc ? "package_name=Ascend-cann-toolkit\nversion=" + s.cann + "\ninnerversion=V100R001C19SPC001B219\narch=aarch64\nos=linux\n\n" : "");
  sec("cann.version", "cat /usr/local/Ascend/ascend-toolkit/latest/version.cfg", false, "");
  sec("npu.driver", "cat /usr/local/Ascend/driver/version.info", asc, asc ? "Version=" + s.npu_driver + "\nascendhal_version=7.35.19\n\n" : "");
  o += "@@ python.probe ok $ python3 --version\nPython " + s.python + "\n";
  o += "@@ python.torch ok $ python3 - (torch, CUDA / NCCL, devices)\n";
  o += "python=" + s.python + "\ntorch=" + s.torch + "\n";
  const int tdev = s.torch_devices >= 0 ? s.torch_devices : s.devices;
  if (asc) {
    o += "torch.cuda=None\ntorch.nccl=None\ncuda.available=False\ncuda.device_count=0\n";
    o += "torch_npu=" + s.torch + "\nnpu.device_count=" + std::to_string(tdev) + "\n";
  } else if (nv) {
    o += "torch.cuda=" + s.cuda_runtime + "\ntorch.nccl=" + s.nccl + "\ncuda.available=True\ncuda.device_count=" + std::to_string(tdev) + "\n";
    for (int i = 0; i < tdev; ++i) o += fmt("cuda.device.%d=%s\n", i, model_of(s, i).c_str());
  } else {
    o += "torch.cuda=None\ntorch.nccl=None\ncuda.available=False\ncuda.device_count=0\n";
  }
  o += "@@ python.pip ok $ python3 -m pip freeze | sha256sum\nsha256=" + s.pip + "\npackages=143\ntorch==" + s.torch + "\n";
  o += "@@ code.version ok $ git rev-parse HEAD (or file hashes) in /work/train\ndir=/work/train\ngit=" + s.git + "\ndirty=0\n";
  o += "@@ launch.env ok $ env (launch variables, secrets masked)\n";
  for (const auto& [k, v] : s.env) o += k + "=" + v + "\n";
  const std::string port = s.env.count("MASTER_PORT") ? s.env.at("MASTER_PORT") : "29500";
  o += "@@ launch.port ok $ listening sockets on port " + port + " (/proc/net/tcp)\nport=" + port + "\nsource=MASTER_PORT\nstate=" +
       s.port_state + "\n";
  if (s.port_state == "bound") o += "pid=" + std::to_string(s.port_pid) + "\nprocess=" + s.port_process + "\n";
  const std::string addr = s.env.count("MASTER_ADDR") ? s.env.at("MASTER_ADDR") : "";
  o += "@@ launch.master ok $ bash /dev/tcp to " + addr + ":" + port + "\naddr=" + addr + " port=" + port + "\nresult=" + s.reach + "\n";
  o += "@@ launch.leftovers ok $ launchers and training processes still running (/proc)\n";
  for (const std::string& l : s.leftovers) o += l + "\n";
  o += "@@ end ok $ \n";
  return o;
}

std::vector<NodeSpec> healthy_job(int nodes, const std::string& platform) {
  std::vector<NodeSpec> out;
  for (int i = 0; i < nodes; ++i) {
    NodeSpec s;
    s.platform = platform;
    s.host = fmt(platform == "ascend" ? "npu-b%02d" : "gpu-a%02d", i + 1);
    s.addresses = {fmt("10.0.0.%d", i + 1), fmt("192.168.8.%d", 10 + i)};
    if (platform == "ascend") {
      s.model = "910B3";
      s.memory_mib = 65536;
      s.link = "HCCS";
      s.torch = "2.1.0";
    }
    s.env = {{"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "29500"}, {"NNODES", std::to_string(nodes)},
             {"NODE_RANK", std::to_string(i)}, {"NPROC_PER_NODE", "8"}, {"WORLD_SIZE", std::to_string(nodes * 8)},
             {platform == "ascend" ? "HCCL_CONNECT_TIMEOUT" : "NCCL_SOCKET_IFNAME", platform == "ascend" ? "1200" : "ib0"}};
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace dtriage::test
