// --redact: masks host names, IP addresses, home-directory user names and secrets.
#include <re2/re2.h>

#include <algorithm>
#include <map>

#include "report/report.hpp"

namespace dtriage::report {

using re2::RE2;

Redactor::Redactor(const Report& r) {
  std::vector<std::string> names;
  for (const auto& n : r.facts.nodes)
    if (!n.name.empty()) names.push_back(n.name);
  std::map<std::string, std::string> map;
  for (std::size_t i = 0; i < names.size(); ++i) map[names[i]] = "node-" + std::to_string(i + 1);
  // Host names that are not node names (FQDNs, peers named in messages) get the next numbers.
  std::size_t next = names.size() + 1;
  for (const auto& e : r.events) {
    for (const char* k : {"host"}) {
      const std::string h = e.get_str(k);
      if (h.empty() || map.count(h) != 0) continue;
      const std::string shortname = h.substr(0, h.find('.'));
      auto it = map.find(shortname);
      map[h] = it != map.end() ? it->second : "node-" + std::to_string(next++);
    }
    if (!e.node.empty() && map.count(e.node) == 0) map[e.node] = "node-" + std::to_string(next++);
  }
  for (const auto& [from, to] : map) {
    bool ip = !from.empty();
    for (char c : from) ip = ip && (std::isdigit(static_cast<unsigned char>(c)) || c == '.');
    if (!ip && from.size() >= 2) hosts_.emplace_back(from, to);
  }
  std::sort(hosts_.begin(), hosts_.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

std::string Redactor::apply(const std::string& text) const {
  std::string s = text;
  auto is_name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; };
  for (const auto& [from, to] : hosts_) {
    std::string out;
    std::size_t pos = 0;
    while (true) {
      const std::size_t at = s.find(from, pos);
      if (at == std::string::npos) break;
      const bool left_ok = at == 0 || !is_name_char(s[at - 1]);
      const bool right_ok = at + from.size() >= s.size() || !is_name_char(s[at + from.size()]);
      out.append(s, pos, at - pos);
      out += left_ok && right_ok ? to : from;
      pos = at + from.size();
    }
    out.append(s, pos, std::string::npos);
    s = std::move(out);
  }
  // IPv4 addresses, numbered in order of appearance.
  static const RE2 ip(R"((\b(?:\d{1,3}\.){3}\d{1,3}\b))");
  std::map<std::string, std::string> ips;
  std::string out;
  re2::StringPiece in(s), m;
  const char* last = s.data();
  while (RE2::FindAndConsume(&in, ip, &m)) {
    out.append(last, static_cast<std::size_t>(m.data() - last));
    const std::string key(m);
    auto it = ips.find(key);
    if (it == ips.end()) it = ips.emplace(key, "ip-" + std::to_string(ips.size() + 1)).first;
    out += it->second;
    last = m.data() + m.size();
  }
  out.append(last, static_cast<std::size_t>(s.data() + s.size() - last));
  s = std::move(out);
  // User names in home paths.
  static const RE2 home(R"(/(home|Users)/[^/\s"'<>&\\]+)");
  RE2::GlobalReplace(&s, home, "/\\1/user");
  // Tokens, keys, passwords.
  static const RE2 kv(R"((?i)((?:token|api[_-]?key|secret|password|passwd|access[_-]?key)["']?\s*[:=]\s*["']?)[^\s"'&<>,;]+)");
  RE2::GlobalReplace(&s, kv, "\\1[redacted]");
  static const RE2 known(R"(\b(?:hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|xox[abp]-[A-Za-z0-9-]{10,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})\b)");
  RE2::GlobalReplace(&s, known, "[redacted]");
  return s;
}

}  // namespace dtriage::report
