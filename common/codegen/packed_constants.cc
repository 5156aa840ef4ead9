#include "common/codegen/packed_constants.h"

#include "absl/strings/str_cat.h"

namespace tuneforge::codegen {

std::vector<PackedArg> PackedArgsOf(const lower::LoweredFunc& func) {
  std::vector<PackedArg> out;
  for (size_t i = func.args.size() - func.num_packed; i < func.args.size(); ++i)
    out.push_back(PackedArg{func.args[i]->name, func.args[i]->dtype, func.args[i]->shape});
  return out;
}


absl::StatusOr<PackedConstants> PackedConstants::Prepare(const LoadedKernel& kernel,
                                                         const std::vector<PackedArg>& specs,
                                                         const std::vector<void*>& args) {
  if (specs.empty() != (kernel.prepack_fn() == nullptr))
    return absl::InvalidArgumentError(absl::StrCat(
        "the kernel has ", specs.size(), " packed constant buffers but ",
        kernel.prepack_fn() ? "a" : "no", " prepack function; rebuild it"));
  PackedConstants out;
  for (const PackedArg& spec : specs) {
    if (spec.dtype.scalar > te::ScalarType::kFloat64 || spec.dtype.lanes != 1 || spec.shape.empty())
      return absl::InvalidArgumentError(absl::StrCat("packed constant '", spec.name,
                                                     "' has a malformed type or shape; rebuild the kernel"));
    for (int64_t d : spec.shape)
      if (d <= 0)
        return absl::InvalidArgumentError(absl::StrCat("packed constant '", spec.name, "' has extent ", d,
                                                       "; rebuild the kernel"));
    absl::StatusOr<te::NDArray> buffer = te::NDArray::Empty(spec.dtype, spec.shape);
    if (!buffer.ok()) return buffer.status();
    out.buffers_.push_back(*std::move(buffer));
  }
  if (specs.empty()) return out;
  std::vector<void*> all = out.Append(args);
  if (int32_t code = kernel.prepack_fn()(all.data()); code != 0)
    return absl::ResourceExhaustedError(absl::StrCat(
        "packing the kernel's constants returned ", code, ": a temporary allocation failed"));
  return out;
}

std::vector<void*> PackedConstants::Append(std::vector<void*> args) {
  AppendTo(&args);
  return args;
}

void PackedConstants::AppendTo(std::vector<void*>* args) {
  for (te::NDArray& b : buffers_) args->push_back(b.data());
}

}  // namespace tuneforge::codegen
