//===- DecoderProfile.h - the profile of a GPT-2-shaped decoder -*- C++ -*-===//
//
// The segment profile `hetc profile MODEL.onnx --seq T` reports for a GPT-2
// export (models/export.py), computed from the model's shape instead of its
// ONNX file: for planning before a model is exported, and for the planner's
// tests and benchmark. The chain is the one hetg-segment cuts: token
// embedding, position embedding, then per layer an attention and an MLP
// segment, the final layer norm, the (tied) LM head and the loss. The
// per-segment formulas match hetc profile's figures for GPT-2 124M at
// T = 1024 to within 1% (FLOPs, parameters, saved and boundary bytes), and
// list the tie of the token embedding and the LM head as hetc profile does.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PLANNER_DECODERPROFILE_H
#define HETC_PLANNER_DECODERPROFILE_H

#include "planner/ModelProfile.h"

namespace hetc::planner {

struct DecoderShape {
  std::string name;
  int64_t layers = 0;
  int64_t width = 0;
  int64_t heads = 0;
  int64_t vocab = 0;
  /// Rows of the position embedding (GPT-2: 1024), at least seqLen.
  int64_t positions = 0;

  static DecoderShape gpt2Small();  // 124M
  static DecoderShape gpt2Medium(); // 350M
  static DecoderShape gpt2XL();     // 1.5B
};

/// The fp32 AdamW profile of `shape` for samples of `seqLen` tokens.
ModelProfile decoderProfile(const DecoderShape &shape, int64_t seqLen);

} // namespace hetc::planner

#endif // HETC_PLANNER_DECODERPROFILE_H
