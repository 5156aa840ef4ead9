// Every feature of a store's row, listed once. FeatureNames(), the row
// layout (the enums below) and README.md's table all follow these lists.
//
// A row is: the store features (TF_STORE_FEATURES, in order), then
// kMaxBuffers blocks of the buffer features (TF_BUFFER_FEATURES), one per
// buffer the store touches, largest first (by bytes), zero-filled. Buffer
// feature `bytes` of slot 2 is named "B2.bytes".
//
// X(group, name, transform, meaning):
//   transform kLog: the value written is log2(x + 1) (x >= 0 always);
//   transform kRaw: written as is (one-hot flags, small counts, ratios).
// "Per execution" means one execution of the Store statement; "n" below
// is the product of the extents of all loops enclosing the store
// (outer_prod before its log).
#pragma once

#include <cstdint>
#include <iterator>

namespace tuneforge::search::features {

enum class Transform : uint8_t { kRaw, kLog };

// Where the innermost loop of an annotation sits among the store's loops
// (see PositionOf in loop_features.cc): spatial when its variable appears in
// the store's output index, reduce otherwise (loops of a consumer the stage
// is computed in count as outer spatial). Order = the pos_* features below.
enum class Position : uint8_t {
  kInnerSpatial, kMiddleSpatial, kOuterSpatial,
  kInnerReduce, kMiddleReduce, kOuterReduce,
  kMixed,  // the variable occurs more than once in the output index (a fused loop)
  kNone,   // no enclosing loop of that annotation
};
inline constexpr int kNumPositions = 8;

// The 11 features of one loop annotation: p = vec / unroll / parallel.
#define TF_ANNOTATION_FEATURES(X, p, what)                                                         \
  X(annotation, p##_len, kLog, "extent of the innermost enclosing " what " loop (0: none)")        \
  X(annotation, p##_num, kRaw, "number of enclosing " what " loops")                               \
  X(annotation, p##_prod, kLog, "product of the extents of the enclosing " what " loops (0: none)") \
  X(annotation, p##_pos_inner_spatial, kRaw, "innermost " what " loop is the innermost spatial loop") \
  X(annotation, p##_pos_middle_spatial, kRaw, "innermost " what " loop is a middle spatial loop")  \
  X(annotation, p##_pos_outer_spatial, kRaw, "innermost " what " loop is the outermost spatial loop") \
  X(annotation, p##_pos_inner_reduce, kRaw, "innermost " what " loop is the innermost reduce loop") \
  X(annotation, p##_pos_middle_reduce, kRaw, "innermost " what " loop is a middle reduce loop")    \
  X(annotation, p##_pos_outer_reduce, kRaw, "innermost " what " loop is the outermost reduce loop") \
  X(annotation, p##_pos_mixed, kRaw, "innermost " what " loop is fused across output dimensions") \
  X(annotation, p##_pos_none, kRaw, "no enclosing " what " loop")

#define TF_ARITH_SAMPLE(X, i)                                                                      \
  X(arith_intensity, arith_intensity_curve_##i, kRaw,                                             \
    "arithmetic intensity (ops / unique bytes) at sample " #i " of 10 along log2(ops); see README")

#define TF_STORE_FEATURES(X)                                                                       \
  X(compute, float_mad, kLog, "float a*b+c / a*b-c (one per pair), times n")                      \
  X(compute, float_addsub, kLog, "float + and - not part of a mad, times n")                      \
  X(compute, float_mul, kLog, "float * not part of a mad, times n")                               \
  X(compute, float_divmod, kLog, "float /, %, floordiv, floormod, times n")                       \
  X(compute, float_cmp, kLog, "float comparisons, min and max, times n")                          \
  X(compute, float_math_func, kLog, "float math intrinsics (exp, sqrt, tanh, ...), times n")      \
  X(compute, float_other_func, kLog, "casts to a float type, times n")                            \
  X(compute, int_mad, kLog, "integer a*b+c (one per pair), times n")                              \
  X(compute, int_addsub, kLog, "integer + and - not part of a mad, times n")                      \
  X(compute, int_mul, kLog, "integer * not part of a mad, times n")                               \
  X(compute, int_divmod, kLog, "integer /, %, floordiv, floormod, times n")                       \
  X(compute, int_cmp, kLog, "integer comparisons, min and max, times n")                          \
  X(compute, int_math_func, kLog, "integer math intrinsics (abs, ...), times n")                  \
  X(compute, int_other_func, kLog, "casts to an integer or bool type, times n")                   \
  X(compute, bool_op, kLog, "logical and / or / not, times n")                                    \
  X(compute, select_op, kLog, "selects, times n")                                                 \
  TF_ANNOTATION_FEATURES(X, vec, "vectorized")                                                     \
  TF_ANNOTATION_FEATURES(X, unroll, "unrolled")                                                    \
  TF_ANNOTATION_FEATURES(X, parallel, "parallel")                                                  \
  X(gpu, blockIdx_x_len, kRaw, "extent of the enclosing blockIdx.x loop (0: none)")               \
  X(gpu, blockIdx_y_len, kRaw, "extent of the enclosing blockIdx.y loop (0: none)")               \
  X(gpu, blockIdx_z_len, kRaw, "extent of the enclosing blockIdx.z loop (0: none)")               \
  X(gpu, threadIdx_x_len, kRaw, "extent of the enclosing threadIdx.x loop (0: none)")             \
  X(gpu, threadIdx_y_len, kRaw, "extent of the enclosing threadIdx.y loop (0: none)")             \
  X(gpu, threadIdx_z_len, kRaw, "extent of the enclosing threadIdx.z loop (0: none)")             \
  X(gpu, vthread_len, kRaw, "extent of the enclosing vthread loop (0: none)")                     \
  TF_ARITH_SAMPLE(X, 0) TF_ARITH_SAMPLE(X, 1) TF_ARITH_SAMPLE(X, 2) TF_ARITH_SAMPLE(X, 3)          \
  TF_ARITH_SAMPLE(X, 4) TF_ARITH_SAMPLE(X, 5) TF_ARITH_SAMPLE(X, 6) TF_ARITH_SAMPLE(X, 7)          \
  TF_ARITH_SAMPLE(X, 8) TF_ARITH_SAMPLE(X, 9)                                                      \
  X(allocation, alloc_size, kLog, "bytes of the Allocate of the stored buffer (0: not allocated)") \
  X(allocation, alloc_prod, kLog, "alloc_size times alloc_outer_prod")                            \
  X(allocation, alloc_outer_prod, kLog, "product of the extents of the loops around the Allocate") \
  X(allocation, alloc_inner_prod, kLog, "n / alloc_outer_prod: store executions per allocation")  \
  X(other, outer_prod, kLog, "n: product of the extents of all enclosing loops")                  \
  X(other, num_loops, kRaw, "number of enclosing loops")                                          \
  X(other, auto_unroll_max_step, kRaw, "auto_unroll_max_step pragma of the store's stage nest")

#define TF_BUFFER_FEATURES(X)                                                                      \
  X(buffer, acc_type_read, kRaw, "the store only reads the buffer")                               \
  X(buffer, acc_type_write, kRaw, "the store only writes the buffer")                             \
  X(buffer, acc_type_read_write, kRaw, "the store reads and writes the buffer")                   \
  X(buffer, bytes, kLog, "bytes accessed, repeats included: n * accesses * element bytes")       \
  X(buffer, unique_bytes, kLog, "distinct bytes accessed over the whole nest (footprint)")        \
  X(buffer, lines, kLog, "64-byte cache lines fetched, reuse only along the stride loop")        \
  X(buffer, unique_lines, kLog, "distinct 64-byte cache lines of the footprint")                  \
  X(buffer, reuse_type_loop_multiple_read, kRaw, "reuse: a loop the access does not depend on")   \
  X(buffer, reuse_type_serial_multiple_read_write, kRaw, "reuse: other stores in a loop access it") \
  X(buffer, reuse_type_no_reuse, kRaw, "no reuse found in any enclosing loop")                    \
  X(buffer, reuse_dis_iter, kLog, "iterations between two uses of an element")                    \
  X(buffer, reuse_dis_bytes, kLog, "bytes touched between two uses of an element")                \
  X(buffer, reuse_ct, kLog, "times an element is reused at the reuse loop (0: no reuse)")        \
  X(buffer, bytes_d_reuse_ct, kLog, "bytes / max(reuse_ct, 1)")                                   \
  X(buffer, unique_bytes_d_reuse_ct, kLog, "unique_bytes / max(reuse_ct, 1)")                     \
  X(buffer, lines_d_reuse_ct, kLog, "lines / max(reuse_ct, 1)")                                   \
  X(buffer, unique_lines_d_reuse_ct, kLog, "unique_lines / max(reuse_ct, 1)")                     \
  X(buffer, stride, kLog, "|index step| in elements of the innermost loop that moves the access")

// Row offsets of the store features: kF_float_mad, ..., kNumStoreFeatures.
enum StoreFeature : int {
#define TF_ENUM(group, name, transform, meaning) kF_##name,
  TF_STORE_FEATURES(TF_ENUM)
#undef TF_ENUM
  kNumStoreFeatures
};

// Offsets inside one buffer block: kB_bytes, ..., kNumBufferFeatures.
enum BufferFeature : int {
#define TF_ENUM(group, name, transform, meaning) kB_##name,
  TF_BUFFER_FEATURES(TF_ENUM)
#undef TF_ENUM
  kNumBufferFeatures
};

// Buffers described per store; stores touching more keep the largest.
inline constexpr int kMaxBuffers = 5;
inline constexpr int kRowWidth = kNumStoreFeatures + kMaxBuffers * kNumBufferFeatures;
inline constexpr int BufferOffset(int slot, BufferFeature f) {
  return kNumStoreFeatures + slot * kNumBufferFeatures + f;
}
inline constexpr int kArithSamples = 10;

// Writers index runs of features by an offset from their first member;
// these checks keep the runs above contiguous and in enum order.
static_assert(kF_vec_pos_none - kF_vec_pos_inner_spatial == kNumPositions - 1);
static_assert(kF_unroll_pos_none - kF_unroll_pos_inner_spatial == kNumPositions - 1);
static_assert(kF_parallel_pos_none - kF_parallel_pos_inner_spatial == kNumPositions - 1);
static_assert(kF_unroll_len - kF_vec_len == kF_parallel_len - kF_unroll_len);
static_assert(kF_arith_intensity_curve_9 - kF_arith_intensity_curve_0 == kArithSamples - 1);
static_assert(kF_int_mad - kF_float_mad == kF_int_other_func - kF_float_other_func);
static_assert(kB_acc_type_read_write - kB_acc_type_read == 2);
static_assert(kB_reuse_type_no_reuse - kB_reuse_type_loop_multiple_read == 2);

// The rows of the lists, for names, transforms and documentation.
struct FeatureInfo {
  const char* group;
  const char* name;
  Transform transform;
  const char* meaning;
};
inline constexpr FeatureInfo kStoreFeatureInfo[] = {
#define TF_INFO(group, name, transform, meaning) {#group, #name, Transform::transform, meaning},
    TF_STORE_FEATURES(TF_INFO)
#undef TF_INFO
};
inline constexpr FeatureInfo kBufferFeatureInfo[] = {
#define TF_INFO(group, name, transform, meaning) {#group, #name, Transform::transform, meaning},
    TF_BUFFER_FEATURES(TF_INFO)
#undef TF_INFO
};
static_assert(std::size(kStoreFeatureInfo) == kNumStoreFeatures);
static_assert(std::size(kBufferFeatureInfo) == kNumBufferFeatures);

// How column `index` of a row is transformed.
Transform TransformOf(int index);

}  // namespace tuneforge::search::features
