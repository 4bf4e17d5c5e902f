//===- PipelineModel.h - a tiny language model over three ranks -*- C++ -*-===//
//
// logits = gather(wte, ids) @ proj^T, loss = mean token cross-entropy, AdamW,
// split the way a plan splits it: stage 0 (rank 0) embeds the whole batch
// and sends each stage-1 replica the slice of samples it owns; stage 1 has
// two replicas (ranks 1 and 2, samples [0, 1) and [1, 4)) that compute
// their share of the loss (scaled by 1/(B*T)) and the gradients, and send
// the embedding gradients back. Stage 1 shards proj's AdamW state: its
// gradient is reduce-scattered over the replicas (5 and 3 elements), each
// updates its piece of proj and of the state (`proj.adam_m[0:5]`, ...), and
// an all-gather restores proj. The reference does the same arithmetic on
// one device, in double.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_TEST_RUNTIME_PIPELINEMODEL_H
#define HETC_TEST_RUNTIME_PIPELINEMODEL_H

#include "ProgramBuilder.h"

#include <cmath>

namespace hetc::runtime::test {

namespace pipeline {

constexpr int64_t kB = 4, kT = 3, kV = 4, kE = 2;
constexpr double kLr = 0.1, kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8,
                 kWeightDecay = 0.01;
// The stage-1 replicas: first sample, samples, first element of proj's piece
// and its size.
struct Replica {
  int64_t firstSample, samples, pieceBegin, pieceSize;
};
constexpr Replica kReplicas[2] = {{0, 1, 0, 5}, {1, 3, 5, 3}};

inline const std::vector<float> &initialWte() {
  static const std::vector<float> values = {0.1f,  -0.2f, 0.3f, 0.4f,
                                            -0.5f, 0.6f,  0.7f, -0.8f};
  return values;
}
inline const std::vector<float> &initialProj() {
  static const std::vector<float> values = {1.0f,  0.5f,  -0.5f, 1.0f,
                                            0.25f, -1.0f, 0.0f,  0.75f};
  return values;
}

inline pkg::Instruction &adamw(ProgramBuilder &b, int p, int g, int m, int v,
                               int step) {
  pkg::Instruction &inst = b.launch("adamw", {p, g, m, v, step}, {p, m, v});
  setFloat(inst, "lr", kLr);
  setFloat(inst, "beta1", kBeta1);
  setFloat(inst, "beta2", kBeta2);
  setFloat(inst, "eps", kEps);
  setFloat(inst, "weight_decay", kWeightDecay);
  return inst;
}

// The step counter every AdamW rank keeps: optimizer.step += 1.
inline int stepCounter(ProgramBuilder &b) {
  int step = b.f32("optimizer.step", {}, pkg::OPTIMIZER_STATE);
  int one = b.f32("one", {}, pkg::CONSTANT);
  b.launch("add", {step, one}, {step});
  b.constant("one", {}, {1.0f});
  return step;
}

inline ProgramBuilder embeddingStage() {
  ProgramBuilder b(kB, kT, kV);
  b.place(0, 0, "cpu0");
  int wte = b.f32("wte", {kV, kE}, pkg::PARAMETER);
  int m = b.f32("wte.adam_m", {kV, kE}, pkg::OPTIMIZER_STATE);
  int v = b.f32("wte.adam_v", {kV, kE}, pkg::OPTIMIZER_STATE);
  int ids = b.tokens("input_ids", pkg::TOKENS, 0, kB);
  int emb = b.f32("gather.0", {kB, kT, kE});
  int demb = b.f32("recv.grads", {kB, kT, kE});
  int dwte = b.f32("gather_grad.1", {kV, kE});
  setInt(b.launch("gather", {wte, ids}, {emb}), "axis", 0);
  for (int r = 0; r < 2; ++r) {
    const Replica &replica = kReplicas[r];
    Shape slice = {replica.samples, kT, kE};
    int64_t offset = replica.firstSample * kT * kE;
    pkg::Instruction &send =
        b.launch("send", {b.view(emb, offset, slice, "gather.0.slice")}, {});
    setInt(send, "peer", r + 1);
    setInt(send, "tag", 0);
  }
  for (int r = 0; r < 2; ++r) {
    const Replica &replica = kReplicas[r];
    Shape slice = {replica.samples, kT, kE};
    int64_t offset = replica.firstSample * kT * kE;
    pkg::Instruction &recv =
        b.launch("recv", {}, {b.view(demb, offset, slice, "recv.grads.slice")});
    setInt(recv, "peer", r + 1);
    setInt(recv, "tag", 1);
  }
  setInt(b.launch("gather_grad", {demb, ids}, {dwte}), "axis", 0);
  adamw(b, wte, dwte, m, v, stepCounter(b));
  b.setLoss(-1);
  b.weight("wte", {kV, kE}, initialWte());
  return b;
}

inline ProgramBuilder projectionStage(int replicaIndex) {
  const Replica &replica = kReplicas[replicaIndex];
  int64_t rows = replica.samples * kT;
  std::string piece = "[" + std::to_string(replica.pieceBegin) + ":" +
                      std::to_string(replica.pieceBegin + replica.pieceSize) +
                      "]";
  ProgramBuilder b(kB, kT, kV);
  b.place(1, replicaIndex, "cpu" + std::to_string(replicaIndex + 1));
  b.setSamples(replica.firstSample, replica.samples);
  std::vector<int64_t> group = {1, 2}, counts = {5, 3};

  int proj = b.f32("proj", {kV, kE}, pkg::PARAMETER);
  int projPiece =
      b.view(proj, replica.pieceBegin, {replica.pieceSize}, "proj" + piece);
  int m =
      b.f32("proj.adam_m" + piece, {replica.pieceSize}, pkg::OPTIMIZER_STATE);
  int v =
      b.f32("proj.adam_v" + piece, {replica.pieceSize}, pkg::OPTIMIZER_STATE);
  int labels =
      b.tokens("labels", pkg::LABELS, replica.firstSample, replica.samples);
  int scale = b.f32("loss_scale", {}, pkg::CONSTANT);
  int x = b.f32("recv.x", {replica.samples, kT, kE});
  int flatX = b.alias(x, {rows, kE});
  int flatLabels = b.alias(labels, {rows});
  int logits = b.f32("matmul.0", {rows, kV});
  int lossSum = b.f32("cross_entropy.1", {});
  int loss = b.f32("mul.2", {});
  int dlogits = b.f32("cross_entropy_grad.3", {rows, kV});
  int dproj = b.f32("matmul.4", {kV, kE});
  int dx = b.f32("matmul.5", {rows, kE});
  int dprojPiece = b.f32("reduce_scatter.6", {replica.pieceSize});
  int gathered = b.f32("all_gather.7", {kV * kE});

  pkg::Instruction &recv = b.launch("recv", {}, {x});
  setInt(recv, "peer", 0);
  setInt(recv, "tag", 0);
  setBool(b.launch("matmul", {flatX, proj}, {logits}), "transpose_rhs", true);
  setString(b.launch("cross_entropy", {logits, flatLabels}, {lossSum}),
            "reduction", "sum");
  b.launch("mul", {lossSum, scale}, {loss});
  setString(
      b.launch("cross_entropy_grad", {logits, flatLabels, scale}, {dlogits}),
      "reduction", "sum");
  setBool(b.launch("matmul", {dlogits, flatX}, {dproj}), "transpose_lhs", true);
  b.launch("matmul", {dlogits, proj}, {dx});
  pkg::Instruction &send =
      b.launch("send", {b.alias(dx, {replica.samples, kT, kE})}, {});
  setInt(send, "peer", 0);
  setInt(send, "tag", 1);
  pkg::Instruction &scatter =
      b.launch("reduce_scatter", {b.alias(dproj, {kV * kE})}, {dprojPiece});
  setInts(scatter, "group", group);
  setInts(scatter, "counts", counts);
  adamw(b, projPiece, dprojPiece, m, v, stepCounter(b));
  pkg::Instruction &gather = b.launch("all_gather", {projPiece}, {gathered});
  setInts(gather, "group", group);
  setInts(gather, "counts", counts);
  b.launch("copy", {gathered}, {proj});
  b.setLoss(loss);
  b.weight("proj", {kV, kE}, initialProj());
  b.constant("loss_scale", {}, {1.0f / (kB * kT)});
  return b;
}

inline exec::LoadedPackage package() {
  return multiRankPackage(
      {embeddingStage(), projectionStage(0), projectionStage(1)});
}

// The same training on one device, in double.
struct Reference {
  std::vector<double> wte, proj, wteM, wteV, projM, projV;
  int64_t steps = 0;

