//===- AttentionTest.cpp - CUDA Attention against the CPU backend ---===//
//
// cuda::attention and cuda::attentionBackward against runtime/cpu on the
// same inputs: f32 (CUDA cores), bf16 and f16 (tensor cores where the head
// dimensions are multiples of 8, CUDA cores otherwise), causal or not,
// Tq != Tk, lengths that are not multiples of the 64-row tiles, head
// dimensions 16 to 128, masks of both dtypes broadcast in several ways,
// rows whose keys are all excluded, and the validation errors.
//
// Tolerances: f32 is computed in f32 both ways, so only the summation order
// differs. bf16/f16 outputs are rounded once on store (storageTolerance),
// and on tensor cores the probabilities and dS are rounded to the input
// type before their products, as in FlashAttention: an absolute slack
// relative to the largest reference value covers that.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Attention.h"
#include "runtime/cuda/Attention.h"

#include "test/runtime/cuda/CudaTestUtil.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

namespace hetc::runtime::cuda::test {
namespace {

enum class MaskKind { kNone, kAdditive, kKeep };

struct Problem {
  Shape lead = {2, 3};
  int64_t tq = 130, tk = 130, d = 64, dv = 64;
  bool causal = false;
  MaskKind mask = MaskKind::kNone;
  Shape maskShape; // empty: the full [lead..., tq, tk]

  Shape with(int64_t rows, int64_t cols) const {
    Shape s = lead;
    s.push_back(rows);
    if (cols >= 0)
      s.push_back(cols);
    return s;
  }
  Shape qShape() const { return with(tq, d); }
  Shape kShape() const { return with(tk, d); }
  Shape vShape() const { return with(tk, dv); }
  Shape outShape() const { return with(tq, dv); }
  Shape lseShape() const { return with(tq, -1); }
  Shape fullMaskShape() const {
    return maskShape.empty() ? with(tq, tk) : maskShape;
  }
  AttentionOptions options() const {
    AttentionOptions o;
    o.scale = 1.0f / std::sqrt(static_cast<float>(std::max<int64_t>(d, 1)));
    o.causal = causal;
    return o;
  }
};

struct Inputs {
  std::vector<float> q, k, v, maskValues;
  std::vector<uint8_t> keep;
};

// Random inputs representable in `dtype`. Masks exclude random keys but
// never the first (so no row is fully excluded by accident).
Inputs makeInputs(const Problem &p, DType dtype, unsigned seed = 11) {
  Inputs in;
  in.q = randomValues(numElements(p.qShape()), dtype, -1.0f, 1.0f, seed);
  in.k = randomValues(numElements(p.kShape()), dtype, -1.0f, 1.0f, seed + 1);
  in.v = randomValues(numElements(p.vShape()), dtype, -1.0f, 1.0f, seed + 2);
  if (p.mask == MaskKind::kNone)
    return in;
  Shape shape = p.fullMaskShape();
  int64_t n = numElements(shape), last = shape.empty() ? 1 : shape.back();
  std::mt19937 gen(seed + 3);
  if (p.mask == MaskKind::kAdditive) {
    in.maskValues = randomValues(n, DType::kF32, -2.0f, 2.0f, seed + 3);
    for (int64_t i = 0; i < n; ++i)
      if (i % last != 0 && gen() % 6 == 0)
        in.maskValues[i] = -std::numeric_limits<float>::infinity();
  } else {
    in.keep.resize(n);
    for (int64_t i = 0; i < n; ++i)
      in.keep[i] = i % last == 0 || gen() % 4 != 0;
  }
  return in;
}

float maxAbs(const std::vector<float> &values) {
  float m = 0.0f;
  for (float v : values)
    if (std::isfinite(v))
      m = std::max(m, std::fabs(v));
  return m;
}

// expectClose that also requires NaN where the reference is NaN and equal
// infinities where it is infinite.
void expectMatches(const std::vector<float> &got,
                   const std::vector<float> &want, double rtol, double atol,
                   const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::vector<float> finiteGot, finiteWant;
  int misses = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isfinite(want[i])) {
      finiteGot.push_back(got[i]);
      finiteWant.push_back(want[i]);
      continue;
    }
    bool ok = std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i];
    if (!ok && misses++ < 5)
      ADD_FAILURE() << what << "[" << i << "]: got " << got[i] << ", want "
                    << want[i];
  }
  expectClose(finiteGot, finiteWant, rtol, atol, what.c_str());
}

