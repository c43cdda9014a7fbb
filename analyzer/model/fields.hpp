// The registry of names: every event field a parser may set and every node / job fact the
// correlation derives, with its type and meaning. Parsers, the fact view, `dtriage rules lint`,
// `dtriage rules fields` and the README's list all read this one table.
#pragma once

#include <span>
#include <string_view>

namespace dtriage::model {

enum class FieldType { Int, Text, Bool, List };

struct FieldInfo {
  std::string_view name;     // "nproc_per_node", or "node.devices" / "job.world_size" for facts
  FieldType type;
  std::string_view meaning;
  bool keep = false;         // an event carrying this field is a fact worth keeping (analyze)
};

// Event fields: the built-in members (kind, code, node, rank, ...) and the format-specific fields.
std::span<const FieldInfo> event_fields();
// Facts per node ("node.*") and per job ("job.*").
std::span<const FieldInfo> fact_fields();

const FieldInfo* find_event_field(std::string_view name);
const FieldInfo* find_fact(std::string_view name);  // with its "node." / "job." prefix

const char* type_name(FieldType t);

}  // namespace dtriage::model
