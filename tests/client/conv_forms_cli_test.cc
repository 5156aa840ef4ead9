// `--conv-algorithm` on workloads named on the command line: auto, the
// default, tunes a 3x3 conv and its Winograd form in one job (the gradient
// scheduler shares the trials), reports the faster as the best; `best` answers with the form
// that holds the fastest record and `measure --best` re-times it, both in the
// conv's FLOPs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tests/client/cli_child.h"

namespace tuneforge::client_test {
namespace {

using ::testing::HasSubstr;

constexpr char kConv[] = "conv2d:N=1,C=8,H=10,W=10,K=8,R=3,S=3,pad=1";
constexpr char kConvCanonical[] = "conv2d:C=8,H=10,K=8,N=1,R=3,S=3,W=10,pad=1";
constexpr char kWinograd[] = "conv2d_winograd:C=8,H=10,K=8,N=1,W=10,tile=4";
constexpr double kConvFlops = 2.0 * 8 * 10 * 10 * 8 * 9;

TEST(ConvFormsCliTest, ByDefaultBothFormsAreTunedAndTheFasterIsTheBest) {
  std::string dir = MakeTempDir();
  std::string db = dir + "/forms.db";
  // No --conv-algorithm: auto.
  CliResult r = RunCliIn(dir, With({"tune", kConv, "--trials", "24", "--batch", "8", "--policy", "random", "--db",
                                    db, "--json"},
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
  // Both forms were tuned: each has correct records of its own, and `best`
  // on the conv answers with the faster, in the conv's FLOPs.
  CliResult best = RunCliIn(dir, {"best", kConv, "--db", db, "--json"});
  ASSERT_EQ(best.exit_code, 0) << best.err << best.out;
  EXPECT_EQ(best.json["workload"], kConvCanonical);
  EXPECT_EQ(best.json["form"], best_form);
  EXPECT_EQ(best.json["schedule"]["workload"], best_form);
  EXPECT_NEAR(best.json["gflops"].get<double>() * 1e9 * best.json["seconds"].get<double>(), kConvFlops,
              1e-3 * kConvFlops);
  ASSERT_EQ(best.json["forms"].size(), 2u) << best.out;
  EXPECT_EQ(best.json["forms"][0]["workload"], kConvCanonical);
  EXPECT_EQ(best.json["forms"][1]["workload"], kWinograd);
  for (const nlohmann::json& form : best.json["forms"]) {
    EXPECT_EQ(form["found"], true) << form.dump();
    EXPECT_GE(form["seconds"].get<double>(), best.json["seconds"].get<double>()) << form.dump();
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

// Four random trials of `spec` tuned with `--conv-algorithm algorithm`.
CliResult TuneBriefly(const std::string& dir, const std::string& spec, const std::string& algorithm,
                      const std::string& db) {
  return RunCliIn(dir, With({"tune", spec, "--conv-algorithm", algorithm, "--trials", "4", "--batch", "4", "--policy",
                             "random", "--db", db, "--json"},
                            kQuickMeasure),
                  absl::Seconds(300));
}

TEST(ConvFormsCliTest, DirectTunesTheConvAlone) {
  std::string dir = MakeTempDir();
  std::string db = dir + "/d.db";
  CliResult r = TuneBriefly(dir, kConv, "direct", db);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.json["best_workload"], kConvCanonical);
  EXPECT_EQ(r.json["best_schedule"]["workload"], kConvCanonical);
  CliResult best = RunCliIn(dir, {"best", kConv, "--db", db, "--json"});
  ASSERT_EQ(best.exit_code, 0) << best.err << best.out;
  ASSERT_EQ(best.json["forms"].size(), 2u) << best.out;
  EXPECT_EQ(best.json["forms"][0]["found"], true);
  EXPECT_EQ(best.json["forms"][1]["found"], false);
}

// A conv with its epilogue (a model's conv2d+bias+relu layer) has the
// Winograd form with the same epilogue.
TEST(ConvFormsCliTest, AConvWithAnEpilogueHasAWinogradFormWithIt) {
  std::string dir = MakeTempDir();
  CliResult r = TuneBriefly(dir, "conv2d+bias+relu:N=1,C=8,H=10,W=10,K=8,R=3,S=3,pad=1", "winograd", dir + "/e.db");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.json["best_workload"], "conv2d_winograd+bias+relu:C=8,H=10,K=8,N=1,W=10,tile=4") << r.out;
}

TEST(ConvFormsCliTest, WinogradTunesTheFormAloneAndOtherOpsHaveNone) {
  std::string dir = MakeTempDir();
  std::string db = dir + "/w.db";
  CliResult r = TuneBriefly(dir, kConv, "winograd", db);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // The job is of the conv, tuned in its Winograd form only: the best is
  // the form's, its speed counted in the conv's FLOPs as with auto.
  EXPECT_EQ(r.json["workload"], kConvCanonical);
  EXPECT_EQ(r.json["best_workload"], kWinograd);
  EXPECT_EQ(r.json["trials"], 4);
  EXPECT_NEAR(r.json["best_gflops"].get<double>() * 1e9 * r.json["best_seconds"].get<double>(), kConvFlops,
              1e-3 * kConvFlops);

  // The conv's best is its Winograd form's, the only one with records.
  CliResult best = RunCliIn(dir, {"best", kConv, "--db", db, "--json"});
  ASSERT_EQ(best.exit_code, 0) << best.err << best.out;
  EXPECT_EQ(best.json["found"], true);
  EXPECT_EQ(best.json["workload"], kConvCanonical);
  EXPECT_EQ(best.json["form"], kWinograd);
  EXPECT_EQ(best.json["schedule"]["workload"], kWinograd);
  EXPECT_NEAR(best.json["gflops"].get<double>() * 1e9 * best.json["seconds"].get<double>(), kConvFlops,
              1e-3 * kConvFlops);
  EXPECT_EQ(best.json["forms"][0]["found"], false);
  EXPECT_EQ(best.json["forms"][1]["found"], true);
  CliResult text = RunCliIn(dir, {"best", kConv, "--db", db});
  EXPECT_THAT(text.out, HasSubstr(absl::StrCat("(its best form: ", kWinograd, ")")));
  // A conv without records of either form: "none yet", naming both.
  CliResult none = RunCliIn(dir, {"best", "conv2d:N=1,C=8,H=12,W=12,K=8,R=3,S=3,pad=1", "--db", db, "--json"});
  ASSERT_EQ(none.exit_code, 0) << none.err << none.out;
  EXPECT_EQ(none.json["found"], false);
  EXPECT_EQ(none.json["forms"].size(), 2u);

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
