#include "formats/smi.hpp"

#include <map>
#include <optional>

#include "formats/util.hpp"

namespace dtriage::formats {
namespace {

std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  const std::string_view r = row;
  for (std::size_t from = 0;;) {
    const std::size_t bar = r.find('|', from);
    out.emplace_back(trim(r.substr(from, bar == std::string_view::npos ? std::string_view::npos : bar - from)));
    if (bar == std::string_view::npos) break;
    from = bar + 1;
  }
  // drop the empty cells outside the first and last '|'
  if (!out.empty() && out.front().empty()) out.erase(out.begin());
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

// The words of `s`, split at blanks as `istream >> std::string` splits them (without its cost: a
// monitor prints a table every few seconds).
std::vector<std::string> words(const std::string& s) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; };
  std::vector<std::string> w;
  std::size_t i = 0;
  while (true) {
    while (i < s.size() && blank(s[i])) ++i;
    if (i == s.size()) return w;
    const std::size_t b = i;
    while (i < s.size() && !blank(s[i])) ++i;
    w.emplace_back(s, b, i - b);
  }
}

bool numeric(const std::string& s) { return to_int(s).has_value(); }

// The last "used / total" pair of a cell ("0    0 / 0    3180 / 65536" -> 3180, 65536).
void last_usage(const std::string& cell, std::optional<std::int64_t>& used, std::optional<std::int64_t>& total) {
  const auto w = words(cell);
  for (std::size_t i = w.size(); i >= 3; --i)
    if (w[i - 2] == "/" && numeric(w[i - 3]) && numeric(w[i - 1])) {
      used = to_int(w[i - 3]);
      total = to_int(w[i - 1]);
      return;
    }
}

// One chip of the device table: its NPU row (name, health) and its chip row (bus, memory).
struct Chip {
  std::int64_t npu = -1, chip = -1, device = -1;
  std::string name, health, bus;
  std::optional<std::int64_t> memory_used, memory_total;  // the chip row's last "used / total" (HBM, else DDR)
  std::uint64_t line = 0;
  std::string text;
};

// A row of the process table: NPU id, chip id | pid | name | memory.
model::Event process_row(const std::vector<std::string>& first, const std::vector<std::string>& c, std::uint64_t number, const std::string& row) {
  model::Event p;
  p.kind = model::Kind::NpuSmi;
  p.level = model::Level::Info;
  p.code = "npu-process";
  const std::int64_t npu = *to_int(first[0]);
  const std::int64_t chip = *to_int(first[1]);
  p.set("npu", npu);
  p.set("chip", chip);
  p.pid = to_int(c[1]);
  p.line = number;
  p.text = row;
  if (c.size() >= 3) p.set("process", c[2]);
  if (c.size() >= 4)
    if (auto mem = to_int(c[3])) p.set("memory_mb", *mem);
  return p;
}

// The summary's device list and counts, and an event per chip.
void summarize_chips(const std::vector<Chip>& chips, model::Event& summary, const std::function<void(model::Event&&)>& emit) {
  std::string devices, unhealthy;
  for (const Chip& ch : chips) {
    if (!devices.empty()) devices += ",";
    devices += std::to_string(ch.device);
    if (ch.health != "OK") {
      if (!unhealthy.empty()) unhealthy += ",";
      unhealthy += std::to_string(ch.device) + ":" + ch.health;
    }
  }
  std::map<std::int64_t, int> npus;
  for (const Chip& ch : chips) npus[ch.npu]++;
  summary.set("device_count", static_cast<std::int64_t>(chips.size()));
  summary.set("npu_count", static_cast<std::int64_t>(npus.size()));
  summary.set("devices", devices);
  if (!unhealthy.empty()) summary.set("unhealthy", unhealthy);
  summary.message = std::to_string(chips.size()) + " devices on " + std::to_string(npus.size()) + " NPUs";
  for (const Chip& ch : chips) {
    model::Event d;
    d.path = summary.path;
    d.line = ch.line;
    d.text = ch.text;
    d.node = summary.node;
    d.kind = model::Kind::NpuSmi;
    d.level = model::Level::Info;  // what a health value means is the rule pack's call (ascend.unhealthy-device)
    d.code = "npu-device";
    d.device = ch.device;
    d.set("npu", ch.npu);
    d.set("chip_name", ch.name);
    d.set("health", ch.health);
    d.set("bus_id", ch.bus);
    if (ch.memory_total) d.set("memory_total_mb", *ch.memory_total);
    if (ch.memory_used) d.set("memory_used_mb", *ch.memory_used);
    emit(std::move(d));
  }
}

}  // namespace

void parse_npu_smi(const std::vector<std::pair<std::uint64_t, std::string>>& rows, model::Event& summary,
                   const std::function<void(model::Event&&)>& emit) {
  std::vector<Chip> chips;
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> device_of;  // (npu, chip) -> device
  Chip pending;
  bool have_pending = false;
  std::vector<model::Event> processes;
  for (const auto& [number, row] : rows) {
    if (row.empty() || row.front() != '|') continue;
    if (row.find("npu-smi") != std::string::npos) {
      const auto v = row.find("Version:");
      if (v != std::string::npos) {
        const auto w = words(row.substr(v + 8));
        if (!w.empty()) summary.set("npu_smi_version", w[0]);
      }
      continue;
    }
    const auto c = cells(row);
    if (c.size() < 2) continue;
    const auto first = words(c[0]);
    if (first.empty() || !numeric(first[0])) continue;  // header rows
    if (first.size() >= 2 && !numeric(first[1])) {  // NPU id + chip name, then health
      pending = Chip{};
      pending.npu = *to_int(first[0]);
      pending.name = first[1];
      pending.health = c[1];
      have_pending = true;
      continue;
    }
    const bool bus_cell = c[1].find(':') != std::string::npos;
    if (bus_cell && have_pending) {  // chip row: chip id [device id] | bus id
      pending.chip = *to_int(first[0]);
      pending.device = first.size() >= 2 ? *to_int(first[1]) : pending.npu;
      pending.bus = c[1];
      if (c.size() >= 3) last_usage(c[2], pending.memory_used, pending.memory_total);
      pending.line = number;
      pending.text = row;
      chips.push_back(pending);
      device_of[{pending.npu, pending.chip}] = pending.device;
      have_pending = false;
      continue;
    }
    if (!bus_cell && first.size() >= 2 && c.size() >= 3 && numeric(c[1])) {  // process row
      processes.push_back(process_row(first, c, number, row));
    }
  }
  summarize_chips(chips, summary, emit);
  for (model::Event& p : processes) {
    p.path = summary.path;
    p.node = summary.node;
    const auto npu = p.get_int("npu").value_or(-1);
    const auto chip = p.get_int("chip").value_or(-1);
    if (auto it = device_of.find({npu, chip}); it != device_of.end()) p.device = it->second;
    else p.device = npu;
    emit(std::move(p));
  }
}

}  // namespace dtriage::formats
