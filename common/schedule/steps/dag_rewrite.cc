#include "common/schedule/steps/dag_rewrite.h"

#include "absl/strings/str_cat.h"
#include "common/schedule/recently_used.h"
#include "common/schedule/steps.h"
#include "common/te/expr_util.h"

namespace tuneforge::schedule {

absl::StatusOr<te::ComputeDagPtr> RebuildDag(DagRewrite rewrite) {
  std::vector<te::Tensor>& ops = rewrite.ops;
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    const te::Tensor op = ops[i];
    if (op->is_placeholder()) continue;
    te::Expr body = te::ReplaceReads(op->body, [&](const te::TensorRead& r, const te::Expr&) {
      for (const auto& [index, from, to] : rewrite.redirects)
        if (index == i && from == r.tensor.get()) return te::MakeTensorRead(to, r.indices);
      auto it = rewrite.replaced.find(r.tensor.get());
      if (it == rewrite.replaced.end()) return te::Expr();
      return te::MakeTensorRead(it->second, r.indices);
    });
    if (body.same_as(op->body)) continue;
    absl::StatusOr<te::Tensor> rebuilt = te::MakeCompute(op->name, op->axes, body, op->tag);
    if (!rebuilt.ok()) return rebuilt.status();
    // Reads of the old op, and of whatever it was itself replacing, now
    // point at the rebuilt one.
    for (auto& [from, to] : rewrite.replaced)
      if (to == op) to = *rebuilt;
    rewrite.replaced[op.get()] = *rebuilt;
    ops[i] = *std::move(rebuilt);
  }
  absl::StatusOr<te::ComputeDag> dag = te::ComputeDag::CreateFromOps(std::move(ops));
  if (!dag.ok()) return dag.status();
  return std::make_shared<const te::ComputeDag>(*std::move(dag));
}

absl::StatusOr<te::ComputeDagPtr> SharedRewrite(const te::ComputeDagPtr& dag, const Step& step,
                                                absl::FunctionRef<absl::StatusOr<te::ComputeDagPtr>()> build) {
  struct Entry {
    te::ComputeDagPtr input;  // held: a match is never a freed DAG's address
    std::string step;
    te::ComputeDagPtr output;
  };
  thread_local RecentlyUsed<Entry> recent;
  std::string key = StepToString(step);
  if (const Entry* e = recent.Find([&](const Entry& e) { return e.input == dag && e.step == key; }))
    return e->output;
  absl::StatusOr<te::ComputeDagPtr> output = build();
  if (output.ok()) recent.Add(Entry{dag, std::move(key), *output});
  return output;
}

std::string UniqueOpName(const te::ComputeDag& dag, const std::string& base) {
  auto taken = [&](const std::string& name) {
    for (const te::Tensor& op : dag.ops())
      if (op->name == name) return true;
    return false;
  };
  if (!taken(base)) return base;
  for (int n = 1;; ++n) {
    std::string name = absl::StrCat(base, ".", n);
    if (!taken(name)) return name;
  }
}

std::vector<te::IterVar> FreshAxes(const std::vector<te::IterVar>& axes) {
  std::vector<te::IterVar> out;
  for (const te::IterVar& a : axes) out.push_back(te::IterVar{te::MakeVar(a.var->name), a.extent});
  return out;
}

absl::StatusOr<te::Tensor> MakeCopyOp(const std::string& name, const te::Tensor& source,
                                      const std::string& tag) {
  std::vector<te::IterVar> axes;
  if (source->is_compute()) {
    axes = FreshAxes(source->axes);
  } else {
    for (size_t d = 0; d < source->shape.size(); ++d)
      axes.push_back(te::IterVar{te::MakeVar(absl::StrCat("ax", d)), source->shape[d]});
  }
  std::vector<te::Expr> indices;
  for (const te::IterVar& a : axes) indices.push_back(te::Expr(a.var));
  return te::MakeCompute(name, axes, te::Read(source, std::move(indices)), tag);
}

void InsertStage(State* state, te::ComputeDagPtr dag, int at, Stage inserted) {
  std::vector<Stage>& stages = state->mutable_stages();
  for (Stage& s : stages)
    if (auto* loc = std::get_if<ComputeAtIter>(&s.location); loc && loc->target_stage >= at)
      ++loc->target_stage;
  stages.insert(stages.begin() + at, std::move(inserted));
  for (int i = 0; i < static_cast<int>(stages.size()); ++i) stages[i].op = dag->op(i);
  state->set_dag(std::move(dag));
}

void ResetLoopsKeepingPlacement(Stage* stage) {
  Stage fresh = MakeInitialStage(stage->op);
  fresh.location = stage->location;
  fresh.scope = stage->scope;
  fresh.storage_align = stage->storage_align;
  *stage = std::move(fresh);
}

}  // namespace tuneforge::schedule