// Relative tolerance and absolute slack (times the largest reference value)
// of computed results.
struct Tolerance {
  double rtol, slack;
};
Tolerance toleranceFor(DType dtype) {
  switch (dtype) {
  case DType::kBF16:
    return {storageTolerance(dtype, 1e-3), 1.5e-2};
  case DType::kF16:
    return {storageTolerance(dtype, 1e-3), 3e-3};
  default:
    return {1e-4, 2e-5};
  }
}

void expectResult(const DeviceTensor &got, const std::vector<float> &want,
                  DType dtype, const std::string &what) {
  Tolerance t = toleranceFor(dtype);
  // The reference rounded as the kernel's store rounds.
  std::vector<float> rounded(want.size());
  for (size_t i = 0; i < want.size(); ++i)
    rounded[i] = roundTo(dtype, want[i]);
  expectMatches(got.readFloats(), rounded, t.rtol,
                t.slack * maxAbs(want) + 1e-6, what);
}

struct DeviceMask {
  std::unique_ptr<DeviceTensor> tensor;
  TensorView host;
  const TensorView *hostPtr() const { return tensor ? &host : nullptr; }
  TensorView device;
  const TensorView *devicePtr() const { return tensor ? &device : nullptr; }
};

DeviceMask makeMask(const Problem &p, Inputs &in) {
  DeviceMask m;
  if (p.mask == MaskKind::kNone)
    return m;
  Shape shape = p.fullMaskShape();
  if (p.mask == MaskKind::kAdditive) {
    m.tensor =
        std::make_unique<DeviceTensor>(DType::kF32, shape, in.maskValues);
    m.host = makeView(in.maskValues.data(), shape);
  } else {
    m.tensor = std::make_unique<DeviceTensor>(DType::kBool, shape);
    m.tensor->write(in.keep);
    m.host = makeView(in.keep.data(), shape);
  }
  m.device = m.tensor->view();
  return m;
}

std::string describe(const Problem &p, DType dtype) {
  std::string s = std::string(dtypeName(dtype)) + " lead " +
                  shapeToString(p.lead) + " tq " + std::to_string(p.tq) +
                  " tk " + std::to_string(p.tk) + " d " + std::to_string(p.d) +
                  " dv " + std::to_string(p.dv) + (p.causal ? " causal" : "");
  if (p.mask != MaskKind::kNone)
    s += std::string(p.mask == MaskKind::kAdditive ? " f32" : " bool") +
         " mask " + shapeToString(p.fullMaskShape());
  return s;
}

// The CPU forward on `in`: out and lse.
void cpuForward(const Problem &p, Inputs &in, const DeviceMask &mask,
                std::vector<float> *out, std::vector<float> *lse) {
  out->assign(numElements(p.outShape()), 0.0f);
  lse->assign(numElements(p.lseShape()), 0.0f);
  TensorView lseView = makeView(lse->data(), p.lseShape());
  Status s = cpu::attention(
      makeView(in.q.data(), p.qShape()), makeView(in.k.data(), p.kShape()),
      makeView(in.v.data(), p.vShape()), mask.hostPtr(), p.options(),
      makeView(out->data(), p.outShape()), &lseView);
  ASSERT_TRUE(s.ok()) << s.toString();
}

void checkForward(const Problem &p, DType dtype, unsigned seed = 11) {
  SCOPED_TRACE(describe(p, dtype));
  Inputs in = makeInputs(p, dtype, seed);
  DeviceMask mask = makeMask(p, in);
  std::vector<float> wantOut, wantLse;
  cpuForward(p, in, mask, &wantOut, &wantLse);

  DeviceTensor q(dtype, p.qShape(), in.q), k(dtype, p.kShape(), in.k),
      v(dtype, p.vShape(), in.v), out(dtype, p.outShape()),
      lse(DType::kF32, p.lseShape());
  TensorView lseView = lse.view();
  HETC_EXPECT_CUDA_OK(attention(q.view(), k.view(), v.view(), mask.devicePtr(),
                                p.options(), out.view(), &lseView));
  expectResult(out, wantOut, dtype, "out");
  expectMatches(lse.readFloats(), wantLse, 1e-4, 1e-4, "lse");
}

