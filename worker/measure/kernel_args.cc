#include "worker/measure/kernel_args.h"

#include "absl/strings/str_cat.h"
#include "common/te/ndarray.h"

namespace tuneforge::measure {

std::string ToString(const ArgSpec& arg) {
  return absl::StrCat(arg.name, ": ", te::ToString(arg.dtype), te::ShapeToString(arg.shape),
                      arg.is_output ? " (output)" : "");
}

}  // namespace tuneforge::measure
