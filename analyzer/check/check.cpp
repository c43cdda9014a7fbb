#include "check/check.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "base/sentences.hpp"
#include "model/categories.hpp"
#include "formats/pipeline.hpp"
#include "formats/snapshot.hpp"
#include "formats/util.hpp"

namespace dtriage::check {
namespace {

using base::Say;
using base::say;
using formats::Snapshot;
using formats::starts_with;
using formats::to_int;
using formats::trim;

std::string join(const std::vector<std::string>& v, const std::string& sep = ", ") {
  std::string out;
  for (const std::string& s : v) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

std::string ranks_list(const std::set<std::int64_t>& ranks) {
  std::vector<std::string> v;
  for (std::int64_t r : ranks) v.push_back(std::to_string(r));
  if (v.size() > 12) {
    v.resize(12);
    v.push_back("...");
  }
  return join(v);
}

std::string num(double d) {
  std::ostringstream o;
  o << d;
  return o.str();
}

Evidence section_evidence(const Snapshot& s, std::string_view section) {
  const formats::SnapshotSection* sec = s.section(section);
  if (sec == nullptr) return Evidence{s.path, 1, say(Say::CheckNoSection, {{"section", std::string(section)}})};
  std::string text = "@@ " + sec->name + " " + sec->status + " $ " + sec->command;
  return Evidence{s.path, sec->line, text};
}

// The row of `section` that says it: the first output line holding `words`' first word, else its
// second, ..., with its own line number (a section's output lines follow its header one to one);
// else the section's header.
Evidence row_evidence(const Snapshot& s, std::string_view section, const std::vector<std::string>& words) {
  const formats::SnapshotSection* sec = s.section(section);
  if (sec != nullptr)
    for (const std::string& w : words)
      for (std::size_t i = 0; i < sec->lines.size(); ++i)
        if (!w.empty() && sec->lines[i].find(w) != std::string::npos)
          return Evidence{s.path, sec->line + 1 + i, sec->lines[i]};
  return section_evidence(s, section);
}

Evidence smoke_evidence(const SmokeRank& r) { return Evidence{r.path, r.line, r.text}; }

// The value most nodes hold; a tie goes to the master node's value, then to the first node's.
std::string reference(const std::vector<std::pair<std::string, std::string>>& by_node, const std::string& master) {
  std::map<std::string, int> count;
  for (const auto& [node, v] : by_node) ++count[v];
  int best = 0;
  for (const auto& [v, c] : count) best = std::max(best, c);
  std::vector<std::string> tied;
  for (const auto& [v, c] : count)
    if (c == best) tied.push_back(v);
  if (tied.size() == 1) return tied.front();
  for (const auto& [node, v] : by_node)
    if (node == master && std::find(tied.begin(), tied.end(), v) != tied.end()) return v;
  for (const auto& [node, v] : by_node)
    if (std::find(tied.begin(), tied.end(), v) != tied.end()) return v;
  return "";
}

std::vector<std::string> holders_of(const std::vector<std::pair<std::string, std::string>>& by_node, const std::string& v) {
  std::vector<std::string> out;
  for (const auto& [node, value] : by_node)
    if (value == v) out.push_back(node);
  return out;
}

std::string env_of(const Snapshot& s, const char* key) {
  auto it = s.env.find(key);
  return it == s.env.end() ? std::string() : it->second;
}

std::optional<std::int64_t> env_int(const Snapshot& s, const char* key) { return to_int(env_of(s, key)); }

// The node MASTER_ADDR names: its host, full name or one of its addresses.
std::string master_node(const Input& in) {
  std::string addr = in.launch.master_addr;
  if (addr.empty())
    for (const Snapshot& s : in.snapshots)
      if (!s.master_addr.empty()) {
        addr = s.master_addr;
        break;
      }
  if (addr.empty()) return "";
  for (const Snapshot& s : in.snapshots) {
    if (s.host == addr || s.fqdn == addr || formats::short_host(addr) == s.host) return s.host;
    for (const std::string& a : s.addresses)
      if (a == addr) return s.host;
  }
  return "";
}

std::optional<std::int64_t> nproc_of(const Input& in, const Snapshot& s) {
  if (in.launch.nproc_per_node) return in.launch.nproc_per_node;
  if (auto v = env_int(s, "NPROC_PER_NODE")) return v;
  if (auto v = env_int(s, "LOCAL_WORLD_SIZE")) return v;
  return std::nullopt;
}

std::optional<std::int64_t> nnodes_of(const Input& in) {
  if (in.launch.nnodes) return in.launch.nnodes;
  for (const Snapshot& s : in.snapshots) {
    if (auto v = env_int(s, "NNODES")) return v;
    if (auto v = env_int(s, "SLURM_NNODES")) return v;
  }
  return std::nullopt;
}

// Devices the launch may use: CUDA_VISIBLE_DEVICES / ASCEND_RT_VISIBLE_DEVICES when set.
std::optional<std::int64_t> visible_count(const Snapshot& s, std::string& var) {
  for (const char* k : {"CUDA_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES", "ASCEND_VISIBLE_DEVICES"}) {
    auto it = s.env.find(k);
    if (it == s.env.end()) continue;
    var = k;
    std::int64_t n = 0;
    std::stringstream in(it->second);
    std::string item;
    while (std::getline(in, item, ','))
      if (!trim(item).empty()) ++n;
    return n;
  }
  return std::nullopt;
}

struct Version {
  int major = -1, minor = 0;
};
Version version_of(const std::string& s) {
  Version v;
  int a = 0, b = 0;
  if (std::sscanf(s.c_str(), "%d.%d", &a, &b) >= 1) {
    v.major = a;
    v.minor = b;
  }
  return v;
}

NodeResult& with_category(model::CategoryId category, NodeResult& n) {
  if (n.status == Status::Fail) n.category = category.id;
  return n;
}

// A failure reason; the first one's category is the node's.
void add_fail(std::vector<std::string>& fails, std::string& category, model::CategoryId cat, std::string message) {
  if (category.empty()) category = cat.id;
  fails.push_back(std::move(message));
}

class Builder {
 public:
  Builder(int id, std::string name, std::string title) {
    r_.id = id;
    r_.name = std::move(name);
    r_.title = std::move(title);
  }
  NodeResult& add(std::string node, Status st, std::string message) {
    NodeResult n;
    n.node = std::move(node);
    n.status = st;
    n.message = std::move(message);
    r_.results.push_back(std::move(n));
    return r_.results.back();
  }
  NodeResult& add(NodeResult n) {
    r_.results.push_back(std::move(n));
    return r_.results.back();
  }
  CheckResult done() {
    r_.status = Status::Skip;
    for (const NodeResult& n : r_.results) r_.status = std::max(r_.status, n.status);
    // A node's own lines in node order, the job-wide ones last.
    std::stable_sort(r_.results.begin(), r_.results.end(), [](const NodeResult& a, const NodeResult& b) {
      if (a.node.empty() != b.node.empty()) return b.node.empty();
      return a.node < b.node;
    });
    return std::move(r_);
  }

 private:
  CheckResult r_;
};

// ---- 1 devices ----
// The device models a node holds.
std::set<std::string> models_of(const Snapshot& s) {
  std::set<std::string> m;
  for (const auto& d : s.devices) m.insert(d.model);
  return m;
}

// What each node's devices are compared against: the count and model most nodes have, and per model
// the largest memory total.
struct DeviceReference {
  bool any = false;  // some node has devices
  std::string count, model;
  std::map<std::string, std::int64_t> memory;
};

DeviceReference device_reference(const Input& in, const std::string& master) {
  std::vector<std::pair<std::string, std::string>> counts, models;
  for (const Snapshot& s : in.snapshots) {
    if (s.devices.empty()) continue;
    counts.emplace_back(s.host, std::to_string(s.devices.size()));
    const std::set<std::string> m = models_of(s);
    models.emplace_back(s.host, join(std::vector<std::string>(m.begin(), m.end()), " + "));
  }
  DeviceReference ref;
  ref.any = !counts.empty();
  ref.count = reference(counts, master);
  ref.model = reference(models, master);
  // Reference memory per model: the largest total seen on a node that holds the reference count.
  for (const Snapshot& s : in.snapshots)
    for (const auto& d : s.devices)
      if (d.memory_total_mib) ref.memory[d.model] = std::max(ref.memory[d.model], *d.memory_total_mib);
  return ref;
}

// A node without devices: a failure when other nodes have some, else there is nothing to check.
void add_deviceless_node(Builder& b, const Snapshot& s, const DeviceReference& ref) {
  std::vector<std::string> tools;
  for (const char* sec : {"nvidia.list", "npu.info"})
    if (const auto* x = s.section(sec)) tools.push_back(x->command + ": " + x->status);
  NodeResult& n = with_category("device-visibility-config", b.add(s.host, !ref.any ? Status::Skip : Status::Fail,
                        !ref.any ? say(Say::CheckNoAccelerator, {{"tools", join(tools)}})
                                 : say(Say::CheckNoDevices, {{"tools", join(tools)}, {"count", ref.count}})));
  n.values.emplace_back("devices", "0");
  n.evidence.push_back(section_evidence(s, "nvidia.list"));
}

// A node's devices against the reference: their count, model, memory and health, and the processes
// that already hold memory on them.
void hardware_fails(const Snapshot& s, const DeviceReference& ref, std::vector<std::string>& fails, std::string& cat) {
  const std::string count = std::to_string(s.devices.size());
  const std::set<std::string> m = models_of(s);
  if (count != ref.count) add_fail(fails, cat, "nproc-device-mismatch", say(Say::CheckDeviceCount, {{"count", count}, {"reference", ref.count}}));
  if (m.size() > 1) {
    std::map<std::string, int> per;
    for (const auto& d : s.devices) per[d.model]++;
    std::vector<std::string> parts;
    for (const auto& [model, c] : per) parts.push_back(say(Say::CheckModelCount, {{"count", std::to_string(c)}, {"model", model}}));
    add_fail(fails, cat, "env-version-mismatch", say(Say::CheckMixedModels, {{"models", join(parts)}}));
  } else if (!ref.model.empty() && *m.begin() != ref.model) {
    add_fail(fails, cat, "env-version-mismatch", say(Say::CheckOtherModel, {{"model", *m.begin()}, {"reference", ref.model}}));
  }
  for (const auto& d : s.devices) {
    auto it = ref.memory.find(d.model);
    if (!d.memory_total_mib || it == ref.memory.end()) continue;
    const double ratio = static_cast<double>(*d.memory_total_mib) / static_cast<double>(it->second);
    if (ratio < 0.97) {
      add_fail(fails, cat, "env-version-mismatch",
               say(Say::CheckSmallerMemory, {{"device", std::to_string(d.index)}, {"mib", std::to_string(*d.memory_total_mib)},
                                             {"model", d.model}, {"largest", std::to_string(it->second)}}));
      break;
    }
  }
  for (const auto& d : s.devices)
    if (!d.health.empty() && d.health != "OK") add_fail(fails, cat, "device-hardware-error", say(Say::CheckDeviceHealth, {{"device", std::to_string(d.index)}, {"health", d.health}}));
  for (const auto& h : s.holders) {
    add_fail(fails, cat, "device-oom",
             say(Say::CheckMemoryHeld,
                 {{"pid", std::to_string(h.pid)},
                  {"process", h.process.empty() ? std::string() : say(Say::CheckMemoryHeldProcess, {{"process", h.process}})},
                  {"amount", h.memory_mib ? say(Say::CheckMemoryHeldMib, {{"mib", std::to_string(*h.memory_mib)}}) : say(Say::CheckMemoryHeldUnknown)},
                  {"where", h.device ? say(Say::CheckMemoryHeldOnDevice, {{"device", std::to_string(*h.device)}}) : std::string()}}));
  }
}

// A node with devices: its hardware against the reference, and nproc_per_node and torch's device
// count against the devices the launch may use.
void check_node_devices(Builder& b, const Input& in, const Snapshot& s, const DeviceReference& ref) {
  const std::string source = s.platform == "ascend" ? "npu.info" : (s.section("nvidia.query") && s.section("nvidia.query")->status == "ok" ? "nvidia.query" : "nvidia.smi");
  std::vector<std::string> fails, warns;
  std::string cat;
  const std::string count = std::to_string(s.devices.size());
  const std::set<std::string> m = models_of(s);
  hardware_fails(s, ref, fails, cat);
  std::string var;
  const auto visible = visible_count(s, var);
  const std::int64_t usable = visible ? *visible : static_cast<std::int64_t>(s.devices.size());
  if (auto nproc = nproc_of(in, s)) {
    if (*nproc > usable)
      add_fail(fails, cat, "nproc-device-mismatch",
               say(visible ? Say::CheckNprocAboveVisible : Say::CheckNprocAboveDevices,
                   {{"nproc", std::to_string(*nproc)}, {"count", std::to_string(usable)}, {"var", var}}));
    else if (*nproc < usable)
      warns.push_back(say(Say::CheckNprocBelowDevices, {{"nproc", std::to_string(*nproc)}, {"count", std::to_string(usable)}}));
  }
  if (s.torch_device_count && *s.torch_device_count != usable)
    warns.push_back(say(visible ? Say::CheckTorchDevicesVisible : Say::CheckTorchDevicesTools,
                        {{"torch", std::to_string(*s.torch_device_count)}, {"var", var}, {"platform", s.platform},
                         {"count", std::to_string(usable)}}));
  Status st = !fails.empty() ? Status::Fail : !warns.empty() ? Status::Warn : Status::Pass;
  std::vector<std::string> msg = fails;
  msg.insert(msg.end(), warns.begin(), warns.end());
  if (msg.empty()) {
    std::string mem;
    if (s.devices.front().memory_total_mib)
      mem = say(Say::CheckDevicesPassMemory, {{"mib", std::to_string(*s.devices.front().memory_total_mib)}});
    msg.push_back(say(Say::CheckDevicesPass, {{"count", count}, {"model", *m.begin()}, {"memory", mem}}));
  }
  NodeResult& n = b.add(s.host, st, join(msg, "; "));
  if (st == Status::Fail) n.category = cat;
  n.values.emplace_back("devices", count);
  n.values.emplace_back("model", join(std::vector<std::string>(m.begin(), m.end()), " + "));
  if (s.devices.front().memory_total_mib) n.values.emplace_back("memory_mib", std::to_string(*s.devices.front().memory_total_mib));
  if (auto nproc = nproc_of(in, s)) n.values.emplace_back("nproc_per_node", std::to_string(*nproc));
  if (visible) n.values.emplace_back(var, std::to_string(*visible));
  if (s.torch_device_count) n.values.emplace_back("torch_device_count", std::to_string(*s.torch_device_count));
  n.values.emplace_back("held_by", std::to_string(s.holders.size()));
  n.evidence.push_back(row_evidence(s, source, {s.devices.front().model}));
  if (!s.holders.empty())
    n.evidence.push_back(row_evidence(s, s.platform == "ascend" ? "npu.info" : "nvidia.apps", {std::to_string(s.holders.front().pid)}));
}

CheckResult check_devices(const Input& in, const std::string& master) {
  Builder b(1, "devices", say(Say::CheckTitleDevices));
  const DeviceReference ref = device_reference(in, master);
  for (const Snapshot& s : in.snapshots) {
    if (s.devices.empty()) add_deviceless_node(b, s, ref);
    else check_node_devices(b, in, s, ref);
  }
  return b.done();
}

// ---- 2 topology and reach ----
CheckResult check_topology(const Input& in, const std::string& master) {
  Builder b(2, "topology", say(Say::CheckTitleTopology));
  std::vector<std::pair<std::string, std::string>> topo;
  for (const Snapshot& s : in.snapshots)
    if (!s.topology.empty()) topo.emplace_back(s.host, join(s.topology, "\n"));
  const std::string ref = reference(topo, master);
  for (const Snapshot& s : in.snapshots) {
    std::vector<std::string> fails, warns, passes;
    std::string cat;
    const char* topo_section = s.platform == "ascend" ? "npu.topo" : "nvidia.topo";
    if (s.topology.empty()) {
      if (!topo.empty()) warns.push_back(say(Say::CheckTopologyMissing));
    } else if (join(s.topology, "\n") != ref) {
      const std::vector<std::string> others = holders_of(topo, ref);
      std::istringstream r(ref);
      std::string line, diff;
      for (const std::string& mine : s.topology) {
        if (!std::getline(r, line)) line.clear();
        if (mine != line) {
          diff = say(others.size() == 1 ? Say::CheckTopologyRowOne : Say::CheckTopologyRowMany,
                     {{"mine", mine}, {"nodes", join(others)}, {"theirs", line}});
          break;
        }
      }
      if (diff.empty()) diff = say(Say::CheckTopologyRows, {{"rows", std::to_string(s.topology.size())}, {"nodes", join(others)}});
      add_fail(fails, cat, "network-transport-error", say(Say::CheckTopologyDiffers, {{"diff", diff}}));
    } else {
      passes.push_back(say(Say::CheckTopologyPass, {{"count", std::to_string(s.topology.size())}}));
    }
    const std::string addr = s.master_addr;
    if (s.reach == "connected" || s.reach == "refused") {
      passes.push_back(say(s.reach == "refused" ? Say::CheckMasterRefused : Say::CheckMasterAnswers, {{"addr", addr}}));
    } else if (s.reach.empty() || starts_with(s.reach, "skipped")) {
      warns.push_back(say(Say::CheckMasterNotTested));
    } else {
      add_fail(fails, cat, "rendezvous-failure",
               say(s.reach == "timeout" ? Say::CheckMasterTimeout : Say::CheckMasterUnreachable,
                   {{"addr", addr}, {"port", s.port ? std::to_string(*s.port) : std::string("?")}, {"reach", s.reach}}));
    }
    // NCCL / HCCL move data between a node's processes through /dev/shm (containers default to 64 MiB).
    const std::int64_t local = nproc_of(in, s).value_or(static_cast<std::int64_t>(s.devices.size()));
    if (s.shm_bytes && local >= 2) {
      const std::int64_t mib = *s.shm_bytes >> 20;
      const std::initializer_list<base::Arg> what = {{"mib", std::to_string(mib)}, {"count", std::to_string(local)}};
      if (mib < 256) add_fail(fails, cat, "shm-insufficient", say(Say::CheckShmTooSmall, what));
      else if (mib < 1024) warns.push_back(say(Say::CheckShmSmall, what));
    }
    const Status st = !fails.empty() ? Status::Fail : !warns.empty() ? Status::Warn : Status::Pass;
    std::vector<std::string> msg = fails;
    msg.insert(msg.end(), warns.begin(), warns.end());
    if (st == Status::Pass) msg = passes;
    NodeResult& n = b.add(s.host, st, join(msg, "; "));
    if (st == Status::Fail) n.category = cat;
    n.values.emplace_back("topology_rows", std::to_string(s.topology.size()));
    if (s.shm_bytes) n.values.emplace_back("shm_mib", std::to_string(*s.shm_bytes >> 20));
    n.values.emplace_back("master", addr);
    n.values.emplace_back("reach", s.reach);
    if (!s.topology.empty()) n.evidence.push_back(section_evidence(s, topo_section));
    if (cat == "shm-insufficient") n.evidence.push_back(row_evidence(s, "host.shm", {"/dev/shm"}));
    n.evidence.push_back(row_evidence(s, "launch.master", {"result="}));
  }
  return b.done();
}

// ---- 3 versions ----
CheckResult check_versions(const Input& in, const std::string& master) {
  Builder b(3, "versions", say(Say::CheckTitleVersions));
  std::set<std::string> keys;
  for (const Snapshot& s : in.snapshots)
    for (const auto& [k, v] : s.versions) keys.insert(k);
  std::map<std::string, std::string> refs;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> by_key;
  for (const std::string& k : keys) {
    for (const Snapshot& s : in.snapshots)
      if (auto it = s.versions.find(k); it != s.versions.end()) by_key[k].emplace_back(s.host, it->second);
    refs[k] = reference(by_key[k], master);
  }
  // NCCL_* / HCCL_* variables that differ between nodes.
  std::set<std::string> comm_vars;
  for (const Snapshot& s : in.snapshots)
    for (const auto& [k, v] : s.env)
      if (starts_with(k, "NCCL_") || starts_with(k, "HCCL_") || starts_with(k, "GLOO_")) comm_vars.insert(k);
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> by_var;
  const std::string unset = say(Say::CheckVariableUnset);
  for (const std::string& k : comm_vars)
    for (const Snapshot& s : in.snapshots) by_var[k].emplace_back(s.host, s.env.count(k) ? s.env.at(k) : unset);
  for (const Snapshot& s : in.snapshots) {
    std::vector<std::string> fails, warns;
    std::string cat;
    NodeResult n;
    for (const std::string& k : keys) {
      auto it = s.versions.find(k);
      if (it == s.versions.end()) {
        if (k != "npu_smi") warns.push_back(say(Say::CheckVersionMissing, {{"name", k}}));
        continue;
      }
      n.values.emplace_back(k, it->second);
      if (it->second != refs[k]) {
        const auto others = holders_of(by_key[k], refs[k]);
        add_fail(fails, cat, "env-version-mismatch",
                 say(others.size() == 1 ? Say::CheckVersionDiffersOne : Say::CheckVersionDiffersMany,
                     {{"name", k}, {"value", it->second}, {"nodes", join(others)}, {"reference", refs[k]}}));
        if (auto line = s.version_lines.find(k); line != s.version_lines.end())
          n.evidence.push_back(Evidence{s.path, line->second, "@@ " + k + " " + it->second});
      }
    }
    // The CUDA runtime torch was built with against the newest CUDA the driver supports.
    auto rt = s.versions.find("cuda_runtime");
    auto drv = s.versions.find("cuda_driver");
    if (rt != s.versions.end() && drv != s.versions.end()) {
      const Version r = version_of(rt->second), d = version_of(drv->second);
      if (r.major > d.major)
        add_fail(fails, cat, "env-version-mismatch",
                 say(Say::CheckCudaNeedsDriver, {{"runtime", rt->second},
                                                 {"driver", s.versions.count("driver") ? s.versions.at("driver") : std::string("?")},
                                                 {"cuda", drv->second}}));
      else if (r.major == d.major && r.minor > d.minor)
        warns.push_back(say(Say::CheckCudaNewerThanDriver, {{"runtime", rt->second}, {"cuda", drv->second}}));
    }
    for (const auto& [k, vals] : by_var) {
      const std::string ref = reference(vals, master);
      const std::string mine = s.env.count(k) ? s.env.at(k) : unset;
      if (mine != ref)
        warns.push_back(say(Say::CheckVariableDiffers, {{"name", k}, {"value", mine}, {"nodes", join(holders_of(vals, ref))}, {"reference", ref}}));
    }
    const Status st = !fails.empty() ? Status::Fail : !warns.empty() ? Status::Warn : Status::Pass;
    std::vector<std::string> msg = fails;
    msg.insert(msg.end(), warns.begin(), warns.end());
    if (st == Status::Pass) {
      std::vector<std::string> parts;
      for (const char* k : {"driver", "npu_driver", "cuda_runtime", "cann", "torch", "nccl"})
        if (auto it = s.versions.find(k); it != s.versions.end()) parts.push_back(std::string(k) + " " + it->second);
      msg.push_back(parts.empty() ? say(Say::CheckNoVersions) : say(Say::CheckVersionsPass, {{"versions", join(parts)}}));
      if (parts.empty()) n.status = Status::Skip;
    }
    n.node = s.host;
    if (n.status != Status::Skip) n.status = st;
    n.message = join(msg, "; ");
    if (n.evidence.empty()) n.evidence.push_back(section_evidence(s, "python.torch"));
    NodeResult& added = b.add(n.node, n.status, n.message);
    if (added.status == Status::Fail) added.category = cat;
    added.values = std::move(n.values);
    added.evidence = std::move(n.evidence);
  }
  return b.done();
}

// ---- 4 launch: world size, master, port ----
// What every node's launch variables are compared against: the node count, and the master address
// and port of the launch command, else the ones most nodes have.
struct LaunchReference {
  std::optional<std::int64_t> nnodes;
  std::string addr, port;
};

LaunchReference launch_reference(const Input& in, const std::string& master) {
  LaunchReference ref;
  ref.nnodes = nnodes_of(in);
  std::vector<std::pair<std::string, std::string>> addrs, ports;
  for (const Snapshot& s : in.snapshots) {
    if (const std::string a = env_of(s, "MASTER_ADDR"); !a.empty()) addrs.emplace_back(s.host, a);
    if (const std::string p = env_of(s, "MASTER_PORT"); !p.empty()) ports.emplace_back(s.host, p);
  }
  ref.addr = in.launch.master_addr.empty() ? reference(addrs, master) : in.launch.master_addr;
  ref.port = in.launch.master_port ? std::to_string(*in.launch.master_port) : reference(ports, master);
  return ref;
}

// One node's WORLD_SIZE, NODE_RANK, MASTER_ADDR and MASTER_PORT, the port's state and the launch
// processes still running there.
void check_node_launch(Builder& b, const Input& in, const Snapshot& s, const LaunchReference& ref, const std::string& master) {
  const auto& nnodes = ref.nnodes;
  std::vector<std::string> fails, warns, passes;
  std::string cat;
  NodeResult n;
  const auto nproc = nproc_of(in, s);
  // nnodes x nproc, when both are known and the product is a number (no overflow on crafted values).
  std::optional<std::int64_t> world;
  if (std::int64_t p = 0; nnodes && nproc && !__builtin_mul_overflow(*nnodes, *nproc, &p)) world = p;
  if (auto ws = env_int(s, "WORLD_SIZE")) {
    n.values.emplace_back("WORLD_SIZE", std::to_string(*ws));
    if (world && *ws != *world)
      add_fail(fails, cat, "world-size-mismatch",
               say(Say::CheckWorldSizeMismatch, {{"world", std::to_string(*ws)}, {"nnodes", std::to_string(*nnodes)},
                                                 {"nproc", std::to_string(*nproc)}, {"product", std::to_string(*world)}}));
    else if (world)
      passes.push_back(say(Say::CheckWorldSizeAddsUp,
                           {{"world", std::to_string(*ws)}, {"nnodes", std::to_string(*nnodes)}, {"nproc", std::to_string(*nproc)}}));
  } else if (world) {
    passes.push_back(say(Say::CheckWorldSizeImplied,
                         {{"world", std::to_string(*world)}, {"nnodes", std::to_string(*nnodes)}, {"nproc", std::to_string(*nproc)}}));
  }
  if (auto nr = env_int(s, "NODE_RANK")) {
    n.values.emplace_back("NODE_RANK", std::to_string(*nr));
    if (nnodes && (*nr < 0 || *nr >= *nnodes))
      add_fail(fails, cat, "world-size-mismatch",
               say(Say::CheckNodeRankOutside, {{"rank", std::to_string(*nr)}, {"last", std::to_string(*nnodes - 1)}}));
  }
  if (const std::string a = env_of(s, "MASTER_ADDR"); !a.empty() && !ref.addr.empty() && a != ref.addr)
    add_fail(fails, cat, "rendezvous-failure", say(Say::CheckMasterAddrDiffers, {{"addr", a}, {"reference", ref.addr}}));
  if (const std::string p = env_of(s, "MASTER_PORT"); !p.empty() && !ref.port.empty() && p != ref.port)
    add_fail(fails, cat, "rendezvous-failure", say(Say::CheckMasterPortDiffers, {{"port", p}, {"reference", ref.port}}));
  const bool is_master = !master.empty() ? s.host == master : true;
  if (s.port_state == "bound") {
    std::string who = s.port_pid ? say(Say::CheckPortHolderPid, {{"pid", std::to_string(*s.port_pid)}}) : say(Say::CheckPortHolderUnknown);
    if (!s.port_process.empty()) who = say(Say::CheckPortHolderProcess, {{"who", who}, {"process", std::string(trim(s.port_process))}});
    const std::string msg = say(Say::CheckPortBound, {{"port", s.port ? std::to_string(*s.port) : std::string("?")}, {"who", who}});
    if (is_master) add_fail(fails, cat, "port-in-use", msg);
    else warns.push_back(msg);
  } else if (s.port_state == "free") {
    passes.push_back(say(Say::CheckPortFree, {{"port", s.port ? std::to_string(*s.port) : std::string("?")}}));
  }
  for (const std::string& l : s.leftovers) warns.push_back(say(Say::CheckStillRunning, {{"command", l.substr(0, 160)}}));
  const Status st = !fails.empty() ? Status::Fail : !warns.empty() ? Status::Warn : passes.empty() ? Status::Skip : Status::Pass;
  std::vector<std::string> msg = fails;
  msg.insert(msg.end(), warns.begin(), warns.end());
  if (st == Status::Pass || st == Status::Skip) msg = passes.empty() ? std::vector<std::string>{say(Say::CheckNoLaunchVariables)} : passes;
  if (s.port) n.values.emplace_back("port", std::to_string(*s.port));
  n.values.emplace_back("port_state", s.port_state);
  if (s.port_pid) n.values.emplace_back("port_pid", std::to_string(*s.port_pid));
  if (nproc) n.values.emplace_back("nproc_per_node", std::to_string(*nproc));
  if (nnodes) n.values.emplace_back("nnodes", std::to_string(*nnodes));
  NodeResult& added = b.add(s.host, st, join(msg, "; "));
  if (st == Status::Fail) added.category = cat;
  added.values = std::move(n.values);
  // The variables' own rows (MASTER_PORT=29501), the port's holder, the first launcher left running.
  for (const char* k : {"MASTER_ADDR=", "MASTER_PORT=", "WORLD_SIZE="})
    if (Evidence e = row_evidence(s, "launch.env", {k}); e.text.rfind(k, 0) == 0) added.evidence.push_back(std::move(e));
  if (added.evidence.empty()) added.evidence.push_back(section_evidence(s, "launch.env"));
  if (s.port_state == "bound") added.evidence.push_back(row_evidence(s, "launch.port", {"pid=", "state="}));
  if (!s.leftovers.empty()) added.evidence.push_back(row_evidence(s, "launch.leftovers", {"pid="}));
}

// The job as a whole: one node per NODE_RANK, as many snapshots as nodes, and one world size in the
// smoke test that adds up.
void check_job_launch(Builder& b, const Input& in, const std::optional<std::int64_t>& nnodes) {
  std::map<std::int64_t, std::vector<std::string>> node_ranks;
  for (const Snapshot& s : in.snapshots)
    if (auto nr = env_int(s, "NODE_RANK")) node_ranks[*nr].push_back(s.host);
  for (const auto& [nr, hosts] : node_ranks)
    if (hosts.size() > 1)
      with_category("world-size-mismatch",
                    b.add("", Status::Fail, say(Say::CheckNodeRankShared, {{"rank", std::to_string(nr)}, {"nodes", join(hosts)}})));
  if (nnodes && !in.snapshots.empty()) {
    const auto have = static_cast<std::int64_t>(in.snapshots.size());
    if (have > *nnodes)
      with_category("world-size-mismatch", b.add("", Status::Fail, say(Say::CheckTooManySnapshots, {{"count", std::to_string(have)},
                                                                                                   {"nnodes", std::to_string(*nnodes)}})));
    else if (have < *nnodes)
      b.add("", Status::Warn, say(Say::CheckFewerSnapshots, {{"count", std::to_string(have)}, {"nnodes", std::to_string(*nnodes)}}));
  }
  // The smoke test's ranks agree on the world size and it adds up.
  std::set<std::int64_t> sizes;
  for (const SmokeRank& r : in.smoke)
    if (r.world_size) sizes.insert(*r.world_size);
  if (sizes.size() > 1) {
    std::vector<std::string> v;
    for (auto x : sizes) v.push_back(std::to_string(x));
    NodeResult& n = with_category("world-size-mismatch", b.add("", Status::Fail, say(Say::CheckSmokeWorldSizes, {{"sizes", join(v)}})));
    for (const SmokeRank& r : in.smoke)
      if (n.evidence.size() < 4) n.evidence.push_back(smoke_evidence(r));
  }
}

CheckResult check_launch(const Input& in, const std::string& master) {
  Builder b(4, "launch", say(Say::CheckTitleLaunch));
  const LaunchReference ref = launch_reference(in, master);
  for (const Snapshot& s : in.snapshots) check_node_launch(b, in, s, ref, master);
  check_job_launch(b, in, ref.nnodes);
  return b.done();
}

// ---- 5 binding ----
// The smoke test's ranks by (host, device), by host and by rank, and the largest world size they report.
struct SmokeGroups {
  std::map<std::pair<std::string, std::string>, std::vector<const SmokeRank*>> on;
  std::map<std::string, std::vector<const SmokeRank*>> per_host;
  std::map<std::int64_t, std::vector<const SmokeRank*>> per_rank;
  std::optional<std::int64_t> world;
};

SmokeGroups group_smoke(const std::vector<SmokeRank>& smoke) {
  SmokeGroups g;
  for (const SmokeRank& r : smoke) {
    const std::string dev = !r.uuid.empty() ? r.uuid : r.device;
    g.on[{r.host, dev}].push_back(&r);
    g.per_host[r.host].push_back(&r);
    if (r.rank) g.per_rank[*r.rank].push_back(&r);
    if (r.world_size) g.world = g.world ? std::max(*g.world, *r.world_size) : *r.world_size;
  }
  return g;
}

// All ranks of a node (two or more) on device index 0: LOCAL_RANK ignored.
bool all_on_device_zero(const std::vector<const SmokeRank*>& ranks) {
  bool all_zero = ranks.size() > 1;
  for (const SmokeRank* r : ranks) {
    const std::string& d = r->device;
    const bool zero = d.size() >= 2 && d.compare(d.size() - 2, 2, ":0") == 0;
    if (!zero) all_zero = false;
  }
  return all_zero;
}

// One node's smoke-test ranks: each on its own device, none failed, each all_reduce sum right.
void check_host_binding(Builder& b, const std::string& host, const std::vector<const SmokeRank*>& ranks, const SmokeGroups& g) {
  std::vector<std::string> fails;
  std::string cat;
  NodeResult n;
  const bool all_zero = all_on_device_zero(ranks);
  for (const auto& [key, rs] : g.on) {
    if (key.first != host || rs.size() < 2) continue;
    std::set<std::int64_t> rk;
    for (const SmokeRank* r : rs) {
      if (r->rank) rk.insert(*r->rank);
      if (n.evidence.size() < 4) n.evidence.push_back(smoke_evidence(*r));
    }
    add_fail(fails, cat, "device-binding-duplicate",
             say(all_zero ? Say::CheckRanksOnDeviceZero : Say::CheckRanksOnOneDevice, {{"ranks", ranks_list(rk)}, {"device", rs.front()->device}}));
  }
  for (const SmokeRank* r : ranks) {
    if (r->status == "error") {
      add_fail(fails, cat, "worker-exception",
               say(Say::CheckSmokeRankFailed, {{"rank", r->rank ? std::to_string(*r->rank) : std::string("?")}, {"error", r->error}}));
      n.evidence.push_back(smoke_evidence(*r));
    } else if (r->reduced && r->expected && std::fabs(*r->reduced - *r->expected) > 1e-6 * std::max(1.0, std::fabs(*r->expected))) {
      add_fail(fails, cat, "collective-mismatch",
               say(Say::CheckSmokeWrongSum, {{"rank", r->rank ? std::to_string(*r->rank) : std::string("?")},
                                             {"reduced", num(*r->reduced)}, {"expected", num(*r->expected)}}));
      n.evidence.push_back(smoke_evidence(*r));
    }
  }
  std::set<std::int64_t> rk;
  for (const SmokeRank* r : ranks)
    if (r->rank) rk.insert(*r->rank);
  std::vector<const SmokeRank*> by_rank = ranks;
  std::sort(by_rank.begin(), by_rank.end(), [](const SmokeRank* a, const SmokeRank* c) { return a->rank < c->rank; });
  std::string devices;
  for (const SmokeRank* r : by_rank) devices += (devices.empty() ? "" : " ") + (r->rank ? std::to_string(*r->rank) : std::string("?")) + "->" + r->device;
  NodeResult& added = b.add(host, fails.empty() ? Status::Pass : Status::Fail,
                            fails.empty() ? say(Say::CheckBindingPass, {{"ranks", ranks_list(rk)}, {"devices", devices}}) : join(fails, "; "));
  if (added.status == Status::Fail) added.category = cat;
  added.values.emplace_back("ranks", ranks_list(rk));
  added.values.emplace_back("devices", devices);
  added.evidence = n.evidence.empty() ? std::vector<Evidence>{smoke_evidence(*ranks.front())} : n.evidence;
}

// The smoke test as a whole: every rank below the world size reported, and no rank from two nodes.
void check_smoke_world(Builder& b, const SmokeGroups& g) {
  if (!g.world) return;
  std::set<std::int64_t> missing;
  for (std::int64_t r = 0; r < *g.world && r < 1000000; ++r)
    if (!g.per_rank.count(r)) missing.insert(r);
  if (!missing.empty())
    with_category("rendezvous-failure", b.add("", Status::Fail, say(Say::CheckRanksNeverReported, {{"ranks", ranks_list(missing)},
                                                                                                 {"world", std::to_string(*g.world)}})));
  for (const auto& [rank, rs] : g.per_rank)
    if (rs.size() > 1) {
      std::set<std::string> hosts;
      for (const SmokeRank* r : rs) hosts.insert(r->host);
      if (hosts.size() > 1)
        with_category("world-size-mismatch",
                      b.add("", Status::Fail, say(Say::CheckRankOnTwoNodes, {{"rank", std::to_string(rank)},
                                                                             {"nodes", join(std::vector<std::string>(hosts.begin(), hosts.end()))}})));
    }
}

// Training logs: NCCL's lines that tie a rank to a device on a node, and NCCL's own report.
// Without a smoke test, logs that tie every rank to a device of its own pass.
void check_log_binding(Builder& b, const Input& in) {
  const LogFacts& d = in.logs;
  for (const NodeResult& n : d.duplicate_gpu) b.add(n);
  for (const auto& [key, ranks] : d.ranks_on) {
    if (ranks.size() < 2) continue;
    NodeResult& n = with_category("device-binding-duplicate", b.add(key.first, Status::Fail, say(Say::CheckLogRanksOnOneDevice, {{"ranks", ranks_list(ranks)}, {"device", std::to_string(key.second)}})));
    n.evidence.push_back(d.ranks_on_first.at(key));
  }
  if (in.smoke.empty() && !d.ranks_on.empty())
    b.add("", Status::Pass, say(Say::CheckLogBindingPass));
}

CheckResult check_binding(const Input& in) {
  Builder b(5, "binding", say(Say::CheckTitleBinding));
  if (!in.smoke.empty()) {
    const SmokeGroups g = group_smoke(in.smoke);
    for (const auto& [host, ranks] : g.per_host) check_host_binding(b, host, ranks, g);
    check_smoke_world(b, g);
  }
  check_log_binding(b, in);
  CheckResult r = b.done();
  if (r.results.empty())
    r.results.push_back(NodeResult{"", Status::Skip, say(Say::CheckNoBindingInput), {}, {}});
  return r;
}

// ---- 6 data and checkpoints ----
// The smoke test's data lines: the ranks that iterate the whole dataset per host, and the ranks
// (with their hosts and first line) per first batch and per checkpoint path.
struct SmokeData {
  bool any = false;  // some rank reported a data line
  std::map<std::string, std::set<std::int64_t>> batch_ranks, ckpt_ranks;
  std::map<std::string, const SmokeRank*> batch_first, ckpt_first;
  std::map<std::string, std::set<std::int64_t>> whole_ranks;  // host -> ranks that iterate the whole dataset
  std::map<std::string, const SmokeRank*> whole_first;
  std::map<std::string, std::set<std::string>> batch_hosts, ckpt_hosts;
};

SmokeData smoke_data(const std::vector<SmokeRank>& smoke) {
  SmokeData d;
  for (const SmokeRank& r : smoke) {
    if (!r.rank) continue;
    if (r.per_rank && r.dataset && r.world_size && *r.world_size > 1) {
      d.any = true;
      if (*r.per_rank >= *r.dataset) {
        d.whole_ranks[r.host].insert(*r.rank);
        d.whole_first.emplace(r.host, &r);
      }
    }
    if (!r.first_batch.empty()) {
      d.any = true;
      d.batch_ranks[r.first_batch].insert(*r.rank);
      d.batch_hosts[r.first_batch].insert(r.host);
      d.batch_first.emplace(r.first_batch, &r);
    }
    if (!r.checkpoint.empty() && r.checkpoint != "-" && r.checkpoint != "none") {
      d.any = true;
      d.ckpt_ranks[r.checkpoint].insert(*r.rank);
      d.ckpt_hosts[r.checkpoint].insert(r.host);
      d.ckpt_first.emplace(r.checkpoint, &r);
    }
  }
  return d;
}

// Smoke-test ranks that iterate the whole dataset (no DistributedSampler), start from one batch or
// write one checkpoint path.
void check_smoke_data(Builder& b, const SmokeData& d) {
  for (const auto& [host, ranks] : d.whole_ranks) {
    const SmokeRank& r = *d.whole_first.at(host);
    NodeResult& n = b.add(host, Status::Fail,
                          say(ranks.size() > 1 ? Say::CheckWholeDatasetMany : Say::CheckWholeDatasetOne,
                              {{"ranks", ranks_list(ranks)}, {"count", std::to_string(*r.dataset)}}));
    n.values.emplace_back("dataset", std::to_string(*r.dataset));
    n.values.emplace_back("per_rank", std::to_string(*r.per_rank));
    n.evidence.push_back(smoke_evidence(r));
  }
  for (const auto& [content, ranks] : d.batch_ranks)
    if (ranks.size() > 1) {
      const auto& hosts = d.batch_hosts.at(content);
      NodeResult& n = b.add(hosts.size() == 1 ? *hosts.begin() : std::string(), Status::Fail,
                            say(Say::CheckSmokeSameBatch, {{"ranks", ranks_list(ranks)}, {"batch", content.substr(0, 60)}}));
      n.evidence.push_back(smoke_evidence(*d.batch_first.at(content)));
    }
  for (const auto& [path, ranks] : d.ckpt_ranks)
    if (ranks.size() > 1) {
      const auto& hosts = d.ckpt_hosts.at(path);
      NodeResult& n = b.add(hosts.size() == 1 ? *hosts.begin() : std::string(), Status::Fail,
                            say(Say::CheckSmokeSameCheckpoint, {{"ranks", ranks_list(ranks)}, {"path", path}}));
      n.evidence.push_back(smoke_evidence(*d.ckpt_first.at(path)));
    }
}

// Ranks whose logs show one first batch or one checkpoint path, or a sampler as long as the dataset.
void check_log_data(Builder& b, const LogFacts& d) {
  auto who_list = [](const std::set<std::string>& who) { return join(std::vector<std::string>(who.begin(), who.end())); };
  for (const auto& [content, seen] : d.batches) {
    if (seen.who.size() < 2) continue;
    NodeResult& n = b.add(seen.node, Status::Fail,
                          say(Say::CheckLogSameBatch, {{"ranks", who_list(seen.who)}, {"batch", content.substr(0, 60)}}));
    n.evidence = seen.evidence;
  }
  for (const auto& [path, seen] : d.saves) {
    if (seen.who.size() < 2) continue;
    NodeResult& n = b.add(seen.node, Status::Fail, say(Say::CheckLogSameCheckpoint, {{"ranks", who_list(seen.who)}, {"path", path}}));
    n.evidence = seen.evidence;
  }
  if (d.per_rank_len.size() > 1) {
    std::set<std::string> full;
    for (const auto& [who, len] : d.full_len) full.insert(len);
    for (const auto& [who, len] : d.per_rank_len) {
      if (full.count(len) == 0) continue;
      const auto& [node, line] = d.len_line.at(who);
      NodeResult& n = b.add(node, Status::Fail, say(Say::CheckLogWholeDataset, {{"rank", who}, {"count", len}}));
      n.evidence.push_back(line);
    }
  }
}

CheckResult check_data(const Input& in) {
  Builder b(6, "data", say(Say::CheckTitleData));
  // From the smoke test.
  const SmokeData smoke = smoke_data(in.smoke);
  check_smoke_data(b, smoke);
  // From training logs: first-batch lines, dataset / sampler lengths and checkpoint saves per rank.
  const LogFacts& logs = in.logs;
  check_log_data(b, logs);
  const bool any = smoke.any || !logs.batches.empty() || !logs.saves.empty() || logs.per_rank_len.size() > 1;
  CheckResult r = b.done();
  if (r.results.empty()) {
    r.results.push_back(NodeResult{"", any ? Status::Pass : Status::Skip,
                                   any ? say(Say::CheckDataPass) : say(Say::CheckNoDataInput),
                                   {}, {}});
    r.status = r.results.front().status;
  }
  return r;
}

}  // namespace

const char* status_name(Status s) {
  switch (s) {
    case Status::Pass: return "pass";
    case Status::Skip: return "skip";
    case Status::Warn: return "warn";
    case Status::Fail: return "fail";
  }
  return "skip";
}

bool parse_smoke_line(std::string_view text, SmokeRank& out) {
  const std::size_t at = text.find("DTRIAGE_SMOKE ");
  if (at == std::string_view::npos) return false;
  std::istringstream in{std::string(text.substr(at + 14))};
  std::string w;
  bool any = false;
  auto decode = [](std::string v) {  // the smoke test writes spaces as %20 and '%' as %25
    std::string o;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i] == '%' && i + 2 < v.size()) {
        const std::string hex = v.substr(i + 1, 2);
        char* end = nullptr;
        const long c = std::strtol(hex.c_str(), &end, 16);
        if (end == hex.c_str() + 2) {
          o.push_back(static_cast<char>(c));
          i += 2;
          continue;
        }
      }
      o.push_back(v[i]);
    }
    return o;
  };
  while (in >> w) {
    const std::size_t eq = w.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = w.substr(0, eq);
    const std::string v = decode(w.substr(eq + 1));
    any = true;
    auto dbl = [&](std::optional<double>& d) {
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      if (end != v.c_str() && *end == 0) d = x;
    };
    if (k == "host") out.host = v;
    else if (k == "rank") out.rank = to_int(v);
    else if (k == "local_rank") out.local_rank = to_int(v);
    else if (k == "world_size") out.world_size = to_int(v);
    else if (k == "backend") out.backend = v;
    else if (k == "device") out.device = v;
    else if (k == "uuid") out.uuid = v;
    else if (k == "status") out.status = v;
    else if (k == "error") out.error = v;
    else if (k == "reduced") dbl(out.reduced);
    else if (k == "expected") dbl(out.expected);
    else if (k == "dataset") out.dataset = to_int(v);
    else if (k == "per_rank") out.per_rank = to_int(v);
    else if (k == "first_batch") out.first_batch = v;
    else if (k == "checkpoint") out.checkpoint = v;
  }
  out.host = formats::short_host(out.host);
  return any && out.rank.has_value();
}

