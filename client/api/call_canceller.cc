#include "client/api/call_canceller.h"

namespace tuneforge::client {

void CallCanceller::Cancel() {
  absl::MutexLock lock(&mu_);
  cancelled_ = true;
  if (context_) context_->TryCancel();
}

bool CallCanceller::cancelled() const {
  absl::MutexLock lock(&mu_);
  return cancelled_;
}

void CallCanceller::Attach(grpc::ClientContext* context) {
  absl::MutexLock lock(&mu_);
  context_ = context;
  if (cancelled_) context_->TryCancel();
}

void CallCanceller::Detach() {
  absl::MutexLock lock(&mu_);
  context_ = nullptr;
}

}  // namespace tuneforge::client
