//===- Gather.h - ONNX Gather, ScatterND, embeddings, gradients -*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_GATHER_H
#define HETC_RUNTIME_CPU_GATHER_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

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

// out = data with slices written at multi-indices (ONNX ScatterND): the last
// dimension of `indices` (i64 or i32; negative entries count from the end)
// addresses data's first dimensions, and updates has shape indices[:-1] +
// data[depth:]. Updates apply in index order, replacing (kNone) or combining
// with the elements (kAdd, kMul, kMax, kMin: f32, f64, i64, i32). out may be
// data itself. An index out of range is an error (out is then undefined).
Status scatterND(const TensorView &data, const TensorView &indices,
                 const TensorView &updates, ScatterReduction reduction,
                 const TensorView &out);

// An embedding lookup: gather on axis 0 of table [V, E]; ids of any shape,
// out [ids..., E]. A token id >= V is an error.
Status embedding(const TensorView &table, const TensorView &ids,
                 const TensorView &out);
Status embeddingBackward(const TensorView &dout, const TensorView &ids,
                         const TensorView &dtable, bool accumulate);

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_GATHER_H
