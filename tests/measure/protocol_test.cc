#include "measure/protocol.h"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "measure/measure_proto.h"

namespace tuneforge::measure {
namespace {

using ::testing::HasSubstr;

Message RoundTrip(const Message& m) {
  std::string frame = EncodeFrame(m);
  uint32_t length;
  std::memcpy(&length, frame.data(), 4);
  EXPECT_EQ(length, frame.size() - 4);
  absl::StatusOr<Message> back = DecodePayload(std::string_view(frame).substr(4));
  EXPECT_TRUE(back.ok()) << back.status();
  return back.ok() ? *back : Message{};
}

const std::vector<ArgSpec> kArgs = {ArgSpec{"A", te::DType::Float32(), {4, 8}, false},
                                    ArgSpec{"C", te::DType::Int8(), {2}, true}};

Message SampleRequest() {
  Message m;
  RunRequest& r = *m.mutable_run_request();
  r.set_workload_key("0123456789abcdef");
  r.set_seed(99);
  ArgSpecsToProto(kArgs, r.mutable_args());
  r.mutable_reference()->set_symbol("ref");
  r.mutable_reference()->set_object(std::string("\0\1\2elf", 6));
  r.mutable_candidate()->set_symbol("kernel");
  r.mutable_candidate()->set_object(std::string(100000, 'x'));
  MeasureOptions options;
  options.number = 5;
  options.repeat = 7;
  options.min_repeat_ms = 0;
  options.flush_cache = true;
  options.threads = 3;
  *r.mutable_measure() = MeasureOptionsToProto(options);
  r.set_time_budget_s(8);
  return m;
}

TEST(ProtocolTest, RequestRoundTripsWithItsArgumentsAndOptions) {
  Message out = RoundTrip(SampleRequest());
  ASSERT_TRUE(out.has_run_request());
  const RunRequest& r = out.run_request();
  EXPECT_EQ(r.workload_key(), "0123456789abcdef");
  EXPECT_EQ(r.seed(), 99u);
  absl::StatusOr<std::vector<ArgSpec>> args = ArgSpecsFromProto(r.args());
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(*args, kArgs);
  EXPECT_EQ(r.reference().object(), std::string("\0\1\2elf", 6));
  EXPECT_EQ(r.candidate().object().size(), 100000u);
  EXPECT_EQ(r.candidate().symbol(), "kernel");
  EXPECT_EQ(r.measure().number(), 5);
  EXPECT_EQ(r.measure().repeat(), 7);
  EXPECT_EQ(r.measure().min_repeat_ms(), 0);
  EXPECT_TRUE(r.measure().flush_cache());
  EXPECT_EQ(r.measure().threads(), 3);
  EXPECT_EQ(r.time_budget_s(), 8);
}

TEST(ProtocolTest, BuildRequestAndReplyRoundTrip) {
  Message in;
  BuildRequest& b = *in.mutable_build_request();
  b.set_definition("input A: float32[4]\nB[i: 4] = A[i] * 2.0\n");
  b.set_name("twice");
  b.set_workload_key("0123456789abcdef");
  b.set_target("x86_64-pc-linux-gnu:cpu=znver3:cores=2");
  b.set_l3_bytes(32 << 20);
  Message out = RoundTrip(in);
  ASSERT_TRUE(out.has_build_request());
  EXPECT_EQ(out.build_request().spec(), "");
  EXPECT_EQ(out.build_request().definition(), b.definition());
  EXPECT_EQ(out.build_request().name(), "twice");
  EXPECT_EQ(out.build_request().l3_bytes(), 32 << 20);

  Message reply;
  runner::BuildReply& r = *reply.mutable_build_reply();
  r.set_error_kind(ErrorKindToProto(MeasureErrorKind::kCompileError));
  r.set_error("LLVM said no");
  ArgSpecsToProto(kArgs, r.mutable_args());
  Message back = RoundTrip(reply);
  ASSERT_TRUE(back.has_build_reply());
  EXPECT_EQ(ErrorKindFromProto(back.build_reply().error_kind()), MeasureErrorKind::kCompileError);
  EXPECT_EQ(back.build_reply().error(), "LLVM said no");
}

TEST(ProtocolTest, ReplyHelloAndPhaseRoundTrip) {
  MeasureResult in;
  in.error_kind = MeasureErrorKind::kWrongAnswer;
  in.error = "output 'C': 1 of 4 elements differ";
  in.max_abs_error = 0.5;
  in.number = 11;
  in.repeat_seconds = {1e-3, 2e-3};
  in.median_seconds = 1.5e-3;
  in.timed_ms = 33;
  Message m;
  *m.mutable_run_reply() = MeasureResultToProto(in);
  Message out = RoundTrip(m);
  ASSERT_TRUE(out.has_run_reply());
  absl::StatusOr<MeasureResult> r = MeasureResultFromProto(out.run_reply());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->error_kind, MeasureErrorKind::kWrongAnswer);
  EXPECT_EQ(r->error, in.error);
  EXPECT_FALSE(r->correct);
  EXPECT_EQ(r->number, 11);
  EXPECT_EQ(r->repeat_seconds, in.repeat_seconds);
  EXPECT_EQ(r->timed_ms, 33);

