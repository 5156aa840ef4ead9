// What every op builder of the operator library returns.
#pragma once

#include "common/te/tensor.h"

namespace tuneforge::te::ops {

// The op's output tensor (its DAG is everything the output reads) and the
// output dimension a `bias` epilogue adds along, so that epilogues can be
// chained onto any op without knowing its layout.
struct BuiltOp {
  Tensor output;
  int channel_axis = -1;  // -1: the op has no channel dimension
};

}  // namespace tuneforge::te::ops
