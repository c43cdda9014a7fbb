// --redact: masks host names, addresses, e-mail addresses, user names and secrets in the analysis,
// before any format renders it.
#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "base/text.hpp"
#include "report/report.hpp"

namespace dtriage::report {
namespace {

using re2::RE2;

bool token_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; }

bool ipv4(const std::string& t) {
  int dots = 0, digits = 0;
  for (char c : t) {
    if (c == '.') {
      if (digits == 0) return false;
      ++dots;
      digits = 0;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      if (++digits > 3) return false;
    } else {
      return false;
    }
  }
  return dots == 3 && digits > 0;
}

// A fully qualified domain name: three labels or more, the last alphabetic (not a version or a
// file name), e.g. node7.cluster.example.com.
bool fqdn(const std::string& t) {
  if (std::count(t.begin(), t.end(), '.') < 2) return false;
  const std::string_view last = std::string_view(t).substr(t.rfind('.') + 1);
  if (last.size() < 2 || last.size() > 24 || base::file_extension(last)) return false;
  for (char c : last)
    if (!std::isalpha(static_cast<unsigned char>(c))) return false;
  for (std::size_t i = 0, start = 0; i <= t.size(); ++i)
    if (i == t.size() || t[i] == '.') {
      if (i == start) return false;  // empty label
      start = i + 1;
    }
  return std::isalpha(static_cast<unsigned char>(t[0])) != 0;
}

void redact_event(Redactor& r, model::Event& e) {
  e.path = r.apply(e.path);
  e.text = r.apply(e.text);
  e.node = r.apply(e.node);
  e.message = r.apply(e.message);
  for (std::string& b : e.body) b = r.apply(b);
  for (auto& [k, v] : e.fields)
    if (auto* s = std::get_if<std::string>(&v)) *s = r.apply(*s);
}

void redact_facts(Redactor& r, correlate::FactMap& m) {
  for (auto& [k, f] : m)  // numbers and lists of numbers (ranks, pids, counts) name no one
    if (auto* s = std::get_if<std::string>(&f.value)) *s = r.apply(*s);
}

}  // namespace

Redactor::Redactor(const Report& r) {
  std::size_t n = 1;
  for (const auto& node : r.facts.nodes)
    if (!node.name.empty() && hosts_.count(node.name) == 0) {
      hosts_[node.name] = "node#" + std::to_string(n++);
      // A node named in full (gpu-a01.cluster.local) is often called by its short name too (its folder).
      if (const auto dot = node.name.find('.'); dot != std::string::npos && dot > 0 && !ipv4(node.name))
        hosts_.emplace(node.name.substr(0, dot), hosts_[node.name]);
    }
  next_host_ = n;
  // Host names that are not node names (FQDNs, peers named in messages) get the next numbers.
  auto learn = [&](const std::string& h) {
    if (h.size() < 2 || ipv4(h) || hosts_.count(h) != 0) return;
    const std::string shortname = h.substr(0, h.find('.'));
    auto it = hosts_.find(shortname);
    hosts_[h] = it != hosts_.end() ? it->second : "node#" + std::to_string(next_host_++);
  };
  for (const auto& e : r.events) {
    learn(e.get_str("host"));
    if (!e.node.empty()) learn(e.node);
  }
}

std::string Redactor::token(const std::string& t) {
  if (auto it = hosts_.find(t); it != hosts_.end()) return it->second;
  if (auto it = seen_.find(t); it != seen_.end()) return it->second;
  if (ipv4(t)) return seen_[t] = "ip#" + std::to_string(next_ip_++);
  const std::size_t dot = t.find('.');
  if (dot != std::string::npos && dot > 0) {
    // A known host with a domain (gpu-a01.cluster.local) or a file named after it (gpu-a01.log).
    if (auto it = hosts_.find(t.substr(0, dot)); it != hosts_.end()) {
      const std::string_view last = std::string_view(t).substr(t.rfind('.') + 1);
      if (base::file_extension(last)) return it->second + t.substr(dot);
      return it->second;
    }
  }
  if (fqdn(t)) return seen_[t] = "host#" + std::to_string(next_host_++);
  return t;
}

