// This machine's NVIDIA GPUs as targets: model, compute capability,
// multiprocessors, memory and launch limits, read from the driver.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/codegen/cuda/gpu_target.h"

namespace tuneforge::codegen {

// In the driver's order (GPU 0 first). Errors say why there is none: no
// driver, the driver found no device.
absl::StatusOr<std::vector<GpuTarget>> ProbeGpus();

// A GPU's model as it appears in a device key: vendor and product-line words
// dropped, the words up to the first with a digit joined, lower-case, up to
// its first '-': "NVIDIA H100 80GB HBM3" -> "h100", "NVIDIA A100-SXM4-80GB"
// -> "a100", "NVIDIA GeForce RTX 4090" -> "rtx4090". "" when nothing is left.
std::string GpuModelKeyPart(absl::string_view name);

}  // namespace tuneforge::codegen
