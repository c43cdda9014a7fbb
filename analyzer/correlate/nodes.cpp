// Which node each line belongs to, from the structure of the dump: sibling folders (or per-node
// archives) that each hold logs are nodes, whatever their names. A host the lines themselves name
// (NCCL prefix, failure table) wins over the folder; the path word list is only a tie-breaker.
#include <re2/re2.h>

#include <map>
#include <set>

#include "correlate/facts.hpp"
#include "formats/util.hpp"
#include "ingest/node_hint.hpp"

namespace dtriage::correlate {
namespace {

struct Dir {
  std::map<std::string, Dir> children;
  bool has_files = false;
  std::set<std::string> files;  // relative paths of the files below, digits as '#'
};

std::string shape(const std::string& s) {
  std::string o;
  for (char c : s) o.push_back(c >= '0' && c <= '9' ? '#' : c);
  return o;
}

// Siblings are nodes when they look alike: names that share a stem (node1 / node2, gpu-a01 /
// gpu-a02, hostA / hostB), or the same files inside (one node's layout repeated). Component
// folders (devicePlugin/, npu-exporter/) and layers (process_log/, environment_check/) are not.
bool alike(const std::map<std::string, const Dir*>& kids) {
  std::string prefix = kids.begin()->first;
  for (const auto& [name, d] : kids) {
    std::size_t n = 0;
    while (n < prefix.size() && n < name.size() && prefix[n] == name[n]) ++n;
    prefix.resize(n);
  }
  if (prefix.size() >= 2) return true;
  std::set<std::string> common = kids.begin()->second->files;
  for (const auto& [name, d] : kids) {
    std::set<std::string> both;
    for (const auto& f : d->files)
      if (common.count(f) != 0) both.insert(f);
    common = std::move(both);
  }
  return !common.empty();
}


// Folder names that are a layer of one node's logs, never a node.
bool layer_word(const std::string& name) {
  static const re2::RE2 re(
      R"((?i)^(?:plog|debug|run|device-?\d+|devices?|logs?|log_?dir|ascend|attempt_\d+|\d+|rank[-_]?\d+|ranks?|torchrun_logs|)"
      R"(stdout|stderr|tmp|temp|outputs?|ckpts?|checkpoints?|none_\w+|train|eval|test|val|data|configs?|scripts|src|code|)"
      R"(results|metrics|tensorboard|runs|wandb|profil\w*|traces?|cores?|crash\w*|dumps?|kernel|system|env|slurm\w*|job\w*)$)");
  return re2::RE2::FullMatch(name, re);
}

// Source path -> the folder (or archive, suffix stripped) that makes it one node's.
std::map<std::string, std::string> structural_nodes(const std::vector<std::string>& sources) {
  Dir root;
  for (const std::string& p : sources) {
    const auto parts = ingest::split_components(p);
    Dir* d = &root;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      d = &d->children[std::string(parts[i])];
      std::string rest;
      for (std::size_t k = i + 1; k < parts.size(); ++k) rest += "/" + shape(std::string(parts[k]));
      d->files.insert(rest);
    }
    d->has_files = true;
  }
  std::size_t depth = 0;
  const Dir* d = &root;
  while (!d->has_files && d->children.size() == 1) {
    d = &d->children.begin()->second;
    ++depth;
  }
  std::set<std::string> nodes;
  std::map<std::string, const Dir*> kids;
  for (const auto& [name, child] : d->children) {
    const std::string stem = ingest::strip_archive_suffix(name);
    if (layer_word(stem)) continue;
    nodes.insert(name);
    kids[stem] = &child;
  }
  std::map<std::string, std::string> out;
  if (nodes.size() < 2 || !alike(kids)) return out;
  for (const std::string& p : sources) {
    const auto parts = ingest::split_components(p);
    if (parts.size() > depth + 1 && nodes.count(std::string(parts[depth])) != 0) out[p] = ingest::strip_archive_suffix(parts[depth]);
  }
  return out;
}


// A host named both short ("n003", a folder, an NCCL prefix) and in full ("n003.hpc.example.edu",
// a failure table) is one node, named in full as the logs spell it: when exactly one full name
// starts with the short one and a dot. IP addresses are not aliases.
void join_aliases(std::vector<model::Event>& events, std::vector<model::Sighting>* sightings, std::map<std::string, std::string>& named_by) {
  std::set<std::string> names;
  for (const auto& e : events)
    if (!e.node.empty()) names.insert(e.node);
  std::map<std::string, std::string> full;  // short -> its one full name
  for (const std::string& n : names) {
    const auto dot = n.find('.');
    if (dot == std::string::npos || dot == 0 || formats::short_host(n) == n) continue;  // no dot, or an IP address
    const std::string alias = n.substr(0, dot);
    if (names.count(alias) == 0) continue;
    auto [it, fresh] = full.emplace(alias, n);
    if (!fresh && it->second != n) it->second.clear();  // two full names for one alias: leave them
  }
  for (auto it = full.begin(); it != full.end();) it = it->second.empty() ? full.erase(it) : std::next(it);
  if (full.empty()) return;
  for (auto& e : events)
    if (auto it = full.find(e.node); it != full.end()) e.node = it->second;
  if (sightings != nullptr)
    for (auto& s : *sightings)
      if (auto it = full.find(s.node); it != full.end()) s.node = it->second;
  for (const auto& [alias, name] : full) {
    auto a = named_by.find(alias);
    if (a == named_by.end()) continue;
    named_by.emplace(name, a->second);
    named_by.erase(a);
  }
}

// A file no other way ties to a node, in a folder named after a host the lines name (a failure
// table's "host :", an NCCL prefix): that host's. "n003/" for "n003.hpc.example.edu" too, when it
// is the short name of exactly one.
std::string folder_host(std::string_view path, const std::set<std::string>& hosts) {
  const auto parts = ingest::split_components(path);
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string folder = ingest::strip_archive_suffix(parts[i]);
    if (folder.empty()) continue;
    if (hosts.count(folder) != 0) return folder;
    std::string full;
    int n = 0;
    for (auto it = hosts.lower_bound(folder + "."); it != hosts.end() && it->compare(0, folder.size() + 1, folder + ".") == 0; ++it) {
      full = *it;
      ++n;
    }
    if (n == 1 && formats::short_host(full) != full) return full;
  }
  return "";
}