std::string Redactor::apply(const std::string& text) {
  std::string s = text;
  // Secrets and addresses with punctuation of their own first; their replacements hold no token
  // the pass below would touch again.
  static const RE2 url_cred(R"(([A-Za-z][A-Za-z0-9+.-]*://)[^/\s:@"']+:[^@\s/"']+@)");
  RE2::GlobalReplace(&s, url_cred, "\\1[redacted]@");
  static const RE2 bearer(R"((?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{6,})");
  RE2::GlobalReplace(&s, bearer, "\\1\\2[redacted]");
  static const RE2 kv(
      R"((?i)((?:token|api[_-]?key|secret|password|passwd|access[_-]?key|authorization|credential)s?["']?\s*[:=]\s*["']?)[^\s"'&<>,;{}]+)");
  RE2::GlobalReplace(&s, kv, "\\1[redacted]");
  static const RE2 known(
      R"(\b(?:hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|xox[abp]-[A-Za-z0-9-]{10,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})\b)");
  RE2::GlobalReplace(&s, known, "[redacted]");
  static const RE2 home(R"(/(home|Users)/[^/\s"'<>&\\]+)");
  RE2::GlobalReplace(&s, home, "/\\1/user");
  // E-mail addresses and IPv6 addresses, numbered as met.
  auto number = [&](const RE2& re, const char* prefix, std::size_t& next) {
    std::string out;
    re2::StringPiece in(s), m;
    const char* last = s.data();
    bool any = false;
    while (RE2::FindAndConsume(&in, re, &m)) {
      any = true;
      out.append(last, static_cast<std::size_t>(m.data() - last));
      const std::string key(m);
      auto it = seen_.find(key);
      if (it == seen_.end()) it = seen_.emplace(key, prefix + std::to_string(next++)).first;
      out += it->second;
      last = m.data() + m.size();
    }
    if (!any) return;
    out.append(last, static_cast<std::size_t>(s.data() + s.size() - last));
    s = std::move(out);
  };
  static const RE2 email(R"(([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}))");
  number(email, "email#", next_email_);
  // IPv6: hex groups with colons, with a letter or "::" in them (clock times are all digits).
  static const RE2 ipv6(R"(((?:[0-9A-Fa-f]{1,4}:){2,7}[0-9A-Fa-f]{1,4}|(?:[0-9A-Fa-f]{1,4}:){1,7}:|::(?:[0-9A-Fa-f]{1,4}:){0,6}[0-9A-Fa-f]{1,4}|(?:[0-9A-Fa-f]{1,4}:){1,6}(?::[0-9A-Fa-f]{1,4}){1,6}))");
  {
    std::string out;
    re2::StringPiece in(s), m;
    const char* last = s.data();
    bool any = false;
    while (RE2::FindAndConsume(&in, ipv6, &m)) {
      const std::string key(m);
      const bool hex_letter = std::any_of(key.begin(), key.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
      const bool left_ok = m.data() == s.data() || !(std::isalnum(static_cast<unsigned char>(m.data()[-1])) || m.data()[-1] == ':');
      if (!(hex_letter || key.find("::") != std::string::npos) || !left_ok) continue;
      any = true;
      out.append(last, static_cast<std::size_t>(m.data() - last));
      auto it = seen_.find(key);
      if (it == seen_.end()) it = seen_.emplace(key, "ip#" + std::to_string(next_ip_++)).first;
      out += it->second;
      last = m.data() + m.size();
    }
    if (any) {
      out.append(last, static_cast<std::size_t>(s.data() + s.size() - last));
      s = std::move(out);
    }
  }
  // One pass over whole tokens: host names, IPv4 addresses, fully qualified names.
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

RedactedReport redact(const Report& r) {
  Redactor red(r);
  RedactedReport o;
  o.events = r.events;
  o.facts = r.facts;
  o.analysis = r.analysis;
  o.inventory = r.inventory;
  o.rule_problems = r.rule_problems;
  o.rules_loaded = r.rules_loaded;
  o.version = r.version;
  // Node names first, in node-table order, so that numbering follows the table.
  for (auto& n : o.facts.nodes) {
    n.name = red.apply(n.name);
    for (auto& [k, v] : n.launch) v = red.apply(v);
    for (auto& [k, v] : n.versions) v = red.apply(v);
    redact_facts(red, n.derived);
  }
  for (auto& e : o.events) redact_event(red, e);
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
    f.remedy = red.apply(f.remedy);
  }
  auto& v = o.analysis.verdict;
  v.summary = red.apply(v.summary);
  v.remedy = red.apply(v.remedy);
  v.node = red.apply(v.node);
  for (auto& w : v.why) w = red.apply(w);
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
  return o;
}

}  // namespace dtriage::report
