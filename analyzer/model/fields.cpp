#include "model/fields.hpp"

#include <iterator>

namespace dtriage::model {
namespace {

using T = FieldType;

constexpr FieldInfo kEventFields[] = {
    // Members every event has (where known).
    {"kind", T::Text, "log family: plog, nccl, torch, torchrun, python, cann, torch_npu, npu-smi, nvidia-smi, kernel, log"},
    {"level", T::Text, "error, warning, info, debug, trace, event"},
    {"code", T::Text, "error code or normalized event name (EE8888, watchdog-timeout, worker-failed, ...)"},
    {"time", T::Text, "ISO 8601 time with the log's precision"},
    {"node", T::Text, "host the line belongs to"},
    {"message", T::Text, "the line without its prefix"},
    {"path", T::Text, "where the line is (archive members as a.tar.gz!x/y)"},
    {"line", T::Int, "1-based line number"},
    {"pid", T::Int, "process id"},
    {"rank", T::Int, "global rank"},
    {"local_rank", T::Int, "rank within the node"},
    {"device", T::Int, "device (logical id)"},
    {"count", T::Int, "lines the rule matched (summaries only)"},
    // Format-specific fields.
    {"acl_error", T::Int, "ACL / HCCL error number of a framework wrapper line (error code is N)"},
    {"api", T::Text, "the API a framework wrapper line names (aclrtSynchronizeDevice, HcclAllreduce)"},
    {"bus_id", T::Text, "PCI bus id of a device"},
    {"chip", T::Int, "npu-smi chip id"},
    {"chip_name", T::Text, "accelerator model from npu-smi", true},
    {"clock", T::Text, "time of day of a line without a date"},
    {"comm", T::Text, "NCCL communicator address"},
    {"comm_id", T::Text, "NCCL communicator id"},
    {"comm_rank", T::Int, "rank within an NCCL communicator"},
    {"comm_state", T::Text, "Init START, Init COMPLETE or Abort COMPLETE"},
    {"cuda_error", T::Text, "text after 'CUDA error:'"},
    {"cut", T::Bool, "the line was longer than --max-line-bytes and was cut"},
    {"dest_ip", T::Text, "HCCL link table: the destination's IP"},
    {"dest_rank", T::Int, "HCCL link table: the destination rank"},
    {"device_count", T::Int, "devices an npu-smi table lists", true},
    {"devices", T::Text, "devices an npu-smi table lists, comma-separated"},
    {"dup_rank_a", T::Int, "NCCL duplicate GPU: first rank"},
    {"dup_rank_b", T::Int, "NCCL duplicate GPU: second rank"},
    {"entrypoint", T::Text, "torchrun launch config: the training script"},
    {"errno", T::Int, "socket errno"},
    {"errno_text", T::Text, "socket errno text"},
    {"error_file", T::Text, "torchrun failure table: the error file"},
    {"exception", T::Text, "Python exception type"},
    {"exception_line", T::Int, "line number of a traceback's exception line"},
    {"exception_text", T::Text, "a traceback's exception line"},
    {"exitcode", T::Int, "a worker's exit code (negative: killed by that signal)"},
    {"gpu_name", T::Text, "GPU model from nvidia-smi", true},
    {"health", T::Text, "npu-smi device health (OK, Warning, Alarm, Critical)"},
    {"host", T::Text, "torchrun failure table: the host as printed"},
    {"index", T::Int, "torchrun failure table: the row index"},
    {"last_completed", T::Int, "ProcessGroupNCCL: last completed work sequence number"},
    {"last_enqueued", T::Int, "ProcessGroupNCCL: last enqueued work sequence number"},
    {"link_dst_rank", T::Int, "HCCL transport init error: the destination rank"},
    {"link_remote_device", T::Int, "HCCL transport init error: the remote device"},
    {"link_remote_ip", T::Text, "HCCL transport init error: the remote IP"},
    {"link_status", T::Text, "HCCL link table: the link status (time out, no connect)"},
    {"logger", T::Text, "Python logger name"},
    {"lost_device", T::Int, "HCCL heartbeat: the lost device"},
    {"lost_server", T::Text, "HCCL heartbeat: the lost server"},
    {"master_addr", T::Text, "master address from the launch command or a store error", true},
    {"master_port", T::Int, "master port from the launch command", true},
    {"max_nodes", T::Int, "torchrun launch config: max nodes", true},
    {"memory_mb", T::Int, "npu-smi process row: memory used (MB)"},
    {"memory_mib", T::Int, "nvidia-smi process row: memory used (MiB)"},
    {"min_nodes", T::Int, "torchrun launch config: min nodes", true},
    {"module", T::Text, "plog module (RUNTIME, HCCL, ...)"},
    {"month_day", T::Text, "MM-DD of a line without a year"},
    {"nccl_error", T::Text, "NCCL error kind in 'NCCL error in:' lines"},
    {"nnodes", T::Int, "torchrun --nnodes (the maximum of a range)", true},
    {"node_rank", T::Int, "torchrun --node_rank", true},
    {"nproc_per_node", T::Int, "torchrun --nproc_per_node", true},
    {"npu", T::Int, "npu-smi NPU id"},
    {"npu_count", T::Int, "NPUs an npu-smi table lists"},
    {"nranks", T::Int, "ranks in a communicator (NCCL nranks, HCCL rankNum)", true},
    {"max_restarts", T::Int, "torchrun --max_restarts: how many times the launcher starts its workers again"},
    {"numel", T::Int, "elements of a timed-out collective"},
    {"op_index", T::Int, "HCCL Notify Wait: the collective's index"},
    {"op_tag", T::Text, "HCCL Notify Wait: the collective's tag (AllReduce, ...)"},
    {"op_type", T::Text, "ProcessGroupNCCL: the timed-out collective (ALLREDUCE, ...)"},
    {"peer_local_rank", T::Int, "NCCL 'Connection closed by localRank N'"},
    {"phy_device", T::Int, "HCCL physical device id"},
    {"port", T::Int, "a socket's port"},
    {"process", T::Text, "process name (plog, kernel OOM killer, smi process rows)"},
    {"ran_for_ms", T::Int, "ProcessGroupNCCL: how long the timed-out work ran"},
    {"rank_declared", T::Bool, "the line is a process stating its own global rank (lent to its stream's other lines)", true},
    {"local_rank_stated", T::Int, "the local rank a process's statement of its global rank gives beside it (ties its launcher's lines of that local rank to the global one)", true},
    {"rdzv_backend", T::Text, "torchrun launch config: rendezvous backend"},
    {"rdzv_endpoint", T::Text, "torchrun launch config: rendezvous endpoint"},
    {"remote_rank", T::Text, "HCCL: the remote rank a task waited on (a number or 'local')"},
    {"reported_code", T::Text, "the error code a plog line says it reports (module_name=EE8888)"},
    {"requested", T::Text, "memory an OOM tried to allocate"},
    {"role", T::Text, "torchrun launch config: the worker role"},
    {"root_cause", T::Bool, "torchrun failure table: the row is under 'Root Cause'"},
    {"run_id", T::Text, "torchrun launch config: run id"},
    {"sdma_error", T::Bool, "the line reports an SDMA error"},
    {"seq", T::Int, "collective sequence number (SeqNum, NCCL work)"},
    {"server", T::Text, "HCCL server (host IP)"},
    {"signal", T::Text, "signal name (SIGKILL, ...), from any format"},
    {"src", T::Text, "source file:line the log line names"},
    {"src_ip", T::Text, "HCCL link table: the source's IP"},
    {"src_rank", T::Int, "HCCL link table: the source rank"},
    {"p2p_remote_phy", T::Int, "HCCL P2P timeout: the remote physical device"},
    {"task_failed", T::Bool, "HCCL 'Task run failed': the task waited on remote_rank"},
    {"target_pid", T::Int, "the process a signal was sent to"},
    {"tid", T::Int, "thread id"},
    {"timeout_ms", T::Int, "collective timeout (ms)"},
    {"timeout_s", T::Int, "timeout (s)"},
    {"traceback", T::Text, "torchrun failure table: the traceback cell"},
    {"unhealthy", T::Text, "npu-smi devices whose health is not OK (device:health,...)"},
    {"uptime", T::Text, "dmesg uptime stamp"},
    {"uuid", T::Text, "GPU UUID"},
    {"visible_devices", T::Text, "CUDA_VISIBLE_DEVICES / ASCEND_RT_VISIBLE_DEVICES value"},
    {"visible_devices_var", T::Text, "which *_VISIBLE_DEVICES variable"},
    {"worker_count", T::Int, "store barrier: workers that arrived"},
    {"world_size", T::Int, "world size a line states"},
    {"xid", T::Int, "NVIDIA Xid number"},
    // Versions (formats/tables.cpp holds the words logs use for them).
    {"cann_version", T::Text, "CANN version", true},
    {"cuda_version", T::Text, "CUDA version", true},
    {"driver_version", T::Text, "driver version", true},
    {"firmware_version", T::Text, "firmware version", true},
    {"hccl_version", T::Text, "HCCL version", true},
    {"nccl_version", T::Text, "NCCL version", true},
    {"npu_smi_version", T::Text, "npu-smi version", true},
    {"nvidia_smi_version", T::Text, "nvidia-smi version", true},
    {"torch_npu_version", T::Text, "torch_npu version", true},
    {"torch_version", T::Text, "torch version", true},
};

constexpr FieldInfo kFacts[] = {
    {"node.name", T::Text, "the node's name"},
    {"node.chip", T::Text, "accelerator model from the inventory"},
    {"node.devices", T::Int, "devices the node has (npu-smi, nvidia-smi)"},
    {"node.nproc_per_node", T::Int, "processes the launcher started per node"},
    {"node.processes", T::Int, "nproc_per_node if known, else the worker processes seen"},
    {"node.pids", T::Int, "worker processes seen"},
    {"node.errors", T::Int, "error lines on the node"},
    {"node.unhealthy_devices", T::Int, "devices whose health is not OK"},
    {"node.shared_devices", T::Int, "devices used by two or more processes"},
    {"node.shared_device", T::Int, "the first device used by two or more processes"},
    {"node.shared_pids", T::List, "the processes that used that device"},
    {"node.process_run", T::Int, "processes one launch started: the longest run of consecutive worker pids"},
    {"node.max_device", T::Int, "the highest device a process used"},
    {"job.world_size", T::Int, "ranks in the job (communicator size, or nnodes x nproc_per_node)"},
    {"job.nodes", T::Int, "named nodes"},
    {"job.expected_nodes", T::Int, "nodes the launcher expected (--nnodes)"},
    {"job.nproc_variants", T::Int, "different nproc_per_node values across nodes"},
    {"job.nproc_values", T::List, "the nproc_per_node values"},
    {"job.timeout_ranks", T::Int, "ranks that reported a collective timeout"},
    {"job.missing_timeout_ranks", T::Int, "known ranks that never reported the timeout"},
    {"job.missing_ranks", T::List, "those ranks"},
    {"job.timeout_op", T::Text, "the collective that timed out"},
    {"job.timeout_seq", T::Int, "its sequence number"},
    {"job.timeout_s", T::Int, "the timeout (s)"},
    {"job.ranks_known", T::Int, "ranks seen in the logs"},
    {"job.notify_index_variants", T::Int, "different HCCL Notify Wait indices across ranks"},
    {"job.notify_tag_variants", T::Int, "different HCCL Notify Wait tags across ranks"},
    {"job.lagging_rank", T::Int, "the one rank with the lowest Notify Wait index"},
    {"job.lagging_index", T::Int, "the lowest Notify Wait index"},
    {"job.leading_index", T::Int, "the highest Notify Wait index"},
    {"job.odd_tag", T::Text, "the Notify Wait tag only one rank has"},
    {"job.odd_tag_rank", T::Int, "the rank with that tag"},
    {"job.common_tag", T::Text, "the Notify Wait tag of the other ranks"},
    {"job.culprit_rank", T::Int, "the rank whose own failure (signal, exception, exit code) came first, or differs from the others' (correlate/culprit.cpp)"},
    {"job.culprit_basis", T::Text, "why the culprit was chosen: first-failure, only-failure, distinct-ending, stronger-ending, first-observed, silent, late-arrival"},
    {"job.late_rank", T::Int, "after others timed out waiting, the one rank that only lost its peers: it reached the collective late"},
    {"job.culprit_node", T::Text, "its node"},
    {"job.timeout_lines", T::Int, "lines that report a collective timeout, attributed to a rank or not"},
    {"job.quiet_node", T::Text, "after a collective timeout with no rank known (c10d, plain output), the one launched node that neither timed out, lost a peer nor failed on its own"},
    {"job.late_node", T::Text, "after a collective timeout with no rank known, the one node whose ranks lost their peers while every other node's timed out"},
    {"job.short_node", T::Text, "after a collective timeout with no rank known and every node reporting, the one node where fewer processes printed a timeout or lost-peer traceback than it ran"},
    {"job.short_node_reported", T::Int, "job.short_node: how many of its processes printed such a traceback"},
    {"job.short_node_procs", T::Int, "job.short_node: how many processes it ran (--nproc_per_node)"},
    {"job.short_node_kind", T::Text, "job.short_node: 'timeout' when some process timed out, 'peer-lost' when every report was of a lost peer"},
    {"job.quiet_rank", T::Int, "after a collective timeout, the one rank that neither timed out, lost a peer nor ended with an error of its own"},
    {"job.worker_lines", T::Int, "lines the workers wrote (ranked lines, NCCL, Python, plog), not the launchers'"},
    {"job.launched_nodes", T::Int, "nodes whose launch command is in the logs"},
    {"job.launch_conflict", T::Text, "a launch option the nodes disagree on (nnodes, master_port, master_addr)"},
    {"job.launch_common_value", T::Text, "its value on most nodes"},
    {"job.launch_odd_node", T::Text, "the one node with another value"},
    {"job.launch_odd_value", T::Text, "that value"},
    {"job.version_conflicts", T::Int, "version keys with different values across nodes"},
    {"job.version_conflict", T::Text, "the first such key, its values and nodes"},
    {"job.wait_chain_end", T::Int, "the rank where chains of ranks waiting on each other end"},
    {"job.wait_cycle", T::Int, "1 when ranks wait on each other in a cycle"},
    {"job.wait_cycle_ranks", T::List, "the ranks of that cycle"},
};

template <std::size_t N>
const FieldInfo* find_in(const FieldInfo (&table)[N], std::string_view name) {
  for (const FieldInfo& f : table)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace

std::span<const FieldInfo> event_fields() { return {std::begin(kEventFields), std::end(kEventFields)}; }
std::span<const FieldInfo> fact_fields() { return {std::begin(kFacts), std::end(kFacts)}; }
const FieldInfo* find_event_field(std::string_view name) { return find_in(kEventFields, name); }
const FieldInfo* find_fact(std::string_view name) { return find_in(kFacts, name); }

const char* type_name(FieldType t) {
  switch (t) {
    case FieldType::Int: return "int";
    case FieldType::Text: return "text";
    case FieldType::Bool: return "bool";
    case FieldType::List: return "list";
  }
  return "text";
}

}  // namespace dtriage::model
