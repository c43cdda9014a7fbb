// Device inventories printed as tables: npu-smi info.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <string>
#include <vector>

#include "model/event.hpp"

namespace dtriage::formats {

// Parses the rows of one `npu-smi info` table. Fills `summary` (device_count, devices, health)
// and emits one event per device ("npu-device") and per process row ("npu-process").
void parse_npu_smi(const std::vector<std::pair<std::uint64_t, std::string>>& rows, model::Event& summary,
                   const std::function<void(model::Event&&)>& emit);

}  // namespace dtriage::formats
