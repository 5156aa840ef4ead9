// Checks of single request fields. Each takes the field's path in the
// request ("spec.measure.repeat", "results[3].task_id") and returns
// INVALID_ARGUMENT with a message that starts with that path, says what is
// wrong and what is allowed: "spec.trials must be >= 1, got 0".
#pragma once

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "proto/tuneforge.pb.h"

// Returns the status of `expr` from the enclosing function unless it is OK.
#ifndef TF_RETURN_IF_ERROR
#define TF_RETURN_IF_ERROR(expr)              \
  do {                                        \
    ::absl::Status tf_status_ = (expr);       \
    if (!tf_status_.ok()) return tf_status_;  \
  } while (false)
#endif

namespace tuneforge::server {

absl::Status FieldError(absl::string_view path, absl::string_view problem);

// An id the server handed out (job, worker, lease, task): not empty, at most
// limits::kMaxIdLength printable characters without spaces.
absl::Status CheckId(absl::string_view path, absl::string_view value);
// Free text (names, hostnames): at most `max_length` bytes, no control
// characters other than tab.
absl::Status CheckText(absl::string_view path, absl::string_view value, int64_t max_length);
// A device key ("x86_64-avx512-2c"): letters, digits and . _ - + : ; an
// empty one passes only when `required` is false (a filter for "any").
absl::Status CheckDeviceKey(absl::string_view path, absl::string_view value, bool required);
// A workload key as `tuneforge show` prints it: 16 lowercase hex digits; an
// empty one passes only when `required` is false.
absl::Status CheckWorkloadKey(absl::string_view path, absl::string_view value, bool required);

absl::Status CheckRange(absl::string_view path, int64_t value, int64_t lo, int64_t hi);
absl::Status CheckAtLeast(absl::string_view path, int64_t value, int64_t lo);
absl::Status CheckAtMost(absl::string_view path, int64_t value, int64_t hi);
// A finite number in [lo, hi].
absl::Status CheckFiniteRange(absl::string_view path, double value, double lo, double hi);

// A workload as a request carries it: exactly one of spec and definition,
// each within its size cap; a spec that names a file ("def:...") is refused,
// since the server must not read paths chosen by a client.
absl::Status CheckWorkload(absl::string_view path, const v1::Workload& workload);

// "<path>[<index>]".
std::string Indexed(absl::string_view path, int index);
std::string Child(absl::string_view path, absl::string_view field);

// A NOT_FOUND from the core about the value of `path` ("no job 'x'")
// becomes "<path>: no job 'x'", so every refusal names its field; other
// statuses pass unchanged.
absl::Status NameNotFoundField(absl::string_view path, absl::Status status);

}  // namespace tuneforge::server
