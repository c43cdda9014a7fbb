#include "formats/lines.hpp"

#include <re2/re2.h>
#include <re2/set.h>
#include <simdjson.h>

#include <array>
#include <memory>

#include "formats/util.hpp"

namespace dtriage::formats {
namespace {

using re2::RE2;

// Captures of one match; g[0] is the whole match, unmatched groups are empty.
struct M {
  static constexpr int kMax = 16;
  std::array<std::string_view, kMax> g{};
  std::string_view operator[](int i) const { return g[static_cast<std::size_t>(i)]; }
};

bool rx(const RE2& re, std::string_view s, M& m, RE2::Anchor anchor = RE2::ANCHOR_START) {
  const int n = std::min(re.NumberOfCapturingGroups() + 1, M::kMax);
  std::array<re2::StringPiece, M::kMax> sp;
  if (!re.Match(re2::StringPiece(s.data(), s.size()), 0, s.size(), anchor, sp.data(), n)) return false;
  for (int i = 0; i < n; ++i) m.g[static_cast<std::size_t>(i)] = std::string_view(sp[static_cast<std::size_t>(i)].data(), sp[static_cast<std::size_t>(i)].size());
  return true;
}

#define DT_RE(name, pattern)                  \
  const RE2& name() {                         \
    static const RE2 re(pattern, RE2::Quiet); \
    return re;                                \
  }

// ---- outer prefixes -----------------------------------------------------------------------------
DT_RE(re_viewer_lineno, R"(^\[\d+\] )")
DT_RE(re_ray_prefix, R"(^\(([A-Za-z_][\w-]*)(?: rank=(\d+))? pid=(\d+)(?:, ip=[\d.]+)?\) ?)")
DT_RE(re_vllm_logger, R"(^(DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d{2}-\d{2} \d{2}:\d{2}:\d{2}) \[[^\]]+\] ?)")
DT_RE(re_mpi_prefix, R"(^\[(\d+),(\d+)\]<(stdout|stderr)>: ?)")
DT_RE(re_collector_ts, R"(^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?Z? {2,})")
DT_RE(re_bracket_iso_collector, R"(^\[(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z?\] \S+ \|\| )")
DT_RE(re_pdsh_nccl, R"(^([\w.-]+): ([\w.-]+):\d+:\d+ \[\d+\] )")

// ---- families -----------------------------------------------------------------------------------
DT_RE(re_nccl_stripped, R"(^\[(\d+)\] (?:([\w./-]+):(\d+) )?NCCL (INFO|WARN|TRACE) (.*)$)")
DT_RE(re_nccl_bare, R"(^([\w./-]+\.(?:cc|h|cu|c)):(\d+) NCCL (WARN|INFO) (.*)$)")
DT_RE(re_nccl_body_warn, R"(^(?:([\w./-]+):(\d+) )?(?:\(\w+\) )?NCCL WARN (.*)$)")
DT_RE(re_nccl_body_trace, R"(^(?:[\d.]+ )?([\w./-]+):(\d+) NCCL TRACE (.*)$)")
DT_RE(re_nccl_body_old, R"(^(?:([\w./-]+):(\d+) )?(INFO|WARN) (.*)$)")
DT_RE(re_nccl_version, R"(^NCCL version (\d[\w.+-]*))")
DT_RE(re_nccl_failure, R"(^NCCL failure ([\w./-]+):(\d+) '([^']*)')")
DT_RE(re_pylog, R"(^(DEBUG|INFO|WARNING|ERROR|CRITICAL):([\w.]+):(.*)$)")
DT_RE(re_pylog2, R"(^([\w.]+): \[(DEBUG|INFO|WARNING|ERROR|CRITICAL)\] ?(.*)$)")
DT_RE(re_torch_npu,
      R"(^\[ERROR\] (\d{4}-\d{2}-\d{2})-(\d{2}:\d{2}:\d{2}) \(PID:(\d+), Device:(-?\d+), RankID:(-?\d+)\) (ERR\d{5}) ?(.*)$)")
DT_RE(re_cann_start,
      R"(^(?:\[PID: (\d+)\] (\d{4}-\d{2}-\d{2})-(\d{2}:\d{2}:\d{2})\.(\d{3})\.(\d{3}) )?(?:[A-Za-z_]+\()?([EW][A-Z0-9]\d{4})\)?:\s*(?:\[PID: (\d+)\]\s*)?(?:(\d{4}-\d{2}-\d{2})-(\d{2}:\d{2}:\d{2})\.(\d{3})\.(\d{3})\s*)?(.*)$)")
DT_RE(re_cann_start2,
      R"(^([EW][A-Z0-9]\d{4})\[PID: (\d+)\] (\d{4}-\d{2}-\d{2})-(\d{2}:\d{2}:\d{2})\.(\d{3})\.(\d{3}) \([EW][A-Z0-9]\d{4}\):\s*(.*)$)")
DT_RE(re_exception,
      R"(^((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit|Failure|Fault)\w*)(?::\s?(.*))?$)")
DT_RE(re_nvsmi_header, R"(NVIDIA-SMI ([\d.]+)\s+Driver Version: ([\d.]+)(?:\s+CUDA Version: ([\d.]+))?)")
DT_RE(re_nvsmi_list, R"(^GPU (\d+): (.+?) \(UUID: (GPU-[\w-]+)\))")
DT_RE(re_nvsmi_gpu,
      R"(^\|\s+(\d+)\s+(.+?)\s+(?:On|Off)\s+\|\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s+(?:On|Off)\s+\|)")
DT_RE(re_nvsmi_proc,
      R"(^\|\s+(\d+)\s+(?:N/A|\d+)\s+(?:N/A|\d+)\s+(\d+)\s+(C|G|C\+G)\s+(\S+)\s+(\d+)MiB\s+\|)")
DT_RE(re_kernel_oom, R"((?:Out of memory|Memory cgroup out of memory): Kill(?:ed)? process (\d+) \(([^)]*)\))")
DT_RE(re_kernel_oomkill, R"(oom-kill:.*?task=([^,]+),pid=(\d+))")
DT_RE(re_xid, R"(NVRM: Xid \(PCI:([^)]+)\): (\d+),\s*(.*))")
DT_RE(re_dmesg_ts, R"(^\[\s*(\d+\.\d+)\] )")

// ---- message contents ---------------------------------------------------------------------------
DT_RE(re_worknccl,
      R"(WorkNCCL\(SeqNum=(\d+), OpType=(\w+)(?:, NumelIn=(\d+), NumelOut=(\d+))?, Timeout\(ms\)=(\d+)\))")
DT_RE(re_ran_for, R"(ran for (\d+) milliseconds)")
DT_RE(re_nccl_work,
      R"((?:Timeout at NCCL work|detected by watchdog at work): (\d+), last enqueued NCCL work: (-?\d+), last completed NCCL work: (-?\d+))")
DT_RE(re_rank_bracket, R"(\[(?:PG [^\]]*?)?Rank (\d+)\])")
DT_RE(re_errno, R"(errno: (\d+) - ([^)]+)\))")
DT_RE(re_bind_port, R"(failed to (?:bind|listen) (?:to|on) (\S+?):(\d+)\b)")
DT_RE(re_client_timeout,
      R"(client socket has timed out after (\d+)s while trying to connect to \(([^,]+), (\d+)\))")
DT_RE(re_worker_failed, R"(failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\))")
DT_RE(re_closing_signal, R"(Sending process (\d+) closing signal (SIG\w+))")
DT_RE(re_death_signal, R"(Received (?:Signals\.)?(\w+) death signal)")
DT_RE(re_store_barrier,
      R"(Waiting in store based barrier to initialize process group for rank: (\d+), key: \S+ \(world_size=(\d+), worker_count=(\d+))")
DT_RE(re_dup_gpu, R"(Duplicate GPU detected : rank (\d+) and rank (\d+) both on CUDA device (\w+))")
DT_RE(re_conn_closed_local, R"(Connection closed by localRank (\d+))")
DT_RE(re_oom, R"((CUDA|NPU) out of memory\. Tried to allocate ([\d.]+ [KMGT]?i?B))")
DT_RE(re_oom_dev, R"(\((?:NPU|GPU) (\d+);|GPU (\d+) has a total capacity)")
DT_RE(re_signal_pid, R"(Signal (\d+) \((SIG\w+)\) received by PID (\d+))")
DT_RE(re_signal_exc, R"(SignalException: Process (\d+) got (?:signal|sigval): ?(\d+))")
DT_RE(re_acl_code, R"((?:NPU|OPS|HCCL) function error: ([\w:]+).*?error code is (\d+))")
DT_RE(re_npu_warning, R"(NPU warning, error code is (\d+))")
DT_RE(re_nproc_opt, R"(--nproc[_-]per[_-]node[= ](\d+))")
DT_RE(re_nnodes_opt, R"(--nnodes[= ](\d+)(?::(\d+))?)")
DT_RE(re_master_addr_opt, R"(--master[_-]addr[= ]["']?([\w.:-]+))")
DT_RE(re_master_port_opt, R"(--master[_-]port[= ](\d+))")
DT_RE(re_node_rank_opt, R"(--node[_-]rank[= ](\d+))")
DT_RE(re_visible_devices, R"((ASCEND_RT_VISIBLE_DEVICES|CUDA_VISIBLE_DEVICES|ASCEND_VISIBLE_DEVICES)[:=]\s*([\d,]+))")
DT_RE(re_cuda_error, R"(CUDA error: ([^.\n]+))")
DT_RE(re_nccl_error_in, R"(NCCL error in: [^,]+, ([^(,]+?)(?: \(run with NCCL_DEBUG.*?\))?, NCCL version ([\w.+-]+))")
DT_RE(re_nccl_comm,
      R"(comm (0x[0-9a-fA-F]+) rank (\d+) nranks (\d+)(?: cudaDev (\d+))?(?: nvmlDev \d+)?(?: busId (\w+))?(?: commId (0x\w+))? - (Init START|Init COMPLETE|Abort COMPLETE))")
DT_RE(re_hccl_server, R"(server\[([\w.:-]+))")
DT_RE(re_hccl_remote_rank, R"(remote rank:? ?\[?(\w+)\]?)")
DT_RE(re_heartbeat_loc, R"(Cluster Exception Location\[IP/ID\]:\[([\w.*]+)/(\d+)\])")
DT_RE(re_heartbeat_old, R"(serverId\[([\w.*]+)\], deviceId\[(\d+)\], Heartbeat Lost)")
// LINK_ERROR_INFO rows, with or without the port columns:
//   |  124.0.0.11(1)   |   124.0.0.21(0)   |  server  | no connect |
//   |  192.168.100.212(10)   |  16666  |   192.168.100.202(2)   |  2882681339  |  server  | time out |
DT_RE(re_link_row,
      R"(\|\s+([\d.]+)\((\d+)\)\s+\|(?:\s+\d+\s+\|)?\s+([\d.]+)\((\d+)\)\s+\|(?:\s+\d+\s+\|)?\s+(\w+)\s+\|\s+([\w ]+?)\s+\|)")
DT_RE(re_hccl_timeout, R"(timeout\[(\d+)\])")
DT_RE(re_version_kv, R"((?i)\b(cann|driver|firmware|cuda|nccl|torch|torch_npu|pytorch|hccl)[ _]?(?:version)?\s*[:=]\s*v?(\d[\w.+-]*))")

void set_time_full(model::Event& e, std::string_view date, std::string_view time, std::string_view frac) {
  e.time = iso(date, time, frac);
}

std::string level_word(std::string_view l) {
  if (l == "E" || l == "ERROR" || l == "CRITICAL" || l == "EXCEPTION" || l == "F") return "error";
  if (l == "W" || l == "WARNING" || l == "WARN") return "warning";
  if (l == "I" || l == "INFO") return "info";
  if (l == "DEBUG") return "debug";
  if (l == "TRACE") return "trace";
  if (l == "EVENT") return "event";
  std::string s(l);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<std::int64_t> first_device(std::string_view msg) {
  for (std::string_view key : {"device_id", "deviceId", "devId", "devid", "logicDevId", "deviceLogicId",
                               "Device", "device"}) {
    if (auto v = find_int_after(msg, key)) {
      if (*v >= 0 && *v < 4096) return v;
    }
  }
  return std::nullopt;
}

std::optional<std::int64_t> int_of(std::string_view s) { return to_int(s); }

}  // namespace

std::optional<std::int64_t> find_device(std::string_view msg) { return first_device(msg); }

// ---- prefixes -------------------------------------------------------------------------------------

std::string_view strip_prefixes(std::string_view line, Prefix& p, std::string& storage) {
  std::string_view s = line;
  // Container runtimes: {"log":"...","stream":"stderr","time":"..."}
  if (!s.empty() && s.front() == '{' && contains(s, "\"log\"")) {
    static thread_local simdjson::ondemand::parser parser;
    simdjson::padded_string padded(s.data(), s.size());
    auto doc = parser.iterate(padded);
    std::string_view log, time;
    if (!doc.error()) {
      auto obj = doc.get_object();
      if (!obj.error()) {
        for (auto field : obj) {
          std::string_view k;
          if (field.unescaped_key().get(k)) break;
          if (k == "log") {
            if (field.value().get_string().get(log)) break;
            storage.assign(log);
          } else if (k == "time") {
            std::string_view t;
            if (!field.value().get_string().get(t)) p.time = std::string(t);
          }
        }
      }
    }
    if (!storage.empty()) {
      while (!storage.empty() && (storage.back() == '\n' || storage.back() == '\r')) storage.pop_back();
      s = storage;
      if (p.time.size() > 19 && p.time.back() == 'Z') {}  // kept as given (UTC)
      p.key += "json:";
    }
  }
  for (int guard = 0; guard < 8 && !s.empty(); ++guard) {
    M m;
    const char c = s.front();
    if (c == '[') {
      // "[rank3]:" / "[default3]:" (role name, then the number), split by hand: it starts most
      // lines of torchrun output.
      if (const std::size_t close = s.find("]:"); close != std::string_view::npos && close < 40) {
        std::size_t d = close;
        while (d > 1 && s[d - 1] >= '0' && s[d - 1] <= '9') --d;
        bool name_ok = d > 1 && d < close;
        for (std::size_t i = 1; name_ok && i < d; ++i)
          name_ok = std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_';
        if (name_ok) {
          const auto n = int_of(s.substr(d, close - d));
          if (s.substr(1, d - 1) == "rank") p.rank = n;
          else p.local_rank = n;
          std::size_t end = close + 2;
          if (end < s.size() && s[end] == ' ') ++end;
          p.key.append(s.substr(0, end));
          s.remove_prefix(end);
          continue;
        }
      }
      if (rx(re_mpi_prefix(), s, m)) {
        p.rank = int_of(m[2]);
        p.key.append(m[0]);
        s.remove_prefix(m[0].size());
        continue;
      }
      if (rx(re_viewer_lineno(), s, m)) {
        std::string_view rest = s.substr(m[0].size());
        if (starts_with(rest, "[rank") || starts_with(rest, "[default")) {
          s = rest;
          continue;
        }
      }
      if (rx(re_bracket_iso_collector(), s, m)) {
        p.time = iso(m[1], m[2], m[3]);
        s.remove_prefix(m[0].size());
        continue;
      }
      break;
    }
    if (c == '(') {
      if (rx(re_ray_prefix(), s, m)) {
        if (!m[2].empty()) p.rank = int_of(m[2]);
        p.pid = int_of(m[3]);
        p.key.append(m[0]);
        s.remove_prefix(m[0].size());
        if (rx(re_vllm_logger(), s, m)) {
          p.level = level_word(m[1]);
          p.month_day_time = std::string(m[2]);
          s.remove_prefix(m[0].size());
        }
        continue;
      }
      break;
    }
    if (c >= '0' && c <= '9' && rx(re_collector_ts(), s, m)) {
      p.time = iso(m[1], m[2].size() == 5 ? std::string(m[2]) + ":00" : std::string(m[2]), m[3]);
      s.remove_prefix(m[0].size());
      continue;
    }
    if (rx(re_pdsh_nccl(), s, m) && m[1] == m[2]) {
      p.host = std::string(m[1]);
      s.remove_prefix(m[1].size() + 2);
      continue;
    }
    break;
  }
  return s;
}

// ---- families -------------------------------------------------------------------------------------

namespace {

bool digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// The fixed plog header "[LEVEL] MODULE(PID,PNAME):YYYY-MM-DD-HH:MM:SS.mmm.uuu ", split by hand:
// it starts most lines of the largest inputs, and a regex with captures costs several times more.
struct PlogHeader {
  std::string_view level, module, pid, pname, date, time, ms, us, rest;
};

bool split_plog(std::string_view s, PlogHeader& h) {
  const std::size_t close = s.find(']');
  if (close == std::string_view::npos || close < 4 || close > 10 || close + 2 >= s.size() || s[close + 1] != ' ')
    return false;
  h.level = s.substr(1, close - 1);
  static constexpr std::string_view kLevels[] = {"ERROR", "WARNING", "WARN", "INFO", "DEBUG",
                                                 "EVENT", "TRACE", "CRITICAL", "EXCEPTION"};
  if (std::find(std::begin(kLevels), std::end(kLevels), h.level) == std::end(kLevels)) return false;
  std::size_t i = close + 2;
  const std::size_t paren = s.find('(', i);
  if (paren == std::string_view::npos || paren == i || paren - i > 40) return false;
  h.module = s.substr(i, paren - i);
  for (char c : h.module)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  const std::size_t comma = s.find(',', paren);
  const std::size_t rparen = s.find("):", paren);
  if (comma == std::string_view::npos || rparen == std::string_view::npos || comma > rparen) return false;
  h.pid = s.substr(paren + 1, comma - paren - 1);
  const std::string_view pid_digits = !h.pid.empty() && h.pid[0] == '-' ? h.pid.substr(1) : h.pid;
  if (!digits(pid_digits)) return false;
  h.pname = s.substr(comma + 1, rparen - comma - 1);
  i = rparen + 2;
  // YYYY-MM-DD-HH:MM:SS.mmm.uuu = 27 bytes
  if (s.size() < i + 27) return false;
  const std::string_view t = s.substr(i, 27);
  if (!digits(t.substr(0, 4)) || t[4] != '-' || !digits(t.substr(5, 2)) || t[7] != '-' || !digits(t.substr(8, 2)) ||
      t[10] != '-' || !digits(t.substr(11, 2)) || t[13] != ':' || !digits(t.substr(14, 2)) || t[16] != ':' ||
      !digits(t.substr(17, 2)) || t[19] != '.' || !digits(t.substr(20, 3)) || t[23] != '.' || !digits(t.substr(24, 3)))
    return false;
  h.date = t.substr(0, 10);
  h.time = t.substr(11, 8);
  h.ms = t.substr(20, 3);
  h.us = t.substr(24, 3);
  i += 27;
  if (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  h.rest = s.substr(i);
  return true;
}

}  // namespace

bool parse_plog(std::string_view s, model::Event& e) {
  if (s.size() < 30 || s.front() != '[') return false;
  PlogHeader h;
  if (!split_plog(s, h)) return false;
  e.kind = "plog";
  e.level = level_word(h.level);
  e.set("module", std::string(h.module));
  e.pid = int_of(h.pid);
  if (e.pid && *e.pid < 0) e.pid.reset();
  if (!h.pname.empty()) {
    const std::size_t c = h.pname.rfind(',');
    e.set("process", std::string(c == std::string_view::npos ? h.pname : h.pname.substr(c + 1)));
  }
  std::string frac(h.ms);
  frac.append(h.us);
  set_time_full(e, h.date, h.time, frac);
  std::string_view msg = h.rest;
  // "[file.cc:123]" before the message
  if (!msg.empty() && msg.front() == '[') {
    const std::size_t end = msg.find(']');
    if (end != std::string_view::npos) {
      const std::string_view inside = msg.substr(1, end - 1);
      const std::size_t colon = inside.rfind(':');
      if (colon != std::string_view::npos && digits(inside.substr(colon + 1)) &&
          inside.find(' ') == std::string_view::npos) {
        e.set("src", std::string(inside));
        msg.remove_prefix(end + 1);
        if (!msg.empty() && msg.front() == ' ') msg.remove_prefix(1);
      }
    }
  }
  e.message = std::string(msg);
  if (auto d = first_device(msg)) e.device = d;
  scan_message(msg, e);
  return true;
}

bool parse_nccl(std::string_view s, model::Event& e) {
  M m;
  std::string_view body;
  if (!s.empty() && s.front() == '[' && rx(re_nccl_stripped(), s, m)) {
    e.kind = "nccl";
    e.device = int_of(m[1]);
    e.level = m[4] == "WARN" ? "warning" : level_word(m[4]);
    if (!m[2].empty()) e.set("src", std::string(m[2]) + ":" + std::string(m[3]));
    e.message = std::string(m[5]);
    scan_message(e.message, e);
    return true;
  }
  const bool has_nccl = contains(s, "NCCL ");
  if (has_nccl && rx(re_nccl_bare(), s, m)) {  // prefix stripped down to the source file by the user
    e.kind = "nccl";
    e.level = m[3] == "WARN" ? "warning" : "info";
    e.set("src", std::string(m[1]) + ":" + std::string(m[2]));
    e.message = std::string(m[4]);
    scan_message(e.message, e);
    return true;
  }
  if (starts_with(s, "NCCL version") && rx(re_nccl_version(), s, m)) {
    e.kind = "nccl";
    e.level = "info";
    e.code = "nccl-version";
    e.set("nccl_version", std::string(m[1]));
    e.message = std::string(s);
    return true;
  }
  if (starts_with(s, "NCCL failure") && rx(re_nccl_failure(), s, m)) {
    e.kind = "nccl";
    e.level = "error";
    e.code = "nccl-failure";
    e.message = std::string(m[3]);
    e.set("src", std::string(m[1]) + ":" + std::string(m[2]));
    return true;
  }
  if (!has_nccl && !contains(s, "INFO") && !contains(s, "WARN")) return false;
  // "[date time] host:pid:tid [dev] body", split by hand (see split_plog).
  std::string_view date, clock, frac, rest = s;
  if (!rest.empty() && rest.front() == '[' && rest.size() > 22 && digits(rest.substr(1, 4)) && rest[5] == '-') {
    const std::size_t end = rest.find("] ");
    if (end == std::string_view::npos || end < 20) return false;
    date = rest.substr(1, 10);
    clock = rest.substr(12, 8);
    if (end > 21 && rest[20] == '.') frac = rest.substr(21, end - 21);
    rest.remove_prefix(end + 2);
  }
  const std::size_t c1 = rest.find(':');
  if (c1 == std::string_view::npos || c1 == 0) return false;
  const std::string_view host = rest.substr(0, c1);
  for (char c : host)
    if (c == ' ' || c == '[' || c == ']' || c == '\t') return false;
  const std::size_t c2 = rest.find(':', c1 + 1);
  const std::size_t sp = rest.find(' ', c1 + 1);
  if (c2 == std::string_view::npos || sp == std::string_view::npos || c2 > sp) return false;
  const std::string_view pid = rest.substr(c1 + 1, c2 - c1 - 1);
  const std::string_view tid = rest.substr(c2 + 1, sp - c2 - 1);
  if (!digits(pid) || !digits(tid)) return false;
  body = rest.substr(sp + 1);
  std::string_view dev;
  if (!body.empty() && body.front() == '[') {
    const std::size_t end = body.find("] ");
    if (end != std::string_view::npos && digits(body.substr(1, end - 1))) {
      dev = body.substr(1, end - 1);
      body.remove_prefix(end + 2);
    }
  }
  M b;
  std::string level;
  std::string msg;
  if (starts_with(body, "NCCL INFO ")) {
    level = "info";
    msg = std::string(body.substr(10));
  } else if (contains(body, "NCCL WARN") && rx(re_nccl_body_warn(), body, b)) {
    level = "warning";
    msg = std::string(b[3]);
    if (!b[1].empty()) e.set("src", std::string(b[1]) + ":" + std::string(b[2]));
  } else if (contains(body, "NCCL TRACE") && rx(re_nccl_body_trace(), body, b)) {
    level = "trace";
    msg = std::string(b[3]);
  } else if (starts_with(body, "NCCL CALL ")) {
    level = "trace";
    msg = std::string(body.substr(10));
  } else if (rx(re_nccl_body_old(), body, b)) {  // NCCL 2.2: no "NCCL" token
    level = b[3] == "WARN" ? "warning" : "info";
    msg = std::string(b[4]);
  } else {
    return false;
  }
  e.kind = "nccl";
  e.level = level;
  if (!date.empty()) set_time_full(e, date, clock, frac);
  e.node = std::string(host);
  e.pid = int_of(pid);
  e.set("tid", *int_of(tid));
  if (!dev.empty()) e.device = int_of(dev);
  e.message = std::move(msg);
  scan_message(e.message, e);
  return true;
}

namespace {

// "HH:MM:SS" with an optional ".fraction" at the start of `s`; returns its length or 0.
std::size_t clock_len(std::string_view s) {
  if (s.size() < 8 || !digits(s.substr(0, 2)) || s[2] != ':' || !digits(s.substr(3, 2)) || s[5] != ':' ||
      !digits(s.substr(6, 2)))
    return 0;
  std::size_t n = 8;
  if (n < s.size() && s[n] == '.') {
    std::size_t k = n + 1;
    while (k < s.size() && s[k] >= '0' && s[k] <= '9') ++k;
    if (k > n + 1) n = k;
  }
  return n;
}

// "file.cc:123]" at the start of `s`: sets file and line, returns the length through ']' or 0.
std::size_t src_len(std::string_view s, std::string_view& file, std::string_view& line) {
  const std::size_t close = s.find(']');
  if (close == std::string_view::npos || close == 0) return 0;
  const std::string_view inside = s.substr(0, close);
  const std::size_t colon = inside.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || !digits(inside.substr(colon + 1)) ||
      inside.find(' ') != std::string_view::npos)
    return 0;
  file = inside.substr(0, colon);
  line = inside.substr(colon + 1);
  return close + 1;
}

bool glog_level(char c) { return c == 'E' || c == 'W' || c == 'I' || c == 'F'; }

void fill_glog(model::Event& e, char level, std::string_view mmdd, std::string_view clock, std::string_view file,
               std::string_view line, std::string_view msg) {
  e.level = level_word(std::string_view(&level, 1));
  if (!mmdd.empty()) {
    e.set("month_day", std::string(mmdd.substr(0, mmdd.size() - 2)) + "-" + std::string(mmdd.substr(mmdd.size() - 2)));
    e.set("clock", std::string(clock));
  }
  std::string src(file);
  src.push_back(':');
  src.append(line);
  e.set("src", std::move(src));
  if (!msg.empty() && msg.front() == ' ') msg.remove_prefix(1);
  e.message = std::string(msg);
  scan_message(e.message, e);
}

}  // namespace

// glog-style headers, split by hand (they start most lines of c10d and torchrun output):
//   [E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] msg     (PyTorch 2.4+, month without zero)
//   [E ProcessGroupNCCL.cpp:1537] msg                          (older)
//   E0217 08:19:12.297000 140475426195264 torch/.../api.py:826] msg   (torchrun; 3rd field: thread or pid)
bool parse_glog(std::string_view s, model::Event& e) {
  if (s.size() > 6 && s[0] == '[' && glog_level(s[1])) {
    std::size_t i = 2;
    std::string_view mmdd, clock;
    if (s[i] != ' ') {
      std::size_t d = i;
      while (d < s.size() && s[d] >= '0' && s[d] <= '9') ++d;
      if (d - i < 3 || d - i > 4 || d >= s.size() || s[d] != ' ') return false;
      mmdd = s.substr(i, d - i);
      const std::size_t c = clock_len(s.substr(d + 1));
      if (c == 0 || d + 1 + c >= s.size() || s[d + 1 + c] != ' ') return false;
      clock = s.substr(d + 1, c);
      i = d + 1 + c;
    }
    std::string_view file, line;
    const std::size_t n = src_len(s.substr(i + 1), file, line);
    if (n == 0) return false;
    e.kind = "torch";
    fill_glog(e, s[1], mmdd, clock, file, line, s.substr(i + 1 + n));
    return true;
  }
  if (s.size() > 20 && glog_level(s[0]) && digits(s.substr(1, 4)) && s[5] == ' ') {
    const std::size_t c = clock_len(s.substr(6));
    if (c == 0) return false;
    std::size_t i = 6 + c;
    if (i >= s.size() || s[i] != ' ') return false;
    while (i < s.size() && s[i] == ' ') ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
    if (j == i || j >= s.size() || s[j] != ' ') return false;
    std::string_view file, line;
    const std::size_t n = src_len(s.substr(j + 1), file, line);
    if (n == 0) return false;
    e.kind = contains(file, "torch/distributed") ? "torchrun" : "torch";
    fill_glog(e, s[0], s.substr(1, 4), s.substr(6, c), file, line, s.substr(j + 1 + n));
    return true;
  }
  return false;
}

bool parse_python_logging(std::string_view s, model::Event& e) {
  M m;
  std::string_view logger, level, msg;
  const bool pylog = starts_with(s, "INFO:") || starts_with(s, "WARNING:") || starts_with(s, "ERROR:") ||
                     starts_with(s, "DEBUG:") || starts_with(s, "CRITICAL:");
  if (!pylog && !contains(s.substr(0, 120), ": [")) return false;
  if (pylog && rx(re_pylog(), s, m)) {
    level = m[1];
    logger = m[2];
    msg = m[3];
  } else if (rx(re_pylog2(), s, m) && contains(m[1], ".")) {
    logger = m[1];
    level = m[2];
    msg = m[3];
  } else {
    return false;
  }
  e.kind = starts_with(logger, "torch.distributed") ? "torchrun" : "python";
  e.level = level_word(level);
  e.set("logger", std::string(logger));
  e.message = std::string(msg);
  scan_message(msg, e);
  return true;
}

bool parse_torch_npu(std::string_view s, model::Event& e) {
  if (!starts_with(s, "[ERROR] ")) return false;
  M m;
  if (!rx(re_torch_npu(), s, m)) return false;
  e.kind = "torch_npu";
  e.level = "error";
  set_time_full(e, m[1], m[2], {});
  e.pid = int_of(m[3]);
  if (auto d = int_of(m[4]); d && *d >= 0) e.device = d;
  if (auto r = int_of(m[5]); r && *r >= 0) e.rank = r;
  e.code = std::string(m[6]);
  e.message = std::string(m[7]);
  return true;
}

// True when the first 64 bytes hold something shaped like an error code (EE8888, EI0006, W11001).
bool has_code_shape(std::string_view s) {
  const std::size_t n = std::min<std::size_t>(s.size(), 64);
  for (std::size_t i = 0; i + 6 <= n; ++i) {
    if ((s[i] == 'E' || s[i] == 'W') && std::isalnum(static_cast<unsigned char>(s[i + 1])) &&
        std::isdigit(static_cast<unsigned char>(s[i + 2])) && std::isdigit(static_cast<unsigned char>(s[i + 3])) &&
        std::isdigit(static_cast<unsigned char>(s[i + 4])) && std::isdigit(static_cast<unsigned char>(s[i + 5])))
      return true;
  }
  return false;
}

bool parse_cann_start(std::string_view s, model::Event& e) {
  if (s.size() < 7) return false;
  const char c0 = s[0];
  if (c0 != 'E' && c0 != 'W' && c0 != '[' && !(c0 >= 'A' && c0 <= 'Z')) return false;
  if (!has_code_shape(s)) return false;
  M m;
  if (rx(re_cann_start2(), s, m)) {
    e.code = std::string(m[1]);
    e.pid = int_of(m[2]);
    set_time_full(e, m[3], m[4], std::string(m[5]) + std::string(m[6]));
    e.message = std::string(m[7]);
  } else if (rx(re_cann_start(), s, m)) {
    e.code = std::string(m[6]);
    if (!m[1].empty()) {
      e.pid = int_of(m[1]);
      set_time_full(e, m[2], m[3], std::string(m[4]) + std::string(m[5]));
    }
    if (!m[7].empty()) e.pid = int_of(m[7]);
    if (!m[8].empty()) set_time_full(e, m[8], m[9], std::string(m[10]) + std::string(m[11]));
    e.message = std::string(m[12]);
  } else {
    return false;
  }
  e.kind = "cann";
  e.level = e.code[0] == 'W' ? "warning" : "error";
  if (auto d = first_device(e.message)) e.device = d;
  scan_message(e.message, e);
  return true;
}

bool parse_exception_line(std::string_view s, model::Event& e) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  // The exception type is the first token; it must name an error of some kind.
  std::size_t end = 0;
  while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '_' || s[end] == '.')) ++end;
  const std::string_view type = s.substr(0, end);
  if (!contains(type, "Error") && !contains(type, "Exception") && !contains(type, "Interrupt") && !contains(type, "Exit") &&
      !contains(type, "Failure") && !contains(type, "Fault"))
    return false;
  M m;
  if (!rx(re_exception(), s, m)) return false;
  e.kind = "python";
  e.level = "error";
  e.code = std::string(m[1]);
  e.set("exception", std::string(m[1]));
  e.message = std::string(m[2]);
  scan_message(s, e);
  return true;
}

