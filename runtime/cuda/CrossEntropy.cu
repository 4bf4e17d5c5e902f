//===- CrossEntropy.cu - softmax cross-entropy ----------------------------===//
//
// Logits are viewed as [N, C, inner]; row = sample * inner + i reads its C
// scores with stride `inner` (1 in the usual [N, C] layout, where the row is
// walked in 16-byte packs). One block per row keeps an online (max, sum of
// exp(x - max)) per thread, merged across the block in a fixed order, so the
// forward reads the logits once; the loss is log(sum) - (x[label] - max).
//
// A reduced loss goes through the thread's scratch (RowScratch.h): the row
// kernel writes per-row losses, then one block sums them in row-strided
// order in double and divides by the count of labels not ignored. The
// backward's kMean weight, dloss / count, is computed the same way on the
// device (count and dloss never come to the host).
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/CrossEntropy.h"

#include "runtime/base/CrossEntropyShape.h"
#include "runtime/cuda/internal/DeviceFloat.cuh"
#include "runtime/cuda/internal/RowReduce.cuh"
#include "runtime/cuda/internal/RowScratch.h"

namespace hetc::runtime::cuda {
namespace {

using namespace internal;

constexpr unsigned kReduceThreads = 1024;

// Calls f(c, offset, Width<W>{}) for classes [c, c + W) of a row starting at
// `row`, at element offset `offset` from it: packs for contiguous rows,
// single elements at stride `stride` otherwise.
template <int N, typename T, typename F>
__device__ __forceinline__ void forEachClass(const T *row, int64_t classes,
                                             int64_t stride, F &&f) {
  if (stride == 1) {
    forEachPack<N>(row, classes, [&](int64_t c, auto w) { f(c, c, w); });
  } else {
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x)
      f(c, c * stride, Width<1>{});
  }
}

// The block's (max, log(sum of exp(x - max))) of one row, in every thread.
template <int N, typename T>
__device__ __forceinline__ void rowStats(const T *x, int64_t classes,
                                         int64_t stride, float *scratch,
                                         float *max, float *logSum) {
  float m = -INFINITY, s = 0.0f;
  forEachClass<N>(x, classes, stride, [&](int64_t, int64_t off, auto w) {
    constexpr int W = decltype(w)::value;
    float v[W];
    loadPack<W>(x + off, v);
#pragma unroll
    for (int i = 0; i < W; ++i)
      maxSumAdd(m, s, v[i]);
  });
  blockMaxSum(m, s, scratch);
  *max = m;
  *logSum = logSumFrom(m, s);
}

// rowLoss[row] = log(sum) - (x[label] - max), 0 at ignored labels, NaN at
// labels out of range; lse[row] = max + log(sum) when lse is given.
template <typename T, typename L, int N>
__global__ void __launch_bounds__(kMaxRowThreads)
    crossEntropyKernel(const T *logits, const L *labels, int64_t rows,
                       int64_t classes, int64_t inner, int64_t ignoreIndex,
                       float *rowLoss, float *lse) {
  __shared__ float scratch[64];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T *x = logits + (row / inner) * classes * inner + row % inner;
    float m, logSum;
    rowStats<N>(x, classes, inner, scratch, &m, &logSum);
    if (threadIdx.x == 0) {
      if (lse)
        lse[row] = m + logSum;
      int64_t label = static_cast<int64_t>(labels[row]);
      float loss;
      if (label == ignoreIndex)
        loss = 0.0f;
      else if (label < 0 || label >= classes)
        loss = NAN;
      else
        loss = logSum - (load(x[label * inner]) - m);
      rowLoss[row] = loss;
    }
  }
}

// loss[0] = sum of rowLoss (kSum) or that over the count of labels not
// ignored (kMean; NaN for none). One block.
template <typename L>
__global__ void __launch_bounds__(kMaxRowThreads)
    reduceLossKernel(const float *rowLoss, const L *labels, int64_t rows,
                     int64_t ignoreIndex, bool mean, float *loss) {
  __shared__ double scratch[32];
  double total = 0.0, counted = 0.0;
  for (int64_t r = threadIdx.x; r < rows; r += blockDim.x) {
    total += rowLoss[r];
    counted += static_cast<int64_t>(labels[r]) != ignoreIndex ? 1.0 : 0.0;
  }
  total = blockSum(total, scratch);
  counted = blockSum(counted, scratch);
  if (threadIdx.x == 0) {
    if (mean)
      total = counted == 0.0 ? static_cast<double>(NAN) : total / counted;
    loss[0] = static_cast<float>(total);
  }
}

