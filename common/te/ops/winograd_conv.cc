#include "common/te/ops/winograd_conv.h"

#include <string>
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

// Lavin and Gray's matrices (as B^T, G, A^T), checked against direct
// convolution in the tests.
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

Matrix Transposed(const Matrix& m) {
  Matrix t(m[0].size(), std::vector<double>(m.size()));
  for (size_t i = 0; i < m.size(); ++i)
    for (size_t j = 0; j < m[i].size(); ++j) t[j][i] = m[i][j];
  return t;
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

// The sum over a transform's taps skips a matrix's zero entries (a
// condition of the reduction): unrolled, the condition is constant and the
// term is gone, where x * 0 cannot be folded away (it is not 0 for x = inf).
Expr NonZero(const Tensor& matrix, const Expr& i0, const Expr& j0, const Expr& i1, const Expr& j1, DType dtype) {
  return LogicalAnd(NE(Read(matrix, {i0, j0}), Const(0, dtype)), NE(Read(matrix, {i1, j1}), Const(0, dtype)));
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
  auto b = ConstantMatrix("winograd_B", Transposed(t.bt), p.dtype);
  auto g = ConstantMatrix("winograd_G", t.g, p.dtype);
  auto a = ConstantMatrix("winograd_A", Transposed(t.at), p.dtype);
  if (!b.ok()) return b.status();
  if (!g.ok()) return g.status();
  if (!a.ok()) return a.status();

  // The kernel's transform depends on the constant weight alone: a schedule
  // precomputes it once (layout rewrite), not in every call.
  std::vector<IterVar> kp_axes = Axes({{"eps", alpha}, {"nu", alpha}, {"c", p.C}, {"k", p.K}});
  IterVar rh = Axis("r_kh", kTaps), rw = Axis("r_kw", kTaps);
  Expr kp_body = Read(*kernel, {Expr(kp_axes[3].var), Expr(kp_axes[2].var), Expr(rh.var), Expr(rw.var)}) *
                 Read(*g, {Expr(kp_axes[0].var), Expr(rh.var)}) * Read(*g, {Expr(kp_axes[1].var), Expr(rw.var)});
  Expr kp_taps = NonZero(*g, Expr(kp_axes[0].var), Expr(rh.var), Expr(kp_axes[1].var), Expr(rw.var), p.dtype);
  auto kernel_pack =
      MakeCompute("kernel_pack", std::move(kp_axes), Sum(kp_body, {rh, rw}, kp_taps), "winograd_kernel");
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

  std::vector<IterVar> dp_axes = Axes({{"eps", alpha}, {"nu", alpha}, {"p", tiles}, {"c", p.C}});
  IterVar ra = Axis("r_a", alpha), rb = Axis("r_b", alpha);
  Expr dp_body = Read(*input_tile, {Expr(ra.var), Expr(rb.var), Expr(dp_axes[2].var), Expr(dp_axes[3].var)}) *
                 Read(*b, {Expr(ra.var), Expr(dp_axes[0].var)}) * Read(*b, {Expr(rb.var), Expr(dp_axes[1].var)});
  Expr dp_taps = NonZero(*b, Expr(ra.var), Expr(dp_axes[0].var), Expr(rb.var), Expr(dp_axes[1].var), p.dtype);
  auto data_pack = MakeCompute("data_pack", std::move(dp_axes), Sum(dp_body, {ra, rb}, dp_taps), "winograd_data");
  if (!data_pack.ok()) return data_pack.status();

  std::vector<IterVar> bg_axes = Axes({{"eps", alpha}, {"nu", alpha}, {"p", tiles}, {"k", p.K}});
  IterVar rc = Axis("rc", p.C);
  Expr e(bg_axes[0].var), u(bg_axes[1].var);
  Expr bg_body = Read(*data_pack, {e, u, Expr(bg_axes[2].var), Expr(rc.var)}) *
                 Read(*kernel_pack, {e, u, Expr(rc.var), Expr(bg_axes[3].var)});
  auto bgemm = MakeCompute("bgemm", std::move(bg_axes), Sum(bg_body, {rc}), "winograd_bgemm");
  if (!bgemm.ok()) return bgemm.status();

  std::vector<IterVar> inv_axes = Axes({{"vh", m}, {"vw", m}, {"p", tiles}, {"k", p.K}});
  IterVar ia = Axis("r_a", alpha), ib = Axis("r_b", alpha);
  Expr inv_body = Read(*bgemm, {Expr(ia.var), Expr(ib.var), Expr(inv_axes[2].var), Expr(inv_axes[3].var)}) *
                  Read(*a, {Expr(ia.var), Expr(inv_axes[0].var)}) * Read(*a, {Expr(ib.var), Expr(inv_axes[1].var)});
  Expr inv_taps = NonZero(*a, Expr(ia.var), Expr(inv_axes[0].var), Expr(ib.var), Expr(inv_axes[1].var), p.dtype);
  auto inverse = MakeCompute("inverse", std::move(inv_axes), Sum(inv_body, {ia, ib}, inv_taps), "winograd_inverse");
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
