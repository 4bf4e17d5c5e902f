//===- Reduce.cpp ---------------------------------------------------------===//

#include "runtime/cpu/Reduce.h"

#include "runtime/base/ReduceShape.h"
#include "runtime/cpu/internal/Parallel.h"
#include "runtime/cpu/internal/Reduction.h"

#include <cmath>
#include <limits>

namespace hetc::runtime::cpu {
namespace internal {
namespace {

struct DimGroup {
  int64_t size;
  int64_t stride;
  bool reduced;
};

constexpr int64_t kChunk = 64;

} // namespace

void reduceDims(ReduceKind kind, const float *x, const Shape &shape,
                const std::vector<bool> &reduced, float *y, bool accumulate,
                double scale) {
  // Collapse: size-1 dims vanish, neighbours of the same kind merge.
  std::vector<DimGroup> groups;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 1)
      continue;
    if (!groups.empty() && groups.back().reduced == reduced[k])
      groups.back().size *= shape[k];
    else
      groups.push_back({shape[k], 0, reduced[k]});
  }
  int64_t stride = 1;
  for (size_t g = groups.size(); g-- > 0;) {
    groups[g].stride = stride;
    stride *= groups[g].size;
  }

  int64_t inner = 1;
  std::vector<DimGroup> outer, red;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].reduced)
      red.push_back(groups[g]);
    else if (g + 1 == groups.size())
      inner = groups[g].size;
    else
      outer.push_back(groups[g]);
  }
  int64_t numOuter = 1, reduceCount = 1;
  for (const DimGroup &g : outer)
    numOuter *= g.size;
  for (const DimGroup &g : red)
    reduceCount *= g.size;
  if (red.empty())
    red.push_back({1, 0, true});
  // The innermost reduced group is a plain loop; the others an odometer.
  DimGroup last = red.back();
  red.pop_back();

  int64_t chunks = (inner + kChunk - 1) / kChunk;
  int64_t work = std::max<int64_t>(1, reduceCount * std::min(inner, kChunk));
  parallelFor(numOuter * chunks, std::max<int64_t>(1, 16384 / work),
              [&](int64_t begin, int64_t end) {
    double acc[kChunk];
    std::vector<int64_t> idx(red.size());
    for (int64_t item = begin; item < end; ++item) {
      int64_t o = item / chunks;
      int64_t c0 = (item % chunks) * kChunk;
      int64_t cn = std::min(kChunk, inner - c0);
      int64_t base = c0, rest = o;
      for (size_t g = outer.size(); g-- > 0;) {
        base += (rest % outer[g].size) * outer[g].stride;
        rest /= outer[g].size;
      }
      double init = kind == ReduceKind::kMax
                        ? -std::numeric_limits<double>::infinity()
                        : 0.0;
      for (int64_t c = 0; c < cn; ++c)
        acc[c] = init;
      if (reduceCount > 0) {
        std::fill(idx.begin(), idx.end(), 0);
        int64_t off = 0;
        while (true) {
          const float *p = x + base + off;
          if (kind == ReduceKind::kSum) {
            if (cn == 1) {
              double s = acc[0];
              for (int64_t t = 0; t < last.size; ++t)
                s += p[t * last.stride];
              acc[0] = s;
            } else {
              for (int64_t t = 0; t < last.size; ++t, p += last.stride)
                for (int64_t c = 0; c < cn; ++c)
                  acc[c] += p[c];
            }
          } else {
            for (int64_t t = 0; t < last.size; ++t, p += last.stride)
              for (int64_t c = 0; c < cn; ++c) {
                double v = p[c];
                if (v > acc[c] || std::isnan(v))
                  acc[c] = v;
              }
          }
          // Next combination of the outer reduced groups.
          size_t g = red.size();
          while (g-- > 0) {
            off += red[g].stride;
            if (++idx[g] < red[g].size)
              break;
            off -= red[g].stride * red[g].size;
            idx[g] = 0;
          }
          if (g == static_cast<size_t>(-1))
            break;
        }
      }
      float *out = y + o * inner + c0;
      for (int64_t c = 0; c < cn; ++c) {
        if (kind == ReduceKind::kMax)
          out[c] = static_cast<float>(acc[c]);
        else if (accumulate)
          out[c] = static_cast<float>(static_cast<double>(out[c]) +
                                      acc[c] * scale);
        else
          out[c] = static_cast<float>(acc[c] * scale);
      }
    }
  });
}

} // namespace internal

Status reduce(ReduceOp op, const TensorView &x,
              const std::vector<int64_t> &axes, bool keepDims,
              const TensorView &y) {
  const char *name = reduceOpName(op);
  HETC_RETURN_IF_ERROR(checkDType(x, DType::kF32, "x"), name);
  HETC_RETURN_IF_ERROR(checkData(x, "x"), name);
  HETC_RETURN_IF_ERROR(checkDType(y, DType::kF32, "y"), name);
  HETC_RETURN_IF_ERROR(checkData(y, "y"), name);
  ReducedAxes dims;
  HETC_RETURN_IF_ERROR(planReducedAxes(name, op, x, axes, keepDims, y, &dims));
  internal::reduceDims(op == ReduceOp::kMax ? internal::ReduceKind::kMax
                                            : internal::ReduceKind::kSum,
                       x.as<float>(), x.shape, dims.reduced, y.as<float>(),
                       /*accumulate=*/false, dims.scale);
  return okStatus();
}

} // namespace hetc::runtime::cpu
