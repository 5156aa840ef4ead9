// Jobs.Watch: the first message is the job as it is, then its progress; the
// stream ends when the job finishes, when the client cancels and when the
// server shuts down.
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "tests/server/service/rpc_calls.h"

namespace tuneforge::server::testing {
namespace {

class WatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<TestServer>> server = TestServer::Start();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  std::string Submit(int trials) {
    v1::SubmitJobRequest submit;
    *submit.mutable_spec() = SmallJobSpec(trials);
    v1::SubmitJobResponse submitted;
    grpc::Status status = server_->stubs().jobs->Submit(Authed().get(), submit, &submitted);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return submitted.job().id();
  }
  grpc::Status Cancel(const std::string& id) {
    v1::CancelJobRequest cancel;
    cancel.set_id(id);
    return CallCancel(server_->stubs(), Authed().get(), cancel);
  }
  std::unique_ptr<TestServer> server_;
};

TEST_F(WatchTest, FirstMessageIsTheCurrentStateAndTheStreamEndsWhenTheJobIsCancelled) {
  std::string id = Submit(1000);
  std::unique_ptr<grpc::ClientContext> context = Authed();
  v1::WatchJobRequest request;
  request.set_id(id);
  auto reader = server_->stubs().jobs->Watch(context.get(), request);
  v1::JobProgress first;
  ASSERT_TRUE(reader->Read(&first));
  EXPECT_EQ(first.job().id(), id);
  EXPECT_EQ(first.job().state(), v1::JOB_STATE_QUEUED);  // no worker has its device key
  EXPECT_EQ(first.job().trials_total(), 1000);

  ASSERT_TRUE(Cancel(id).ok());
  v1::JobProgress message, last;
  absl::Time start = absl::Now();
  while (reader->Read(&message)) last = message;
  grpc::Status status = reader->Finish();
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(last.job().state(), v1::JOB_STATE_CANCELLED);
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
}

TEST_F(WatchTest, StreamsProgressUntilTheJobIsDone) {
  const int trials = 12;
  std::string id = Submit(trials);
  std::vector<v1::JobProgress> progress;
  grpc::Status watch_status;
  std::thread watcher([&] {
    v1::WatchJobRequest request;
    request.set_id(id);
    watch_status = CallWatch(server_->stubs(), Authed(absl::Seconds(60)).get(), request, &progress);
  });
  // Measure as a worker, in small leases so that the job moves in steps.
  auto measure_all = [&]() -> absl::Status {
    absl::StatusOr<std::string> worker = RegisterWorker(server_->stubs());
    if (!worker.ok()) return worker.status();
    int measured = 0;
    for (int round = 0; round < 200 && measured < trials; ++round) {
      absl::StatusOr<int> n = LeaseAndReport(server_->stubs(), *worker, 2, 1000);
      if (!n.ok()) return n.status();
      measured += *n;
    }
    return absl::OkStatus();
  };
  absl::Status measured = measure_all();
  if (!measured.ok()) Cancel(id);  // ends the watch, so the thread can be joined
  watcher.join();
  ASSERT_TRUE(measured.ok()) << measured;
  ASSERT_TRUE(watch_status.ok()) << watch_status.error_message();
  ASSERT_GE(progress.size(), 2u);
  EXPECT_EQ(progress.back().job().state(), v1::JOB_STATE_DONE);
  EXPECT_EQ(progress.back().job().trials_done(), trials);
  EXPECT_GT(progress.back().job().best_gflops(), 0);
  for (size_t i = 1; i < progress.size(); ++i)
    EXPECT_GE(progress[i].job().trials_done(), progress[i - 1].job().trials_done());
}

TEST_F(WatchTest, WatchingAFinishedJobGivesOneMessageAndEnds) {
  std::string id = Submit(1000);
  ASSERT_TRUE(Cancel(id).ok());
  v1::WatchJobRequest request;
  request.set_id(id);
  std::vector<v1::JobProgress> progress;
  ASSERT_TRUE(CallWatch(server_->stubs(), Authed().get(), request, &progress).ok());
  ASSERT_EQ(progress.size(), 1u);
  EXPECT_EQ(progress[0].job().state(), v1::JOB_STATE_CANCELLED);
}

TEST_F(WatchTest, EndsWhenTheClientCancelsAndTheServerKeepsServing) {
  std::string id = Submit(1000);
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", kToken));
  v1::WatchJobRequest request;
  request.set_id(id);
  auto reader = server_->stubs().jobs->Watch(&context, request);
  v1::JobProgress first;
  ASSERT_TRUE(reader->Read(&first));
  absl::Time start = absl::Now();
  context.TryCancel();
  v1::JobProgress message;
  while (reader->Read(&message)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  // Many watchers come and go; the server still answers.
  for (int i = 0; i < 20; ++i) {
    grpc::ClientContext c;
    c.AddMetadata("authorization", absl::StrCat("Bearer ", kToken));
    auto r = server_->stubs().jobs->Watch(&c, request);
    ASSERT_TRUE(r->Read(&message));
    c.TryCancel();
    while (r->Read(&message)) {
    }
    r->Finish();
  }
  v1::GetJobRequest get;
  get.set_id(id);
  EXPECT_TRUE(CallGet(server_->stubs(), Authed().get(), get).ok());
}

TEST_F(WatchTest, EndsWhenTheServerShutsDown) {
  std::string id = Submit(1000);
  absl::Notification first_read;
  grpc::Status status;
  absl::Time ended;
  std::thread watcher([&] {
    std::unique_ptr<grpc::ClientContext> context = Authed(absl::Seconds(60));
    v1::WatchJobRequest request;
    request.set_id(id);
    auto reader = server_->stubs().jobs->Watch(context.get(), request);
    v1::JobProgress message;
    if (reader->Read(&message)) first_read.Notify();
    while (reader->Read(&message)) {
    }
    status = reader->Finish();
    ended = absl::Now();
  });
  EXPECT_TRUE(first_read.WaitForNotificationWithTimeout(absl::Seconds(10)));
  absl::Time start = absl::Now();
  server_->server().Shutdown();
  watcher.join();
  EXPECT_FALSE(status.ok());
  EXPECT_LT(ended - start, absl::Seconds(4));
}

}  // namespace
}  // namespace tuneforge::server::testing
