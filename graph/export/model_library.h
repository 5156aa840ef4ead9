// `tuneforge compile`: a model as a shared library that a C program loads
// with no tuneforge at run time. DIR gets
//   lib<name>.so   the tuned kernels, the weights (read-only data), the
//                  static memory plan (one arena in .bss) and the thread pool
//   <name>.h       the one entry point and the inputs' and outputs' shapes
// and the files it was linked from (<name>.c, weights.S, kernels/*.o), so a
// user can see what is inside.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/executor/compiled_model.h"
#include "graph/model/model.h"

namespace tuneforge::graph {

struct LibraryOptions {
  std::string out_dir;
  std::string name;              // C identifier prefix; the model's name made valid
  std::string runtime_archive;   // libtf_runtime.a (position-independent)
  std::string compiler = "c++";  // links the library (any C++ driver: the pool is C++)
};

struct LibraryReport {
  std::string library;  // DIR/lib<name>.so
  std::string header;   // DIR/<name>.h
  std::vector<KernelInfo> kernels;
  int64_t arena_bytes = 0;
  int64_t weight_bytes = 0;
};

// A valid C identifier from a model name ("resnet-18" -> "resnet_18").
std::string CIdentifier(const std::string& name);

// Errors: an output folder that cannot be written, a kernel that does not
// compile, the compiler missing or failing (its message included).
absl::StatusOr<LibraryReport> WriteModelLibrary(const Model& model, const ScheduleLookup& lookup,
                                                const LibraryOptions& options);

}  // namespace tuneforge::graph
