// Malformed and unknown Jobs requests: refused with the field named, and
// the server keeps serving.
#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/server/service/refusals.h"
#include "tests/server/service/rpc_calls.h"

namespace tuneforge::server::testing {
namespace {

using Code = grpc::StatusCode;
using ::testing::HasSubstr;

class JobsRequestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<TestServer>> server = TestServer::Start();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  std::unique_ptr<TestServer> server_;
};

// A Submit of SmallJobSpec() with one change.
std::function<grpc::Status(Stubs&)> SubmitWith(const std::function<void(v1::JobSpec&)>& change) {
  v1::SubmitJobRequest request;
  *request.mutable_spec() = Changed(SmallJobSpec(), change);
  return [request](Stubs& s) { return CallSubmit(s, Authed().get(), request); };
}

TEST_F(JobsRequestsTest, TheBaseRequestIsAccepted) {
  EXPECT_TRUE(SubmitWith([](v1::JobSpec&) {})(server_->stubs()).ok());
}

TEST_F(JobsRequestsTest, MalformedSubmitsAreRefusedNamingTheField) {
  std::vector<Refusal> cases = {
      {"no spec", [](Stubs& s) { return CallSubmit(s, Authed().get(), {}); }, Code::INVALID_ARGUMENT,
       "spec is required"},
      {"no workloads", SubmitWith([](v1::JobSpec& j) { j.clear_workloads(); }), Code::INVALID_ARGUMENT,
       "spec.workloads"},
      {"too many workloads",
       SubmitWith([](v1::JobSpec& j) {
         for (int i = 0; i < 1000; ++i) j.add_workloads()->set_spec("relu:N=1,C=1,H=1,W=1");
       }),
       Code::INVALID_ARGUMENT, "spec.workloads has 1001 workloads; at most 1000"},
      {"workload without source", SubmitWith([](v1::JobSpec& j) { j.add_workloads(); }), Code::INVALID_ARGUMENT,
       "spec.workloads[1] is empty"},
      {"empty spec", SubmitWith([](v1::JobSpec& j) { j.mutable_workloads(0)->set_spec(""); }),
       Code::INVALID_ARGUMENT, "spec.workloads[0].spec is empty"},
      {"spec naming a server file",
       SubmitWith([](v1::JobSpec& j) { j.mutable_workloads(0)->set_spec("def:/etc/passwd"); }),
       Code::INVALID_ARGUMENT, "spec.workloads[0].spec 'def:/etc/passwd' names a file"},
      {"spec too long",
       SubmitWith([](v1::JobSpec& j) { j.mutable_workloads(0)->set_spec(std::string(5000, 'm')); }),
       Code::INVALID_ARGUMENT, "spec.workloads[0].spec is 5000 bytes long"},
      {"spec with a control character",
       SubmitWith([](v1::JobSpec& j) { j.mutable_workloads(0)->set_spec("matmul:M=1\n"); }),
       Code::INVALID_ARGUMENT, "spec.workloads[0].spec contains a control character"},
      {"unknown op", SubmitWith([](v1::JobSpec& j) { j.mutable_workloads(0)->set_spec("matmull:M=1,N=1,K=1"); }),
       Code::INVALID_ARGUMENT, "spec.workloads[0]"},
      {"empty definition", SubmitWith([](v1::JobSpec& j) { j.mutable_workloads(0)->set_definition(""); }),
       Code::INVALID_ARGUMENT, "spec.workloads[0].definition is empty"},
      {"huge definition",
       SubmitWith([](v1::JobSpec& j) { j.mutable_workloads(0)->set_definition(std::string((1 << 20) + 1, ' ')); }),
       Code::INVALID_ARGUMENT, "spec.workloads[0].definition is 1048577 bytes"},
      {"no device key", SubmitWith([](v1::JobSpec& j) { j.clear_device_key(); }), Code::INVALID_ARGUMENT,
       "spec.device_key is required"},
      {"device key with spaces", SubmitWith([](v1::JobSpec& j) { j.set_device_key("my cpu"); }),
       Code::INVALID_ARGUMENT, "spec.device_key 'my cpu' is not a device key"},
      {"zero trials", SubmitWith([](v1::JobSpec& j) { j.set_trials(0); }), Code::INVALID_ARGUMENT,
       "spec.trials must be >= 1, got 0"},
      {"negative trials", SubmitWith([](v1::JobSpec& j) { j.set_trials(-5); }), Code::INVALID_ARGUMENT,
       "spec.trials must be >= 1, got -5"},
      {"negative batch size", SubmitWith([](v1::JobSpec& j) { j.set_batch_size(-1); }), Code::INVALID_ARGUMENT,
       "spec.batch_size"},
      {"huge batch size", SubmitWith([](v1::JobSpec& j) { j.set_batch_size(100000); }), Code::INVALID_ARGUMENT,
       "spec.batch_size"},
      {"unknown policy", SubmitWith([](v1::JobSpec& j) { j.set_policy("genetic"); }), Code::INVALID_ARGUMENT,
       "spec.policy"},
      {"negative repeat", SubmitWith([](v1::JobSpec& j) { j.mutable_measure()->set_repeat(-1); }),
       Code::INVALID_ARGUMENT, "spec.measure.repeat"},
      {"timeout not a number", SubmitWith([](v1::JobSpec& j) { j.mutable_measure()->set_timeout_s(std::nan("")); }),
       Code::INVALID_ARGUMENT, "spec.measure.timeout_s"},
      {"too many threads", SubmitWith([](v1::JobSpec& j) { j.mutable_measure()->set_threads(100000); }),
       Code::INVALID_ARGUMENT, "spec.measure.threads"},
      {"name too long", SubmitWith([](v1::JobSpec& j) { j.set_name(std::string(300, 'n')); }),
       Code::INVALID_ARGUMENT, "spec.name is 300 bytes long"},
  };
  ExpectRefusals(*server_, cases);
}

TEST_F(JobsRequestsTest, MalformedIdsAndListsAreRefusedNamingTheField) {
  auto get = [](std::string id) {
    v1::GetJobRequest r;
    r.set_id(id);
    return [r](Stubs& s) { return CallGet(s, Authed().get(), r); };
  };
  auto cancel = [](std::string id) {
    v1::CancelJobRequest r;
    r.set_id(id);
    return [r](Stubs& s) { return CallCancel(s, Authed().get(), r); };
  };
  auto watch = [](std::string id) {
    v1::WatchJobRequest r;
    r.set_id(id);
    return [r](Stubs& s) { return CallWatch(s, Authed().get(), r); };
  };
  auto list = [](int state, int limit) {
    v1::ListJobsRequest r;
    r.set_state(static_cast<v1::JobState>(state));
    r.set_limit(limit);
    return [r](Stubs& s) { return CallListJobs(s, Authed().get(), r); };
  };
  std::vector<Refusal> cases = {
      {"get without id", get(""), Code::INVALID_ARGUMENT, "id is required"},
      {"get id with space", get("job 1"), Code::INVALID_ARGUMENT, "id 'job 1' is not an id"},
      {"get id too long", get(std::string(200, 'j')), Code::INVALID_ARGUMENT, "id is 200 bytes long"},
      {"get id with escape", get("job\x1b[2J"), Code::INVALID_ARGUMENT, "id 'job\\x1b[2J' is not an id"},
      {"cancel without id", cancel(""), Code::INVALID_ARGUMENT, "id is required"},
      {"watch without id", watch(""), Code::INVALID_ARGUMENT, "id is required"},
      {"list unknown state", list(42, 0), Code::INVALID_ARGUMENT, "state must be a JobState (0..5), got 42"},
      {"list negative limit", list(0, -1), Code::INVALID_ARGUMENT, "limit must be 0..10000, got -1"},
      {"list huge limit", list(0, 10001), Code::INVALID_ARGUMENT, "limit must be 0..10000, got 10001"},
      {"get unknown job", get("job-does-not-exist"), Code::NOT_FOUND, "id: no job 'job-does-not-exist'"},
      {"cancel unknown job", cancel("job-does-not-exist"), Code::NOT_FOUND, "id: no job 'job-does-not-exist'"},
      {"watch unknown job", watch("job-does-not-exist"), Code::NOT_FOUND, "id: no job 'job-does-not-exist'"},
  };
  ExpectRefusals(*server_, cases);
}

TEST_F(JobsRequestsTest, SubmitGetListCancelRoundTrip) {
  v1::SubmitJobRequest submit;
  *submit.mutable_spec() = SmallJobSpec(50);
  v1::SubmitJobResponse submitted;
  ASSERT_TRUE(server_->stubs().jobs->Submit(Authed().get(), submit, &submitted).ok());
  const std::string id = submitted.job().id();
  EXPECT_EQ(submitted.job().trials_total(), 50);

  v1::GetJobRequest get;
  get.set_id(id);
  v1::GetJobResponse got;
  ASSERT_TRUE(server_->stubs().jobs->Get(Authed().get(), get, &got).ok());
  EXPECT_EQ(got.job().id(), id);
  EXPECT_EQ(got.job().spec().name(), "service test");

  v1::ListJobsRequest list;
  list.set_state(v1::JOB_STATE_QUEUED);  // no worker: it waits for one
  v1::ListJobsResponse listed;
  ASSERT_TRUE(server_->stubs().jobs->List(Authed().get(), list, &listed).ok());
  ASSERT_EQ(listed.jobs_size(), 1);
  EXPECT_EQ(listed.jobs(0).id(), id);

  v1::CancelJobRequest cancel;
  cancel.set_id(id);
  v1::CancelJobResponse cancelled;
  ASSERT_TRUE(server_->stubs().jobs->Cancel(Authed().get(), cancel, &cancelled).ok());
  EXPECT_EQ(cancelled.job().state(), v1::JOB_STATE_CANCELLED);
  // A second cancel is refused: the job is over.
  grpc::Status again = server_->stubs().jobs->Cancel(Authed().get(), cancel, &cancelled);
  EXPECT_EQ(again.error_code(), Code::FAILED_PRECONDITION);
  EXPECT_THAT(again.error_message(), HasSubstr("already cancelled"));

  list.set_state(v1::JOB_STATE_QUEUED);  // no worker: it waits for one
  ASSERT_TRUE(server_->stubs().jobs->List(Authed().get(), list, &listed).ok());
  EXPECT_EQ(listed.jobs_size(), 0);
}

TEST_F(JobsRequestsTest, ListHonoursItsLimit) {
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(SubmitWith([](v1::JobSpec&) {})(server_->stubs()).ok());
  v1::ListJobsRequest list;
  list.set_limit(2);
  v1::ListJobsResponse listed;
  ASSERT_TRUE(server_->stubs().jobs->List(Authed().get(), list, &listed).ok());
  EXPECT_EQ(listed.jobs_size(), 2);
  list.set_limit(0);  // the default, 100
  ASSERT_TRUE(server_->stubs().jobs->List(Authed().get(), list, &listed).ok());
  EXPECT_EQ(listed.jobs_size(), 3);
}

}  // namespace
}  // namespace tuneforge::server::testing
