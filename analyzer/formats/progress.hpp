// A training loop's progress print: the step (iteration, update) a line says it reached, in the
// shapes the common loops print it:
//   Megatron / MindSpeed   " iteration     1200/  500000 | consumed samples: ... | lm loss: ..."
//   DeepSpeed              "[Rank 0] step=1200, skipped=0, lr=[...]"
//   torchtitan, MindSpore  "step:  1200  loss:  2.31", "epoch: 1 step: 1200, loss is 2.31"
//   MMEngine               "Iter(train) [ 1200/80000]  lr: ..."
//   plain scripts          "Step [1200/5000], Loss: 0.23", "global_step=1200", "iter 1200 of 5000"
//   tqdm bars (Trainer, Lightning)  "Epoch 0:  45%|####5     | 450/1000 [01:23<01:42, 5.37it/s]"
// A bar redrawn with carriage returns is read at its last drawing. Epochs alone are not steps.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace dtriage::formats {

struct Progress {
  std::int64_t step = 0;
  std::optional<std::int64_t> total;  // "of how many", where the line says
};

// The first progress the line states; nullopt when it states none.
std::optional<Progress> read_progress(std::string_view line);

}  // namespace dtriage::formats
