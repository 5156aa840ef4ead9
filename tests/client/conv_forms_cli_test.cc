// `--conv-algorithm` on workloads named on the command line: auto tunes a
// 3x3 conv and its Winograd form in one job (the gradient scheduler shares
// the trials), reports the faster as the best, and `measure --best` re-times
// whichever form holds the fastest record, in the conv's FLOPs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/client/cli_child.h"

namespace tuneforge::client_test {
namespace {

using ::testing::HasSubstr;

constexpr char kConv[] = "conv2d:N=1,C=8,H=10,W=10,K=8,R=3,S=3,pad=1";
constexpr char kConvCanonical[] = "conv2d:C=8,H=10,K=8,N=1,R=3,S=3,W=10,pad=1";
constexpr char kWinograd[] = "conv2d_winograd:C=8,H=10,K=8,N=1,W=10,tile=4";
constexpr double kConvFlops = 2.0 * 8 * 10 * 10 * 8 * 9;

TEST(ConvFormsCliTest, AutoTunesBothFormsAndTheFasterIsTheBest) {
  std::string dir = MakeTempDir();
  std::string db = dir + "/forms.db";
  CliResult r = RunCliIn(dir, With({"tune", kConv, "--conv-algorithm", "auto", "--trials", "24", "--batch", "8",
                                    "--policy", "random", "--db", db, "--json"},
                                   kQuickMeasure),
                         absl::Seconds(300));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json& j = r.json;
  EXPECT_EQ(j["trials"], 24);
  EXPECT_EQ(j["workload"], kConvCanonical);
  ASSERT_TRUE(j["best_workload"].is_string()) << r.out;
  const std::string best_form = j["best_workload"];
  EXPECT_TRUE(best_form == kConvCanonical || best_form == kWinograd) << best_form;
  EXPECT_EQ(j["best_schedule"]["workload"], best_form);
  // The best's speed in the conv's FLOPs, whichever form it is.
  EXPECT_NEAR(j["best_gflops"].get<double>() * 1e9 * j["best_seconds"].get<double>(), kConvFlops, 1e-3 * kConvFlops);
  // Both forms were tuned: each has correct records of its own.
  for (const char* form : {kConvCanonical, kWinograd}) {
    CliResult best = RunCliIn(dir, {"best", form, "--db", db, "--json"});
    EXPECT_EQ(best.exit_code, 0) << form << ": " << best.err << best.out;
  }
  // The progress shows the job's estimated latency: the faster form's.
  EXPECT_THAT(r.err, HasSubstr("est. end-to-end"));

  // measure --best on the conv re-times the form with the fastest record.
  CliResult m = RunCliIn(dir, With({"measure", kConv, "--best", "--db", db, "--json"}, kQuickMeasure));
  ASSERT_EQ(m.exit_code, 0) << m.err << m.out;
  EXPECT_EQ(m.json["form"], best_form);
  EXPECT_EQ(m.json["correct"], true);
  EXPECT_NEAR(m.json["gflops"].get<double>() * 1e9 * m.json["seconds"].get<double>(), kConvFlops, 1e-3 * kConvFlops);
}

TEST(ConvFormsCliTest, WinogradTunesTheFormAloneAndOtherOpsHaveNone) {
  std::string dir = MakeTempDir();
  std::string db = dir + "/w.db";
  CliResult r = RunCliIn(dir, With({"tune", kConv, "--conv-algorithm", "winograd", "--trials", "4", "--batch", "4",
                                    "--policy", "random", "--db", db, "--json"},
                                   kQuickMeasure),
                         absl::Seconds(300));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.json["workload"], kWinograd);
  EXPECT_EQ(r.json["best_workload"], kWinograd);

  ExpectOneLineError(RunCliIn(dir, {"tune", "matmul:M=8,N=8,K=8", "--conv-algorithm", "winograd", "--trials", "4"}),
                     "has no Winograd form");
  ExpectOneLineError(RunCliIn(dir, {"tune", "conv2d:N=1,C=8,H=10,W=10,K=8,R=3,S=3,stride=2", "--conv-algorithm",
                                    "winograd", "--trials", "4"}),
                     "has no Winograd form");
  ExpectOneLineError(RunCliIn(dir, {"tune", kConv, "--conv-algorithm", "fft", "--trials", "4"}),
                     "--conv-algorithm is 'fft'; give direct, winograd or auto");
}

}  // namespace
}  // namespace tuneforge::client_test