std::vector<SmokeRank> parse_smoke_lines(std::string_view text) {
  std::vector<SmokeRank> out;
  constexpr std::string_view kTag = "DTRIAGE_SMOKE ";
  std::size_t at = text.find(kTag);
  while (at != std::string_view::npos) {
    const std::size_t next = text.find(kTag, at + kTag.size());
    SmokeRank r;
    if (parse_smoke_line(text.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at), r)) out.push_back(std::move(r));
    at = next;
  }
  return out;
}

Launch parse_launch(const std::string& command) {
  Launch l;
  static_cast<formats::LaunchCommand&>(l) = formats::parse_launch_command(command);
  l.command = command;
  return l;
}

namespace {

// A line as evidence, cut to LogFacts::kMaxText.
Evidence kept_evidence(const model::Event& e) {
  Evidence ev{e.path, e.line, e.text.substr(0, LogFacts::kMaxText)};
  return ev;
}

bool mentions_any(std::string_view text, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words) {
    auto it = std::search(text.begin(), text.end(), w.begin(), w.end(),
                          [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
    if (it != text.end()) return true;
  }
  return false;
}

}  // namespace

void LogFacts::add(const model::Event& e) {
  if (e.kind == model::Kind::Snapshot) return;
  const std::string& t = e.text;
  if (t.find("DTRIAGE_SMOKE") != std::string::npos) return;
  if (t.find("Duplicate GPU detected") != std::string::npos) {
    bool seen = false;
    const std::string message(trim(e.message.empty() ? t : e.message));
    for (const NodeResult& n : duplicate_gpu) seen = seen || (n.node == e.node && n.values.front().second == message);
    if (!seen && duplicate_gpu.size() < kMaxValues) {
      NodeResult n;
      n.node = e.node;
      n.status = Status::Fail;
      n.category = "device-binding-duplicate";
      n.message = say(Say::CheckNcclDuplicateGpu, {{"message", message.substr(0, kMaxText)}});
      n.values.emplace_back("message", message);
      n.evidence.push_back(kept_evidence(e));
      duplicate_gpu.push_back(std::move(n));
    } else if (!seen) {
      ++values_not_kept;
    }
  }
  if (e.kind == model::Kind::Nccl && e.rank && e.device && *e.device >= 0) {
    const auto key = std::make_pair(e.node, *e.device);
    auto it = ranks_on.find(key);
    if (it == ranks_on.end() && ranks_on.size() >= kMaxValues) {
      ++values_not_kept;
    } else {
      if (it == ranks_on.end()) {
        it = ranks_on.emplace(key, std::set<std::int64_t>{}).first;
        ranks_on_first.emplace(key, kept_evidence(e));
      }
      it->second.insert(*e.rank);
    }
  }
  if (!mentions_any(t, {"batch", "sav", "len(", "sampl", "exampl", "dataset"})) return;
  static const RE2 save_re(
      R"((?i)\bsav(?:e|es|ed|ing)\b.{0,80}?(?:checkpoint|ckpt|model|state[_ ]?dict|weights).{0,80}?(/[^\s'",;]+|\.{1,2}/[^\s'",;]+|[^\s'",;/]+\.(?:pt|pth|ckpt|bin|safetensors|pkl|h5|tar)\b))");
  static const RE2 batch_re(R"((?i)(?:first[ _]batch|batch[ _]?(?:0|\[0\])|sample[ _](?:ids|indices))\s*[:=]\s*(\S.{0,300}))");
  static const RE2 per_rank_re(R"((?i)(?:len\(?\s*(?:train_)?(?:sampler|dataloader|loader)\)?|(?:samples|examples) (?:per|on this) (?:rank|process|gpu|device))\s*[:=]?\s*(\d[\d,]*))");
  static const RE2 full_re(R"((?i)(?:len\(?\s*(?:train_)?dataset\)?|dataset (?:size|length|len)|num[ _]examples|total samples)\s*[:=]?\s*(\d[\d,]*))");
  const std::string who = e.rank ? std::to_string(*e.rank) : (e.pid ? e.node + ":" + std::to_string(*e.pid) : "");
  if (who.empty()) return;
  // One more rank (or line) for a value; a value past the bound is counted, not kept.
  auto note = [&](std::map<std::string, Seen>& m, std::string value) {
    if (value.size() > 512) value.resize(512);
    auto it = m.find(value);
    if (it == m.end()) {
      if (m.size() >= kMaxValues) {
        ++values_not_kept;
        return;
      }
      it = m.emplace(std::move(value), Seen{}).first;
      it->second.node = e.node;
    }
    if (it->second.who.insert(who).second && it->second.evidence.size() < kMaxEvidence)
      it->second.evidence.push_back(kept_evidence(e));
  };
  auto count = [&](std::map<std::string, std::string>& m, std::string value) {
    value.erase(std::remove(value.begin(), value.end(), ','), value.end());
    if (m.count(who) != 0) return false;
    if (m.size() >= kMaxValues) {
      ++values_not_kept;
      return false;
    }
    m.emplace(who, value.substr(0, 40));
    return true;
  };
  std::string cap;
  if (RE2::PartialMatch(t, save_re, &cap)) note(saves, cap);
  if (RE2::PartialMatch(t, batch_re, &cap)) note(batches, std::string(trim(cap)));
  if (RE2::PartialMatch(t, per_rank_re, &cap) && count(per_rank_len, cap)) len_line.emplace(who, std::make_pair(e.node, kept_evidence(e)));
  if (RE2::PartialMatch(t, full_re, &cap)) count(full_len, cap);
}

std::uint64_t read_source(const ingest::Source& source, lines::LineReader& reader, Input& in) {
  lines::Line line;
  if (!reader.next(line)) return 0;
  if (formats::is_snapshot_header(line.text)) {
    formats::SnapshotBuilder builder(source.path);
    do builder.add(line.text);
    while (reader.next(line));
    formats::Snapshot s = builder.finish();
    if (s.host.empty()) s.host = source.node.empty() ? source.path : source.node;
    in.snapshots.push_back(std::move(s));
    return builder.lines_not_kept();
  }
  formats::ParseOptions opt;
  opt.all_lines = true;
  formats::SourceParser parser(source, opt, [&in](model::Event&& e) { in.logs.add(e); });
  do {
    for (SmokeRank& r : parse_smoke_lines(line.text)) {
      r.path = source.path;
      r.line = line.number;
      r.text = std::string(line.text);
      if (r.host.empty()) r.host = source.node;
      in.smoke.push_back(std::move(r));
    }
    parser.feed(line);
  } while (reader.next(line));
  parser.finish();
  return 0;
}

Report run_checks(const Input& input) {
  Input in = input;
  std::sort(in.snapshots.begin(), in.snapshots.end(), [](const Snapshot& a, const Snapshot& b) { return a.host < b.host; });
  Report r;
  std::set<std::string> nodes;
  for (const Snapshot& s : in.snapshots) nodes.insert(s.host);
  for (const SmokeRank& s : in.smoke) nodes.insert(s.host);
  r.nodes.assign(nodes.begin(), nodes.end());
  const std::string master = master_node(in);
  r.checks.push_back(check_devices(in, master));
  r.checks.push_back(check_topology(in, master));
  r.checks.push_back(check_versions(in, master));
  r.checks.push_back(check_launch(in, master));
  r.checks.push_back(check_binding(in));
  r.checks.push_back(check_data(in));
  for (CheckResult& c : r.checks) {
    if (c.results.empty()) {
      c.results.push_back(NodeResult{"", Status::Skip, say(in.snapshots.empty() ? Say::CheckNoSnapshots : Say::CheckNothingToCompare), {}, {}});
      c.status = Status::Skip;
    }
  }
  r.status = Status::Skip;
  for (const CheckResult& c : r.checks) r.status = std::max(r.status, c.status);
  return r;
}

}  // namespace dtriage::check
