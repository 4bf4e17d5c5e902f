//===- Optimizers.cpp -----------------------------------------------------===//
//
// The updates reproduce torch's single-tensor (for-loop) implementations
// operation by operation in float, with torch's scalar factors computed in
// double as Python does, so a step matches torch up to the last bit or so.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Optimizers.h"
#include "runtime/cpu/DataMovement.h"

#include "runtime/base/OptimizerChecks.h"
#include "runtime/cpu/internal/Parallel.h"

#include <cmath>

namespace hetc::runtime::cpu {
namespace {

using internal::parallelFor;

constexpr int64_t kElementGrain = 16384;
// Sums of squares add fixed blocks in parallel, then the blocks in order.
constexpr int64_t kSumBlock = 8192;

// t is f32 with data and, when `like` is given, like's shape.
Status checkState(const char *name, const TensorView &t, const char *what,
                  const TensorView *like = nullptr) {
  HETC_RETURN_IF_ERROR(checkDType(t, DType::kF32, what), name);
  HETC_RETURN_IF_ERROR(checkData(t, what), name);
  if (like && t.shape != like->shape)
    return invalidArgument(name, ": ", what, " ", t.describe(),
                           " does not match param ", like->describe());
  return okStatus();
}

// The learning rate: `lr`, times the factor when one is given.
Status scheduledLr(const char *name, double lr, const TensorView *factor,
                   double *scheduled) {
  *scheduled = lr;
  if (!factor)
    return okStatus();
  double value;
  HETC_RETURN_IF_ERROR(readScalar(*factor, "lr_factor", &value), name);
  *scheduled = lr * value;
  return okStatus();
}

} // namespace

Status sgdStep(const TensorView &param, const TensorView &grad,
               const SgdOptions &options, const TensorView *lrFactor) {
  HETC_RETURN_IF_ERROR(checkState("sgd", param, "param"));
  HETC_RETURN_IF_ERROR(checkState("sgd", grad, "grad", &param));
  double lr;
  HETC_RETURN_IF_ERROR(scheduledLr("sgd", options.lr, lrFactor, &lr));
  float *p = param.as<float>();
  const float *g = grad.as<float>();
  float negLr = static_cast<float>(-lr);
  float wd = static_cast<float>(options.weightDecay);
  bool decay = options.weightDecay != 0.0;
  parallelFor(param.numel(), kElementGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      float d = decay ? g[i] + wd * p[i] : g[i];
      p[i] = p[i] + negLr * d;
    }
  });
  return okStatus();
}

Status adamwStep(const TensorView &param, const TensorView &grad,
                 const TensorView &m, const TensorView &v,
                 const TensorView &stepCount, const AdamWOptions &options,
                 const TensorView *lrFactor) {
  const char *name = "adamw";
  HETC_RETURN_IF_ERROR(checkState(name, param, "param"));
  HETC_RETURN_IF_ERROR(checkState(name, grad, "grad", &param));
  HETC_RETURN_IF_ERROR(checkState(name, m, "m", &param));
  HETC_RETURN_IF_ERROR(checkState(name, v, "v", &param));
  double step;
  HETC_RETURN_IF_ERROR(readScalar(stepCount, "step", &step), name);
  if (!(step >= 1.0) || std::floor(step) != step || step > 9.0e15)
    return invalidArgument(name, ": the step count must be a whole number >= 1, got ", step);
  if (!(options.beta1 >= 0.0 && options.beta1 < 1.0 && options.beta2 >= 0.0 &&
        options.beta2 < 1.0))
    return invalidArgument(name, ": betas must be in [0, 1), got ",
                           options.beta1, ", ", options.beta2);

  double lr;
  HETC_RETURN_IF_ERROR(scheduledLr(name, options.lr, lrFactor, &lr));

  bool decay = options.applyWeightDecay && options.weightDecay != 0.0;
  // p * 1 is p exactly: no decay is a factor of one.
  float decayFactor =
      decay ? static_cast<float>(1.0 - lr * options.weightDecay) : 1.0f;
  float weight1 = static_cast<float>(1.0 - options.beta1); // lerp weight
  bool lowWeight = weight1 < 0.5f;
  float beta2 = static_cast<float>(options.beta2);
  float oneMinusBeta2 = static_cast<float>(1.0 - options.beta2);
  double t = static_cast<double>(step);
  double bc1 = 1.0 - std::pow(options.beta1, t);
  double bc2 = 1.0 - std::pow(options.beta2, t);
  float negStepSize = static_cast<float>(-(lr / bc1));
  float bc2Sqrt = static_cast<float>(std::sqrt(bc2));
  float eps = static_cast<float>(options.eps);

  float *p = param.as<float>();
  const float *g = grad.as<float>();
  float *mp = m.as<float>();
  float *vp = v.as<float>();
  // By value: a captured reference could alias p, m or v and keeps the
  // loop from vectorizing.
  parallelFor(param.numel(), kElementGrain, [=](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      float pi = p[i] * decayFactor;
      float gi = g[i], mOld = mp[i];
      // torch's lerp switches formulas at weight 0.5 for accuracy; both are
      // computed so that the loop has no branch and vectorizes.
      float lowWeightForm = mOld + weight1 * (gi - mOld);
      float highWeightForm = gi - (gi - mOld) * (1.0f - weight1);
      float mi = lowWeight ? lowWeightForm : highWeightForm;
      float vi = vp[i] * beta2;
      vi = vi + oneMinusBeta2 * gi * gi;
      float denom = std::sqrt(vi) / bc2Sqrt + eps;
      p[i] = pi + negStepSize * mi / denom;
      mp[i] = mi;
      vp[i] = vi;
    }
  });
  return okStatus();
}

