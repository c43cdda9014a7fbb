// Small text helpers shared by the parsers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dtriage::formats {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

inline bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
inline bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

// Parses a decimal integer (optionally negative); nullopt when `s` is not one.
std::optional<std::int64_t> to_int(std::string_view s);

// Parses a hexadecimal integer with or without 0x.
std::optional<std::int64_t> hex_to_int(std::string_view s);

// "2025-06-04", "10:11:12", "123456" -> "2025-06-04T10:11:12.123456" (frac may be empty).
std::string iso(std::string_view date, std::string_view time, std::string_view frac = {});

// A host name as NCCL prints it (up to the first dot); IP addresses stay whole.
std::string short_host(std::string_view host);

// Whether two spellings name one host: equal, or a short name and its FQDN (an IP address is
// compared whole).
bool same_host(std::string_view a, std::string_view b);

// Whether a host spelling is this machine's own whatever the node (localhost, 127.x.x.x, ::1).
bool loopback_host(std::string_view host);

// Finds "key<sep><int>" such as "device_id=3", "devId[3]", "rank[12]" in a message.
std::optional<std::int64_t> find_int_after(std::string_view text, std::string_view key);

}  // namespace dtriage::formats