  Message hello;
  hello.mutable_hello()->set_version(kProtocolVersion);
  hello.mutable_hello()->set_pid(1234);
  EXPECT_EQ(RoundTrip(hello).hello().pid(), 1234);
  Message phase;
  phase.mutable_phase()->set_kind(runner::Phase::REFERENCE);
  EXPECT_EQ(RoundTrip(phase).phase().kind(), runner::Phase::REFERENCE);
}

TEST(ProtocolTest, MalformedPayloadsAreRejected) {
  std::string frame = EncodeFrame(SampleRequest());
  std::string_view payload = std::string_view(frame).substr(4);
  // Truncated inside the candidate's object.
  absl::StatusOr<Message> r = DecodePayload(payload.substr(0, payload.size() - 10));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsDataLoss(r.status()));
  EXPECT_THAT(r.status().message(), HasSubstr("malformed runner message"));
  // Not a protobuf at all; an empty message (no body).
  EXPECT_FALSE(DecodePayload("\xff\xff\xff\xff\xff").ok());
  r = DecodePayload("");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("no body"));
  // Arguments of a scalar type this build does not know.
  runner::ArgSpec bad;
  bad.set_name("X");
  bad.set_scalar(42);
  bad.set_lanes(1);
  google::protobuf::RepeatedPtrField<runner::ArgSpec> args;
  *args.Add() = bad;
  absl::StatusOr<std::vector<ArgSpec>> specs = ArgSpecsFromProto(args);
  ASSERT_FALSE(specs.ok());
  EXPECT_THAT(specs.status().message(), HasSubstr("'X' has scalar type 42"));
}

TEST(ProtocolTest, AnOversizedFrameIsRefusedBeforeReadingIt) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const uint32_t huge = kMaxFrameBytes + 1;
  ASSERT_EQ(write(fds[1], &huge, sizeof(huge)), static_cast<ssize_t>(sizeof(huge)));
  absl::StatusOr<Message> got = ReadMessage(fds[0], std::nullopt);
  EXPECT_TRUE(absl::IsDataLoss(got.status())) << got.status();
  close(fds[0]);
  close(fds[1]);
}

TEST(ProtocolTest, PipeTransportDeadlinesAndClosedPeers) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  // A large message goes through a pipe smaller than it (a writer thread).
  Message big = SampleRequest();
  big.mutable_run_request()->mutable_candidate()->set_object(std::string(4 << 20, 'o'));
  std::thread writer([&] { EXPECT_TRUE(WriteMessage(fds[1], big).ok()); });
  absl::StatusOr<Message> got = ReadMessage(fds[0], std::nullopt);
  writer.join();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->run_request().candidate().object().size(), size_t{4} << 20);
  // Nothing to read: the deadline passes.
  auto start = std::chrono::steady_clock::now();
  got = ReadMessage(fds[0], start + std::chrono::milliseconds(50));
  EXPECT_TRUE(absl::IsDeadlineExceeded(got.status())) << got.status();
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
  // Writer closed: Unavailable.
  close(fds[1]);
  got = ReadMessage(fds[0], std::nullopt);
  EXPECT_TRUE(absl::IsUnavailable(got.status())) << got.status();
  close(fds[0]);
  // Reader closed: an error, not SIGPIPE.
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);
  Message phase;
  phase.mutable_phase()->set_kind(runner::Phase::CANDIDATE);
  absl::Status s = WriteMessage(fds[1], phase);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  close(fds[1]);
}

}  // namespace
}  // namespace tuneforge::measure
