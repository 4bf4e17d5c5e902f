//===- ProgramCheckTest.cpp - bad programs fail before step 0 -------------===//

#include "runtime/exec/Executor.h"
#include "runtime/exec/ProgramCheck.h"

#include "ProgramBuilder.h"
#include "TestUtil.h"

#include <cmath>

namespace hetc::runtime::test {
namespace {

using exec::RankExecutor;

// x [2,3] @ w^T [3,3] -> y; loss = sum(y) over both axes.
ProgramBuilder smallProgram() {
  ProgramBuilder b(2, 3, 8);
  int w = b.f32("w", {3, 3}, pkg::PARAMETER);
  int ids = b.buffer("input_ids", pkg::I64, {2, 3}, pkg::INPUT, pkg::TOKENS);
  int x = b.f32("x", {2, 3}, pkg::CONSTANT);
  int y = b.f32("matmul.0", {2, 3});
  int loss = b.f32("reduce_sum.1", {});
  (void)ids;
  setBool(b.launch("matmul", {x, w}, {y}), "transpose_rhs", true);
  pkg::Instruction &sum = b.launch("reduce_sum", {y}, {loss});
  setInts(sum, "axes", {0, 1});
  setBool(sum, "keep_dims", false);
  b.setLoss(loss);
  b.weight("w", {3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  b.constant("x", {2, 3}, {1, 2, 3, 4, 5, 6});
  return b;
}

Status create(const ProgramBuilder &b) {
  exec::LoadedPackage package = b.package();
  std::unique_ptr<RankExecutor> rank;
  return RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank);
}

TEST(ProgramCheck, SmallProgramRuns) {
  ProgramBuilder b = smallProgram();
  exec::LoadedPackage package = b.package();
  std::unique_ptr<RankExecutor> rank;
  HETC_ASSERT_OK(RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank));
  HETC_ASSERT_OK(rank->runInstructions());
  EXPECT_EQ(rank->loss(), 21.0f);
}

// Package file names are plain names in the package folder: a manifest
// naming a path out of it is refused before any file is opened.
TEST(ProgramCheck, ManifestFileNamesStayInThePackage) {
  exec::LoadedPackage package = smallProgram().package();
  HETC_ASSERT_OK(exec::validateManifest(package.manifest));
  for (const char *name : {"../rank0.pb", "/etc/passwd", "sub/rank0.pb", "..", ""}) {
    pkg::Manifest manifest = package.manifest;
    manifest.mutable_ranks(0)->set_program_file(name);
    EXPECT_TRUE(isError(exec::validateManifest(manifest), StatusCode::kInvalidArgument,
                        "package files are plain names in the package folder"))
        << name;
  }
  pkg::Manifest manifest = package.manifest;
  manifest.set_weights_file("../../weights.safetensors");
  EXPECT_TRUE(isError(exec::validateManifest(manifest), StatusCode::kInvalidArgument,
                      "the manifest names file '../../weights.safetensors'"));
}

TEST(ProgramCheck, UnknownKernelNamesTheInstruction) {
  ProgramBuilder b = smallProgram();
  b.launch("frobnicate", {0}, {3});
  EXPECT_TRUE(isError(create(b), StatusCode::kUnimplemented,
                      "rank0.pb: instruction 2 (frobnicate) at "
                      "loc(\"test\":3:1): unknown kernel 'frobnicate'"));
}

TEST(ProgramCheck, WrongOperandAndResultCounts) {
  ProgramBuilder b = smallProgram();
  b.program().mutable_instructions(0)->mutable_operands()->RemoveLast();
  EXPECT_TRUE(isError(create(b), StatusCode::kInvalidArgument,
                      "instruction 0 (matmul) at loc(\"test\":1:1): has 1 "
                      "operands; matmul takes 2 or 3"));
  ProgramBuilder c = smallProgram();
  pkg::Instruction &grad = c.launch("layer_norm_grad", {2, 3}, {3});
  setInt(grad, "axis", 1);
  setFloat(grad, "epsilon", 1e-5);
  EXPECT_TRUE(isError(create(c), StatusCode::kInvalidArgument,
                      "instruction 2 (layer_norm_grad) at loc(\"test\":3:1): "
                      "has 1 results; layer_norm_grad gives 3"));
  // attention's lse is an optional second result; a third is an error.
  ProgramBuilder d = smallProgram();
  setFloat(d.launch("attention", {2, 2, 2}, {3, 4, 3}), "scale", 1.0);
  EXPECT_TRUE(isError(create(d), StatusCode::kInvalidArgument,
                      "instruction 2 (attention) at loc(\"test\":3:1): "
                      "has 3 results; attention gives 1 to 2"));
}

TEST(ProgramCheck, MissingAndMistypedAttributes) {
  ProgramBuilder b = smallProgram();
  b.program().mutable_instructions(1)->mutable_attributes()->erase("axes");
  EXPECT_TRUE(isError(create(b), StatusCode::kInvalidArgument,
                      "instruction 1 (reduce_sum) at loc(\"test\":2:1): "
                      "attribute 'axes' is missing"));
  ProgramBuilder c = smallProgram();
  setFloat(*c.program().mutable_instructions(0), "transpose_rhs", 1.0);
  EXPECT_TRUE(isError(create(c), StatusCode::kInvalidArgument,
                      "attribute 'transpose_rhs' must be a bool (b), got a "
                      "float (f)"));
}

TEST(ProgramCheck, OperandOutsideTheProgram) {
  ProgramBuilder b = smallProgram();
  b.program().mutable_instructions(0)->set_operands(1, 42);
  EXPECT_TRUE(isError(create(b), StatusCode::kInvalidArgument,
                      "operand 1 is buffer 42, outside the program's 5 "
                      "buffers"));
}

TEST(ProgramCheck, BufferOutsideTheArena) {
  ProgramBuilder b = smallProgram();
  b.program().mutable_buffers(3)->set_offset(b.program().arena_bytes());
  EXPECT_TRUE(isError(create(b), StatusCode::kInvalidArgument,
                      "buffer 3 'matmul.0' (24 bytes at offset"));
}

TEST(ProgramCheck, ResultOverAnOperandOnlyWhereTheKernelAllowsIt) {
  ProgramBuilder b = smallProgram();
  // matmul writing over its own lhs.
  b.program().mutable_instructions(0)->set_results(0, 2);
  EXPECT_TRUE(isError(create(b), StatusCode::kInvalidArgument,
                      "result 0 is buffer 2 'x', a read-only constant buffer"));
  ProgramBuilder c = smallProgram();
  int y2 = c.f32("y2", {2, 3});
  c.launch("matmul", {y2, 0}, {y2});
  EXPECT_TRUE(isError(create(c), StatusCode::kInvalidArgument,
                      "result 0 is operand 0 (buffer 5 'y2'), but matmul "
                      "cannot write that result over that operand"));
}

// y = x @ w^T on the device, its negation on the host, the loss summed on
// the device again: a host buffer has its own arena, the copies move bytes
// across.
ProgramBuilder hostRoundTrip() {
  ProgramBuilder b = smallProgram();
  int onHost = b.hostF32("y.host", {2, 3});
  int negated = b.hostF32("neg.host", {2, 3});
  int back = b.f32("neg.device", {2, 3});
  int loss = b.f32("loss", {});
  b.launch("copy", {3}, {onHost});
  b.launch("neg", {onHost}, {negated});
  b.launch("copy", {negated}, {back});
  pkg::Instruction &sum = b.launch("reduce_sum", {back}, {loss});
  setInts(sum, "axes", {0, 1});
  setBool(sum, "keep_dims", false);
  b.setLoss(loss);
  return b;
}

TEST(ProgramCheck, HostBuffersRunInTheirOwnArena) {
  ProgramBuilder b = hostRoundTrip();
  EXPECT_EQ(b.program().host_arena_bytes(), 128);
  exec::LoadedPackage package = b.package();
  std::unique_ptr<RankExecutor> rank;
  HETC_ASSERT_OK(
      RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank));
  HETC_ASSERT_OK(rank->runInstructions());
  EXPECT_EQ(rank->loss(), -21.0f);
}

TEST(ProgramCheck, HostBuffersHoldStateOrActivationsOnly) {
  ProgramBuilder b = hostRoundTrip();
  b.program().mutable_buffers(5)->set_kind(pkg::CONSTANT);
  EXPECT_TRUE(isError(create(b), StatusCode::kInvalidArgument,
                      "buffer 5 'y.host' is a host buffer but constant; only "
                      "optimizer state and activations live on the host"));
  ProgramBuilder c = hostRoundTrip();
  c.program().set_host_arena_bytes(32);
  c.manifest().mutable_ranks(0)->set_host_arena_bytes(32);
  EXPECT_TRUE(isError(create(c), StatusCode::kInvalidArgument,
                      "buffer 6 'neg.host' (24 bytes at offset 64) does not "
                      "fit in the host arena of 32 bytes"));
  ProgramBuilder d = hostRoundTrip();
  d.manifest().mutable_ranks(0)->set_host_arena_bytes(0);
  EXPECT_TRUE(isError(create(d), StatusCode::kInvalidArgument,
                      "the program's arenas are"));
}

TEST(ProgramCheck, AViewLiesWhereItsBufferDoes) {
  ProgramBuilder b = hostRoundTrip();
  int view = b.alias(5, {6});
  b.program().mutable_buffers(view)->set_host(false);
  EXPECT_TRUE(isError(create(b), StatusCode::kInvalidArgument,
                      "buffer 9 'reshape.9' lies on the device but views "
                      "buffer 5 'y.host', which does not"));
}

TEST(ProgramCheck, OnlyACopyCrossesBetweenHostAndDevice) {
  ProgramBuilder b = hostRoundTrip();
  // neg reading the device's y into a host buffer.
  b.program().mutable_instructions(3)->set_operands(0, 3);
  EXPECT_TRUE(isError(create(b), StatusCode::kInvalidArgument,
                      "instruction 3 (neg) at loc(\"test\":4:1): mixes host "
                      "and device buffers; only a copy moves bytes between "
                      "them"));
  // Ranks exchange device buffers.
  ProgramBuilder c = hostRoundTrip();
  setInts(c.launch("all_reduce", {5}, {5}), "group", {0});
  EXPECT_TRUE(isError(create(c), StatusCode::kInvalidArgument,
                      "instruction 6 (all_reduce) at loc(\"test\":7:1): "
                      "communicates host buffers; ranks exchange device "
                      "buffers"));
}

// The pattern of a compiler bug seen in packages: adamw writing two results
// into one buffer.
TEST(ProgramCheck, TwoResultsInOneBuffer) {
  ProgramBuilder b(1, 2, 4);
  int p = b.f32("p", {3}, pkg::PARAMETER);
  int m = b.f32("m", {3}, pkg::OPTIMIZER_STATE);
  int v = b.f32("v", {3}, pkg::OPTIMIZER_STATE);
  int t = b.f32("t", {}, pkg::OPTIMIZER_STATE);
  b.buffer("input_ids", pkg::I64, {1, 2}, pkg::INPUT, pkg::TOKENS);
  int g = b.f32("g", {3}, pkg::CONSTANT);
  pkg::Instruction &adamw = b.launch("adamw", {p, g, m, v, t}, {p, p, v});
  for (const char *name : {"lr", "beta1", "beta2", "eps", "weight_decay"})
    setFloat(adamw, name, 0.5);
  b.setLoss(t);
  b.weight("p", {3}, {1, 2, 3});
  b.constant("g", {3}, {1, 1, 1});
  EXPECT_TRUE(isError(create(b), StatusCode::kInvalidArgument,
                      "instruction 0 (adamw) at loc(\"test\":1:1): results 0 "
                      "and 1 (buffer 0 'p') share bytes"));
}

TEST(ProgramCheck, WeightsMissingOrMisshapen) {
  ProgramBuilder b = smallProgram();
  exec::LoadedPackage package = b.package();
  package.weights[0].name = "other";
  std::unique_ptr<RankExecutor> rank;
  EXPECT_TRUE(isError(
      RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank),
      StatusCode::kNotFound,
      "rank 0: weights.safetensors has no tensor 'w' for parameter buffer 0 "
      "'w'"));
  package = b.package();
  package.weights[0].shape = {9};
  EXPECT_TRUE(isError(
      RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank),
      StatusCode::kInvalidArgument,
      "tensor 'w' in weights.safetensors is F32[9] but parameter buffer 0 'w' "
      "is F32[3,3]"));
}

