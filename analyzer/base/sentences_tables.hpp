// The catalogue's tables, one per language (sentences.cpp: English, with each key's name;
// sentences_zh.cpp: Chinese). Only sentences.cpp and the tests read them.
#pragma once

#include <array>
#include <string_view>

#include "base/sentences.hpp"

namespace dtriage::base::detail {

struct Row {
  Say key;
  std::string_view text;  // "" in a translation: not translated yet (the English is used)
};

extern const std::array<Row, static_cast<std::size_t>(Say::kCount)> kChinese;

}  // namespace dtriage::base::detail