// The CPU backward on `in`, with out (rounded to `dtype`, as the GPU sees
// it) and lse from the CPU forward; the GPU gets the same values.
void checkBackward(const Problem &p, DType dtype, unsigned seed = 21) {
  SCOPED_TRACE(describe(p, dtype));
  Inputs in = makeInputs(p, dtype, seed);
  DeviceMask mask = makeMask(p, in);
  std::vector<float> out, lse;
  cpuForward(p, in, mask, &out, &lse);
  for (float &x : out)
    x = roundTo(dtype, x);
  std::vector<float> dout =
      randomValues(numElements(p.outShape()), dtype, -1.0f, 1.0f, seed + 7);
  std::vector<float> wantDq(in.q.size()), wantDk(in.k.size()),
      wantDv(in.v.size());
  Status s = cpu::attentionBackward(
      makeView(in.q.data(), p.qShape()), makeView(in.k.data(), p.kShape()),
      makeView(in.v.data(), p.vShape()), mask.hostPtr(), p.options(),
      makeView(out.data(), p.outShape()), makeView(lse.data(), p.lseShape()),
      makeView(dout.data(), p.outShape()), makeView(wantDq.data(), p.qShape()),
      makeView(wantDk.data(), p.kShape()), makeView(wantDv.data(), p.vShape()));
  ASSERT_TRUE(s.ok()) << s.toString();

  DeviceTensor q(dtype, p.qShape(), in.q), k(dtype, p.kShape(), in.k),
      v(dtype, p.vShape(), in.v), o(dtype, p.outShape(), out),
      l(DType::kF32, p.lseShape(), lse), g(dtype, p.outShape(), dout),
      dq(dtype, p.qShape()), dk(dtype, p.kShape()), dv(dtype, p.vShape());
  HETC_EXPECT_CUDA_OK(attentionBackward(
      q.view(), k.view(), v.view(), mask.devicePtr(), p.options(), o.view(),
      l.view(), g.view(), dq.view(), dk.view(), dv.view()));
  expectResult(dq, wantDq, dtype, "dq");
  expectResult(dk, wantDk, dtype, "dk");
  expectResult(dv, wantDv, dtype, "dv");
}

const DType kDTypes[] = {DType::kF32, DType::kBF16, DType::kF16};

// Shapes every dtype runs, forward and backward.
std::vector<Problem> shapeCases() {
  std::vector<Problem> cases;
  for (bool causal : {false, true}) {
    Problem p;
    p.causal = causal;
    cases.push_back(p); // 3 tiles of 64 rows, the last of 2
    Problem shortQ = p; // Tq < Tk: causal keeps the top-left triangle
    shortQ.tq = 17;
    cases.push_back(shortQ);
    Problem shortK = p; // Tq > Tk: later rows see every key
    shortK.tk = 17;
    cases.push_back(shortK);
    Problem one = p;
    one.tq = 1;
    one.tk = 1;
    cases.push_back(one);
    Problem oneQ = p;
    oneQ.tq = 1;
    cases.push_back(oneQ);
  }
  Problem d16;
  d16.lead = {3};
  d16.d = d16.dv = 16;
  d16.causal = true;
  cases.push_back(d16);
  Problem d80; // the 128 bound with partial 16-column steps
  d80.lead = {2, 2};
  d80.tq = d80.tk = 100;
  d80.d = d80.dv = 80;
  cases.push_back(d80);
  Problem d128;
  d128.lead = {2, 2};
  d128.tq = 65;
  d128.tk = 129;
  d128.d = d128.dv = 128;
  d128.causal = true;
  cases.push_back(d128);
  Problem narrowV; // Dv != D, both bounds
  narrowV.lead = {2};
  narrowV.d = 64;
  narrowV.dv = 32;
  cases.push_back(narrowV);
  Problem wideV = narrowV;
  wideV.d = 32;
  wideV.dv = 96;
  wideV.causal = true;
  cases.push_back(wideV);
  Problem odd; // not multiples of 8: CUDA cores for every dtype
  odd.lead = {2};
  odd.tq = 70;
  odd.tk = 45;
  odd.d = 20;
  odd.dv = 13;
  cases.push_back(odd);
  Problem oddCausal = odd;
  oddCausal.d = 17;
  oddCausal.dv = 100;
  oddCausal.causal = true;
  cases.push_back(oddCausal);
  Problem rank2; // no leading dimensions
  rank2.lead = {};
  rank2.tq = 80;
  rank2.tk = 140;
  rank2.causal = true;
  cases.push_back(rank2);
  Problem longer; // several full tiles
  longer.lead = {1, 2};
  longer.tq = longer.tk = 256;
  longer.causal = true;
  cases.push_back(longer);
  return cases;
}

