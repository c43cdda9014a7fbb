// --redact: masks identities (hosts, addresses, users, secrets) and keeps meaning, in the analysis,
// before any format renders it. See report.hpp for what is masked and what is kept.
#include <arpa/inet.h>
#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <set>

#include "base/text.hpp"
#include "report/report.hpp"

namespace dtriage::report {
namespace {

using re2::RE2;

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool token_char(char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; }
std::string lower(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

bool ipv4(std::string_view t) {
  int dots = 0, digits = 0;
  for (char c : t) {
    if (c == '.') {
      if (digits == 0) return false;
      ++dots;
      digits = 0;
    } else if (digit(c)) {
      if (++digits > 3) return false;
    } else {
      return false;
    }
  }
  return dots == 3 && digits > 0;
}

// Addresses that say what a program did, not where: any, loopback, broadcast and netmasks.
bool meaningful_ipv4(std::string_view t) {
  return t == "0.0.0.0" || t.rfind("127.", 0) == 0 || t.rfind("255.", 0) == 0;
}

// Words that stand where a host could but name none.
bool not_a_host(const std::string& t) {
  static const std::set<std::string> kWords = {
      "localhost", "localhost.localdomain", "none", "null", "nil", "unknown", "true", "false", "yes", "no",
      "any", "all", "auto", "default", "local", "remote", "master", "worker", "node", "host", "peer", "server",
      "client", "rank", "ranks", "process", "group", "store", "address", "the", "a", "an", "is", "was", "not",
      "and", "or", "of", "to", "for", "from", "on", "in", "at", "with", "by", "c10d", "static", "etcd", "tcp",
      "udp", "ib", "roce", "socket", "cuda", "npu", "gpu", "cpu", "device", "unreachable", "failed", "lost",
      "closed", "reset", "timeout", "timed", "error", "down", "up", "name", "id", "ip", "port", "status", "list",
      "level", "count", "size", "info", "warn", "warning", "rendezvous", "backend", "init", "set", "env"};
  return kWords.count(lower(t)) != 0;
}

// User names that are accounts of the system, of a platform or a vendor's stack, or folder names
// (/home/data): no person's identity, and common words that masking everywhere would destroy.
bool system_user(const std::string& u) {
  static const std::set<std::string> kUsers = {
      "root", "user", "users", "nobody", "daemon", "HwHiAiUser", "HwDmUser", "HwBaseUser", "ma-user", "shared", "Shared",
      "public", "Public", "default", "Default", "admin", "guest", "ubuntu", "debian", "ec2-user", "centos", "runner",
      "jenkins", "service", "ftp", "git", "www-data", "postgres", "mysql", "hadoop", "spark", "hdfs", "slurm", "docker",
      "data", "work", "share", "project", "projects", "models", "model", "code", "scratch", "train", "test", "dev",
      "opt", "software", "apps", "app", "local", "tmp", "cache", "workspace", "ascend", "mindspore", "home", "logs",
      "log", "output", "outputs", "datasets", "dataset", "checkpoints", "ckpt", "jobs", "job", "run", "runs"};
  return u.empty() || u.size() > 32 || kUsers.count(u) != 0 || u.find_first_of("#*$%{}") != std::string::npos;
}

// Top-level domains that end a host name in logs (a module path never ends so: torch.cuda.OutOfMemoryError).
bool host_tld(std::string_view last) {
  static const std::set<std::string> kTld = {
      "com", "net", "org", "edu", "gov", "mil", "int", "io", "ai", "cloud", "dev", "local", "localdomain",
      "internal", "intranet", "lan", "corp", "home", "arpa", "cluster", "svc", "site", "example", "test", "invalid",
      "cn", "de", "uk", "jp", "kr", "fr", "ru", "us", "sg", "hk", "tw", "nl", "ch", "se", "eu", "ca", "au", "br",
      "es", "pl", "fi", "dk", "cz", "at", "be", "il", "ie", "no", "pt", "mo", "my", "th", "vn", "id", "ae", "sa"};
  return kTld.count(lower(last)) != 0;
}

// A fully qualified domain name: three labels or more, lower case, digits and hyphens, under a
// known top-level domain, e.g. node7.cluster.example.com (never a.b.OutOfMemoryError or x.tar.gz).
bool fqdn(const std::string& t) {
  if (std::count(t.begin(), t.end(), '.') < 2 || !alpha(t[0])) return false;
  for (std::size_t i = 0, start = 0; i <= t.size(); ++i) {
    if (i == t.size() || t[i] == '.') {
      if (i == start) return false;  // empty label
      start = i + 1;
    } else if (!(alnum(t[i]) || t[i] == '-') || std::isupper(static_cast<unsigned char>(t[i]))) {
      return false;
    }
  }
  return host_tld(std::string_view(t).substr(t.rfind('.') + 1));
}

// A word shaped like a host: lower-case letters, digits, '-', '.', '_', not a file name, not code.
// `strict` (no "host:" before it): a digit, '-' or '.' in it as well (gpu-a01, node7, not "reset").
bool host_shaped(const std::string& t, bool strict) {
  if (t.size() < 2 || t.size() > 253 || !alnum(t.front()) || !alnum(t.back())) return false;
  bool lower_letter = false, mark = false;
  for (char c : t) {
    if (!(alnum(c) || c == '-' || c == '.' || c == '_')) return false;
    lower_letter = lower_letter || std::islower(static_cast<unsigned char>(c));
    mark = mark || digit(c) || c == '-' || c == '.';
  }
  // Error codes (EE9999, ERR02005) and hex numbers (0x7f3a...) are no hosts.
  if (!lower_letter || not_a_host(t) || ipv4(t) || t.rfind("0x", 0) == 0) return false;
  // Network interfaces (enp88s0, eth0, ib0, mlx5_0, bond1) name a port of a host, not one.
  static const RE2 interface(
      R"((?:eth\d+|en[opsx][0-9a-z]*\d[0-9a-z]*|ib\d+[0-9a-z]*|bond\d+|docker\d+|mlx\d+_\d+|virbr\d+|veth[0-9a-f]+|wlan\d+|team\d+|vlan\d+|br\d+|br-[0-9a-f]+)(?:[.:]\d+)?)");
  if (RE2::FullMatch(t, interface)) return false;
  if (const auto dot = t.find('.'); dot != std::string::npos) {
    if (base::file_extension(std::string_view(t).substr(t.rfind('.') + 1))) return false;
    if (fqdn(t)) return true;
    // Not under a known domain: a host (gpu-a01.cluster, node7.ib) only when short, in lower case,
    // and its first label is a host's (a digit or '-'); else code (torch.distributed.elastic.api).
    const bool code = std::count(t.begin(), t.end(), '.') > 2 || t.find('_') != std::string::npos ||
                      std::any_of(t.begin(), t.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
    const std::string_view first = std::string_view(t).substr(0, dot);
    return !code && std::any_of(first.begin(), first.end(), [](char c) { return digit(c) || c == '-'; });
  }
  return !strict || mark;
}

// An IPv6 address at s[i..]: the longest run of hex digits, ':' and '.' that inet_pton takes (a
// trailing ":PORT" left out). 0 when none, or when the run is a C++ scope (c10d::ProcessGroup).
std::size_t ipv6_at(std::string_view s, std::size_t i) {
  std::size_t j = i;
  int colons = 0;
  while (j < s.size() && (std::isxdigit(static_cast<unsigned char>(s[j])) || s[j] == ':' || s[j] == '.')) {
    colons += s[j] == ':';
    ++j;
  }
  if (colons < 2) return 0;
  if (j < s.size() && (alpha(s[j]) || s[j] == '_')) return 0;  // more of a word: code, not an address
  while (j > i && s[j - 1] == '.') --j;                          // a sentence's full stop
  for (int tries = 0; tries < 2 && j > i; ++tries) {
    std::string cand(s.substr(i, j - i));
    in6_addr a{};
    if (cand != "::" && cand != "::1" && inet_pton(AF_INET6, cand.c_str(), &a) == 1) return j - i;
    const std::size_t colon = cand.rfind(':');  // "fe80::1:29500": the port is no part of it
    if (colon == std::string::npos || colon == 0) return 0;
    j = i + colon;
  }
  return 0;
}

// Credentials in a URL, up to the authority's last '@' (a password with '@' in it included);
// group 1 is the scheme.
const RE2& url_credentials() {
  static const RE2 re(R"(([A-Za-z][A-Za-z0-9+.-]*://)[^/\s:@"']+:[^\s/"']*@)");
  return re;
}

// Replaces each match of `re` (group 1) in `s` by what `with` returns for it; "" keeps the match.
template <typename F>
void replace_each(std::string& s, const RE2& re, F&& with) {
  std::string out;
  re2::StringPiece in(s), m;
  const char* last = s.data();
  bool any = false;
  while (RE2::FindAndConsume(&in, re, &m)) {
    std::string by = with(std::string_view(m.data(), m.size()));
    if (by.empty() || by == std::string_view(m.data(), m.size())) continue;
    any = true;
    out.append(last, static_cast<std::size_t>(m.data() - last));
    out += by;
    last = m.data() + m.size();
  }
  if (!any) return;
  out.append(last, static_cast<std::size_t>(s.data() + s.size() - last));
  s = std::move(out);
}

void redact_facts(Redactor& r, correlate::FactMap& m) {
  for (auto& [k, f] : m)  // numbers and lists of numbers (ranks, pids, counts) name no one
    if (auto* s = std::get_if<std::string>(&f.value)) *s = r.apply(*s);
}

void redact_json(Redactor& r, nlohmann::ordered_json& j) {
  if (j.is_string()) j = r.apply(j.get<std::string>());
  else if (j.is_array() || j.is_object())
    for (auto& v : j) redact_json(r, v);
}

}  // namespace

void Redactor::add_report(const Report& r) {
  for (const auto& node : r.facts.nodes) add_node(node.name);
  // Every name the job uses for a host: launchers' master addresses, the hosts lines name.
  for (const auto& node : r.facts.nodes)
    for (const auto& [k, v] : node.launch)
      if (k == "master_addr" || k == "rdzv_endpoint" || k == "endpoint") add_host(v.substr(0, v.rfind(':') == std::string::npos ? v.size() : v.rfind(':')));
  add_host(r.facts.job.master_addr);
  for (const auto& e : r.events) {
    add_host(e.get_str("host"));
    if (!e.node.empty()) add_host(e.node);
  }
  for (const auto& e : r.events) {
    learn(e.text);
    for (const auto& b : e.body) learn(b);
  }
}

void Redactor::add_node(const std::string& name) {
  if (name.empty() || hosts_.count(name) != 0 || meaningful_ipv4(name) || not_a_host(name)) return;
  if (ipv4(name)) {  // a node named by its address: an address like the others
    seen_.emplace(name, "ip#" + std::to_string(next_ip_++));
    return;
  }
  hosts_[name] = "node#" + std::to_string(next_node_++);
  // A node named in full (gpu-a01.cluster.local) is often called by its short name too (its folder).
  if (const auto dot = name.find('.'); dot != std::string::npos && dot > 0) hosts_.emplace(name.substr(0, dot), hosts_[name]);
}

void Redactor::add_host(const std::string& name) {
  if (name.size() < 2 || hosts_.count(name) != 0 || not_a_host(name) || meaningful_ipv4(name) || ipv4(name)) return;
  if (name.find_first_of(" \t/\\#") != std::string::npos) return;
  const auto dot = name.find('.');
  if (dot != std::string::npos && dot > 0) {
    if (auto it = hosts_.find(name.substr(0, dot)); it != hosts_.end()) {
      hosts_[name] = it->second;
      return;
    }
  }
  hosts_[name] = "host#" + std::to_string(next_host_++);
  if (dot != std::string::npos && dot > 0 && fqdn(name)) hosts_.emplace(name.substr(0, dot), hosts_[name]);
}

void Redactor::learn(std::string_view raw) {
  if (raw.empty()) return;
  // Credentials in a URL (user:p@ss@host) name no host before their last '@'.
  std::string stripped;
  std::string_view text = raw;
  if (text.find("://") != std::string_view::npos) {
    stripped.assign(raw);
    RE2::GlobalReplace(&stripped, url_credentials(), "\\1");
    text = stripped;
  }
  const re2::StringPiece in(text.data(), text.size());
  // The word after a keyword that names a host: "peer gpu-07 reset", "host: login3", "MASTER_ADDR=x".
  static const RE2 after(
      R"((?i)\b(?:peers?|hosts?|hostname|nodes?|nodename|addr|address|endpoint|master_?addr|master|server|remote|pods?|login)(\s*[:=]\s*|\s+)["'\[(]?([A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9]))");
  {
    re2::StringPiece rest = in, sep, word;
    while (RE2::FindAndConsume(&rest, after, &sep, &word)) {
      const std::string w(word);
      const bool said = sep.find(':') != re2::StringPiece::npos || sep.find('=') != re2::StringPiece::npos;
      if (host_shaped(w, !said)) add_host(w);
    }
  }
  // HOST:PORT (gpu-a01:29500) and USER@HOST.
  static const RE2 port(R"((?:^|[^A-Za-z0-9_.:/-])([A-Za-z][A-Za-z0-9.-]*[A-Za-z0-9]):\d{2,5}(?:$|[^0-9.]))");
  {
    re2::StringPiece rest = in, word;
    while (RE2::FindAndConsume(&rest, port, &word)) {
      const std::string w(word);
      if (host_shaped(w, true)) add_host(w);
    }
  }
  static const RE2 at(R"((?:^|[^A-Za-z0-9_.%+-])([a-z_][a-z0-9_.-]{0,31})@([A-Za-z0-9][A-Za-z0-9.-]*[A-Za-z0-9]))");
  {
    re2::StringPiece rest = in, u, h;
    while (RE2::FindAndConsume(&rest, at, &u, &h)) {
      const std::string host(h);
      if (!host_shaped(host, true)) continue;
      add_host(host);
      user(std::string(u));
    }
  }
  // Pod names: "pod/NAME", "pod=NAME".
  static const RE2 pod(R"((?:^|[^A-Za-z])pods?/([a-z0-9][a-z0-9.-]*[a-z0-9]))");
  {
    re2::StringPiece rest = in, word;
    while (RE2::FindAndConsume(&rest, pod, &word)) add_host(std::string(word));
  }
  // AWS-style hosts named after their address.
  static const RE2 ip_host(R"(\b(ip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3})\b)");
  {
    re2::StringPiece rest = in, word;
    while (RE2::FindAndConsume(&rest, ip_host, &word)) add_host(std::string(word));
  }
}

void Redactor::apply(model::Event& e) {
  learn(e.text);
  e.path = apply(e.path);
  e.text = apply(e.text);
  e.node = apply(e.node);
  e.message = apply(e.message);
  for (std::string& b : e.body) b = apply(b);
  for (auto& [k, v] : e.fields)
    if (auto* s = std::get_if<std::string>(&v)) *s = apply(*s);
}

std::string Redactor::user(const std::string& name) {
  if (system_user(name)) return name;
  auto it = users_.find(name);
  if (it == users_.end()) it = users_.emplace(name, "user#" + std::to_string(next_user_++)).first;
  return it->second;
}

// Known names inside a longer word: gpu-a01_rank3.log, plog-gpu-a01-1234.log. Names cut at
// '-', '_' and '.' only (node1 is no part of node10).
std::string Redactor::inside(const std::string& t) {
  std::vector<std::size_t> cuts = {0};
  for (std::size_t i = 0; i < t.size() && cuts.size() < 24; ++i)
    if (t[i] == '-' || t[i] == '_' || t[i] == '.') cuts.push_back(i + 1);
  std::string out;
  std::size_t done = 0;
  for (std::size_t a = 0; a < cuts.size(); ++a) {
    const std::size_t from = cuts[a];
    if (from < done) continue;
    // The longest known name that starts here and ends at a cut or the word's end.
    for (std::size_t b = cuts.size(); b > a; --b) {
      const std::size_t to = b == cuts.size() ? t.size() : cuts[b] - 1;
      if (to <= from + 1) continue;
      const std::string piece = t.substr(from, to - from);
      auto it = hosts_.find(piece);
      if (it == hosts_.end() || piece.size() < 4) continue;
      out.append(t, done, from - done);
      out += it->second;
      done = to;
      break;
    }
  }
  if (done == 0) return t;
  out.append(t, done, std::string::npos);
  return out;
}

std::string Redactor::token(const std::string& t) {
  if (auto it = hosts_.find(t); it != hosts_.end()) return it->second;
  if (auto it = seen_.find(t); it != seen_.end()) return it->second;
  if (auto it = users_.find(t); it != users_.end() && t.size() >= 3) return it->second;
  const std::size_t dot = t.find('.');
  if (dot != std::string::npos && dot > 0) {
    // A known host with a domain (gpu-a01.cluster.local) or a file named after it (gpu-a01.log).
    if (auto it = hosts_.find(t.substr(0, dot)); it != hosts_.end()) {
      const std::string_view last = std::string_view(t).substr(t.rfind('.') + 1);
      if (base::file_extension(last)) return it->second + t.substr(dot);
      if (fqdn(t) || !std::any_of(t.begin(), t.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); }))
        return it->second;
    }
  }
  if (fqdn(t)) {
    add_host(t);
    if (auto it = hosts_.find(t); it != hosts_.end()) return it->second;
  }
  return inside(t);
}

std::string Redactor::apply(const std::string& text) {
  // A JSON line (a container runtime's): masked value by value, after unescaping, so that what is
  // quoted inside ("{\"password\": \"x\"}") is read as the program wrote it.
  std::size_t lead = 0;
  while (lead < text.size() && (text[lead] == ' ' || text[lead] == '\t')) ++lead;
  if (lead < text.size() && text[lead] == '{' && text.back() == '}') {
    auto j = nlohmann::ordered_json::parse(text, nullptr, false);
    if (!j.is_discarded() && j.is_object()) {
      for (auto& [k, v] : j.items()) {
        (void)k;
        if (v.is_string()) learn(v.get_ref<const std::string&>());
      }
      redact_json(*this, j);
      return text.substr(0, lead) + j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    }
  }
  return apply_plain(text);
}

std::string Redactor::apply_plain(const std::string& text) {
  std::string s = text;
  learn(s);
  // Secrets first; their replacements hold no word the passes below touch again.
  static const RE2 pem(R"((-----BEGIN [A-Z ]*PRIVATE KEY-----).*)");
  RE2::GlobalReplace(&s, pem, "\\1 [redacted]");
  // Credentials in URLs, a password with '@' in it included: up to the authority's last '@'.
  RE2::GlobalReplace(&s, url_credentials(), "\\1[redacted]@");
  static const RE2 cookie(R"((?i)\b((?:set-)?cookie\s*:\s*)\S.*)");
  RE2::GlobalReplace(&s, cookie, "\\1[redacted]");
  static const RE2 bearer(R"((?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{6,})");
  RE2::GlobalReplace(&s, bearer, "\\1\\2[redacted]");
  // Options of a command line: --password x, --token=x, --api-key x.
  static const RE2 flag(
      R"((?i)((?:^|\s)--?(?:[a-z0-9]+[-_])*(?:password|passwd|pass|pwd|token|secret|api[-_]?key|access[-_]?key|secret[-_]?key|private[-_]?key|auth[-_]?token|credentials?)(?:=|\s+))("[^"]*"|'[^']*'|[^\s"']+))");
  RE2::GlobalReplace(&s, flag, "\\1[redacted]");
  // "-p SECRET" where the tool takes a password so (sshpass, mysql, redis-cli ...).
  static const RE2 pw_tool(R"(\b(?:sshpass|mysql|mysqldump|mysqladmin|psql|redis-cli|mongo|mongosh)\b)");
  if (RE2::PartialMatch(s, pw_tool)) {
    static const RE2 dash_p(R"((\s-p\s*)([^\s-][^\s]*))");
    RE2::GlobalReplace(&s, dash_p, "\\1[redacted]");
  }
  // KEY=VALUE and KEY: VALUE where the key names a secret (SECRET_KEY, MYSQL_PWD, "password": ...).
  // A number after a "token" key is a count (max_token=4096), not a secret.
  static const RE2 kv(
      R"((?i)((?:^|[^A-Za-z0-9])[A-Za-z0-9_.-]*(?:token|secret|passw(?:or)?d|passwd|pwd|_pass|api[_-]?key|access[_-]?key|private[_-]?key|secret[_-]?key|credentials?|authorization|session[_-]?id|sessionid)["']?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s"'&<>;{}]+))");
  {
    std::string out;
    re2::StringPiece in(s), key, val;
    const char* last = s.data();
    bool any = false;
    while (RE2::FindAndConsume(&in, kv, &key, &val)) {
      const std::string v(val);
      if (v.empty()) continue;
      const bool number = std::all_of(v.begin(), v.end(), [](char c) { return digit(c) || c == '.' || c == ','; });
      const bool counted = number && lower(std::string(key)).find("token") != std::string::npos;
      const bool cwd = v.front() == '/' && lower(std::string(key)).find("pwd") != std::string::npos;  // PWD=/path
      if (v.rfind("[redacted]", 0) == 0 || lower(v) == "bearer" || lower(v) == "basic" || counted || cwd) continue;
      any = true;
      out.append(last, static_cast<std::size_t>(val.data() - last));
      out += (v.front() == '"' || v.front() == '\'') ? std::string(1, v.front()) + "[redacted]" + v.front() : "[redacted]";
      last = val.data() + val.size();
    }
    if (any) {
      out.append(last, static_cast<std::size_t>(s.data() + s.size() - last));
      s = std::move(out);
    }
  }
  static const RE2 known(
      R"(\b(?:hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|xox[abp]-[A-Za-z0-9-]{10,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})\b)");
  RE2::GlobalReplace(&s, known, "[redacted]");
  // E-mail addresses, numbered as met.
  static const RE2 email(R"(([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}))");
  replace_each(s, email, [&](std::string_view m) {
    auto it = seen_.find(std::string(m));
    if (it == seen_.end()) it = seen_.emplace(std::string(m), "email#" + std::to_string(next_email_++)).first;
    return it->second;
  });
  // User names: home and users folders (/home/NAME, /data/users/NAME, C:\Users\NAME), ~NAME,
  // user=NAME, NAME@host.
  static const RE2 home(R"((?i)(?:/home/|/users/|\\users\\)([^/\\\s"'<>&:;,]+))");
  replace_each(s, home, [&](std::string_view m) { return user(std::string(m)); });
  static const RE2 tilde(R"((?:^|[\s"'=:(,])~([a-z_][a-z0-9_.-]*))");
  replace_each(s, tilde, [&](std::string_view m) { return user(std::string(m)); });
  static const RE2 user_kv(R"((?i)\b(?:user|username|user_name|login|logname|owner|uid_name)["']?\s*[:=]\s*["']?([a-z_][a-z0-9_.-]{1,31}))");
  replace_each(s, user_kv, [&](std::string_view m) { return user(std::string(m)); });
  static const RE2 user_at(R"((?:^|[^A-Za-z0-9_.%+-])([a-z_][a-z0-9_.-]{0,31})@[A-Za-z0-9])");
  replace_each(s, user_at, [&](std::string_view m) { return user(std::string(m)); });
  // IPv6 addresses: the longest valid run (a v4-mapped tail included), whole.
  {
    std::string out;
    std::size_t i = 0, last = 0;
    bool any = false;
    while (i < s.size()) {
      const bool start = (std::isxdigit(static_cast<unsigned char>(s[i])) || s[i] == ':') &&
                         (i == 0 || !(alnum(s[i - 1]) || s[i - 1] == ':' || s[i - 1] == '_' || s[i - 1] == '.'));
      const std::size_t n = start ? ipv6_at(s, i) : 0;
      if (n == 0) {
        ++i;
        continue;
      }
      const std::string key = s.substr(i, n);
      auto it = seen_.find(key);
      if (it == seen_.end()) it = seen_.emplace(key, "ip#" + std::to_string(next_ip_++)).first;
      out.append(s, last, i - last);
      out += it->second;
      any = true;
      i += n;
      last = i;
    }
    if (any) {
      out.append(s, last, std::string::npos);
      s = std::move(out);
    }
  }
  // IPv4 addresses, also inside a word (172.16.5.4_eth0, job-10.1.2.3); not a version's numbers.
  {
    std::string out;
    std::size_t i = 0, last = 0;
    bool any = false;
    while (i < s.size()) {
      if (!digit(s[i]) || (i > 0 && (alpha(s[i - 1]) || digit(s[i - 1]) || s[i - 1] == '.'))) {
        ++i;
        continue;
      }
      std::size_t j = i;
      int parts = 0;
      while (parts < 4) {
        const std::size_t from = j;
        while (j < s.size() && digit(s[j]) && j - from < 4) ++j;
        if (j == from || j - from > 3) break;
        ++parts;
        if (parts < 4) {
          if (j < s.size() && s[j] == '.') ++j;
          else break;
        }
      }
      const bool whole = parts == 4 && !(j < s.size() && (digit(s[j]) || (s[j] == '.' && j + 1 < s.size() && digit(s[j + 1]))));
      if (!whole) {
        i = std::max(j, i + 1);
        while (i < s.size() && (digit(s[i]) || s[i] == '.')) ++i;  // the rest of this run of numbers
        continue;
      }
      const std::string key = s.substr(i, j - i);
      // "version 10.2.3.4", "driver: 23.0.2.1": numbers of a release.
      const std::string before = lower(std::string_view(s).substr(i >= 24 ? i - 24 : 0, i >= 24 ? 24 : i));
      const bool version = before.find("version") != std::string::npos || before.find("ver ") != std::string::npos ||
                           before.find("firmware") != std::string::npos || before.find("driver") != std::string::npos ||
                           before.find("cann") != std::string::npos;
      if (!meaningful_ipv4(key) && !version) {
        auto it = seen_.find(key);
        if (it == seen_.end()) it = seen_.emplace(key, "ip#" + std::to_string(next_ip_++)).first;
        out.append(s, last, i - last);
        out += it->second;
        last = j;
        any = true;
      }
      i = j;
    }
    if (any) {
      out.append(s, last, std::string::npos);
      s = std::move(out);
    }
  }
  // One pass over whole words: host names (known, learned, fully qualified), users met before.
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    if (!token_char(s[i])) {
      out.push_back(s[i++]);
      continue;
    }
    std::size_t j = i;
    while (j < s.size() && token_char(s[j])) ++j;
    std::string t = s.substr(i, j - i);
    std::string tail;  // dots that end a sentence are not part of a name
    while (!t.empty() && t.back() == '.') {
      tail.push_back('.');
      t.pop_back();
    }
    out += t.empty() ? t : token(t);
    out += tail;
    i = j;
  }
  return out;
}