// *weight = dloss[0] / (labels not ignored), NaN for none: kMean's gradient
// scale. One block.
template <typename L>
__global__ void __launch_bounds__(kMaxRowThreads)
    meanWeightKernel(const L *labels, int64_t rows, int64_t ignoreIndex,
                     const float *dloss, float *weight) {
  __shared__ double scratch[32];
  double counted = 0.0;
  for (int64_t r = threadIdx.x; r < rows; r += blockDim.x)
    counted += static_cast<int64_t>(labels[r]) != ignoreIndex ? 1.0 : 0.0;
  counted = blockSum(counted, scratch);
  if (threadIdx.x == 0)
    *weight = static_cast<float>(counted == 0.0 ? static_cast<double>(NAN)
                                                : dloss[0] / counted);
}

// dlogits = w * (exp((x - max) - log(sum)) - onehot(label)), w =
// weights[row] (kNone) or weights[0]; a saved lse stands for max + log(sum).
// Rows at ignored or out-of-range labels are zero.
template <typename T, typename L, int N>
__global__ void __launch_bounds__(kMaxRowThreads)
    crossEntropyBackwardKernel(const T *logits, const L *labels,
                               const float *weights, bool perRow,
                               const float *lse, int64_t rows, int64_t classes,
                               int64_t inner, int64_t ignoreIndex, T *dlogits) {
  __shared__ float scratch[64];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int64_t base = (row / inner) * classes * inner + row % inner;
    const T *x = logits + base;
    T *g = dlogits + base;
    const int64_t label = static_cast<int64_t>(labels[row]);
    if (label == ignoreIndex || label < 0 || label >= classes) { // uniform
      forEachClass<N>(x, classes, inner, [&](int64_t, int64_t off, auto w) {
        constexpr int W = decltype(w)::value;
        float zero[W];
#pragma unroll
        for (int i = 0; i < W; ++i)
          zero[i] = 0.0f;
        storePack<W>(g + off, zero);
      });
      continue;
    }
    float m, logSum;
    if (lse) {
      m = lse[row];
      logSum = 0.0f;
    } else {
      rowStats<N>(x, classes, inner, scratch, &m, &logSum);
    }
    const float w = perRow ? weights[row] : weights[0];
    forEachClass<N>(x, classes, inner, [&](int64_t c, int64_t off, auto width) {
      constexpr int W = decltype(width)::value;
      float v[W];
      loadPack<W>(x + off, v);
#pragma unroll
      for (int i = 0; i < W; ++i) {
        float p = expf((v[i] - m) - logSum);
        v[i] = w * (c + i == label ? p - 1.0f : p);
      }
      storePack<W>(g + off, v);
    });
  }
}

// ---- host side

Status prepare(const char *name, const TensorView &logits,
               const TensorView &labels, CrossEntropyLayout *layout) {
  HETC_RETURN_IF_ERROR(checkDeviceFloat(logits, "logits"), name);
  return planCrossEntropyRows(name, logits, labels, layout);
}

// Calls body(L{}) with L the label type.
template <typename Body> void dispatchLabels(DType dtype, Body &&body) {
  if (dtype == DType::kI64)
    body(int64_t{});
  else
    body(int32_t{});
}

} // namespace

