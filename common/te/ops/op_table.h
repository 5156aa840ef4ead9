// The operator library's table: every op a workload spec "OP:KEY=VALUE,..."
// can name, its keys with defaults and meaning, and the function that builds
// it. It is the one closed list of ops (op_table.cc); the README points here.
//
//   op                keys (default)                                         layouts
//   matmul            M N K                                                  A[M,K] B[K,N] -> C[M,N]
//   batch_matmul      B M N K                                                A[B,M,K] B[B,K,N] -> C[B,M,N]
//   dense             M N K                                                  data[M,K] weight[N,K] -> dense[M,N]
//   conv1d            N C W K S stride(1) pad(0) dilation(1) groups(1)       NCW, OIW
//   conv2d            N C H W K R S stride(1) pad(0) dilation(1) groups(1)   NCHW, OIHW
//   conv3d            N C D H W K T R S stride(1) pad(0) dilation(1) groups(1)  NCDHW, OIDHW
//   depthwise_conv2d  N C H W R S stride(1) pad(0) dilation(1) M(1)          NCHW, kernel [C,M,R,S]
//   conv2d_transpose  N C H W K R S stride(1) pad(0) output_padding(0)       NCHW, IOHW
//   capsule_conv2d    N H W C K R S stride(1) pad(0) capsule(4)              NHWijC, RSijCK
//   max_pool2d        N C H W R S stride(1) pad(0)                           NCHW
//   avg_pool2d        N C H W R S stride(1) pad(0)                           NCHW
//   softmax           M N                                                    over the last axis
//   norm              M N                                                    2-norm of [M,N] -> [1]
//   layer_norm        M N                                                    data[M,N] gamma[N] beta[N]
//   relu, add         any of B M N K C D H W (at least one)                  elementwise
//
// Every op also takes dtype=float32|float64|int8|int32|int64 (default
// float32; softmax, norm and layer_norm need a float type). Keys without a
// default are required. Shape keys use the letters of INTERFACE.md: N batch,
// C input channels, K output channels (or the reduction length of a matrix
// product), H/W/D input height/width/depth, R/S/T kernel height/width/depth,
// M/N matrix rows/columns, B batch of matrices.
//
// relu and add: the tensor's dimensions are the keys given, laid out in the
// fixed order B, M, N, K, C, D, H, W whatever order they are written in, so
// relu:N=1,C=64,H=56,W=56 is NCHW [1,64,56,56] and add:M=128,N=256 is [128,256].
//
// Any op can be followed by epilogues joined with '+' (epilogue.h):
// conv2d+bias+relu, matmul+relu, dense+bias+gelu, conv2d+add+relu, ...
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/te/dtype.h"
#include "common/te/ops/built_op.h"

namespace tuneforge::te::ops {

struct ParamInfo {
  std::string key;
  // Used when the key is not given; nullopt means required, or for the
  // dimension keys of relu/add, simply absent.
  std::optional<int64_t> default_value;
  bool required = true;
  std::string meaning;
};

struct OpInfo {
  std::string name;
  std::string summary;
  std::vector<ParamInfo> params;  // besides these, every op takes dtype= (default float32)
};

// The checked keys of one spec: every given key, and the defaults of the
// optional ones not given.
class OpArgs {
 public:
  OpArgs(absl::flat_hash_map<std::string, int64_t> values, DType dtype)
      : values_(std::move(values)), dtype_(dtype) {}
  bool has(absl::string_view key) const { return values_.contains(key); }
  // The value of a key the table lists with a default or as required; 0 for
  // a key that is absent (only dimension keys can be).
  int64_t get(absl::string_view key) const;
  DType dtype() const { return dtype_; }

 private:
  absl::flat_hash_map<std::string, int64_t> values_;
  DType dtype_;
};

struct OpDef {
  OpInfo info;
  absl::StatusOr<BuiltOp> (*build)(const OpArgs& args);
};

const std::vector<OpDef>& OpTable();
const OpDef* FindOp(absl::string_view name);
std::vector<OpInfo> ListOps();
// The fixed dimension order of relu and add.
const std::vector<std::string>& ElementwiseDimOrder();

}  // namespace tuneforge::te::ops
