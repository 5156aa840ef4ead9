// Loops annotated `vectorize` become vector statements: the loop variable
// becomes ramp(0, 1, lanes), so contiguous accesses become vector loads and
// stores, invariant ones broadcasts and the rest gathers/scatters. A loop
// whose body cannot be vectorized (inner loops, a condition on the loop
// variable, a store every lane would write to the same element) stays a
// loop marked vectorized, which code generation hands to LLVM's vectorizer;
// but a body that is one test linear in the loop variable (a tile that
// overruns its axis) is vector code where every lane passes, and that loop
// only where some do not (the axis's last tile).
// Given the float32 lanes of the target's vector register, a width that is
// not a power of two, and that widened to one would take more registers,
// becomes pieces of whole registers and one for the lanes left over (40
// lanes in 16-lane registers: 32, then 8).
// A loop that would only copy lanes gathered one by one (strided reads, a
// Winograd input tile) stays a rolled loop (vectorize.cc says why).
#pragma once

#include <cstdint>
#include <optional>

#include "common/lower/stmt.h"

namespace tuneforge::lower {

// Longer vectorized loops stay loops (LLVM's vectorizer handles them), but
// for a gathering copy, which stays a rolled loop at any length.
inline constexpr int64_t kMaxVectorLanes = 64;
// A vector load with a constant stride up to this is one load of its span
// and a shuffle (code generation); a longer stride loads lane by lane.
inline constexpr int64_t kMaxSpanLoadStride = 4;

// Ramp(b, s, n), or such a Ramp plus a Broadcast offset in either order:
// its scalar start and stride (how code generation tells contiguous,
// span-loaded and lane-by-lane vector accesses apart).
struct RampStart {
  te::Expr base;
  int64_t stride = 0;
};
std::optional<RampStart> RampStartOf(const te::Expr& index);
// The scalar start of a contiguous (stride-1) vector index.
std::optional<te::Expr> ContiguousBase(const te::Expr& index);
// The scalar address of a vector index whose lanes are all equal.
std::optional<te::Expr> UniformIndex(const te::Expr& index);

Stmt Vectorize(const Stmt& body, int64_t register_lanes = 0);

// Whether vector code (Vectorize's output) computes lanes and stores them
// to elements that are neither contiguous nor one element: a scatter, which
// code generation writes lane by lane. Such a program vectorized a loop
// along an axis strided in what it computes (a conv's output rows, a fused
// tile of two axes). A copy (a store of a load) is not counted: a layout
// transform that transposes writes strided lanes in good programs too.
bool StoresScatter(const Stmt& vector_code);

}  // namespace tuneforge::lower
