// Small DAGs for the schedule tests, built directly with te::Placeholder /
// te::Compute (the operator library is another layer's business).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/schedule/state.h"
#include "common/te/compute_dag.h"

namespace tuneforge::schedule::testing {

// A[M,K], B[K,N] -> C[i,j] = sum_k A[i,k]*B[k,j].   Stages: A, B, C.
te::ComputeDagPtr Matmul(int64_t m, int64_t n, int64_t k);
// Matmul, then D = max(C, 0).                          Stages: A, B, C, D.
te::ComputeDagPtr MatmulRelu(int64_t m, int64_t n, int64_t k);
// data[1,3,8,8] -> pad (1 each side) -> conv with weight[4,3,3,3]:
// conv[n,f,y,x] = sum_{rc,ry,rx} pad[n,rc,y+ry,x+rx]*weight[f,rc,ry,rx].
//                                                       Stages: data, pad, weight, conv.
te::ComputeDagPtr Conv2dPad();
// X[M,N] -> maxelem[i] = max_k X -> exp = exp(X - maxelem) -> expsum[i] = sum_k exp
// -> out = exp / expsum.                                Stages: X, maxelem, exp, expsum, out.
te::ComputeDagPtr Softmax(int64_t m, int64_t n);
// A[M,N] -> B = A + 1 -> C = B * 2 -> D = C - 3.       Stages: A, B, C, D.
te::ComputeDagPtr ElementwiseChain(int64_t m, int64_t n);
// X[M,N] -> R[i] = combiner_k X[i,k].                   Stages: X, R.
te::ComputeDagPtr RowReduce(int64_t m, int64_t n, te::Combiner combiner);
// X[M,N,K] -> S[i] = sum_{r1,r2} X[i,r1,r2].            Stages: X, S.
te::ComputeDagPtr TwoAxisReduce(int64_t m, int64_t n, int64_t k);
// X[M,N] -> B = X + 1, C = X * 2 -> D = B + C.          Stages: X, B, C, D.
te::ComputeDagPtr TwoConsumers(int64_t m, int64_t n);

// The DAGs above by name ("matmul", "matmul_relu", "conv2d_pad", "softmax",
// "chain", "row_sum", "two_axis_sum", "two_consumers"; default sizes), for
// the schedule files in tests/errors/schedules; null if unknown.
te::ComputeDagPtr DagByName(const std::string& name);

// One step of every kind with non-default values in every field (for
// serialization round trips; not meant to be applied).
std::vector<Step> OneStepOfEachKind();

// State::Replay that fails the test (and returns the initial state) on error.
State ReplayOrFail(const te::ComputeDagPtr& dag, const std::vector<Step>& steps);

// "name:extent kind [annotation]" for each iterator of a stage, e.g.
// {"i.0:4 spatial", "k:16 reduce unroll"}: compact expectations.
std::vector<std::string> IterSummary(const Stage& stage);

// The line of dag->ToString() describing op `name`, or "".
std::string OpLine(const te::ComputeDag& dag, const std::string& name);

}  // namespace tuneforge::schedule::testing
