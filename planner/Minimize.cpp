//===- Minimize.cpp - one-dimensional minimization for the fits -----------===//

#include "planner/Minimize.h"

#include <cmath>

namespace hetc::planner {

double goldenMinimum(double low, double high,
                     llvm::function_ref<double(double)> error) {
  const double ratio = (std::sqrt(5.0) - 1) / 2;
  for (int i = 0; i < 100; ++i) {
    double c = high - ratio * (high - low), d = low + ratio * (high - low);
    if (error(c) < error(d))
      high = d;
    else
      low = c;
  }
  return (low + high) / 2;
}

double scanThenRefine(double low, double high, int steps,
                      llvm::function_ref<double(double)> error) {
  double step = (high - low) / steps, best = low, bestError = error(low);
  for (int i = 1; i <= steps; ++i)
    if (double e = error(low + i * step); e < bestError) {
      best = low + i * step;
      bestError = e;
    }
  return goldenMinimum(best - step, best + step, error);
}

} // namespace hetc::planner
