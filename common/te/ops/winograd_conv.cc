#include "common/te/ops/winograd_conv.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/te/ops/checks.h"
#include "common/te/ops/indexing.h"
#include "common/te/ops/pad.h"

namespace tuneforge::te::ops {
namespace {

constexpr absl::string_view kOp = "conv2d_winograd";
constexpr int64_t kTaps = 3;

using Matrix = std::vector<std::vector<double>>;

// Lavin and Gray's matrices as B^T, G, A^T (each [out][tap]), checked
// against direct convolution in the tests.
struct Transforms {
  Matrix bt, g, at;
};
Transforms TransformsFor(int64_t m) {
  if (m == 2)
    return {{{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}},
            {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}},
            {{1, 1, 1, 0}, {0, 1, -1, -1}}};
  return {{{4, 0, -5, 0, 1, 0},
           {0, -4, -4, 1, 1, 0},
           {0, 4, -4, -1, 1, 0},
           {0, -2, -1, 2, 1, 0},
           {0, 2, -1, -2, 1, 0},
           {0, 4, 0, -5, 0, 1}},
          {{1.0 / 4, 0, 0},
           {-1.0 / 6, -1.0 / 6, -1.0 / 6},
           {-1.0 / 6, 1.0 / 6, -1.0 / 6},
           {1.0 / 24, 1.0 / 12, 1.0 / 6},
           {1.0 / 24, -1.0 / 12, 1.0 / 6},
           {0, 0, 1}},
          {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}}};
}

// A matrix as a compute op over its indices: a chain of selects over its
// non-zero entries, which fold to constants once the indices are.
absl::StatusOr<Tensor> ConstantMatrix(const std::string& name, const Matrix& values, DType dtype) {
  const int64_t rows = static_cast<int64_t>(values.size()), cols = static_cast<int64_t>(values[0].size());
  return Compute(
      name, {rows, cols},
      [&](const std::vector<Var>& ij) {
        Expr value = Const(0, dtype);
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j)
            if (values[i][j] != 0)
              value = MakeSelect(LogicalAnd(EQ(Expr(ij[0]), IntConst(i)), EQ(Expr(ij[1]), IntConst(j))),
                                 Const(values[i][j], dtype), value);
        return value;
      },
      "winograd_matrix");
}

// The two-sided transform of every (x, y) slice of `source` by `matrix`
// ([out][tap]): result[i][j][x][y] = sum over taps a, b of
// matrix[i][a] * source(a, b, x, y) * matrix[j][b]. The sum skips the
// matrix's zero entries (a condition of the reduction): unrolled, the
// condition is constant and the term is gone, where x * 0 cannot be folded
// away (it is not 0 for x = inf).
using TransformSource = std::function<Expr(const Expr& a, const Expr& b, const Expr& x, const Expr& y)>;
absl::StatusOr<Tensor> TwoSidedTransform(const std::string& name, const std::string& tag, const Tensor& matrix,
                                         const std::vector<std::pair<std::string, int64_t>>& axes,
                                         const std::string& tap_a, const std::string& tap_b,
                                         const TransformSource& source, DType dtype) {
  std::vector<IterVar> out = Axes(axes);
  IterVar ta = Axis(tap_a, matrix->shape[1]), tb = Axis(tap_b, matrix->shape[1]);
  Expr i(out[0].var), j(out[1].var), a(ta.var), b(tb.var);
  Expr left = Read(matrix, {i, a}), right = Read(matrix, {j, b});
  Expr body = source(a, b, Expr(out[2].var), Expr(out[3].var)) * left * right;
  Expr taps = LogicalAnd(NE(left, Const(0, dtype)), NE(right, Const(0, dtype)));
  return MakeCompute(name, std::move(out), Sum(body, {ta, tb}, taps), tag);
}

absl::Status Validate(const WinogradConv2dParams& p) {
  if (auto s = RequirePositive(kOp, {{"N", p.N}, {"C", p.C}, {"H", p.H}, {"W", p.W}, {"K", p.K}}); !s.ok())
    return s;
  if (auto s = RequireNonNegative(kOp, {{"pad", p.pad}}); !s.ok()) return s;
  if (p.tile != 0 && p.tile != 2 && p.tile != 4)
    return absl::InvalidArgumentError(
        absl::StrCat(kOp, ": tile=", p.tile, " is not supported; use tile=2 or tile=4 (0 picks one)"));
  if (p.H + 2 * p.pad < kTaps || p.W + 2 * p.pad < kTaps)
    return absl::InvalidArgumentError(absl::StrCat(kOp, ": the padded input (", p.H + 2 * p.pad, "x",
                                                   p.W + 2 * p.pad, ") is smaller than the 3x3 kernel"));
  return RequireFloat(kOp, p.dtype);
}

}  // namespace

