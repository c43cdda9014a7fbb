// torchrun text pieces: "  key : value" lines of the launch-config dump and of failure tables.
#include "formats/families.hpp"
#include "formats/parse_util.hpp"

namespace dtriage::formats {

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

}  // namespace dtriage::formats