bool parse_nvidia_smi(std::string_view s, model::Event& e) {
  M m;
  if (starts_with(s, "GPU ") && rx(re_nvsmi_list(), s, m)) {
    e.kind = "nvidia-smi";
    e.level = "info";
    e.code = "gpu";
    e.device = int_of(m[1]);
    e.set("gpu_name", std::string(m[2]));
    e.set("uuid", std::string(m[3]));
    return true;
  }
  if (s.empty() || s.front() != '|') return false;
  if (contains(s, "NVIDIA-SMI") && rx(re_nvsmi_header(), s, m, RE2::UNANCHORED)) {
    e.kind = "nvidia-smi";
    e.level = "info";
    e.code = "versions";
    e.set("nvidia_smi_version", std::string(m[1]));
    e.set("driver_version", std::string(m[2]));
    if (!m[3].empty()) e.set("cuda_version", std::string(m[3]));
    return true;
  }
  if (rx(re_nvsmi_gpu(), s, m)) {
    e.kind = "nvidia-smi";
    e.level = "info";
    e.code = "gpu";
    e.device = int_of(m[1]);
    e.set("gpu_name", std::string(trim(m[2])));
    e.set("bus_id", std::string(m[3]));
    return true;
  }
  if (rx(re_nvsmi_proc(), s, m)) {
    e.kind = "nvidia-smi";
    e.level = "info";
    e.code = "gpu-process";
    e.device = int_of(m[1]);
    e.pid = int_of(m[2]);
    e.set("process", std::string(m[4]));
    e.set("memory_mib", *int_of(m[5]));
    return true;
  }
  return false;
}