// Masks of both dtypes, full and broadcast, with and without causality.
std::vector<Problem> maskCases() {
  std::vector<Problem> cases;
  for (MaskKind kind : {MaskKind::kAdditive, MaskKind::kKeep}) {
    Problem full;
    full.tq = 70;
    full.tk = 90;
    full.mask = kind;
    cases.push_back(full);
    Problem shared = full; // one [Tq, Tk] mask for every head
    shared.maskShape = {full.tq, full.tk};
    shared.causal = true;
    cases.push_back(shared);
    Problem padding = full; // per batch, per key
    padding.maskShape = {2, 1, 1, full.tk};
    cases.push_back(padding);
    Problem perHead = full; // per head, per query
    perHead.maskShape = {3, full.tq, 1};
    perHead.causal = true;
    cases.push_back(perHead);
    Problem keysOnly = full; // rank 1
    keysOnly.maskShape = {full.tk};
    keysOnly.d = keysOnly.dv = 24;
    cases.push_back(keysOnly);
    Problem odd = full; // CUDA cores for every dtype
    odd.d = 12;
    odd.dv = 36;
    odd.causal = true;
    cases.push_back(odd);
  }
  return cases;
}

TEST(CudaAttention, ForwardMatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kDTypes)
    for (const Problem &p : shapeCases())
      checkForward(p, dtype);
}

TEST(CudaAttention, ForwardWithMasksMatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kDTypes)
    for (const Problem &p : maskCases())
      checkForward(p, dtype);
}

TEST(CudaAttention, BackwardMatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kDTypes)
    for (const Problem &p : shapeCases())
      checkBackward(p, dtype);
}

TEST(CudaAttention, BackwardWithMasksMatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kDTypes)
    for (const Problem &p : maskCases())
      checkBackward(p, dtype);
}

TEST(CudaAttention, ForwardWithoutLse) {
  HETC_REQUIRE_CUDA();
  Problem p;
  p.causal = true;
  Inputs in = makeInputs(p, DType::kBF16);
  DeviceMask none;
  std::vector<float> wantOut, wantLse;
  cpuForward(p, in, none, &wantOut, &wantLse);
  DeviceTensor q(DType::kBF16, p.qShape(), in.q),
      k(DType::kBF16, p.kShape(), in.k), v(DType::kBF16, p.vShape(), in.v),
      out(DType::kBF16, p.outShape());
  HETC_EXPECT_CUDA_OK(attention(q.view(), k.view(), v.view(), nullptr,
                                p.options(), out.view(), nullptr));
  expectResult(out, wantOut, DType::kBF16, "out");
}

