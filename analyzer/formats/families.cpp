#include "formats/families.hpp"

#include <iterator>

namespace dtriage::formats {
namespace {

// What a line of each family holds when no gate literal is in it (Family::markers). plog,
// torch_npu, CANN, glog and nvidia-smi lines start with '[', '|' or an upper-case letter.
constexpr std::string_view kNcclMarkers[] = {"NCCL", "INFO", "WARN"};  // "host:pid:tid [0] NCCL INFO", NCCL 2.2 "INFO"
constexpr std::string_view kPythonLoggingMarkers[] = {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"};  // "logger: [INFO] msg"
constexpr std::string_view kKernelMarkers[] = {"Kill", "oom-kill", "NVRM: Xid"};
constexpr std::string_view kExceptionMarkers[] = {"Error", "Exception", "Interrupt", "Exit", "Failure", "Fault"};
constexpr std::string_view kErrorPrintMarkers[] = {"error: ", "fatal: ", "terminate called"};

// Most specific first: a plog or NCCL header is unambiguous, an exception line ("FooError: ...")
// is the loosest shape and comes last.
constexpr Family kFamilies[] = {
    {"plog", parse_plog, true, {}},
    {"nccl", parse_nccl, true, kNcclMarkers},
    {"torch_npu", parse_torch_npu, true, {}},
    {"cann", parse_cann_start, true, {}},
    {"glog", parse_glog, true, {}},
    {"python-logging", parse_python_logging, true, kPythonLoggingMarkers},
    {"error-print", parse_error_print, true, kErrorPrintMarkers},
    {"nvidia-smi", parse_nvidia_smi, false, {}},
    {"kernel", parse_kernel, false, kKernelMarkers},
    {"exception", parse_exception_line, true, kExceptionMarkers},
    {"library-error", parse_library_error, true, kLibraryErrorWords},
};

}  // namespace

std::span<const Family> single_line_families() { return {std::begin(kFamilies), std::end(kFamilies)}; }

bool unmarked_family_may_read(std::string_view s) {
  if (s.empty()) return false;
  const char c = s.front();
  if (c == '|') return smi_bar_line(s);  // of them, only nvidia-smi's reads a table row
  return c == '[' || (c >= 'A' && c <= 'Z');
}

bool recognised(std::string_view s, model::Event& e) {
  for (const Family& f : kFamilies)
    if (f.ends_tail && f.parse(s, e)) return true;
  return false;
}

}  // namespace dtriage::formats