bool parse_kernel(std::string_view s, model::Event& e) {
  if (!contains(s, "Kill") && !contains(s, "oom-kill") && !contains(s, "NVRM: Xid")) return false;
  M m;
  std::string_view rest = s;
  if (rx(re_dmesg_ts(), s, m)) {
    e.set("uptime", std::string(m[1]));
    rest = s.substr(m[0].size());
  }
  if (rx(re_kernel_oom(), rest, m, RE2::UNANCHORED)) {
    e.kind = "kernel";
    e.level = "error";
    e.code = "oom-kill";
    e.pid = int_of(m[1]);
    e.set("process", std::string(m[2]));
  } else if (rx(re_kernel_oomkill(), rest, m, RE2::UNANCHORED)) {
    e.kind = "kernel";
    e.level = "error";
    e.code = "oom-kill";
    e.pid = int_of(m[2]);
    e.set("process", std::string(m[1]));
  } else if (rx(re_xid(), rest, m, RE2::UNANCHORED)) {
    e.kind = "kernel";
    e.level = "error";
    e.code = "Xid-" + std::string(m[2]);
    e.set("bus_id", std::string(m[1]));
    e.set("xid", *int_of(m[2]));
  } else {
    return false;
  }
  if (e.code == "oom-kill") {
    static const RE2 worker(R"((?i)^(?:python[\d.]*|pt_main_thread|torchrun|deepspeed|accelerate|ray::.*|mindspore.*|train.*)$)");
    if (RE2::FullMatch(e.get_str("process"), worker)) e.set("training_process", true);
  }
  e.message = std::string(rest);
  return true;
}

