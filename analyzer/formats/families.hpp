// Single-line recognisers, one per log family (one file each under formats/). Each fills `e` and
// returns true when the line is of its family. Multi-line grouping (tracebacks, error-code blocks,
// tables) lives in the pipeline, which tries the families in the order of `single_line_families()`.
//
// Adding a log family: write its recogniser in a file of its own, declare it here and put it in the
// list in families.cpp. Facts inside messages (whatever the family) are rows of the table in
// messages.cpp; the fields they set are listed in model/fields.cpp.
#pragma once

#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/event.hpp"

namespace dtriage::formats {

// Outer prefixes added by launchers and collectors, stripped before the line is parsed.
struct Prefix {
  std::optional<std::int64_t> rank;        // [rank3]:, (VllmWorker rank=3 ...), [1,3]<stdout>:
  std::optional<std::int64_t> local_rank;  // [default3]: (torchrun --tee)
  std::optional<std::int64_t> pid;         // (EngineCore_DP0 pid=6903)
  std::string host;                        // a fan-out tool's "host: " label (pdsh, clush)
  std::string_view worker_ip;              // Ray's "(NAME pid=N, ip=A)": the worker's machine, a view into the line
  model::Level level = model::Level::None;  // vLLM "ERROR 07-17 08:06:53 [file.py:1]"
  std::string month_day_time;              // "07-17 08:06:53" (no year)
  std::string time;                        // ISO time of a collector / container prefix
  std::string key;                         // the prefix text: lines with the same key form a stream
  // One launcher's lines in a shared file: srun -l's task number ("3"), kubectl --prefix's pod name,
  // a fan-out tool's host label (pdsh, clush), a view into the line; the event's `task` is
  // "srun task 3", "pod/NAME" or "host/NAME".
  enum class Task : std::uint8_t { Srun, Pod, Host };
  std::string_view task;
  Task task_kind = Task::Srun;
  bool bar = false;  // a progress bar was peeled from the front (a tqdm redraw): a print, even with nothing after it
  // As new, keeping the strings' room (a parser reads one line after another with one Prefix).
  void clear() {
    rank.reset();
    local_rank.reset();
    pid.reset();
    host.clear();
    worker_ip = {};
    level = model::Level::None;
    month_day_time.clear();
    time.clear();
    key.clear();
    task = {};
    task_kind = Task::Srun;
    bar = false;
  }
};

// A time at the start of `s` as collectors and loggers print it: "YYYY-MM-DD HH:MM[:SS][.FRAC or
// ,FRAC][Z or +HH[:]MM or -HH[:]MM]", a 'T' for the space allowed; its parts are views into `s`,
// `end` is where it ends.
struct Stamp {
  std::string_view date, clock, frac;
  std::size_t end = 0;
};
bool read_stamp(std::string_view s, Stamp& st);
// How long a collector's time prefix is, 0 for none: the stamp, then " | ", ": " or white space
// (the first of the three that is followed by white space), as the regex
//   ^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?(?:Z|[+-]\d{2}:?\d{2})?(?:\s*\||:)?\s+
// matches it.
std::size_t collector_stamp(std::string_view s, Stamp& st);
// How long a bracketed time prefix is ("[STAMP] ", the space optional), 0 for none.
std::size_t bracket_stamp(std::string_view s, Stamp& st);

// How long a tqdm bar at the start of `s` is (a line glued to one: "100%|#####| 10/10 [00:01<00:00,
// 9.51it/s] "), 0 for none, as the regex ^[^|\n]{0,40}\d{1,3}%\|[^|]*\|(?:[^\[\]|]*\[[^\]]*\])? ? matches it.
std::size_t progress_bar(std::string_view s);

// Host labels a fan-out tool (pdsh, clush, a script's "host: " tag) puts before each line, learned
// per stream: a label is taken once a record of the stack follows it, then before any line.
struct HostLabels {
  std::set<std::string, std::less<>> known;
};

// Strips every recognised outer prefix; `storage` keeps unescaped container-JSON text (or the
// line without its terminal escapes) alive. Without `labels`, no host label is peeled.
std::string_view strip_prefixes(std::string_view line, Prefix& p, std::string& storage, HostLabels* labels = nullptr);

// Records glued onto one physical line (a traceback pasted without its newlines, "\\n" escapes, two
// streams' records run together), split back into the lines they were; false when `s` is one record.
bool split_glued(std::string_view s, std::vector<std::string>& pieces);
// False when split_glued surely finds `s` one record (most lines): the cheap part of its checks.
bool may_be_glued(std::string_view s);

// A dotted identifier that names an error of some kind (an exception line's first token).
bool error_type_name(std::string_view type);

// `s` without terminal escape sequences (CSI colours and cursor moves, OSC titles, charset picks).
std::string without_terminal_escapes(std::string_view s);

bool parse_plog(std::string_view s, model::Event& e);
// The fixed plog header "[LEVEL] MODULE(PID,PNAME):YYYY-MM-DD-HH:MM:SS.mmm.uuu ", split by hand:
// it starts most lines of the largest inputs, and a regex with captures costs several times more.
struct PlogHeader {
  std::string_view level, module, pid, pname, date, time, ms, us, rest;
};
bool split_plog(std::string_view s, PlogHeader& h);
// True when the 27 bytes at `t` have the shape of a plog time, YYYY-MM-DD-HH:MM:SS.mmm.uuu.
bool plog_time_shaped(const char* t);
bool parse_nccl(std::string_view s, model::Event& e);
// "host:pid:tid [dev] body" (the device is optional), split by hand as parse_nccl reads it.
struct NcclHeader {
  std::string_view host, pid, tid, dev, body;
};
bool split_nccl_header(std::string_view s, NcclHeader& h);
bool parse_glog(std::string_view s, model::Event& e);            // c10 / torchrun glog headers
bool parse_python_logging(std::string_view s, model::Event& e);  // "WARNING:torch.distributed...:msg"
bool parse_torch_npu(std::string_view s, model::Event& e);       // "[ERROR] ... (PID:1, Device:2, RankID:3) ERR00100"
bool parse_cann_start(std::string_view s, model::Event& e);      // "EE8888: [PID: 1] ... msg"
bool parse_exception_line(std::string_view s, model::Event& e);  // "RuntimeError: ..."
bool parse_error_print(std::string_view s, model::Event& e);     // "ERROR msg", "error: msg", "terminate called ..."
bool parse_library_error(std::string_view s, model::Event& e);   // "... NCCL error in: file:line, reason" in a line of any shape
// Its words (also its family's markers): PyTorch's and torch_npu's checks, older PyTorch, NCCL's own.
inline constexpr std::string_view kLibraryErrorWords[] = {"NCCL error in: ", "HCCL error in: ", "NCCL Error ", "NCCL failure "};
bool parse_nvidia_smi(std::string_view s, model::Event& e);
// A line starting with '|' that parse_nvidia_smi may read: a GPU or process row ('|', blanks, the
// GPU index) or the header naming the versions ('|', blanks, "NVIDIA-SMI"). A monitor's borders, column heads and usage rows
// are not.
bool smi_bar_line(std::string_view s);
bool parse_kernel(std::string_view s, model::Event& e);

// The single-line families in the order a line is tried; `ends_tail` marks families whose lines end
// the detail lines that follow an exception line. `markers`: a line the family recognises holds one
// of these literals, in its case (the error-print family's in any case: its lines are read so), or
// one of the gate's literals (gate.hpp). A family without markers recognises only lines that start
// with '[', '|' or an upper-case ASCII letter (after the outer prefixes). The line gate relies on
// both (Gate::marked, unmarked_family_may_read); the --no-gate equivalence tests check it.
struct Family {
  std::string_view name;
  bool (*parse)(std::string_view, model::Event&);
  bool ends_tail;
  std::span<const std::string_view> markers;
};
std::span<const Family> single_line_families();

// False when no family without markers may read `s`: their lines start with '[', '|' or an
// upper-case letter, and of the '|' lines only smi_bar_line's. With no marker in `s` either
// (Gate::marked), no family reads it.
bool unmarked_family_may_read(std::string_view s);

// True when a family that ends exception tails recognises the line.
bool recognised(std::string_view s, model::Event& e);

// Facts inside a message, whatever the family: watchdog timeouts, worker failures, signals,
// socket errors, OOM, duplicate GPU, HCCL ranks and devices, launcher options. Returns true when
// the message holds something worth an event on its own.
bool scan_message(std::string_view msg, model::Event& e);

// The device a message names (device_id=3, devId[3], deviceId=3, device(3), Device 3, ...).
std::optional<std::int64_t> find_device(std::string_view msg);
// The words find_device looks for, and the trigger literals of every message-fact row: a message
// holding none of them gives scan_message and find_device nothing (but for '|', whose rows only
// plog ERROR lines hold: see message_triggers).
std::span<const std::string_view> device_markers();
std::vector<std::string_view> message_triggers();

// torchrun launch-config lines ("  nproc_per_node   : 8") and failure-table fields.
bool parse_key_colon_value(std::string_view s, std::string& key, std::string& value, bool require_indent = true);

}  // namespace dtriage::formats