TEST(ProgramCheck, InputsMustMatchTheSamplesAndSequence) {
  ProgramBuilder b = smallProgram();
  b.program().mutable_buffers(1)->set_shape(1, 4);
  EXPECT_TRUE(isError(create(b), StatusCode::kInvalidArgument,
                      "buffer 1 'input_ids' is an input of shape [2,4]; token "
                      "inputs are [samples, 3]"));
  // A micro-batch's samples lie in the rank's own.
  ProgramBuilder c = smallProgram();
  c.setSamples(0, 1);
  c.program().mutable_buffers(1)->set_shape(0, 1);
  c.program().mutable_buffers(1)->set_first_sample(1);
  EXPECT_TRUE(isError(create(c), StatusCode::kInvalidArgument,
                      "buffer 1 'input_ids' holds samples [1, 2), outside the "
                      "rank's samples [0, 1)"));
}

TEST(ProgramCheck, UnsupportedDTypeAndBadLoss) {
  ProgramBuilder b = smallProgram();
  b.program().mutable_buffers(3)->set_dtype(pkg::I8);
  EXPECT_TRUE(isError(create(b), StatusCode::kUnimplemented,
                      "buffer 3 'matmul.0': dtype I8 is not supported by "
                      "the runtime"));
  ProgramBuilder c = smallProgram();
  c.setLoss(3);
  EXPECT_TRUE(isError(create(c), StatusCode::kInvalidArgument,
                      "the loss buffer 3 'matmul.0' is F32[2,3]; it must be "
                      "0-D F32"));
}