Status crossEntropy(const TensorView &logits, const TensorView &labels,
                    const CrossEntropyOptions &options, const TensorView &loss,
                    const TensorView *lse) {
  const char *name = "cross_entropy";
  CrossEntropyLayout layout;
  HETC_RETURN_IF_ERROR(prepare(name, logits, labels, &layout));
  HETC_RETURN_IF_ERROR(
      checkLossShape(name, loss, "loss", labels, options.reduction));
  HETC_RETURN_IF_ERROR(checkLse(name, lse, labels));
  const int64_t rows = layout.rows();
  const bool reduced = options.reduction != LossReduction::kNone;
  if (!reduced && rows == 0)
    return okStatus();
  float *rowLoss = loss.as<float>();
  if (reduced) {
    void *scratch = nullptr;
    size_t bytes =
        static_cast<size_t>(std::max<int64_t>(rows, 1)) * sizeof(float);
    HETC_RETURN_IF_ERROR(rowScratch(bytes, &scratch), name);
    rowLoss = static_cast<float *>(scratch);
  }
  cudaStream_t stream = currentStream();
  bool packed = layout.inner == 1; // rows are contiguous
  float *lsep = lse ? lse->as<float>() : nullptr;
  dispatchFloat(logits.dtype, [&](auto t) {
    using T = decltype(t);
    dispatchLabels(labels.dtype, [&](auto l) {
      using L = decltype(l);
      if (rows > 0) {
        unsigned blocks = rowBlocks(rows), threads = rowThreads(layout.classes);
        auto args = [&](auto kernel) {
          kernel<<<blocks, threads, 0, stream>>>(
              logits.as<T>(), labels.as<L>(), rows, layout.classes,
              layout.inner, options.ignoreIndex, rowLoss, lsep);
        };
        if (packed)
          args(crossEntropyKernel<T, L, kPackWidth<T>>);
        else
          args(crossEntropyKernel<T, L, 1>);
      }
      if (reduced)
        reduceLossKernel<L><<<1, kReduceThreads, 0, stream>>>(
            rowLoss, labels.as<L>(), rows, options.ignoreIndex,
            options.reduction == LossReduction::kMean, loss.as<float>());
    });
  });
  return launchStatus(name);
}

Status crossEntropyBackward(const TensorView &logits, const TensorView &labels,
                            const CrossEntropyOptions &options,
                            const TensorView &dloss, const TensorView *lse,
                            const TensorView &dlogits) {
  const char *name = "cross_entropy_backward";
  CrossEntropyLayout layout;
  HETC_RETURN_IF_ERROR(prepare(name, logits, labels, &layout));
  HETC_RETURN_IF_ERROR(
      checkLossShape(name, dloss, "dloss", labels, options.reduction));
  HETC_RETURN_IF_ERROR(checkLse(name, lse, labels));
  HETC_RETURN_IF_ERROR(checkDType(dlogits, logits.dtype, "dlogits"), name);
  HETC_RETURN_IF_ERROR(checkData(dlogits, "dlogits"), name);
  HETC_RETURN_IF_ERROR(checkShape(dlogits, logits.shape, "dlogits"), name);
  const int64_t rows = layout.rows();
  if (rows == 0)
    return okStatus();

  const float *weights = dloss.as<float>();
  float *meanWeight = nullptr;
  if (options.reduction == LossReduction::kMean) {
    void *scratch = nullptr;
    HETC_RETURN_IF_ERROR(rowScratch(sizeof(float), &scratch), name);
    meanWeight = static_cast<float *>(scratch);
    weights = meanWeight;
  }
  cudaStream_t stream = currentStream();
  bool packed = layout.inner == 1 && sameAlignment({logits.data, dlogits.data});
  const float *lsep = lse ? lse->as<float>() : nullptr;
  dispatchFloat(logits.dtype, [&](auto t) {
    using T = decltype(t);
    dispatchLabels(labels.dtype, [&](auto l) {
      using L = decltype(l);
      if (meanWeight)
        meanWeightKernel<L><<<1, kReduceThreads, 0, stream>>>(
            labels.as<L>(), rows, options.ignoreIndex, dloss.as<float>(),
            meanWeight);
      unsigned blocks = rowBlocks(rows), threads = rowThreads(layout.classes);
      auto args = [&](auto kernel) {
        kernel<<<blocks, threads, 0, stream>>>(
            logits.as<T>(), labels.as<L>(), weights,
            options.reduction == LossReduction::kNone, lsep, rows,
            layout.classes, layout.inner, options.ignoreIndex, dlogits.as<T>());
      };
      if (packed)
        args(crossEntropyBackwardKernel<T, L, kPackWidth<T>>);
      else
        args(crossEntropyBackwardKernel<T, L, 1>);
    });
  });
  return launchStatus(name);
}

} // namespace hetc::runtime::cuda
