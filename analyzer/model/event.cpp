#include "model/event.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iterator>
#include <sstream>

#include "base/json_escape.hpp"

namespace dtriage::model {

namespace {
constexpr std::string_view kKindNames[] = {"",        "plog",   "cann",       "torch_npu", "nccl",     "torch", "torchrun",
                                           "python",  "npu-smi", "nvidia-smi", "kernel",    "snapshot", "log",   "line"};
static_assert(std::size(kKindNames) == kKindCount);
constexpr std::string_view kLevelNames[] = {"", "trace", "debug", "info", "event", "warning", "error"};
static_assert(std::size(kLevelNames) == static_cast<int>(Level::Error) + 1);
}  // namespace

std::string_view kind_name(Kind k) { return kKindNames[static_cast<int>(k)]; }

std::optional<Kind> kind_from_name(std::string_view name) {
  for (int i = 1; i < kKindCount; ++i)
    if (kKindNames[i] == name) return static_cast<Kind>(i);
  return std::nullopt;
}

std::string_view level_name(Level l) { return kLevelNames[static_cast<int>(l)]; }

std::optional<Level> level_from_name(std::string_view name) {
  for (std::size_t i = 1; i < std::size(kLevelNames); ++i)
    if (kLevelNames[i] == name) return static_cast<Level>(i);
  return std::nullopt;
}

Level level_from_word(std::string_view l) {
  auto is = [&](std::string_view w) {
    return l.size() == w.size() && std::equal(l.begin(), l.end(), w.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
  };
  if (l == "E" || l == "F" || is("error") || is("critical") || is("exception")) return Level::Error;
  if (l == "W" || is("warning") || is("warn")) return Level::Warning;
  if (l == "I" || is("info")) return Level::Info;
  if (is("debug")) return Level::Debug;
  if (is("trace")) return Level::Trace;
  if (is("event")) return Level::Event;
  return Level::None;
}

void Event::set(std::string key, Value v) {
  for (auto& [k, val] : fields) {
    if (k == key) {
      val = std::move(v);
      return;
    }
  }
  fields.emplace_back(std::move(key), std::move(v));
}

bool earlier(const Event& a, const Event& b) {
  if (a.time.empty() != b.time.empty()) return !a.time.empty();
  if (const auto c = compare(a.time, b.time); c != 0) return c < 0;
  if (a.path != b.path) return a.path < b.path;
  return a.line < b.line;
}

const Value* Event::get(std::string_view key) const {
  for (const auto& [k, v] : fields)
    if (k == key) return &v;
  return nullptr;
}

std::optional<std::int64_t> Event::get_int(std::string_view key) const {
  if (const Value* v = get(key); v != nullptr && std::holds_alternative<std::int64_t>(*v))
    return std::get<std::int64_t>(*v);
  return std::nullopt;
}

std::string Event::get_str(std::string_view key) const {
  if (const Value* v = get(key); v != nullptr && std::holds_alternative<std::string>(*v))
    return std::get<std::string>(*v);
  return {};
}

namespace {

void key(std::string& out, std::string_view k) {
  out.push_back(',');
  out.push_back('"');
  out.append(k);
  out += "\":";
}

void str_field(std::string& out, std::string_view k, std::string_view v) {
  if (v.empty()) return;
  key(out, k);
  base::append_json_string(out, v);
}

void int_field(std::string& out, std::string_view k, const std::optional<std::int64_t>& v) {
  if (!v) return;
  key(out, k);
  out += std::to_string(*v);
}

void value(std::string& out, const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    out += std::to_string(*i);
  } else if (const auto* d = std::get_if<double>(&v)) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", *d);
    out += buf;
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    base::append_json_string(out, *s);
  } else {
    out += std::get<bool>(v) ? "true" : "false";
  }
}

}  // namespace

std::string value_text(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    std::ostringstream o;
    o << *d;
    return o.str();
  }
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return std::get<bool>(v) ? "true" : "false";
}

void append_jsonl(std::string& out, const Event& e) {
  out += "{\"path\":";
  base::append_json_string(out, e.path);
  out += ",\"line\":";
  out += std::to_string(e.line);
  if (e.end_line > e.line) {
    key(out, "end_line");
    out += std::to_string(e.end_line);
  }
  str_field(out, "kind", kind_name(e.kind));
  str_field(out, "level", level_name(e.level));
  str_field(out, "code", e.code);
  str_field(out, "time", e.time.text);
  if (e.time.year_inferred) out += ",\"time_inferred\":true";
  str_field(out, "node", e.node);
  int_field(out, "pid", e.pid);
  int_field(out, "rank", e.rank);
  int_field(out, "local_rank", e.local_rank);
  int_field(out, "device", e.device);
  for (const auto& [k, v] : e.fields) {
    key(out, k);
    value(out, v);
  }
  str_field(out, "message", e.message);
  key(out, "text");
  base::append_json_string(out, e.text);
  if (!e.body.empty()) {
    key(out, "body");
    out.push_back('[');
    for (std::size_t i = 0; i < e.body.size(); ++i) {
      if (i) out.push_back(',');
      base::append_json_string(out, e.body[i]);
    }
    out.push_back(']');
  }
  out += "}\n";
}

}  // namespace dtriage::model
