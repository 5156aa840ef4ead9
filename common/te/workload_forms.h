// Other forms of a workload: programs of another algorithm computing the
// same outputs, which a job may tune beside it and run instead where they
// are faster (TVM's op strategies hold several implementations the same
// way). One form today: a conv2d with a 3x3 kernel, stride 1, no dilation
// and no groups, by Winograd's F(4x4, 3x3) (ops/winograd_conv.h), the one a
// model's convs take with --conv-algorithm winograd; with its epilogue
// (conv2d+bias+relu -> conv2d_winograd+bias+relu).
#pragma once

#include <optional>

#include "common/te/workload.h"

namespace tuneforge::te {

// The output tile of the Winograd form: F(4x4, 3x3), 2.25 multiplies an
// output against F(2x2)'s 4, with transforms still exact enough in fp32;
// tiles of 4 even where 4 does not divide the output (the extra outputs of
// the last tile are computed and dropped).
inline constexpr int64_t kWinogradFormTile = 4;

// `w`'s Winograd form, or nullopt where it has none (not a conv2d, with or
// without an epilogue; another kernel size, a stride, a dilation or groups).
std::optional<Workload> WinogradFormOf(const Workload& w);

}  // namespace tuneforge::te
