// float32 exp, log, erf and tanh as straight-line LLVM IR (range reduction and
// fitted polynomials): the same instructions at any vector width, so a
// vectorized gelu or softmax runs at vector speed where the backend would
// otherwise call libm once per lane, at a cost that does not depend on the
// data. Accurate to a few ulp over the whole float range (inf, NaN and
// denormal results included); tests/codegen/vector_math_test.cc checks it.
#pragma once

#include "llvm/IR/IRBuilder.h"

namespace tuneforge::codegen {

// `x` is a float or a vector of floats; the result has its type.
llvm::Value* EmitExpF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* EmitLogF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* EmitErfF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* EmitTanhF32(llvm::IRBuilderBase& b, llvm::Value* x);

}  // namespace tuneforge::codegen
