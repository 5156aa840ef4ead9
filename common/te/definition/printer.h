// Prints a ComputeDag as a compute definition (definition.h): the text that
// ParseDefinition (workload.h) builds back into a DAG with the same canonical
// text, hence the same workload key. It carries fused subgraphs of imported
// models to tuning workers as "definition" workloads.
//
//   input data: float32[1, 3, 8, 8]
//   relu[n: 1, c: 3, h: 8, w: 8] = max(data[n, c, h, w], 0.0)
//   output relu
//
// Names are kept where the language allows them, otherwise made into
// identifiers and de-duplicated (names do not enter the key). Constants print
// with the digits and type that read back to the same value and dtype: a bare
// literal where the other operand gives it its type, float64(0.5) or int32(3)
// otherwise.
//
// What the language cannot express is an error naming the op and the
// expression: truncating remainder (its % is floor modulo), boolean
// constants, NaN, a cast or an arithmetic of constants only (the language
// folds those), a reduction below the top of a body, the vector and buffer
// nodes of lowered programs, bool tensors, and an op order other than the
// depth-first one a definition is rebuilt in. Every printed text is read back
// and compared before it is returned, so a success always keeps the key.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "common/te/compute_dag.h"

namespace tuneforge::te::definition {

absl::StatusOr<std::string> PrintDefinition(const ComputeDag& dag);

}  // namespace tuneforge::te::definition
