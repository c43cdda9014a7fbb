// Node snapshots for the tests, written the way tools/dtriage-snapshot.sh writes them, with the
// tools' outputs in the shapes nvidia-smi (535 / 550 drivers) and npu-smi (23.0 / 24.1) print.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dtriage::test {

struct NodeSpec {
  std::string host = "gpu-a01";
  std::string platform = "nvidia";  // nvidia, ascend or none
  int devices = 8;
  std::vector<std::string> models;  // per device; empty = all `model`
  std::string model = "NVIDIA A100-SXM4-80GB";
  int memory_mib = 81920;
  std::map<int, int> memory_of;     // device -> total MiB where it differs
  std::string driver = "535.104.05";
  std::string cuda_driver = "12.2";
  std::string torch = "2.1.2+cu121";
  std::string cuda_runtime = "12.1";
  std::string nccl = "2.18.1";
  std::string cann = "8.0.RC3";
  std::string npu_driver = "24.1.rc2";
  std::string python = "3.10.12";
  std::string pip = "9c1f6e2a0b7d44e1a3f0c2b8e5d7a6f1c0b9e8d7a6f5e4d3c2b1a09f8e7d6c5b";
  std::string git = "4be21f09c77d3a5e8f1b2c3d4e5f60718293a4b5";
  std::string link = "NV12";        // the GPU-GPU (or NPU-NPU) link in the topology matrix
  std::map<int, std::string> link_of;  // device -> link where it differs (its row and column)
  std::map<std::string, std::string> env = {{"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "29500"}};
  std::vector<std::string> addresses = {"10.0.0.1"};
  std::string port_state = "free";
  int port_pid = 0;
  std::string port_process;
  std::string reach = "refused";
  struct Holder {
    int device;
    int pid;
    std::string name;
    int mib;
  };
  std::vector<Holder> holders;
  std::vector<std::string> leftovers;
  int torch_devices = -1;           // -1: same as devices
};

// The outputs of the tools, as recorded (stand-in executables print these).
std::string nvidia_smi_list(const NodeSpec& s);
std::string nvidia_smi_query(const NodeSpec& s);
std::string nvidia_smi_apps(const NodeSpec& s);
std::string nvidia_smi_table(const NodeSpec& s);
std::string nvidia_smi_topo(const NodeSpec& s);
std::string npu_smi_info(const NodeSpec& s);
std::string npu_smi_topo(const NodeSpec& s);

// A whole snapshot file.
std::string make_snapshot(const NodeSpec& s);

// n nodes gpu-a01.. (or npu-b01.. for ascend) of one healthy job: MASTER_ADDR is the first node.
std::vector<NodeSpec> healthy_job(int nodes, const std::string& platform = "nvidia");

}  // namespace dtriage::test
