#include "formats/families.hpp"

#include <iterator>

namespace dtriage::formats {
namespace {

// Most specific first: a plog or NCCL header is unambiguous, an exception line ("FooError: ...")
// is the loosest shape and comes last.
constexpr Family kFamilies[] = {
    {"plog", parse_plog, true},
    {"nccl", parse_nccl, true},
    {"torch_npu", parse_torch_npu, true},
    {"cann", parse_cann_start, true},
    {"glog", parse_glog, true},
    {"python-logging", parse_python_logging, true},
    {"nvidia-smi", parse_nvidia_smi, false},
    {"kernel", parse_kernel, false},
    {"exception", parse_exception_line, true},
};

}  // namespace

std::span<const Family> single_line_families() { return {std::begin(kFamilies), std::end(kFamilies)}; }

bool recognised(std::string_view s, model::Event& e) {
  for (const Family& f : kFamilies)
    if (f.ends_tail && f.parse(s, e)) return true;
  return false;
}

}  // namespace dtriage::formats