bool parse_key_colon_value(std::string_view s, std::string& key, std::string& value, bool require_indent) {
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  if (i == 0 && require_indent) return false;
  std::size_t k = i;
  while (k < s.size() && (std::isalnum(static_cast<unsigned char>(s[k])) || s[k] == '_')) ++k;
  if (k == i) return false;
  std::size_t c = k;
  while (c < s.size() && s[c] == ' ') ++c;
  if (c >= s.size() || s[c] != ':') return false;
  key = std::string(s.substr(i, k - i));
  value = std::string(trim(s.substr(c + 1)));
  return true;
}

// ---- message contents -------------------------------------------------------------------------

// Every literal scan_message looks for, in one automaton: most log lines hold none of them, and
// one pass over the line is much cheaper than forty substring searches.
bool may_hold_facts(std::string_view msg) {
  static const std::unique_ptr<re2::RE2::Set> set = [] {
    static const char* const kTriggers[] = {
        "WorkNCCL(", "NCCL work", "Rank ", "errno: ", "failed to listen", "client socket has timed out",
        "Rendezvous", "failed (exitcode", "closing signal", "death signal", "store based barrier",
        "Duplicate GPU", "Connection closed by localRank", "out of memory", "received by PID",
        "SignalException", "error code is", "NPU warning", "CUDA error: ", "NCCL error in:", "nproc",
        "VISIBLE_DEVICES", "rankNum[", "ranks[", "totalRanks[", "remote rank", "Cluster Exception Location",
        "Heartbeat Lost", "taskType[Notify Wait]", "timeout[", "|", "module_name=", "error_code:", "sdma error",
        "ersion", "nranks ", "function error", "HCCL error in:", "DistBackendError", "Transport init error", "p2p timeout"};
    re2::RE2::Options opt;
    opt.set_log_errors(false);
    auto s = std::make_unique<re2::RE2::Set>(opt, re2::RE2::UNANCHORED);
    for (const char* t : kTriggers) s->Add(re2::RE2::QuoteMeta(t), nullptr);
    s->Compile();
    return s;
  }();
  return set->Match(re2::StringPiece(msg.data(), msg.size()), nullptr);
}