std::string masked_job_name(const std::string& name) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  static const std::array<const char*, 11> kExt = {".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst", ".tgz", ".tar",
                                                  ".zip",    ".gz",      ".bz2",    ".xz",      ".zst"};
  std::string ext;
  for (const char* e : kExt) {
    const std::string_view x(e);
    if (name.size() > x.size() && name.compare(name.size() - x.size(), x.size(), x) == 0) {
      ext = x;
      break;
    }
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "job-%012llx", static_cast<unsigned long long>(h & 0xffffffffffffull));
  return buf + ext;
}

RedactedReport redact(const Report& r) {
  Redactor red(r);
  return redact(r, red);
}

RedactedReport redact(const Report& r, Redactor& red) {
  RedactedReport o;
  o.events = r.events;
  o.facts = r.facts;
  o.analysis = r.analysis;
  o.inventory = r.inventory;
  o.rule_problems = r.rule_problems;
  o.rules_loaded = r.rules_loaded;
  o.version = r.version;
  o.analysed_at = r.analysed_at;
  o.full = r.full;
  for (auto& n : o.facts.nodes) {
    n.name = red.apply(n.name);
    for (auto& [k, v] : n.launch) v = red.apply(v);
    for (auto& [k, v] : n.versions) v = red.apply(v);
    redact_facts(red, n.derived);
  }
  for (auto& e : o.events) red.apply(e);
  if (r.context != nullptr) {  // the lines around the evidence: learned first, as the events' lines were
    o.context = *r.context;
    o.has_context = true;
    for (const auto& [i, around] : o.context) {
      for (const auto& [n, text] : around.before) red.learn(text);
      for (const auto& [n, text] : around.after) red.learn(text);
    }
    for (auto& [i, around] : o.context) {
      for (auto& [n, text] : around.before) text = red.apply(text);
      for (auto& [n, text] : around.after) text = red.apply(text);
    }
  }
  for (auto& [rank, rk] : o.facts.ranks) rk.node = red.apply(rk.node);
  for (auto& rk : o.facts.rank_table) {
    rk.node = red.apply(rk.node);
    rk.detail = red.apply(rk.detail);
    rk.launcher = red.apply(rk.launcher);
    if (rk.progress) {
      rk.progress->path = red.apply(rk.progress->path);
      rk.progress->text = red.apply(rk.progress->text);
    }
  }
  o.facts.job.master_addr = red.apply(o.facts.job.master_addr);
  for (auto& [k, v] : o.facts.job.waits_on) v = red.apply(v);
  redact_facts(red, o.facts.job.derived);
  for (auto& f : o.analysis.findings) {
    f.node = red.apply(f.node);
    f.summary = red.apply(f.summary);
    f.summary_en = red.apply(f.summary_en);
    f.remedy = red.apply(f.remedy);
  }
  auto& v = o.analysis.verdict;
  v.summary = red.apply(v.summary);
  v.summary_en = red.apply(v.summary_en);
  v.remedy = red.apply(v.remedy);
  v.node = red.apply(v.node);
  for (auto& w : v.why) w = red.apply(w);
  v.repeated = red.apply(v.repeated);
  for (auto& p : o.inventory.unreadable) {
    p.path = red.apply(p.path);
    p.reason = red.apply(p.reason);
  }
  for (auto& p : o.inventory.skipped) {
    p.path = red.apply(p.path);
    p.reason = red.apply(p.reason);
  }
  for (auto& p : o.rule_problems) {
    p.where = red.apply(p.where);
    p.message = red.apply(p.message);
  }
  o.inputs = red.apply(r.inputs);
  return o;
}

}  // namespace dtriage::report