  Reference()
      : wte(initialWte().begin(), initialWte().end()),
        proj(initialProj().begin(), initialProj().end()), wteM(kV * kE),
        wteV(kV * kE), projM(kV * kE), projV(kV * kE) {}

  // Runs step `step` on `data`; returns the loss.
  double step(const std::vector<uint16_t> &data, int64_t step) {
    int64_t n = static_cast<int64_t>(data.size());
    std::vector<double> dwte(wte.size(), 0.0), dproj(proj.size(), 0.0);
    double loss = 0.0;
    double tokens = static_cast<double>(kB * kT);
    for (int64_t j = 0; j < kB; ++j) {
      int64_t start = ((step * kB + j) * kT) % (n - kT - 1);
      for (int64_t p = 0; p < kT; ++p) {
        int64_t id = data[start + p], label = data[start + p + 1];
        std::vector<double> z(kV, 0.0);
        double mx = -1e300;
        for (int64_t c = 0; c < kV; ++c) {
          for (int64_t e = 0; e < kE; ++e)
            z[c] += wte[id * kE + e] * proj[c * kE + e];
          mx = std::max(mx, z[c]);
        }
        double sum = 0;
        for (double zc : z)
          sum += std::exp(zc - mx);
        loss += (std::log(sum) + mx - z[label]) / tokens;
        for (int64_t c = 0; c < kV; ++c) {
          double g = (std::exp(z[c] - mx) / sum - (c == label)) / tokens;
          for (int64_t e = 0; e < kE; ++e) {
            dproj[c * kE + e] += g * wte[id * kE + e];
            dwte[id * kE + e] += g * proj[c * kE + e];
          }
        }
      }
    }
    ++steps;
    update(wte, dwte, wteM, wteV);
    update(proj, dproj, projM, projV);
    return loss;
  }

  // torch.optim.AdamW.
  void update(std::vector<double> &p, const std::vector<double> &g,
              std::vector<double> &m, std::vector<double> &v) const {
    double c1 = 1 - std::pow(kBeta1, steps), c2 = 1 - std::pow(kBeta2, steps);
    for (size_t i = 0; i < p.size(); ++i) {
      p[i] *= 1 - kLr * kWeightDecay;
      m[i] = kBeta1 * m[i] + (1 - kBeta1) * g[i];
      v[i] = kBeta2 * v[i] + (1 - kBeta2) * g[i] * g[i];
      p[i] -= kLr / c1 * m[i] / (std::sqrt(v[i]) / std::sqrt(c2) + kEps);
    }
  }
};

} // namespace pipeline

} // namespace hetc::runtime::test

#endif // HETC_TEST_RUNTIME_PIPELINEMODEL_H