void name_by_folder(std::vector<model::Event>& events, std::vector<model::Sighting>* sightings) {
  std::set<std::string> hosts;
  for (const auto& e : events)
    if (e.node_from_content && !e.node.empty()) hosts.insert(e.node);
  if (hosts.empty()) return;
  std::map<std::string, std::string> memo;  // path -> host ("" for none)
  auto host_of = [&](const std::string& path) -> const std::string& {
    auto [it, fresh] = memo.emplace(path, "");
    if (fresh) it->second = folder_host(path, hosts);
    return it->second;
  };
  for (auto& e : events)
    if (e.node.empty())
      if (const std::string& h = host_of(e.path); !h.empty()) e.node = h;
  if (sightings != nullptr)
    for (auto& si : *sightings)
      if (si.node.empty())
        if (const std::string& h = host_of(si.path); !h.empty()) si.node = h;
}

}  // namespace

std::map<std::string, std::string> assign_nodes(std::vector<model::Event>& events, std::vector<std::string> sources,
                                                std::vector<model::Sighting>* sightings) {
  std::map<std::string, std::string> named_by;  // node -> content | folder | path
  if (sources.empty())
    for (const auto& e : events) sources.push_back(e.path);
  std::sort(sources.begin(), sources.end());
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  const auto groups = structural_nodes(sources);
  // A group whose lines name exactly one host is that host.
  std::map<std::string, std::set<std::string>> content;  // group -> hosts its lines name
  for (const auto& e : events)
    if (e.node_from_content && !e.node.empty())
      if (auto g = groups.find(e.path); g != groups.end()) content[g->second].insert(e.node);
  for (auto& e : events) {
    if (e.node_from_content && !e.node.empty()) {
      named_by[e.node] = "content";
      continue;
    }
    if (auto g = groups.find(e.path); g != groups.end()) {
      const auto& hosts = content[g->second];
      e.node = hosts.size() == 1 ? *hosts.begin() : g->second;
      if (named_by.count(e.node) == 0) named_by[e.node] = hosts.size() == 1 ? "content" : "folder";
    } else if (!e.node.empty() && named_by.count(e.node) == 0) {
      named_by[e.node] = "path";
    }
  }
  if (sightings != nullptr)
    for (model::Sighting& si : *sightings)
      if (auto g = groups.find(si.path); g != groups.end()) {
        const auto& hosts = content[g->second];
        si.node = hosts.size() == 1 ? *hosts.begin() : g->second;
      }
  name_by_folder(events, sightings);
  join_aliases(events, sightings, named_by);
  return named_by;
}

}  // namespace dtriage::correlate