// A forward program: FEED inputs the caller writes, no loss, output buffers.
TEST(ProgramCheck, FeedInputsAndOutputsWithoutALoss) {
  ProgramBuilder b(1, 1, 1);
  int x = b.buffer("x", pkg::F32, {2, 2}, pkg::INPUT, pkg::FEED);
  int n = b.buffer("n", pkg::I64, {3}, pkg::INPUT, pkg::FEED);
  int y = b.f32("neg.0", {2, 2});
  (void)n;
  b.launch("neg", {x}, {y});
  b.setLoss(-1);
  b.program().add_output_buffers(y);
  exec::LoadedPackage package = b.package();
  std::unique_ptr<RankExecutor> rank;
  HETC_ASSERT_OK(RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank));
  EXPECT_EQ(rank->feedBuffers(), (std::vector<int>{x, n}));
  float *in = rank->buffers().view(x).as<float>();
  for (int i = 0; i < 4; ++i)
    in[i] = static_cast<float>(i + 1);
  HETC_ASSERT_OK(rank->runInstructions());
  const float *out = rank->buffers().view(y).as<float>();
  EXPECT_EQ(out[0], -1.0f);
  EXPECT_EQ(out[3], -4.0f);
  EXPECT_TRUE(std::isnan(rank->loss()));

  ProgramBuilder bad = b;
  bad.program().add_output_buffers(7);
  EXPECT_TRUE(isError(create(bad), StatusCode::kInvalidArgument,
                      "output buffer 7 is not a buffer of the program"));
}

