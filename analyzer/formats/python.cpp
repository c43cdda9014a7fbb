// Python logging lines ("WARNING:torch.distributed...:msg", "logger: [LEVEL] msg") and exception lines.
#include "formats/families.hpp"
#include "formats/parse_util.hpp"

namespace dtriage::formats {
namespace {

DT_RE(re_pylog, R"(^(DEBUG|INFO|WARNING|ERROR|CRITICAL):([\w.]+):(.*)$)")
DT_RE(re_pylog2, R"(^([\w.]+): \[(DEBUG|INFO|WARNING|ERROR|CRITICAL)\] ?(.*)$)")
DT_RE(re_exception,
      R"(^((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit|Failure|Fault)\w*)(?::\s?(.*))?$)")

DT_RE(re_terminate, R"(^terminate called (?:after throwing an instance of '([^']+)'|without an active exception|recursively))")
// A logging line's level word where a logger puts it after the time: "ERROR msg", "[ERROR] msg",
// "- ERROR - msg", "- name - ERROR - msg", "| ERROR    | mod:fn:12 - msg" (loguru), "ERROR: msg".
DT_RE(re_level_first, R"(^(?:\[|\| |- (?:[\w.]+ - )?)?(ERROR|CRITICAL|FATAL)\]?(?:\s*[|:-]\s*|\s+)(\S.*)$)")
// A program's own error print: "error: msg", "fatal: msg".
DT_RE(re_error_print, R"(^(?i:error|fatal): (\S.*)$)")

}  // namespace

// A worker's own words that it is failing, other than a traceback: a logging line at ERROR /
// CRITICAL whose level word leads the line (after its time), "error: ..." / "fatal: ..." prints, the
// C++ runtime's "terminate called ..." and faulthandler's "Fatal Python error: ...".
bool parse_error_print(std::string_view s, model::Event& e) {
  M m;
  if (starts_with(s, "terminate called")) {
    if (!rx(re_terminate(), s, m)) return false;
    e.kind = model::Kind::Log;
    e.level = model::Level::Error;
    e.code = "cpp-terminate";
    if (!m[1].empty()) e.set("exception", std::string(m[1]));
    e.message = std::string(s);
    return true;
  }
  if (starts_with(s, "Fatal Python error: ")) {
    e.kind = model::Kind::Python;
    e.level = model::Level::Error;
    e.code = "fatal-python-error";
    e.message = std::string(s.substr(20));
    return true;
  }
  if (rx(re_level_first(), s, m)) {
    e.kind = model::Kind::Python;
    e.level = model::Level::Error;
    e.code = "error-message";
    e.message = std::string(m[2]);
    scan_message(m[2], e);
    return true;
  }
  if (rx(re_error_print(), s, m)) {
    e.kind = model::Kind::Log;
    e.level = model::Level::Error;
    e.code = "error-message";
    e.message = std::string(m[1]);
    scan_message(m[1], e);
    return true;
  }
  return false;
}

// A library's error report inside a line of another shape ("Got exception: NCCL error in: ...", a
// logger's message, a print of the caught exception): PyTorch's NCCL check ("NCCL error in:
// file:line, reason"), torch_npu's HCCL one ("HCCL error in: ..."), older PyTorch's "NCCL Error N:
// reason", NCCL's own "NCCL failure file:line 'reason'". Tried after the exception family:
// "RuntimeError: NCCL error in: ..." is an exception line, with its type. (c10's "CUDA error: ..."
// is not among them: alone, after "what():", it is also how a process's teardown ends, as
// "CUDA error: driver shutting down".)
bool parse_library_error(std::string_view s, model::Event& e) {
  std::size_t at = std::string_view::npos;
  for (const std::string_view w : kLibraryErrorWords) {
    std::size_t p = s.find(w);
    // "NCCL Error 2: ..." and "NCCL failure common.cu:892 '...'" need what follows to be theirs.
    while (p != std::string_view::npos && w == "NCCL Error ") {
      std::size_t d = p + w.size();
      while (d < s.size() && std::isdigit(static_cast<unsigned char>(s[d]))) ++d;
      if (d > p + w.size() && d < s.size() && s[d] == ':') break;
      p = s.find(w, p + 1);
    }
    if (p != std::string_view::npos && w == "NCCL failure " && s.find(':', p + w.size()) == std::string_view::npos) p = std::string_view::npos;
    at = std::min(at, p);
  }
  if (at == std::string_view::npos) return false;
  e.kind = model::Kind::Log;
  e.level = model::Level::Error;
  e.code = "library-error";
  e.message = std::string(trim(s.substr(at)));
  scan_message(s.substr(at), e);
  return true;
}

bool parse_python_logging(std::string_view s, model::Event& e) {
  M m;
  std::string_view logger, level, msg;
  const bool pylog = starts_with(s, "INFO:") || starts_with(s, "WARNING:") || starts_with(s, "ERROR:") ||
                     starts_with(s, "DEBUG:") || starts_with(s, "CRITICAL:");
  if (!pylog && !contains(s.substr(0, 120), ": [")) return false;
  if (pylog && rx(re_pylog(), s, m)) {
    level = m[1];
    logger = m[2];
    msg = m[3];
  } else if (rx(re_pylog2(), s, m) && contains(m[1], ".")) {
    logger = m[1];
    level = m[2];
    msg = m[3];
  } else {
    return false;
  }
  e.kind = starts_with(logger, "torch.distributed") ? model::Kind::Torchrun : model::Kind::Python;
  e.level = level_word(level);
  e.set("logger", std::string(logger));
  e.message = std::string(msg);
  scan_message(msg, e);
  return true;
}

bool error_type_name(std::string_view type) {
  if (type.empty() || !(std::isalpha(static_cast<unsigned char>(type[0])) || type[0] == '_')) return false;
  // The class name (after its module path) ends with the word: "ChildFailedError", "SystemExit",
  // "BaseExceptionGroup"; a function named for an error ("ReportErrorInfoForModelExecuteTask:" in a
  // CANN message) is no exception.
  std::string_view name = type.substr(type.rfind('.') == std::string_view::npos ? 0 : type.rfind('.') + 1);
  if (name.ends_with("Group")) name.remove_suffix(5);
  for (std::string_view word : {"Error", "Exception", "Interrupt", "Exit", "Failure", "Fault"})
    if (name.ends_with(word)) return true;
  return false;
}

bool parse_exception_line(std::string_view s, model::Event& e) {
  // The exception type is the first token; it must name an error of some kind.
  std::size_t end = 0;
  while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '_' || s[end] == '.')) ++end;
  if (!error_type_name(s.substr(0, end))) return false;
  M m;
  if (!rx(re_exception(), s, m)) return false;
  e.kind = model::Kind::Python;
  e.level = model::Level::Error;
  e.code = std::string(m[1]);
  e.set("exception", std::string(m[1]));
  e.message = std::string(m[2]);
  scan_message(s, e);
  return true;
}

}  // namespace dtriage::formats