absl::StatusOr<BuiltOp> WinogradConv2d(const WinogradConv2dParams& p, const OpInputs& inputs) {
  if (auto s = Validate(p); !s.ok()) return s;
  if (auto s = RequireInputCount(kOp, inputs, 2); !s.ok()) return s;
  auto data = OpInput(kOp, inputs, 0, "data", {p.N, p.C, p.H, p.W}, p.dtype);
  if (!data.ok()) return data.status();
  auto kernel = OpInput(kOp, inputs, 1, "kernel", {p.K, p.C, kTaps, kTaps}, p.dtype, InputKind::kWeight);
  if (!kernel.ok()) return kernel.status();

  const int64_t oh = p.H + 2 * p.pad - kTaps + 1, ow = p.W + 2 * p.pad - kTaps + 1;
  const int64_t m = p.tile != 0 ? p.tile : (oh % 4 == 0 ? 4 : 2);
  const int64_t alpha = m + kTaps - 1;
  const int64_t tiles_h = (oh + m - 1) / m, tiles_w = (ow + m - 1) / m;
  const int64_t tiles = p.N * tiles_h * tiles_w;
  // Pad so that every tile's (m+2) x (m+2) window is inside, the last
  // partial tile included (its extra outputs are computed and dropped).
  auto padded = Pad(*data, {0, 0, p.pad, p.pad},
                    {0, 0, (tiles_h - 1) * m + alpha - p.H - p.pad, (tiles_w - 1) * m + alpha - p.W - p.pad},
                    Const(0, p.dtype), {"n", "c", "h", "w"});
  if (!padded.ok()) return padded.status();

  const Transforms t = TransformsFor(m);
  auto bt = ConstantMatrix("winograd_BT", t.bt, p.dtype);
  auto g = ConstantMatrix("winograd_G", t.g, p.dtype);
  auto at = ConstantMatrix("winograd_AT", t.at, p.dtype);
  if (!bt.ok()) return bt.status();
  if (!g.ok()) return g.status();
  if (!at.ok()) return at.status();

  // The kernel's transform depends on the constant weight alone: a schedule
  // precomputes it once (layout rewrite), not in every call.
  auto kernel_pack = TwoSidedTransform(
      "kernel_pack", "winograd_kernel", *g, {{"eps", alpha}, {"nu", alpha}, {"c", p.C}, {"k", p.K}}, "r_kh", "r_kw",
      [&](const Expr& a, const Expr& b, const Expr& c, const Expr& k) { return Read(*kernel, {k, c, a, b}); },
      p.dtype);
  if (!kernel_pack.ok()) return kernel_pack.status();

  // Tile p of image n covers output rows th*m.. and columns tw*m..
  std::vector<IterVar> it_axes = Axes({{"eps", alpha}, {"nu", alpha}, {"p", tiles}, {"c", p.C}});
  Expr tile(it_axes[2].var);
  Expr n = FloorDiv(tile, IntConst(tiles_h * tiles_w));
  Expr th = FloorMod(FloorDiv(tile, IntConst(tiles_w)), IntConst(tiles_h));
  Expr tw = FloorMod(tile, IntConst(tiles_w));
  Expr it_body = Read(*padded, {n, Expr(it_axes[3].var), th * IntConst(m) + Expr(it_axes[0].var),
                                tw * IntConst(m) + Expr(it_axes[1].var)});
  auto input_tile = MakeCompute("input_tile", std::move(it_axes), it_body, "winograd_tile");
  if (!input_tile.ok()) return input_tile.status();

  auto data_pack = TwoSidedTransform(
      "data_pack", "winograd_data", *bt, {{"eps", alpha}, {"nu", alpha}, {"p", tiles}, {"c", p.C}}, "r_a", "r_b",
      [&](const Expr& a, const Expr& b, const Expr& q, const Expr& c) { return Read(*input_tile, {a, b, q, c}); },
      p.dtype);
  if (!data_pack.ok()) return data_pack.status();

  std::vector<IterVar> bg_axes = Axes({{"eps", alpha}, {"nu", alpha}, {"p", tiles}, {"k", p.K}});
  IterVar rc = Axis("rc", p.C);
  Expr e(bg_axes[0].var), u(bg_axes[1].var);
  Expr bg_body = Read(*data_pack, {e, u, Expr(bg_axes[2].var), Expr(rc.var)}) *
                 Read(*kernel_pack, {e, u, Expr(rc.var), Expr(bg_axes[3].var)});
  auto bgemm = MakeCompute("bgemm", std::move(bg_axes), Sum(bg_body, {rc}), "winograd_bgemm");
  if (!bgemm.ok()) return bgemm.status();

  auto inverse = TwoSidedTransform(
      "inverse", "winograd_inverse", *at, {{"vh", m}, {"vw", m}, {"p", tiles}, {"k", p.K}}, "r_a", "r_b",
      [&](const Expr& a, const Expr& b, const Expr& q, const Expr& k) { return Read(*bgemm, {a, b, q, k}); },
      p.dtype);
  if (!inverse.ok()) return inverse.status();

  std::vector<IterVar> out_axes = Axes({{"n", p.N}, {"k", p.K}, {"oh", oh}, {"ow", ow}});
  Expr y(out_axes[2].var), x(out_axes[3].var), mm = IntConst(m);
  Expr out_tile = Expr(out_axes[0].var) * IntConst(tiles_h * tiles_w) + FloorDiv(y, mm) * IntConst(tiles_w) +
                  FloorDiv(x, mm);
  Expr gather = Read(*inverse, {FloorMod(y, mm), FloorMod(x, mm), out_tile, Expr(out_axes[1].var)});
  auto out = MakeCompute(std::string(kOp), std::move(out_axes), gather, std::string(kOp));
  if (!out.ok()) return out.status();
  return BuiltOp{*out, 1};
}

}  // namespace tuneforge::te::ops