bool scan_message(std::string_view msg, model::Event& e) {
  if (!may_hold_facts(msg)) return false;
  bool hit = false;
  M m;
  auto set_code = [&](const char* code) {
    if (e.code.empty()) e.code = code;
    hit = true;
  };
  if (contains(msg, "WorkNCCL(") && rx(re_worknccl(), msg, m, RE2::UNANCHORED)) {
    e.set("seq", *int_of(m[1]));
    e.set("op_type", std::string(m[2]));
    if (!m[3].empty()) e.set("numel", *int_of(m[3]));
    e.set("timeout_ms", *int_of(m[5]));
    M r;
    if (rx(re_ran_for(), msg, r, RE2::UNANCHORED)) e.set("ran_for_ms", *int_of(r[1]));
    if (contains(msg, "Watchdog caught collective operation timeout")) set_code("watchdog-timeout");
    else set_code("nccl-work");
  }
  if (contains(msg, "NCCL work") && rx(re_nccl_work(), msg, m, RE2::UNANCHORED)) {
    e.set("seq", *int_of(m[1]));
    e.set("last_enqueued", *int_of(m[2]));
    e.set("last_completed", *int_of(m[3]));
    set_code("watchdog-work");
  }
  if (contains(msg, "Rank ") && rx(re_rank_bracket(), msg, m, RE2::UNANCHORED) && !e.rank) {
    e.rank = int_of(m[1]);
  }
  if (contains(msg, "errno: ") && rx(re_errno(), msg, m, RE2::UNANCHORED)) {
    e.set("errno", *int_of(m[1]));
    e.set("errno_text", std::string(m[2]));
    if (m[1] == "98") set_code("EADDRINUSE");
    else set_code("socket-error");
    M p;
    if (rx(re_bind_port(), msg, p, RE2::UNANCHORED)) e.set("port", *int_of(p[2]));
  }
  if (contains(msg, "has failed to listen on any local network address")) set_code("listen-failed");
  if (contains(msg, "client socket has timed out") && rx(re_client_timeout(), msg, m, RE2::UNANCHORED)) {
    e.set("timeout_s", *int_of(m[1]));
    e.set("master_addr", std::string(m[2]));
    e.set("port", *int_of(m[3]));
    set_code("store-connect-timeout");
  }
  if (contains(msg, "RendezvousTimeoutError")) set_code("rendezvous-timeout");
  if (contains(msg, "RendezvousConnectionError")) set_code("rendezvous-connection");
  if (contains(msg, "failed (exitcode") && rx(re_worker_failed(), msg, m, RE2::UNANCHORED)) {
    e.set("exitcode", *int_of(m[1]));
    e.local_rank = int_of(m[2]);
    e.pid = int_of(m[3]);
    set_code("worker-failed");
  }
  if (contains(msg, "closing signal") && rx(re_closing_signal(), msg, m, RE2::UNANCHORED)) {
    e.set("target_pid", *int_of(m[1]));
    e.set("signal", std::string(m[2]));
    set_code("closing-signal");
  }
  if (contains(msg, "death signal") && rx(re_death_signal(), msg, m, RE2::UNANCHORED)) {
    std::string sig(m[1]);
    if (sig == "1") sig = "SIGHUP";
    else if (sig == "2") sig = "SIGINT";
    else if (sig == "15") sig = "SIGTERM";
    else if (sig == "9") sig = "SIGKILL";
    e.set("signal", sig);
    set_code("agent-death-signal");
  }
  if (contains(msg, "store based barrier") && rx(re_store_barrier(), msg, m, RE2::UNANCHORED)) {
    e.rank = int_of(m[1]);
    e.set("world_size", *int_of(m[2]));
    e.set("worker_count", *int_of(m[3]));
    set_code("store-barrier-wait");
  }
  if (contains(msg, "nranks ") && rx(re_nccl_comm(), msg, m, RE2::UNANCHORED)) {
    e.set("comm", std::string(m[1]));
    e.set("comm_rank", *int_of(m[2]));
    e.set("nranks", *int_of(m[3]));
    if (!m[4].empty() && !e.device) e.device = int_of(m[4]);
    if (!m[5].empty()) e.set("bus_id", std::string(m[5]));
    if (!m[6].empty()) e.set("comm_id", std::string(m[6]));
    e.set("comm_state", std::string(m[7]));
    set_code(m[7] == "Abort COMPLETE" ? "nccl-comm-abort" : "nccl-comm-init");
  }
  if (contains(msg, "Duplicate GPU") && rx(re_dup_gpu(), msg, m, RE2::UNANCHORED)) {
    e.set("dup_rank_a", *int_of(m[1]));
    e.set("dup_rank_b", *int_of(m[2]));
    e.set("bus_id", std::string(m[3]));
    set_code("duplicate-gpu");
  }
  if (contains(msg, "Connection closed by localRank") && rx(re_conn_closed_local(), msg, m, RE2::UNANCHORED)) {
    e.set("peer_local_rank", *int_of(m[1]));
    set_code("peer-closed");
  }
  if (contains(msg, "out of memory") && rx(re_oom(), msg, m, RE2::UNANCHORED)) {
    e.set("requested", std::string(m[2]));
    M d;
    if (rx(re_oom_dev(), msg, d, RE2::UNANCHORED) && !e.device) e.device = int_of(d[1].empty() ? d[2] : d[1]);
    set_code(m[1] == "NPU" ? "npu-oom" : "cuda-oom");
  }
  if (contains(msg, "received by PID") && rx(re_signal_pid(), msg, m, RE2::UNANCHORED)) {
    e.set("signal", std::string(m[2]));
    e.set("target_pid", *int_of(m[3]));
    set_code("worker-signal");
  }
  if (contains(msg, "SignalException") && rx(re_signal_exc(), msg, m, RE2::UNANCHORED)) {
    const std::string n(m[2]);
    e.set("signal", n == "1" ? "SIGHUP" : n == "15" ? "SIGTERM" : n == "2" ? "SIGINT" : "SIG" + n);
    set_code("agent-death-signal");
  }
  if (contains(msg, "NPU function error") || contains(msg, "OPS function error") || contains(msg, "HCCL function error") ||
      contains(msg, "HCCL error in:") || contains(msg, "NCCL error in:") || contains(msg, "DistBackendError") ||
      contains(msg, "error code is")) {
    e.set("wrapped", true);  // a framework wrapper around a device / library error
  }
  if (contains(msg, "error code is") && rx(re_acl_code(), msg, m, RE2::UNANCHORED)) {
    e.set("api", std::string(m[1]));
    e.set("acl_error", *int_of(m[2]));
    hit = true;
  }
  if (contains(msg, "NPU warning") && rx(re_npu_warning(), msg, m, RE2::UNANCHORED)) {
    e.set("acl_error", *int_of(m[1]));
    hit = true;
  }
  if (contains(msg, "CUDA error: ") && rx(re_cuda_error(), msg, m, RE2::UNANCHORED)) {
    e.set("cuda_error", std::string(trim(m[1])));
    hit = true;
  }
  if (contains(msg, "NCCL error in:") && rx(re_nccl_error_in(), msg, m, RE2::UNANCHORED)) {
    e.set("nccl_error", std::string(trim(m[1])));
    e.set("nccl_version", std::string(m[2]));
    hit = true;
  }
  if (contains(msg, "nproc") && rx(re_nproc_opt(), msg, m, RE2::UNANCHORED)) {
    e.set("nproc_per_node", *int_of(m[1]));
    M o;
    if (rx(re_nnodes_opt(), msg, o, RE2::UNANCHORED)) e.set("nnodes", *int_of(o[2].empty() ? o[1] : o[2]));
    if (rx(re_master_addr_opt(), msg, o, RE2::UNANCHORED)) e.set("master_addr", std::string(o[1]));
    if (rx(re_master_port_opt(), msg, o, RE2::UNANCHORED)) e.set("master_port", *int_of(o[1]));
    if (rx(re_node_rank_opt(), msg, o, RE2::UNANCHORED)) e.set("node_rank", *int_of(o[1]));
    set_code("launch-command");
  }
  if (contains(msg, "VISIBLE_DEVICES") && rx(re_visible_devices(), msg, m, RE2::UNANCHORED)) {
    e.set("visible_devices_var", std::string(m[1]));
    e.set("visible_devices", std::string(m[2]));
    hit = true;
  }
  // HCCL annotations (plog messages and Python-side texts alike).
  if (contains(msg, "rankNum[") || contains(msg, "ranks[") || contains(msg, "totalRanks[")) {
    if (auto n = find_int_after(msg, "rankNum")) e.set("nranks", *n);
    else if (auto t = find_int_after(msg, "totalRanks")) e.set("nranks", *t);
    else if (auto r = find_int_after(msg, "ranks")) e.set("nranks", *r);
    if (auto r = find_int_after(msg, "rank"); r && !e.rank) e.rank = r;
    if (rx(re_hccl_server(), msg, m, RE2::UNANCHORED)) e.set("server", std::string(m[1]));
    if (auto phy = find_int_after(msg, "phydevId")) e.set("phy_device", *phy);
    if (auto d = find_int_after(msg, "logicDevId")) e.device = d;
    else if (auto d2 = find_int_after(msg, "deviceLogicId")) e.device = d2;
    else if (auto d3 = find_int_after(msg, "device"); d3 && !e.device) e.device = d3;
    set_code("hccl-comm-init");
  }
  if (contains(msg, "remote rank") && rx(re_hccl_remote_rank(), msg, m, RE2::UNANCHORED)) {
    e.set("remote_rank", std::string(m[1]));
    hit = true;
  }
  if (contains(msg, "Cluster Exception Location") && rx(re_heartbeat_loc(), msg, m, RE2::UNANCHORED)) {
    e.set("lost_server", std::string(m[1]));
    e.set("lost_device", *int_of(m[2]));
    set_code("heartbeat-lost");
  } else if (contains(msg, "Heartbeat Lost") && rx(re_heartbeat_old(), msg, m, RE2::UNANCHORED)) {
    e.set("lost_server", std::string(m[1]));
    e.set("lost_device", *int_of(m[2]));
    set_code("heartbeat-lost");
  }
  if (contains(msg, "p2p timeout")) {  // intra-node P2P: the peer is named by its physical device
    static const RE2 p2p_re(R"(remote physic id:(\d+))");
    if (rx(p2p_re, msg, m, RE2::UNANCHORED)) e.set("p2p_remote_phy", *int_of(m[1]));
    set_code("p2p-timeout");
  }
  if (contains(msg, "Transport init error")) {
    static const RE2 link_re(R"(dst_rank\[(\d+)\]-remoteUserrank\[\d+\]-remoteIpAddr\[([\d.]+)(?:/(\d+))?\])");
    if (rx(link_re, msg, m, RE2::UNANCHORED)) {
      e.set("link_dst_rank", *int_of(m[1]));
      e.set("link_remote_ip", std::string(m[2]));
      if (!m[3].empty()) e.set("link_remote_device", *int_of(m[3]));
    }
    set_code("transport-init-error");
  }
  if (contains(msg, "taskType[Notify Wait]")) {
    static const RE2 tag_re(R"(tag\[([A-Za-z]+)_)");
    static const RE2 index_re(R"(index\[(\d+)\])");
    if (rx(tag_re, msg, m, RE2::UNANCHORED)) e.set("op_tag", std::string(m[1]));
    if (rx(index_re, msg, m, RE2::UNANCHORED)) e.set("op_index", *int_of(m[1]));
    set_code("notify-wait");
  }
  if (contains(msg, "timeout[") && rx(re_hccl_timeout(), msg, m, RE2::UNANCHORED)) {
    e.set("timeout_s", *int_of(m[1]));
    hit = true;
  }
  // LINK_ERROR_INFO rows only come in HCCL plog lines; '|' alone is common (progress bars, tables).
  if (e.kind == "plog" && contains(msg, ")   |") && rx(re_link_row(), msg, m, RE2::UNANCHORED)) {
    e.set("dest_ip", std::string(m[1]));
    e.set("dest_rank", *int_of(m[2]));
    e.set("src_ip", std::string(m[3]));
    e.set("src_rank", *int_of(m[4]));
    e.set("link_status", std::string(m[6]));
    set_code("hccl-link-error");
  }
  if (contains(msg, "module_name=") || contains(msg, "error_code:")) {
    // "report error module_type=3, module_name=EE8888": the code the user-visible block will carry.
    const std::size_t at = msg.find(contains(msg, "module_name=") ? "module_name=" : "error_code:");
    const std::size_t start = msg.find_first_of("=:", at) + 1;
    std::size_t end = start;
    while (end < msg.size() && std::isalnum(static_cast<unsigned char>(msg[end]))) ++end;
    if (end - start == 6) {
      e.set("reported_code", std::string(msg.substr(start, 6)));
      if (e.code.empty()) e.code = std::string(msg.substr(start, 6));
    }
  }
  if (contains(msg, "there is a sdma error") || contains(msg, "hwts sdma error")) {
    e.set("sdma_error", true);
    hit = true;
  }
  if (contains(msg, "ersion") && rx(re_version_kv(), msg, m, RE2::UNANCHORED)) {
    std::string k(m[1]);
    for (char& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (k == "pytorch") k = "torch";
    e.set(k + "_version", std::string(m[2]));
  }
  return hit;
}

}  // namespace dtriage::formats
