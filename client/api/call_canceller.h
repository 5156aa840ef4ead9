// Lets one thread end a call another thread is blocked in (Ctrl-C during a
// watch stream): Cancel() cancels the call attached now and every call
// attached later.
#pragma once

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/grpcpp.h"

namespace tuneforge::client {

class CallCanceller {
 public:
  void Cancel();
  bool cancelled() const;

  // Used by the clients around a blocking call.
  void Attach(grpc::ClientContext* context);
  void Detach();

 private:
  mutable absl::Mutex mu_;
  grpc::ClientContext* context_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
};

// Attaches for one scope.
class ScopedAttach {
 public:
  ScopedAttach(CallCanceller* canceller, grpc::ClientContext* context) : canceller_(canceller) {
    if (canceller_) canceller_->Attach(context);
  }
  ~ScopedAttach() {
    if (canceller_) canceller_->Detach();
  }
  ScopedAttach(const ScopedAttach&) = delete;
  ScopedAttach& operator=(const ScopedAttach&) = delete;

 private:
  CallCanceller* canceller_;
};

}  // namespace tuneforge::client
