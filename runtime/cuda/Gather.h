//===- Gather.h - ONNX Gather, embeddings and their gradients (CUDA) *- C++ -*-===//

#ifndef HETC_RUNTIME_CUDA_GATHER_H
#define HETC_RUNTIME_CUDA_GATHER_H

#include "runtime/base/Tensor.h"
#include "runtime/cuda/Stream.h"

// The kernels of runtime/cpu/Gather.h on the current stream (Stream.h):
// device pointers; float tensors may be f32, bf16 or f16 (computed in f32).

namespace hetc::runtime::cuda {

// out = data gathered along `axis` at `indices` (i64 or i32; negative ones
// count from the end): out.shape = data.shape[:axis] + indices.shape +
// data.shape[axis+1:]. Any data dtype; out has data's. An index outside
// [-dim, dim) is an error (nothing is written).
Status gather(const TensorView &data, const TensorView &indices, int64_t axis,
              const TensorView &out);

// The gradient of gather: ddata (+)= dout scattered back, summing repeated
// indices; without `accumulate` ddata is zeroed first. f32. Parallel over the
// trailing (embedding) dimension, each element summing tokens in order:
// deterministic, no atomics.
Status gatherBackward(const TensorView &dout, const TensorView &indices,
                      int64_t axis, const TensorView &ddata, bool accumulate);

// An embedding lookup: gather on axis 0 of table [V, E]; ids of any shape,
// out [ids..., E]. A token id >= V is an error.
Status embedding(const TensorView &table, const TensorView &ids,
                 const TensorView &out);
Status embeddingBackward(const TensorView &dout, const TensorView &ids,
                         const TensorView &dtable, bool accumulate);

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_GATHER_H
