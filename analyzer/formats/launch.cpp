#include "formats/launch.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "formats/util.hpp"

namespace dtriage::formats {
namespace {

// Words, with simple quotes removed; a backslash (a continued line) separates like a blank.
std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> w;
  std::string cur;
  char quote = 0;
  bool in_word = false;
  for (char c : text) {
    if (quote) {
      if (c == quote) quote = 0;
      else cur.push_back(c);
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\') {
      if (in_word) w.push_back(cur);
      cur.clear();
      in_word = false;
      continue;
    }
    cur.push_back(c);
    in_word = true;
  }
  if (in_word) w.push_back(cur);
  return w;
}

bool launcher_word(const std::string& w) {
  const std::string base = w.substr(w.rfind('/') == std::string::npos ? 0 : w.rfind('/') + 1);
  return base == "torchrun" || w == "torch.distributed.run" || w == "torch.distributed.launch";
}

std::string option_key(std::string k) {
  std::replace(k.begin(), k.end(), '-', '_');
  return k;
}

void apply(LaunchCommand& l, const std::string& key, const std::string& v) {
  if (key == "__standalone") {
    l.nnodes = 1;
  } else if (key == "__nnodes") {
    const auto colon = v.find(':');  // MIN:MAX
    l.nnodes = to_int(colon == std::string::npos ? v : v.substr(colon + 1));
  } else if (key == "__nproc_per_node") {
    l.nproc_per_node = to_int(v);
    if (!l.nproc_per_node) l.nproc_text = v;
  } else if (key == "__node_rank") {
    l.node_rank = to_int(v);
  } else if (key == "__master_addr") {
    l.master_addr = v;
  } else if (key == "__master_port") {
    l.master_port = to_int(v);
  } else if (key == "__max_restarts") {
    l.max_restarts = to_int(v);
  } else if (key == "__rdzv_backend") {
    l.rdzv_backend = v;
  } else if (key == "__local_addr") {
    l.local_addr = v;
  } else if (key == "__rdzv_endpoint") {
    const auto colon = v.rfind(':');
    l.master_addr = v.substr(0, colon);
    if (colon != std::string::npos) l.master_port = to_int(v.substr(colon + 1));
  }
}

}  // namespace

LaunchCommand parse_launch_command(std::string_view text) {
  LaunchCommand l;
  const std::vector<std::string> w = words_of(text);
  std::size_t start = 0;
  for (std::size_t i = 0; i < w.size(); ++i)
    if (launcher_word(w[i])) {
      start = i + 1;
      l.launcher = true;
      break;
    }
  static const std::set<std::string> kFlags = {"__standalone", "__no_python", "__module", "__run_path", "__no_spawn"};
  bool started = false;
  for (std::size_t i = start; i < w.size(); ++i) {
    std::string k = w[i], v;
    if (!starts_with(k, "-")) {
      if (started || l.launcher) break;  // the script
      continue;
    }
    if (!started && !starts_with(k, "--")) {  // the interpreter's own: python -u -m torch.distributed.run
      if (k == "-m" && i + 1 < w.size()) ++i;
      continue;
    }
    started = true;
    bool has_value = false;
    if (const auto eq = k.find('='); eq != std::string::npos) {
      v = k.substr(eq + 1);
      k = k.substr(0, eq);
    } else if (!kFlags.count(option_key(k)) && i + 1 < w.size() && !starts_with(w[i + 1], "-")) {
      v = w[i + 1];
      has_value = true;
    }
    apply(l, option_key(k), v);
    if (has_value) ++i;
  }
  return l;
}

}  // namespace dtriage::formats