// A row whose keys are all excluded: NaN output and -inf lse in the
// forward, NaN gradients wherever that row contributes in the backward
// (dq of the row, every dk and dv), like the CPU.
TEST(CudaAttention, FullyMaskedRow) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kDTypes) {
    for (MaskKind kind : {MaskKind::kAdditive, MaskKind::kKeep}) {
      Problem p;
      p.lead = {2};
      p.tq = 40;
      p.tk = 70;
      p.mask = kind;
      p.maskShape = {p.tq, p.tk};
      Inputs in = makeInputs(p, dtype);
      int64_t row = 5;
      for (int64_t j = 0; j < p.tk; ++j) {
        if (kind == MaskKind::kAdditive)
          in.maskValues[row * p.tk + j] =
              -std::numeric_limits<float>::infinity();
        else
          in.keep[row * p.tk + j] = 0;
      }
      SCOPED_TRACE(describe(p, dtype));
      DeviceMask mask = makeMask(p, in);
      std::vector<float> wantOut, wantLse;
      cpuForward(p, in, mask, &wantOut, &wantLse);
      ASSERT_TRUE(std::isnan(wantOut[row * p.dv]));
      DeviceTensor q(dtype, p.qShape(), in.q), k(dtype, p.kShape(), in.k),
          v(dtype, p.vShape(), in.v), out(dtype, p.outShape()),
          lse(DType::kF32, p.lseShape());
      TensorView lseView = lse.view();
      HETC_EXPECT_CUDA_OK(attention(q.view(), k.view(), v.view(),
                                    mask.devicePtr(), p.options(), out.view(),
                                    &lseView));
      expectResult(out, wantOut, dtype, "out");
      expectMatches(lse.readFloats(), wantLse, 1e-4, 1e-4, "lse");

      std::vector<float> rounded = wantOut;
      for (float &x : rounded)
        x = roundTo(dtype, x);
      std::vector<float> dout =
          randomValues(numElements(p.outShape()), dtype, -1.0f, 1.0f, 5);
      std::vector<float> wantDq(in.q.size()), wantDk(in.k.size()),
          wantDv(in.v.size());
      Status s = cpu::attentionBackward(
          makeView(in.q.data(), p.qShape()), makeView(in.k.data(), p.kShape()),
          makeView(in.v.data(), p.vShape()), mask.hostPtr(), p.options(),
          makeView(rounded.data(), p.outShape()),
          makeView(wantLse.data(), p.lseShape()),
          makeView(dout.data(), p.outShape()),
          makeView(wantDq.data(), p.qShape()),
          makeView(wantDk.data(), p.kShape()),
          makeView(wantDv.data(), p.vShape()));
      ASSERT_TRUE(s.ok()) << s.toString();
      DeviceTensor o(dtype, p.outShape(), rounded),
          g(dtype, p.outShape(), dout), dq(dtype, p.qShape()),
          dk(dtype, p.kShape()), dv(dtype, p.vShape());
      HETC_EXPECT_CUDA_OK(attentionBackward(
          q.view(), k.view(), v.view(), mask.devicePtr(), p.options(), o.view(),
          lse.view(), g.view(), dq.view(), dk.view(), dv.view()));
      expectResult(dq, wantDq, dtype, "dq");
      expectResult(dk, wantDk, dtype, "dk");
      expectResult(dv, wantDv, dtype, "dv");
    }
  }
}

// Every gradient element has one writer and a fixed order: bit-identical
// results from two calls.
TEST(CudaAttention, BackwardIsDeterministic) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    Problem p;
    p.causal = true;
    Inputs in = makeInputs(p, dtype);
    std::vector<float> dout =
        randomValues(numElements(p.outShape()), dtype, -1.0f, 1.0f, 9);
    DeviceTensor q(dtype, p.qShape(), in.q), k(dtype, p.kShape(), in.k),
        v(dtype, p.vShape(), in.v), out(dtype, p.outShape()),
        lse(DType::kF32, p.lseShape()), g(dtype, p.outShape(), dout);
    TensorView lseView = lse.view();
    HETC_EXPECT_CUDA_OK(attention(q.view(), k.view(), v.view(), nullptr,
                                  p.options(), out.view(), &lseView));
    std::vector<std::vector<uint8_t>> runs[2];
    for (auto &run : runs) {
      DeviceTensor dq(dtype, p.qShape()), dk(dtype, p.kShape()),
          dv(dtype, p.vShape());
      HETC_EXPECT_CUDA_OK(attentionBackward(
          q.view(), k.view(), v.view(), nullptr, p.options(), out.view(),
          lse.view(), g.view(), dq.view(), dk.view(), dv.view()));
      run = {dq.read<uint8_t>(), dk.read<uint8_t>(), dv.read<uint8_t>()};
    }
    EXPECT_EQ(runs[0], runs[1]) << dtypeName(dtype);
  }
}

