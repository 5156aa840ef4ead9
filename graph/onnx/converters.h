// The ONNX ops the importer knows: one closed table (converters.cc) from op
// type to the function that adds its node(s). Each family of ops lives in
// its own convert_*.cc.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/onnx/import_context.h"

namespace tuneforge::graph::onnx_import {

using ConvertFn = absl::Status (*)(ImportContext& ctx);

// The converter of `op_type` (default domain), or null.
ConvertFn FindConverter(const std::string& op_type);
// Every supported op type, sorted, for error messages.
std::vector<std::string> SupportedOps();

// A [1] constant of `dtype` named "<node's output>/<suffix>", for the
// converters that write an op as several nodes.
absl::StatusOr<ValueId> ScalarConstant(ImportContext& ctx, double v, te::DType dtype,
                                       const std::string& suffix);

// The converters, by family.
absl::Status ConvertConv(ImportContext& ctx);
absl::Status ConvertConvTranspose(ImportContext& ctx);
absl::Status ConvertMatMul(ImportContext& ctx);
absl::Status ConvertGemm(ImportContext& ctx);
absl::Status ConvertUnary(ImportContext& ctx);
absl::Status ConvertBinary(ImportContext& ctx);
absl::Status ConvertClip(ImportContext& ctx);
absl::Status ConvertLeakyRelu(ImportContext& ctx);
absl::Status ConvertHardSigmoid(ImportContext& ctx);
absl::Status ConvertPRelu(ImportContext& ctx);
absl::Status ConvertElu(ImportContext& ctx);  // Elu and Selu
absl::Status ConvertSoftplus(ImportContext& ctx);
absl::Status ConvertSoftsign(ImportContext& ctx);
absl::Status ConvertLogSoftmax(ImportContext& ctx);
absl::Status ConvertCast(ImportContext& ctx);
absl::Status ConvertBatchNorm(ImportContext& ctx);
absl::Status ConvertPool(ImportContext& ctx);
absl::Status ConvertGlobalPool(ImportContext& ctx);
absl::Status ConvertReduce(ImportContext& ctx);
absl::Status ConvertSoftmax(ImportContext& ctx);
absl::Status ConvertLayerNorm(ImportContext& ctx);
absl::Status ConvertReshape(ImportContext& ctx);
absl::Status ConvertFlatten(ImportContext& ctx);
absl::Status ConvertSqueeze(ImportContext& ctx);
absl::Status ConvertUnsqueeze(ImportContext& ctx);
absl::Status ConvertTranspose(ImportContext& ctx);
absl::Status ConvertConcat(ImportContext& ctx);
absl::Status ConvertSlice(ImportContext& ctx);
absl::Status ConvertGather(ImportContext& ctx);
absl::Status ConvertPad(ImportContext& ctx);
absl::Status ConvertSplit(ImportContext& ctx);
absl::Status ConvertExpand(ImportContext& ctx);
absl::Status ConvertShape(ImportContext& ctx);
absl::Status ConvertConstant(ImportContext& ctx);
absl::Status ConvertIdentity(ImportContext& ctx);

}  // namespace tuneforge::graph::onnx_import
