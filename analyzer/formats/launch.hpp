// What a launch command line says: torchrun / python -m torch.distributed.run (or .launch) and
// their options, read as torchrun reads them. The one reader of launch commands: log lines that
// echo the command (`+ torchrun --nnodes 2 ...`, `srun ... torchrun ...`) and `dtriage check
// --launch` both use it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dtriage::formats {

struct LaunchCommand {
  std::optional<std::int64_t> nnodes;          // --nnodes N, or the MAX of MIN:MAX; --standalone: 1
  std::optional<std::int64_t> nproc_per_node;  // a number
  std::string nproc_text;                      // --nproc_per_node gpu / auto / cpu: not a number
  std::optional<std::int64_t> node_rank;
  std::string master_addr;                     // --master_addr, or the host of --rdzv_endpoint
  std::optional<std::int64_t> master_port;     // --master_port, or the port of --rdzv_endpoint
  std::string rdzv_backend;                    // --rdzv_backend (c10d, etcd, static)
  std::string local_addr;                      // --local_addr: the address c10d orders this node by
  std::optional<std::int64_t> max_restarts;    // --max_restarts / --max-restarts
  bool launcher = false;                       // a launcher word was found (torchrun, torch.distributed.run / launch)
};

// Options are read after the launcher word (torchrun, or -m torch.distributed.run / .launch), or,
// where there is none, from the first "--" option, up to the script: the script's own options are
// not the launcher's. Both spellings (--nproc_per_node, --nproc-per-node) and both forms (--x=v,
// --x v) are read; simple quotes are removed.
LaunchCommand parse_launch_command(std::string_view text);

}  // namespace dtriage::formats
