//===- EvalProgramTest.cpp - evaluation programs share the rank's arena ---===//

#include "runtime/exec/EvalProgramCheck.h"
#include "runtime/exec/Executor.h"
#include "runtime/exec/ProgramCheck.h"

#include "PipelineModel.h"
#include "ProgramBuilder.h"
#include "TestUtil.h"

namespace hetc::runtime::test {
namespace {

using exec::RankExecutor;

// loss = sum(x @ w^T) with x a constant [2, 3], w a parameter [3, 3]: the
// forward both programs compute. The step then doubles w in place; its
// optimizer state m (unused) only has to stay as it is.
void addForward(ProgramBuilder &b, int w, int x) {
  int y = b.f32("matmul.0", {2, 3});
  int loss = b.f32("reduce_sum.1", {});
  setBool(b.launch("matmul", {x, w}, {y}), "transpose_rhs", true);
  pkg::Instruction &sum = b.launch("reduce_sum", {y}, {loss});
  setInts(sum, "axes", {0, 1});
  setBool(sum, "keep_dims", false);
  b.setLoss(loss);
}

ProgramBuilder trainProgram() {
  ProgramBuilder b(2, 3, 8);
  int w = b.f32("w", {3, 3}, pkg::PARAMETER);
  int x = b.f32("x", {2, 3}, pkg::CONSTANT);
  addForward(b, w, x);
  b.f32("m", {3, 3}, pkg::OPTIMIZER_STATE);
  b.launch("add", {w, w}, {w});
  b.weight("w", {3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  b.constant("x", {2, 3}, {1, 2, 3, 4, 5, 6});
  return b;
}

// The same forward over the same w and x (same offsets), its activations
// where the step keeps nothing.
ProgramBuilder evalProgram() {
  ProgramBuilder b(2, 3, 8);
  int w = b.f32("w", {3, 3}, pkg::PARAMETER);
  int x = b.f32("x", {2, 3}, pkg::CONSTANT);
  addForward(b, w, x);
  return b;
}

exec::LoadedPackage packageOf(const ProgramBuilder &train,
                              const ProgramBuilder &eval) {
  exec::LoadedPackage package = train.package();
  package.manifest.mutable_ranks(0)->set_eval_program_file("rank0.eval.pb");
  package.evalPrograms = {eval.package().programs[0]};
  return package;
}

Status check(const ProgramBuilder &train, const ProgramBuilder &eval) {
  exec::LoadedPackage package = packageOf(train, eval);
  return exec::validateEvalProgram(package.manifest, 0, package.programs[0],
                                   package.evalPrograms[0],
                                   exec::cpuKernelRegistry());
}

TEST(EvalProgram, EvaluatesTheWeightsAsTrainedAndChangesNothing) {
  ProgramBuilder train = trainProgram(), eval = evalProgram();
  exec::LoadedPackage package = packageOf(train, eval);
  std::unique_ptr<RankExecutor> rank;
  HETC_ASSERT_OK(
      RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank));
  ASSERT_TRUE(rank->hasEvaluation());
  TokenLoader none; // neither program reads tokens
  float loss = 0.0f;
  HETC_ASSERT_OK(rank->runEvaluation(0, none, &loss));
  EXPECT_EQ(loss, 21.0f); // w = I
  HETC_ASSERT_OK(rank->runInstructions());
  EXPECT_EQ(rank->loss(), 21.0f); // then w = 2I
  for (int i = 0; i < 2; ++i) {
    HETC_ASSERT_OK(rank->runEvaluation(i, none, &loss));
    EXPECT_EQ(loss, 42.0f);
  }
  HETC_ASSERT_OK(rank->runInstructions());
  EXPECT_EQ(rank->loss(), 42.0f);
}

TEST(EvalProgram, ReadsTheStepsParametersInPlace) {
  ProgramBuilder train = trainProgram(), eval = evalProgram();
  eval.program().mutable_buffers(0)->set_offset(256); // w elsewhere
  eval.program().set_arena_bytes(320);
  EXPECT_TRUE(isError(check(train, eval), StatusCode::kInvalidArgument,
                      "buffer 0 'w' of the evaluation is not the training "
                      "program's buffer of that name, kind, type and offset"));
}

TEST(EvalProgram, LeavesTheOptimizerStateAlone) {
  ProgramBuilder train = trainProgram(), eval = evalProgram();
  // Its matmul result over m's bytes.
  eval.program().mutable_buffers(2)->set_offset(
      train.program().buffers(4).offset());
  eval.program().set_arena_bytes(train.program().arena_bytes());
  EXPECT_TRUE(isError(check(train, eval), StatusCode::kInvalidArgument,
                      "of the evaluation shares bytes with the training "
                      "program's buffer 4 'm'"));
}

TEST(EvalProgram, WritesNoParameter) {
  ProgramBuilder train = trainProgram(), eval = evalProgram();
  eval.launch("add", {0, 0}, {0});
  EXPECT_TRUE(isError(check(train, eval), StatusCode::kInvalidArgument,
                      "writes buffer 0 'w'; an evaluation changes nothing"));
}

TEST(EvalProgram, ComputesTheLossTheStepComputes) {
  ProgramBuilder train = trainProgram(), eval = evalProgram();
  eval.setLoss(-1);
  EXPECT_TRUE(isError(check(train, eval), StatusCode::kInvalidArgument,
                      "the evaluation computes no loss but the training step "
                      "of rank 0 does"));
}

// Every rank has an evaluation program, or none does.
TEST(EvalProgram, AllRanksOrNone) {
  exec::LoadedPackage package = pipeline::package();
  pkg::Manifest manifest = package.manifest;
  manifest.mutable_ranks(1)->set_eval_program_file("rank1.eval.pb");
  EXPECT_TRUE(isError(exec::validateManifest(manifest),
                      StatusCode::kInvalidArgument,
                      "manifest rank 1 has an evaluation program but rank 0 "
                      "does not"));
  manifest.mutable_ranks(0)->set_eval_program_file("rank0.eval.pb");
  EXPECT_TRUE(isError(exec::validateManifest(manifest),
                      StatusCode::kInvalidArgument,
                      "manifest rank 2 lacks an evaluation program but rank 0 "
                      "has one"));
  manifest.mutable_ranks(2)->set_eval_program_file("../rank2.eval.pb");
  EXPECT_TRUE(isError(exec::validateManifest(manifest),
                      StatusCode::kInvalidArgument,
                      "package files are plain names in the package folder"));
}

TEST(EvalProgram, OwnConstantsLiePastTheStepsArena) {
  ProgramBuilder train = trainProgram(), eval = evalProgram();
  int c = eval.f32("c", {2}, pkg::CONSTANT);
  EXPECT_TRUE(isError(check(train, eval), StatusCode::kInvalidArgument,
                      "nor a constant of its own past the training arena"));
  eval.program().mutable_buffers(c)->set_offset(
      train.program().arena_bytes());
  eval.program().set_arena_bytes(train.program().arena_bytes() + 64);
  HETC_ASSERT_OK(check(train, eval));
}

} // namespace
} // namespace hetc::runtime::test
