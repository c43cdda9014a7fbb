#include "formats/util.hpp"

#include "formats/families.hpp"
#include "formats/parse_util.hpp"

#include <cctype>

namespace dtriage::formats {

std::optional<std::int64_t> to_int(std::string_view s) {
  s = trim(s);
  if (s.empty() || s.size() > 18) return std::nullopt;
  bool neg = false;
  if (s.front() == '-' || s.front() == '+') {
    neg = s.front() == '-';
    s.remove_prefix(1);
    if (s.empty()) return std::nullopt;
  }
  std::int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return neg ? -v : v;
}

std::optional<std::int64_t> hex_to_int(std::string_view s) {
  s = trim(s);
  if (starts_with(s, "0x") || starts_with(s, "0X")) s.remove_prefix(2);
  if (s.empty() || s.size() > 15) return std::nullopt;
  std::int64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return std::nullopt;
    v = v * 16 + d;
  }
  return v;
}

std::string iso(std::string_view date, std::string_view time, std::string_view frac) {
  std::string out;
  out.reserve(32);
  out.append(date);
  out.push_back('T');
  out.append(time);
  if (!frac.empty()) {
    out.push_back('.');
    out.append(frac);
  }
  return out;
}

std::string short_host(std::string_view host) {
  bool ip = !host.empty();
  for (char c : host) ip = ip && (std::isdigit(static_cast<unsigned char>(c)) || c == '.');
  if (ip) return std::string(host);
  return std::string(host.substr(0, host.find('.')));
}

bool same_host(std::string_view a, std::string_view b) {
  if (a == b) return true;
  if (a.empty() || b.empty()) return false;
  const auto is_ip = [](std::string_view h) { return h.find_first_not_of("0123456789.") == std::string_view::npos; };
  if (is_ip(a) || is_ip(b)) return false;
  const auto label = [](std::string_view h) { return h.substr(0, h.find('.')); };
  return label(a) == label(b) && (a.find('.') == std::string_view::npos || b.find('.') == std::string_view::npos);
}

bool loopback_host(std::string_view host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.starts_with("127.") ||
         host.starts_with("localhost.");
}

std::optional<std::int64_t> find_int_after(std::string_view text, std::string_view key) {
  std::size_t pos = 0;
  while ((pos = text.find(key, pos)) != std::string_view::npos) {
    // The key must start a word.
    const bool word_start = pos == 0 || !(std::isalnum(static_cast<unsigned char>(text[pos - 1])) || text[pos - 1] == '_');
    std::size_t i = pos + key.size();
    pos += 1;
    if (!word_start) continue;
    while (i < text.size() && (text[i] == '=' || text[i] == '[' || text[i] == ':' || text[i] == ' ' || text[i] == '(')) ++i;
    std::size_t j = i;
    if (j < text.size() && text[j] == '-') ++j;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
    if (j > i && !(j == i + 1 && text[i] == '-')) {
      if (auto v = to_int(text.substr(i, j - i))) return v;
    }
  }
  return std::nullopt;
}


namespace {
constexpr std::string_view kDeviceMarkers[] = {"device_id", "deviceId", "devId", "devid", "logicDevId", "deviceLogicId",
                                              "Device", "device"};
}  // namespace

std::span<const std::string_view> device_markers() { return kDeviceMarkers; }

std::optional<std::int64_t> find_device(std::string_view msg) {
  for (std::string_view key : kDeviceMarkers) {
    if (auto v = find_int_after(msg, key)) {
      if (*v >= 0 && *v < 4096) return v;
    }
  }
  return std::nullopt;
}

}  // namespace dtriage::formats