// Pipeline ranks: a first stage reads TOKENS and computes no loss, a last
// stage reads LABELS without TOKENS, and a rank reads one pair per
// micro-batch.
TEST(ProgramCheck, TokenInputsPerMicroBatchAndNoLossOnEveryRank) {
  ProgramBuilder b = smallProgram();
  b.setLoss(-1);
  HETC_ASSERT_OK(create(b));
  ProgramBuilder c = smallProgram();
  c.program().mutable_buffers(1)->set_role(pkg::LABELS);
  c.program().mutable_buffers(1)->set_shape(0, 1);
  c.tokens("labels.1", pkg::LABELS, 1, 1);
  HETC_ASSERT_OK(create(c));
}

// A view is any slice of the bytes of a buffer owning them, of its kind, at
// a whole element.
TEST(ProgramCheck, ViewsLieInsideTheBufferTheyView) {
  ProgramBuilder b = smallProgram();
  int inside = b.view(3, 4, {2}, "matmul.0[4:6]");
  HETC_ASSERT_OK(create(b));

  ProgramBuilder outside = b;
  outside.program().mutable_buffers(inside)->set_offset(
      outside.program().buffers(3).offset() + 20);
  EXPECT_TRUE(isError(create(outside), StatusCode::kInvalidArgument,
                      "buffer 5 'matmul.0[4:6]' (8 bytes at offset 212) lies "
                      "outside the bytes [192, 216) of buffer 3 'matmul.0', "
                      "which it views"));

  ProgramBuilder misaligned = b;
  misaligned.program().mutable_buffers(inside)->set_offset(
      misaligned.program().buffers(3).offset() + 2);
  EXPECT_TRUE(isError(create(misaligned), StatusCode::kInvalidArgument,
                      "buffer 5 'matmul.0[4:6]' starts at byte 2 of buffer 3 "
                      "'matmul.0', not at a whole F32 element"));

  ProgramBuilder kind = b;
  kind.program().mutable_buffers(inside)->set_kind(pkg::PARAMETER);
  EXPECT_TRUE(isError(create(kind), StatusCode::kInvalidArgument,
                      "buffer 5 'matmul.0[4:6]' is parameter but views buffer "
                      "3 'matmul.0', activation"));

  ProgramBuilder chain = b;
  chain.view(inside, 1, {1}, "matmul.0[5:6]");
  EXPECT_TRUE(isError(create(chain), StatusCode::kInvalidArgument,
                      "buffer 6 'matmul.0[5:6]' aliases buffer 5 "
                      "'matmul.0[4:6]', itself an alias"));
}

// Two views of one buffer are different buffers when their bytes are
// disjoint; overlapping but different bytes are never written in place.
TEST(ProgramCheck, ResultsAndOperandsConflictByBytes) {
  ProgramBuilder b = smallProgram();
  int pair = b.f32("pair", {2, 3});
  int first = b.view(pair, 0, {3}, "pair[0]");
  int second = b.view(pair, 3, {3}, "pair[1]");
  b.launch("neg", {first}, {second});
  HETC_ASSERT_OK(create(b));

  ProgramBuilder c = smallProgram();
  pair = c.f32("pair", {2, 3});
  first = c.view(pair, 0, {3}, "pair[0:3]");
  int shifted = c.view(pair, 1, {3}, "pair[1:4]");
  c.launch("neg", {first}, {shifted});
  EXPECT_TRUE(isError(create(c), StatusCode::kInvalidArgument,
                      "result 0 (buffer 7 'pair[1:4]') shares arena bytes "
                      "with operand 0 (buffer 6 'pair[0:3]')"));
}

} // namespace
} // namespace hetc::runtime::test
