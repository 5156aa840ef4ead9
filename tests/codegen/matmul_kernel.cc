#include "tests/codegen/matmul_kernel.h"

#include <variant>
#include <vector>

#include "common/overloaded.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {

lower::LoweredFunc TiledMatmul(const MatmulTiling& t, const char* name) {
  te::Buffer A = Buf("A", {t.m, t.k}), B = Buf("B", {t.k, t.n}), C = Buf("C", {t.m, t.n});
  const int64_t block_cols = t.vectors * t.lanes;
  te::Buffer acc = Buf("C_local", {t.rows * block_cols}, DType::Float32(), "local");
  auto acc_at = [&](int64_t r, int64_t v) { return Vec(Expr(r * block_cols + v * t.lanes), t.lanes); };

  Stmt body = Loop("i.o", t.m / t.rows, [&](Expr io) {
    return Loop("j.o", t.n / block_cols, [&](Expr jo) {
      std::vector<Stmt> init, update, write_back;
      for (int64_t r = 0; r < t.rows; ++r) {
        for (int64_t v = 0; v < t.vectors; ++v) {
          init.push_back(St(acc, acc_at(r, v), Splat(Expr(0.0f), t.lanes)));
          Expr c_index = (io * t.rows + r) * t.n + jo * block_cols + v * t.lanes;
          write_back.push_back(St(C, Vec(c_index, t.lanes), Ld(acc, acc_at(r, v))));
        }
      }
      Stmt k_loop = Loop("k.o", t.k / t.k_unroll, [&](Expr ko) {
        for (int64_t ki = 0; ki < t.k_unroll; ++ki) {
          Expr k = ko * t.k_unroll + ki;
          for (int64_t r = 0; r < t.rows; ++r) {
            Expr a = Splat(Ld(A, (io * t.rows + r) * t.k + k), t.lanes);
            for (int64_t v = 0; v < t.vectors; ++v) {
              Expr b_index = t.packed_b ? (jo * t.k + k) * block_cols + v * t.lanes
                                        : k * t.n + jo * block_cols + v * t.lanes;
              Expr b = Ld(B, Vec(b_index, t.lanes));
              update.push_back(St(acc, acc_at(r, v), Ld(acc, acc_at(r, v)) + a * b));
            }
          }
        }
        return Seq(update);
      });
      return lower::MakeAllocate(acc, Seq({Seq(init), k_loop, Seq(write_back)}));
    });
  }, ForKind::kParallel);
  return Func(name, {A, B, C}, body);
}

int64_t CountStatements(const lower::Stmt& s) {
  if (!s) return 0;
  return std::visit(Overloaded{
                        [](const lower::For& n) { return 1 + CountStatements(n.body); },
                        [](const lower::Store&) { return int64_t{1}; },
                        [](const lower::Allocate& n) { return 1 + CountStatements(n.body); },
                        [](const lower::IfThenElse& n) {
                          return 1 + CountStatements(n.then_case) + CountStatements(n.else_case);
                        },
                        [](const lower::Seq& n) {
                          int64_t total = 0;
                          for (const lower::Stmt& c : n.stmts) total += CountStatements(c);
                          return total;
                        },
                        [](const lower::LetStmt& n) { return 1 + CountStatements(n.body); },
                    },
                    s.get()->v);
}

}  // namespace tuneforge::codegen::testing
