//===- Optimizer.cpp - torch.optim update rules ---------------------------===//

#include "dialects/HetGraph/Eval/Eval.h"

#include <cmath>

namespace hetc::hetg::eval {

AdamWState adamw(const Array &param, const Array &grad, const Array &expAvg,
                 const Array &expAvgSq, double step, const AdamWHyper &h) {
  AdamWState out{param, expAvg, expAvgSq};
  // The order of torch.optim.AdamW's single-tensor path.
  double biasCorrection1 = 1.0 - std::pow(h.beta1, step);
  double biasCorrection2 = 1.0 - std::pow(h.beta2, step);
  double stepSize = h.lr / biasCorrection1;
  double biasCorrection2Sqrt = std::sqrt(biasCorrection2);
  for (int64_t i = 0; i < param.size(); ++i) {
    double g = grad.data[i];
    double &p = out.param.data[i], &m = out.expAvg.data[i],
           &v = out.expAvgSq.data[i];
    p *= 1.0 - h.lr * h.weightDecay;
    m += (1.0 - h.beta1) * (g - m); // torch's lerp
    v = h.beta2 * v + (1.0 - h.beta2) * g * g;
    double denom = std::sqrt(v) / biasCorrection2Sqrt + h.eps;
    p -= stepSize * m / denom;
  }
  return out;
}

Array sgd(const Array &param, const Array &grad, double lr,
          double weightDecay) {
  Array out = param;
  for (int64_t i = 0; i < param.size(); ++i)
    out.data[i] -= lr * (grad.data[i] + weightDecay * param.data[i]);
  return out;
}

double globalNorm(llvm::ArrayRef<const Array *> arrays) {
  double sum = 0.0;
  for (const Array *array : arrays)
    for (double v : array->data)
      sum += v * v;
  return std::sqrt(sum);
}

} // namespace hetc::hetg::eval
