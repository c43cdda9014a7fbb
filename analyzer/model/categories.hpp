// The root-cause categories of the contract (docs/CONTRACT.md): the only ids `verdict.category`,
// a rule's `category` and a failed pre-launch check's category may hold. A test keeps this list,
// the contract's table and the report schema's enum the same.
#pragma once

#include <algorithm>
#include <array>
#include <string_view>

namespace dtriage::model {

inline constexpr std::array<std::string_view, 20> kCategories = {
    "nproc-device-mismatch", "device-binding-duplicate", "rendezvous-failure", "port-in-use",
    "world-size-mismatch",   "env-version-mismatch",     "collective-timeout", "network-transport-error",
    "shm-insufficient",      "device-hardware-error",    "device-oom",         "host-oom-killed",
    "worker-signal",         "operator-error",           "worker-exception",   "hccl-config-error",
    "collective-mismatch",   "device-visibility-config", "external-termination", "unknown"};

constexpr bool is_category(std::string_view id) {
  return std::find(kCategories.begin(), kCategories.end(), id) != kCategories.end();
}

// A category named in code: a literal that is no contract id does not compile.
struct CategoryId {
  consteval CategoryId(const char* name) : id(name) {  // NOLINT(google-explicit-constructor): literals convert
    if (!is_category(name)) throw "not a root-cause category of docs/CONTRACT.md";
  }
  const char* id;
};

}  // namespace dtriage::model
