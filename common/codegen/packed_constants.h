// The packed constants of a loaded kernel (layout rewrite, see
// lower::LoweredFunc::prepack): the buffers it takes after its outputs,
// allocated here and filled once by its prepack function from the constant
// inputs. Every caller of a kernel (runner, executor, model export) uses it.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "common/codegen/compiler.h"
#include "common/te/ndarray.h"

namespace tuneforge::codegen {

class PackedConstants {
 public:
  PackedConstants() = default;

  // Allocates `specs` (CompiledObject::packed_args) and runs the kernel's
  // prepack function on `args` (its inputs and outputs, the constants
  // filled) followed by them. Errors: a malformed spec (it may come off the
  // wire), specs without a prepack function or the reverse, an allocation
  // that fails, a prepack that returns non-zero.
  static absl::StatusOr<PackedConstants> Prepare(const LoadedKernel& kernel,
                                                 const std::vector<PackedArg>& specs,
                                                 const std::vector<void*>& args);

  // `args` followed by the packed buffers: what the kernel takes.
  std::vector<void*> Append(std::vector<void*> args);
  void AppendTo(std::vector<void*>* args);  // no allocation once args has room
  const std::vector<te::NDArray>& buffers() const { return buffers_; }

 private:
  std::vector<te::NDArray> buffers_;
};

}  // namespace tuneforge::codegen