Status lrSchedule(const TensorView &step, const LrSchedule &schedule,
                  const TensorView &factor) {
  HETC_RETURN_IF_ERROR(checkLrSchedule(step, schedule, factor));
  int64_t it = step.dtype == DType::kI64 ? *step.as<int64_t>()
                                         : *step.as<int32_t>();
  *factor.as<double>() = lrFactorAt(schedule, it);
  return okStatus();
}

Status sumOfSquares(const std::vector<TensorView> &grads, double *sumSquares) {
  double total = 0.0;
  for (size_t t = 0; t < grads.size(); ++t) {
    const TensorView &grad = grads[t];
    HETC_RETURN_IF_ERROR(checkDType(grad, DType::kF32, "gradient"),
                         "sum_of_squares: tensor ", t);
    HETC_RETURN_IF_ERROR(checkData(grad, "gradient"),
                         "sum_of_squares: tensor ", t);
    const float *g = grad.as<float>();
    int64_t n = grad.numel();
    int64_t blocks = (n + kSumBlock - 1) / kSumBlock;
    std::vector<double> partial(blocks);
    parallelFor(blocks, 1, [&](int64_t b, int64_t e) {
      for (int64_t blk = b; blk < e; ++blk) {
        int64_t lo = blk * kSumBlock, hi = std::min(n, lo + kSumBlock);
        double s = 0.0;
        for (int64_t i = lo; i < hi; ++i)
          s += static_cast<double>(g[i]) * g[i];
        partial[blk] = s;
      }
    });
    for (double s : partial)
      total += s;
  }
  *sumSquares = total;
  return okStatus();
}

Status globalNorm(const std::vector<TensorView> &grads, const TensorView &out) {
  HETC_RETURN_IF_ERROR(checkGlobalNormOut(out));
  double sumSquares = 0.0;
  HETC_RETURN_IF_ERROR(sumOfSquares(grads, &sumSquares), "global_norm");
  double norm = std::sqrt(sumSquares);
  if (out.dtype == DType::kF32)
    *out.as<float>() = static_cast<float>(norm);
  else
    *out.as<double>() = norm;
  return okStatus();
}

double clipCoefficient(double totalNorm, double maxNorm) {
  double coef = maxNorm / (totalNorm + 1e-6);
  return std::min(coef, 1.0); // NaN stays NaN, as torch's clamp
}

Status scaleTensors(const std::vector<TensorView> &tensors, float factor) {
  for (size_t t = 0; t < tensors.size(); ++t) {
    HETC_RETURN_IF_ERROR(checkDType(tensors[t], DType::kF32, "tensor"),
                         "scale: tensor ", t);
    HETC_RETURN_IF_ERROR(checkData(tensors[t], "tensor"), "scale: tensor ", t);
  }
  for (const TensorView &tensor : tensors) {
    float *x = tensor.as<float>();
    parallelFor(tensor.numel(), kElementGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        x[i] *= factor;
    });
  }
  return okStatus();
}

Status clipGradNorm(const std::vector<TensorView> &grads, double maxNorm,
                    double *totalNorm) {
  if (!(maxNorm > 0.0))
    return invalidArgument("clip_grad_norm: max_norm must be positive, got ",
                           maxNorm);
  double sumSquares = 0.0;
  HETC_RETURN_IF_ERROR(sumOfSquares(grads, &sumSquares), "clip_grad_norm");
  double norm = std::sqrt(sumSquares);
  if (totalNorm)
    *totalNorm = norm;
  double coef = clipCoefficient(norm, maxNorm);
  if (!(coef >= 1.0))
    HETC_RETURN_IF_ERROR(scaleTensors(grads, static_cast<float>(coef)),
                         "clip_grad_norm");
  return okStatus();
}

} // namespace hetc::runtime::cpu
