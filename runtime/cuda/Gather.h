//===- Gather.h - ONNX Gather, embeddings, gradients (CUDA) -----*- C++ -*-===//

#ifndef HETC_RUNTIME_CUDA_GATHER_H
#define HETC_RUNTIME_CUDA_GATHER_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"
#include "runtime/cuda/Stream.h"

// The kernels of runtime/cpu/Gather.h on the current stream (Stream.h):
// device pointers; float tensors may be f32, bf16 or f16 (computed in f32).
//
// Indices stay on the device, so they are not checked here: token ids are
// checked against the vocabulary by the executor as it loads them. An index
// outside [-dim, dim) gives a zero row in gather's output and is skipped by
// the backward passes; nothing is read or written out of bounds.

namespace hetc::runtime::cuda {

// out = data gathered along `axis` at `indices` (i64 or i32; negative ones
// count from the end): out.shape = data.shape[:axis] + indices.shape +
// data.shape[axis+1:]. Any data dtype; out has data's.
Status gather(const TensorView &data, const TensorView &indices, int64_t axis,
              const TensorView &out);

// The gradient of gather: ddata (+)= dout scattered back, summing repeated
// indices; without `accumulate` ddata is zeroed first. ddata and dout share
// one float dtype. The indices are sorted (a stable radix sort, in the
// thread's scratch), then one block per distinct index sums its dout rows in
// position order in f32 and adds them to ddata once: deterministic, no
// atomics.
Status gatherBackward(const TensorView &dout, const TensorView &indices,
                      int64_t axis, const TensorView &ddata, bool accumulate);

// ScatterND as runtime/cpu/Gather.h has it; a tuple with an index out of
// range is skipped. One thread per slice element applies the updates in
// index order (deterministic). Reductions: f32, f64, i64, i32; kNone also
// bf16, f16 and bool.
Status scatterND(const TensorView &data, const TensorView &indices,
                 const TensorView &updates, ScatterReduction reduction,
                 const TensorView &out);

// An embedding lookup: gather on axis 0 of table [V, E]; ids of any shape,
// out [ids..., E].
Status embedding(const TensorView &table, const TensorView &ids,
                 const TensorView &out);
Status embeddingBackward(const TensorView &dout, const TensorView &ids,
                         const TensorView &dtable, bool accumulate);

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_GATHER_H
