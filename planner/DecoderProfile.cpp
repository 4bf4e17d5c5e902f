//===- DecoderProfile.cpp - the profile of a GPT-2-shaped decoder ---------===//

#include "planner/DecoderProfile.h"

namespace hetc::planner {

DecoderShape DecoderShape::gpt2Small() {
  return {"gpt2-124m", 12, 768, 12, 50257, 1024};
}
DecoderShape DecoderShape::gpt2Medium() {
  return {"gpt2-350m", 24, 1024, 16, 50257, 1024};
}
DecoderShape DecoderShape::gpt2XL() {
  return {"gpt2-1.5b", 48, 1600, 25, 50257, 1024};
}

namespace {

constexpr int64_t floatBytes = 4;
constexpr int64_t tokenIdBytes = 8; // int64 input ids and labels

/// A segment from its parameter count, FLOPs and activation sizes; the
/// bytes its ops move are not in hetc profile's output, so they are
/// estimated as its input, its output and twice its saved activations (each
/// written once and read once), the backward moving twice the forward.
SegmentCost segment(int64_t parameters, double forwardFlops,
                    double backwardFlops, int64_t savedBytes,
                    int64_t inputBytes, int64_t boundaryBytes) {
  SegmentCost cost;
  cost.parameters = parameters;
  cost.parameterBytes = parameters * floatBytes;
  cost.forwardFlops = forwardFlops;
  cost.backwardFlops = backwardFlops;
  cost.savedActivationBytes = savedBytes;
  cost.boundaryBytes = boundaryBytes;
  cost.forwardBytes = inputBytes + boundaryBytes + 2.0 * savedBytes;
  cost.backwardBytes = 2 * cost.forwardBytes;
  return cost;
}

} // namespace

ModelProfile decoderProfile(const DecoderShape &shape, int64_t seqLen) {
  const double t = seqLen, d = shape.width, v = shape.vocab, h = shape.heads;
  const int64_t hidden = seqLen * shape.width * floatBytes;
  const int64_t logits = seqLen * shape.vocab * floatBytes;

  ModelProfile profile;
  profile.model = shape.name;
  profile.seqLen = seqLen;
  std::vector<SegmentCost> &chain = profile.segments;
  // The token embedding's backward zeroes the whole table gradient.
  chain.push_back(segment(shape.vocab * shape.width, 0, v * d + t * d,
                          seqLen * tokenIdBytes, seqLen * tokenIdBytes,
                          hidden));
  chain.push_back(segment(shape.positions * shape.width, t * d, 2 * t * d, 0,
                          hidden, hidden));
  for (int64_t layer = 0; layer < shape.layers; ++layer) {
    // QKV and output projections, QK^T and AV, then softmax, mask and
    // layer norm; the fused attention keeps six hidden-sized tensors.
    double attention =
        2 * t * 4 * d * d + 4 * t * t * d + 9 * h * t * t + 10 * t * d;
    chain.push_back(segment(4 * shape.width * shape.width + 6 * shape.width,
                            attention, 2.19 * attention, 6 * hidden, hidden,
                            hidden));
    double mlp = 2 * t * 8 * d * d + 44 * t * d;
    chain.push_back(segment(8 * shape.width * shape.width + 7 * shape.width,
                            mlp, 2 * mlp, 10 * hidden, hidden, hidden));
  }
  chain.push_back(
      segment(2 * shape.width, 7 * t * d, 16 * t * d, hidden, hidden, hidden));
  // The LM head reads the token embedding (tied): no parameters of its own.
  int64_t head = static_cast<int64_t>(chain.size());
  chain.push_back(
      segment(0, 2 * t * d * v, 4 * t * d * v, hidden, hidden, logits));
  profile.sharedParameters.push_back(
      {"wte.weight", chain[0].parameters, chain[0].parameterBytes, {0, head}});
  chain.push_back(segment(0, 7 * t * v, 9 * t * v,
                          logits + seqLen * tokenIdBytes, logits, 0));
  return profile;
}

} // namespace hetc::planner
