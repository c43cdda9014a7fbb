#include "formats/snapshot.hpp"

#include "base/sentences.hpp"

#include <cstdint>

#include <algorithm>
#include <sstream>

#include "formats/families.hpp"
#include "formats/parse_util.hpp"
#include "formats/smi.hpp"

namespace dtriage::formats {
namespace {

DT_RE(re_section, R"(^@@ ([A-Za-z0-9._:-]+) (ok|exit=-?\d+|missing|timeout|skipped) \$ ?(.*)$)")
DT_RE(re_mib_pair, R"((\d+)\s*MiB\s*/\s*(\d+)\s*MiB)")
DT_RE(re_cuda_version, R"(CUDA Version:\s*([\d.]+))")
DT_RE(re_driver_version, R"(Driver Version:\s*([\d.]+))")

std::vector<std::string> split_words(std::string_view s) {
  std::vector<std::string> out;
  std::istringstream in{std::string(s)};
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

std::vector<std::string> split_csv(std::string_view s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = s.find(',', start);
    out.emplace_back(trim(s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// "key=value" lines of a section, the first value of each key.
std::map<std::string, std::string> key_values(const SnapshotSection& s) {
  std::map<std::string, std::string> kv;
  for (const std::string& l : s.lines) {
    const std::size_t eq = l.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    kv.emplace(std::string(trim(std::string_view(l).substr(0, eq))), std::string(trim(std::string_view(l).substr(eq + 1))));
  }
  return kv;
}

// Removes terminal escape sequences (nvidia-smi topo -m underlines its header).
std::string strip_escapes(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b') {
      if (i + 1 < s.size() && s[i + 1] == '[') {
        i += 2;
        while (i < s.size() && !(s[i] >= '@' && s[i] <= '~')) ++i;
      }
      continue;
    }
    out.push_back(s[i]);
  }
  return out;
}

bool device_label(std::string_view w) {
  for (std::string_view p : {"GPU", "NPU", "NIC", "mlx"})
    if (starts_with(w, p) && w.size() > p.size()) return true;
  return false;
}

// The device rows of a topology matrix, as "LABEL: cell cell ..." over the device columns (the
// CPU / NUMA affinity columns and the legend are left out).
std::vector<std::string> topology_rows(const SnapshotSection& s) {
  std::vector<std::string> rows;
  std::size_t columns = 0;
  for (const std::string& raw : s.lines) {
    const std::string line = strip_escapes(raw);
    const auto w = split_words(line);
    if (w.empty()) continue;
    if (columns == 0) {
      std::size_t n = 0;
      while (n < w.size() && device_label(w[n])) ++n;
      if (n >= 1 && (n == w.size() || w[n] == "CPU" || w[n] == "NUMA" || w[n] == "Affinity")) columns = n;
      continue;
    }
    if (!device_label(w[0])) {
      if (starts_with(w[0], "Legend")) break;
      continue;
    }
    std::string row = w[0] + ":";
    for (std::size_t i = 1; i <= columns && i < w.size(); ++i) row += " " + w[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

void set_version(Snapshot& snap, const std::string& key, std::string value, std::uint64_t line) {
  value = std::string(trim(value));
  if (value.empty() || value == "None" || value == "unknown") return;
  snap.versions[key] = value;
  snap.version_lines[key] = line;
}

void read_nvidia(Snapshot& snap) {
  if (const SnapshotSection* q = snap.section("nvidia.query"); q && q->status == "ok") {
    for (const std::string& l : q->lines) {
      const auto c = split_csv(l);
      if (c.size() < 5 || !to_int(c[0])) continue;
      SnapshotDevice d;
      d.index = *to_int(c[0]);
      d.model = c[1];
      d.memory_total_mib = to_int(c[2]);
      d.memory_used_mib = to_int(c[3]);
      set_version(snap, "driver", c[4], q->line);
      if (c.size() > 5) d.bus = c[5];
      if (c.size() > 6) d.uuid = c[6];
      snap.devices.push_back(std::move(d));
    }
  }
  const SnapshotSection* list = snap.section("nvidia.list");
  if (snap.devices.empty() && list && list->status == "ok") {
    for (const std::string& l : list->lines) {
      model::Event e;
      if (!parse_nvidia_smi(l, e) || e.code != "gpu" || !e.device) continue;
      SnapshotDevice d;
      d.index = *e.device;
      d.model = e.get_str("gpu_name");
      d.uuid = e.get_str("uuid");
      snap.devices.push_back(std::move(d));
    }
  }
  if (const SnapshotSection* smi = snap.section("nvidia.smi"); smi && smi->status == "ok") {
    std::size_t gpu_row = 0;
    std::vector<SnapshotDevice> from_table;
    for (const std::string& l : smi->lines) {
      M m;
      if (rx(re_driver_version(), l, m, RE2::UNANCHORED)) set_version(snap, "driver", std::string(m[1]), smi->line);
      if (rx(re_cuda_version(), l, m, RE2::UNANCHORED)) set_version(snap, "cuda_driver", std::string(m[1]), smi->line);
      model::Event e;
      if (parse_nvidia_smi(l, e)) {
        if (e.code == "gpu" && e.device) {
          SnapshotDevice d;
          d.index = *e.device;
          d.model = e.get_str("gpu_name");
          d.bus = e.get_str("bus_id");
          from_table.push_back(std::move(d));
        } else if (e.code == "gpu-process" && e.pid && snap.section("nvidia.apps") &&
                   snap.section("nvidia.apps")->status != "ok") {
          snap.holders.push_back(SnapshotHolder{*e.pid, e.get_str("process"), e.device, e.get_int("memory_mib")});
        }
        continue;
      }
      if (rx(re_mib_pair(), l, m, RE2::UNANCHORED) && gpu_row < from_table.size()) {
        from_table[gpu_row].memory_used_mib = to_int(m[1]);
        from_table[gpu_row].memory_total_mib = to_int(m[2]);
        ++gpu_row;
      }
    }
    if (snap.devices.empty()) snap.devices = std::move(from_table);
    else
      for (SnapshotDevice& d : snap.devices)  // -L gave names only: memory from the table
        for (const SnapshotDevice& t : from_table)
          if (t.index == d.index && !d.memory_total_mib) {
            d.memory_total_mib = t.memory_total_mib;
            d.memory_used_mib = t.memory_used_mib;
            if (d.bus.empty()) d.bus = t.bus;
          }
  }
  if (const SnapshotSection* apps = snap.section("nvidia.apps"); apps && apps->status == "ok") {
    for (const std::string& l : apps->lines) {
      const auto c = split_csv(l);
      if (c.size() < 3 || !to_int(c[1])) continue;
      SnapshotHolder h;
      h.pid = *to_int(c[1]);
      h.process = c[2];
      if (c.size() > 3) h.memory_mib = to_int(c[3]);
      for (const SnapshotDevice& d : snap.devices)
        if (!d.uuid.empty() && (d.uuid == c[0] || d.bus == c[0])) h.device = d.index;
      snap.holders.push_back(std::move(h));
    }
  }
  if (!snap.devices.empty()) snap.platform = "nvidia";
  if (const SnapshotSection* t = snap.section("nvidia.topo"); t && t->status == "ok") snap.topology = topology_rows(*t);
}

void read_ascend(Snapshot& snap) {
  if (const SnapshotSection* info = snap.section("npu.info"); info && info->status == "ok") {
    std::vector<std::pair<std::uint64_t, std::string>> rows;
    for (std::size_t i = 0; i < info->lines.size(); ++i) rows.emplace_back(info->line + 1 + i, info->lines[i]);
    model::Event summary;
    std::vector<SnapshotDevice> devices;
    parse_npu_smi(rows, summary, [&](model::Event&& e) {
      if (e.code == "npu-device" && e.device) {
        SnapshotDevice d;
        d.index = *e.device;
        d.model = e.get_str("chip_name");
        d.health = e.get_str("health");
        d.bus = e.get_str("bus_id");
        d.memory_total_mib = e.get_int("memory_total_mb");
        d.memory_used_mib = e.get_int("memory_used_mb");
        devices.push_back(std::move(d));
      } else if (e.code == "npu-process" && e.pid) {
        snap.holders.push_back(SnapshotHolder{*e.pid, e.get_str("process"), e.device, e.get_int("memory_mb")});
      }
    });
    if (!devices.empty()) {
      snap.devices = std::move(devices);
      snap.platform = "ascend";
    }
    set_version(snap, "npu_smi", summary.get_str("npu_smi_version"), info->line);
  }
  if (const SnapshotSection* t = snap.section("npu.topo"); t && t->status == "ok" && snap.topology.empty())
    snap.topology = topology_rows(*t);
  // CANN: ascend_toolkit_install.info says "version=8.0.RC3"; version.cfg
  // "runtime_running_version=[8.0.0.2.220:8.0.RC3]". The driver: version.info "Version=24.1.rc2".
  if (const SnapshotSection* s = snap.section("cann.toolkit"); s && s->status == "ok") {
    for (const auto& [k, v] : key_values(*s))
      if (k == "version" || k == "Version") set_version(snap, "cann", v, s->line);
  }
  if (const SnapshotSection* s = snap.section("cann.version"); s && s->status == "ok" && !snap.versions.count("cann")) {
    for (const auto& [k, v] : key_values(*s)) {
      if (k.find("running_version") == std::string::npos) continue;
      std::string x = v;
      if (const auto colon = x.find(':'); colon != std::string::npos) x = x.substr(colon + 1);
      x.erase(std::remove(x.begin(), x.end(), ']'), x.end());
      x.erase(std::remove(x.begin(), x.end(), '['), x.end());
      set_version(snap, "cann", x, s->line);
      break;
    }
  }
  if (const SnapshotSection* s = snap.section("npu.driver"); s && s->status == "ok") {
    for (const auto& [k, v] : key_values(*s))
      if (k == "Version" || k == "version") set_version(snap, "npu_driver", v, s->line);
  }
}

void read_python(Snapshot& snap) {
  const SnapshotSection* s = snap.section("python.torch");
  if (s == nullptr || s->status != "ok") return;
  const auto kv = key_values(*s);
  auto get = [&](const char* k) -> std::string {
    auto it = kv.find(k);
    return it == kv.end() ? std::string() : it->second;
  };
  set_version(snap, "python", get("python"), s->line);
  if (const std::string t = get("torch"); !starts_with(t, "missing")) set_version(snap, "torch", t, s->line);
  set_version(snap, "cuda_runtime", get("torch.cuda"), s->line);
  set_version(snap, "nccl", get("torch.nccl"), s->line);
  set_version(snap, "torch_npu", get("torch_npu"), s->line);
  if (auto n = to_int(get("npu.device_count")); n && snap.platform == "ascend") snap.torch_device_count = n;
  else if (auto c = to_int(get("cuda.device_count"))) snap.torch_device_count = c;
  if (auto n = to_int(get("npu.device_count")); n && !snap.torch_device_count) snap.torch_device_count = n;
}

}  // namespace

bool is_snapshot_header(std::string_view first_line) { return starts_with(first_line, kSnapshotMagic); }

const SnapshotSection* Snapshot::section(std::string_view name) const {
  for (const SnapshotSection& s : sections)
    if (s.name == name) return &s;
  return nullptr;
}

std::uint64_t Snapshot::line_of(std::string_view name) const {
  const SnapshotSection* s = section(name);
  return s ? s->line : 0;
}

Snapshot parse_snapshot(const std::vector<std::string>& lines, std::string path) {
  SnapshotBuilder b(std::move(path));
  for (const std::string& l : lines) b.add(l);
  return b.finish();
}

std::string snapshot_cut_reason(std::uint64_t count) {
  return base::say(base::Say::InputSnapshotCut, {{"lines", std::to_string(kSnapshotMaxLines)},
                                                 {"bytes", std::to_string(kSnapshotMaxBytes >> 20) + " MiB"},
                                                 {"count", std::to_string(count)}});
}

void SnapshotBuilder::add(std::string_view l) {
  ++number_;
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  if (number_ > kSnapshotMaxLines || bytes_ + l.size() > kSnapshotMaxBytes) {
    ++not_kept_;
    return;
  }
  bytes_ += l.size();
  M m;
  if (starts_with(l, "@@ ") && rx(re_section(), l, m)) {
    SnapshotSection s;
    s.name = std::string(m[1]);
    s.status = std::string(m[2]);
    s.command = std::string(m[3]);
    s.line = number_;
    snap_.sections.push_back(std::move(s));
    return;
  }
  if (!snap_.sections.empty()) snap_.sections.back().lines.emplace_back(l);
}

Snapshot SnapshotBuilder::finish() {
  Snapshot snap = std::move(snap_);
  auto first_line = [&](std::string_view name) -> std::string {
    const SnapshotSection* s = snap.section(name);
    if (s == nullptr || s->status != "ok") return "";
    for (const std::string& l : s->lines)
      if (!trim(l).empty()) return std::string(trim(l));
    return "";
  };
  snap.time = first_line("time");
  snap.fqdn = first_line("host.fqdn");
  const std::string name = first_line("host.name");
  snap.host = short_host(!name.empty() ? name : snap.fqdn);
  snap.addresses = split_words(first_line("host.addresses"));

  read_nvidia(snap);
  if (snap.platform.empty()) read_ascend(snap);
  read_python(snap);

  if (const SnapshotSection* s = snap.section("python.pip"); s && s->status == "ok") {
    const auto kv = key_values(*s);
    if (auto it = kv.find("sha256"); it != kv.end()) set_version(snap, "pip", it->second.substr(0, 12), s->line);
  }
  if (const SnapshotSection* s = snap.section("code.version"); s && s->status == "ok") {
    const auto kv = key_values(*s);
    if (auto it = kv.find("git"); it != kv.end()) {
      std::string v = it->second.substr(0, 12);
      if (auto d = kv.find("dirty"); d != kv.end() && d->second != "0") v += " (+" + d->second + " changed)";
      set_version(snap, "code", v, s->line);
    } else if (auto h = kv.find("sha256"); h != kv.end()) {
      set_version(snap, "code", "files " + h->second.substr(0, 12), s->line);
    }
    for (const std::string& l : s->lines) {
      if (!starts_with(l, "config ")) continue;
      const std::size_t at = l.rfind(" sha256=");
      if (at == std::string::npos) continue;
      set_version(snap, "config:" + l.substr(7, at - 7), l.substr(at + 8, 12), s->line);
    }
  }
  if (const SnapshotSection* s = snap.section("launch.env"); s && s->status == "ok") snap.env = key_values(*s);
  if (const SnapshotSection* s = snap.section("launch.port"); s && s->status == "ok") {
    const auto kv = key_values(*s);
    auto get = [&](const char* k) { auto it = kv.find(k); return it == kv.end() ? std::string() : it->second; };
    snap.port = to_int(get("port"));
    snap.port_state = get("state");
    snap.port_pid = to_int(get("pid"));
    snap.port_process = get("process");
  }
  if (const SnapshotSection* s = snap.section("launch.master"); s && s->status == "ok") {
    for (const std::string& l : s->lines)
      for (const std::string& w : split_words(l)) {
        if (starts_with(w, "addr=")) snap.master_addr = w.substr(5);
        if (starts_with(w, "result=")) snap.reach = w.substr(7);
      }
  }
  if (snap.master_addr.empty())
    if (auto it = snap.env.find("MASTER_ADDR"); it != snap.env.end()) snap.master_addr = it->second;
  if (const SnapshotSection* s = snap.section("host.shm"); s && s->status == "ok" && s->lines.size() >= 2) {
    const auto w = split_words(s->lines[1]);
    if (w.size() >= 2)
      if (auto kb = to_int(w[1]); kb && *kb >= 0 && *kb <= INT64_MAX / 1024) snap.shm_bytes = *kb * 1024;  // else not a size
  }
  if (const SnapshotSection* s = snap.section("launch.leftovers"); s && s->status == "ok")
    for (const std::string& l : s->lines)
      if (starts_with(l, "pid=")) snap.leftovers.push_back(l);
  return snap;
}

}  // namespace dtriage::formats