// Validation: one case per check, each an INVALID_ARGUMENT naming the
// kernel.
TEST(CudaAttention, RejectsBadOperands) {
  HETC_REQUIRE_CUDA();
  auto expectInvalid = [](const Status &s, const char *kernel) {
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.toString();
    EXPECT_NE(s.message().find(kernel), std::string::npos) << s.toString();
  };
  DType bf = DType::kBF16;
  DeviceTensor q(bf, {2, 8, 64}), k(bf, {2, 10, 64}), v(bf, {2, 10, 32}),
      out(bf, {2, 8, 32}), lse(DType::kF32, {2, 8});
  DeviceTensor q32(DType::kF32, {2, 8, 64}), qInt(DType::kI32, {2, 8, 64});
  DeviceTensor kOtherLead(bf, {3, 10, 64}), kOtherD(bf, {2, 10, 48}),
      vOtherRows(bf, {2, 9, 32}), q1(bf, {64});
  DeviceTensor qWide(bf, {2, 8, 136}), kWide(bf, {2, 10, 136});
  DeviceTensor maskI64(DType::kI64, {8, 10}), maskBad(DType::kBool, {8, 7}),
      maskOk(DType::kBool, {8, 10});
  DeviceTensor outBad(bf, {2, 8, 64}), out32(DType::kF32, {2, 8, 32}),
      lseBf(bf, {2, 8}), lseBad(DType::kF32, {2, 9});
  AttentionOptions o;
  TensorView lseView = lse.view(), lseBfView = lseBf.view(),
             lseBadView = lseBad.view();
  TensorView maskI64View = maskI64.view(), maskBadView = maskBad.view();

  const char *fwd = "attention";
  expectInvalid(attention(qInt.view(), k.view(), v.view(), nullptr, o,
                          out.view(), &lseView),
                fwd);
  expectInvalid(attention(q32.view(), k.view(), v.view(), nullptr, o,
                          out.view(), &lseView),
                fwd);
  expectInvalid(attention(q1.view(), k.view(), v.view(), nullptr, o, out.view(),
                          &lseView),
                fwd);
  expectInvalid(attention(q.view(), kOtherLead.view(), v.view(), nullptr, o,
                          out.view(), &lseView),
                fwd);
  expectInvalid(attention(q.view(), kOtherD.view(), v.view(), nullptr, o,
                          out.view(), &lseView),
                fwd);
  expectInvalid(attention(q.view(), k.view(), vOtherRows.view(), nullptr, o,
                          out.view(), &lseView),
                fwd);
  DeviceTensor outWide(bf, {2, 8, 32});
  expectInvalid(attention(qWide.view(), kWide.view(), v.view(), nullptr, o,
                          outWide.view(), &lseView),
                fwd);
  expectInvalid(attention(q.view(), k.view(), v.view(), &maskI64View, o,
                          out.view(), &lseView),
                fwd);
  expectInvalid(attention(q.view(), k.view(), v.view(), &maskBadView, o,
                          out.view(), &lseView),
                fwd);
  expectInvalid(attention(q.view(), k.view(), v.view(), nullptr, o,
                          outBad.view(), &lseView),
                fwd);
  expectInvalid(attention(q.view(), k.view(), v.view(), nullptr, o,
                          out32.view(), &lseView),
                fwd);
  expectInvalid(attention(q.view(), k.view(), v.view(), nullptr, o, out.view(),
                          &lseBfView),
                fwd);
  expectInvalid(attention(q.view(), k.view(), v.view(), nullptr, o, out.view(),
                          &lseBadView),
                fwd);
  TensorView nullQ(nullptr, bf, {2, 8, 64});
  expectInvalid(
      attention(nullQ, k.view(), v.view(), nullptr, o, out.view(), &lseView),
      fwd);

  const char *bwd = "attention_backward";
  DeviceTensor dout(bf, {2, 8, 32}), dq(bf, {2, 8, 64}), dk(bf, {2, 10, 64}),
      dv(bf, {2, 10, 32});
  DeviceTensor dqBad(bf, {2, 8, 32}), dkBad(bf, {2, 9, 64}),
      dvBad(bf, {2, 10, 64}), dout32(DType::kF32, {2, 8, 32});
  expectInvalid(attentionBackward(q.view(), k.view(), v.view(), &maskI64View, o,
                                  out.view(), lse.view(), dout.view(),
                                  dq.view(), dk.view(), dv.view()),
                bwd);
  expectInvalid(attentionBackward(q.view(), k.view(), v.view(), nullptr, o,
                                  outBad.view(), lse.view(), dout.view(),
                                  dq.view(), dk.view(), dv.view()),
                bwd);
  expectInvalid(attentionBackward(q.view(), k.view(), v.view(), nullptr, o,
                                  out.view(), lseBad.view(), dout.view(),
                                  dq.view(), dk.view(), dv.view()),
                bwd);
  expectInvalid(attentionBackward(q.view(), k.view(), v.view(), nullptr, o,
                                  out.view(), lse.view(), dout32.view(),
                                  dq.view(), dk.view(), dv.view()),
                bwd);
  expectInvalid(attentionBackward(q.view(), k.view(), v.view(), nullptr, o,
                                  out.view(), lse.view(), dout.view(),
                                  dqBad.view(), dk.view(), dv.view()),
                bwd);
  expectInvalid(attentionBackward(q.view(), k.view(), v.view(), nullptr, o,
                                  out.view(), lse.view(), dout.view(),
                                  dq.view(), dkBad.view(), dv.view()),
                bwd);
  expectInvalid(attentionBackward(q.view(), k.view(), v.view(), nullptr, o,
                                  out.view(), lse.view(), dout.view(),
                                  dq.view(), dk.view(), dvBad.view()),
                bwd);
  expectInvalid(attentionBackward(qWide.view(), kWide.view(), v.view(), nullptr,
                                  o, out.view(), lse.view(), dout.view(),
                                  dq.view(), dk.view(), dv.view()),
                bwd);
  DeviceTensor dq32(DType::kF32, {2, 8, 64});
  expectInvalid(attentionBackward(q.view(), k.view(), v.view(), nullptr, o,
                                  out.view(), lse.view(), dout.view(),
                                  dq32.view(), dk.view(), dv.view()),
                bwd);
  expectInvalid(attentionBackward(q.view(), k.view(), v.view(), nullptr, o,
                                  out.view(), lseBf.view(), dout.view(),
                                  dq.view(), dk.view(), dv.view()),
                bwd);
  // A mask whose leading dimensions cannot be merged into 8.
  Shape lead(9, 2), maskShape;
  for (int i = 0; i < 9; ++i)
    maskShape.push_back(i % 2 == 0 ? 2 : 1);
  auto withRows = [](Shape s, int64_t rows, int64_t cols) {
    s.push_back(rows);
    s.push_back(cols);
    return s;
  };
  DeviceTensor qMany(bf, withRows(lead, 1, 8)), kMany(bf, withRows(lead, 1, 8)),
      vMany(bf, withRows(lead, 1, 8)), outMany(bf, withRows(lead, 1, 8)),
      maskMany(DType::kBool, withRows(maskShape, 1, 1));
  TensorView maskManyView = maskMany.view();
  expectInvalid(attention(qMany.view(), kMany.view(), vMany.view(),
                          &maskManyView, o, outMany.view(), nullptr),
                fwd);
  // A valid mask passes the same checks.
  TensorView maskOkView = maskOk.view();
  HETC_EXPECT_CUDA_OK(attention(q.view(), k.view(), v.view(), &maskOkView, o,
                                out.view(), &lseView));
}

} // namespace
} // namespace hetc::runtime::cuda::test
