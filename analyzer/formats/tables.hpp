// Tables every parser and the facts share: signal numbers and names, version keys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dtriage::formats {

// "SIGKILL" for 9, "SIG42" for numbers without a name here; "" for numbers <= 0.
std::string signal_name(std::int64_t number);
// "9" / "SIGKILL" / "Signals.SIGKILL" / "KILL" -> "SIGKILL"; other words are returned unchanged.
std::string normalize_signal(std::string_view text);

// A component whose version the logs print and whose mismatch across nodes matters.
struct VersionKey {
  std::string_view word;   // as written in logs ("torch_npu", "pytorch", "cann")
  std::string_view field;  // the event field and node fact that holds it ("torch_version")
};
// The one list of version keys: parsers set these fields, the facts compare them across nodes.
const VersionKey* version_keys(std::size_t& count);
// The field for a word as written (case-insensitive), or "" when it is not a version key.
std::string_view version_field(std::string_view word);

}  // namespace dtriage::formats
