// Node snapshots: the text file tools/dtriage-snapshot.sh writes on each node before a launch
// (`dtriage snapshot-script` prints that script). A header line, then sections, each opened by
//     @@ NAME STATUS $ COMMAND
// (STATUS: ok, exit=N, missing, timeout, skipped) and followed by the command's output. Parsed
// here into what the pre-launch checks (check/) and the post-mortem facts need.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dtriage::formats {

inline constexpr std::string_view kSnapshotMagic = "# dtriage snapshot ";

// True for the first line of a snapshot file.
bool is_snapshot_header(std::string_view first_line);

struct SnapshotDevice {
  std::int64_t index = 0;
  std::string model;
  std::optional<std::int64_t> memory_total_mib;
  std::optional<std::int64_t> memory_used_mib;
  std::string bus;
  std::string uuid;
  std::string health;  // npu-smi's health column; empty for GPUs
};

// A process that holds device memory (nvidia-smi compute apps, npu-smi process rows).
struct SnapshotHolder {
  std::int64_t pid = 0;
  std::string process;
  std::optional<std::int64_t> device;
  std::optional<std::int64_t> memory_mib;
};

struct SnapshotSection {
  std::string name;
  std::string status;   // ok, exit=N, missing, timeout, skipped
  std::string command;
  std::uint64_t line = 0;           // 1-based line of the section's header
  std::vector<std::string> lines;   // its output
};

struct Snapshot {
  std::string path;                 // as reports show it
  std::string host;                 // short host name (the node)
  std::string fqdn;
  std::vector<std::string> addresses;
  std::string time;
  std::string platform;             // "nvidia", "ascend" or "" (no accelerator tool answered)
  std::vector<SnapshotDevice> devices;
  std::vector<SnapshotHolder> holders;
  // The device-to-device matrix of `nvidia-smi topo -m` / `npu-smi info -t topo`, one row per
  // device ("GPU0: X NV12 NV12"); empty when not recorded.
  std::vector<std::string> topology;
  // Versions by key: driver, cuda_driver (the CUDA the driver supports), cuda_runtime (torch's),
  // nccl, torch, torch_npu, python, cann, npu_driver, pip (hash of pip freeze), code (git revision
  // or hash of the code's files), config:PATH (hash of each config file).
  std::map<std::string, std::string> versions;
  std::map<std::string, std::uint64_t> version_lines;  // key -> the line that stated it
  std::optional<std::int64_t> torch_device_count;      // torch.cuda / torch.npu device_count()
  std::map<std::string, std::string> env;              // launch variables (secrets masked)
  std::optional<std::int64_t> port;
  std::string port_state;                              // free, bound, invalid; "" = not recorded
  std::optional<std::int64_t> port_pid;
  std::string port_process;
  std::string master_addr;
  std::string reach;                                   // connected, refused, timeout, unresolved, ...
  std::optional<std::int64_t> shm_bytes;
  std::vector<std::string> leftovers;                  // "pid=N command line" of launchers still running
  std::vector<SnapshotSection> sections;

  const SnapshotSection* section(std::string_view name) const;
  // The header line of a section (evidence); 0 when absent.
  std::uint64_t line_of(std::string_view name) const;
};

// Parses the lines of one snapshot file (the first is the header). Never throws; what it cannot
// read stays unset.
Snapshot parse_snapshot(const std::vector<std::string>& lines, std::string path);

// The same, a line at a time as a file is read. What the script writes is a few thousand short
// lines; past kSnapshotMaxLines lines or kSnapshotMaxBytes bytes of section output the lines are
// counted, not kept (a snapshot that large is not one the script wrote).
inline constexpr std::size_t kSnapshotMaxLines = 200000;
inline constexpr std::size_t kSnapshotMaxBytes = 16u << 20;
class SnapshotBuilder {
 public:
  explicit SnapshotBuilder(std::string path) { snap_.path = std::move(path); }
  void add(std::string_view line);  // the next line, the header first
  Snapshot finish();                // reads the sections kept
  std::uint64_t lines_not_kept() const { return not_kept_; }

 private:
  Snapshot snap_;
  std::uint64_t number_ = 0, not_kept_ = 0;
  std::size_t bytes_ = 0;
};
// Why a snapshot was not read to its end (`count` lines not kept), for the inventory.
std::string snapshot_cut_reason(std::uint64_t count);

}  // namespace dtriage::formats
