//===- Array.cpp - arrays, scalar activations and reductions --------------===//

#include "dialects/HetGraph/Eval/Eval.h"

#include <cassert>
#include <cmath>
#include <limits>

namespace hetc::hetg::eval {

int64_t elementCount(llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  return count;
}

Array::Array(llvm::ArrayRef<int64_t> shape, double fill)
    : shape(shape), data(elementCount(shape), fill) {}

Array::Array(llvm::ArrayRef<int64_t> shape, std::vector<double> data)
    : shape(shape), data(std::move(data)) {
  assert(int64_t(this->data.size()) == elementCount(shape));
}

AxisView viewAround(llvm::ArrayRef<int64_t> shape, int64_t axis) {
  return {elementCount(shape.take_front(axis)), shape[axis],
          elementCount(shape.drop_front(axis + 1))};
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

namespace {
constexpr double kGeluTanhCoefficient = 0.044715;
double sqrtTwoOverPi() { return std::sqrt(2.0 / M_PI); }
} // namespace

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

double gelu(double x, bool tanhApproximation) {
  if (tanhApproximation)
    return 0.5 * x *
           (1.0 + std::tanh(sqrtTwoOverPi() *
                            (x + kGeluTanhCoefficient * x * x * x)));
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

double geluDerivative(double x, bool tanhApproximation) {
  if (tanhApproximation) {
    double c = sqrtTwoOverPi();
    double t = std::tanh(c * (x + kGeluTanhCoefficient * x * x * x));
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * c *
                                 (1.0 + 3.0 * kGeluTanhCoefficient * x * x);
  }
  double cdf = 0.5 * (1.0 + std::erf(x / std::sqrt(2.0)));
  double pdf = std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI);
  return cdf + x * pdf;
}

double silu(double x) { return x * sigmoid(x); }

double siluDerivative(double x) {
  double s = sigmoid(x);
  return s * (1.0 + x * (1.0 - s));
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

Array reduce(const Array &x, llvm::ArrayRef<int64_t> axes, Reduction kind) {
  Shape outShape(x.shape);
  int64_t count = 1;
  for (int64_t axis : axes) {
    count *= x.shape[axis];
    outShape[axis] = 1;
  }
  double init =
      kind == Reduction::Max ? -std::numeric_limits<double>::infinity() : 0.0;
  Array out(outShape, init);
  // Stride of each input dimension in the output; 0 along reduced ones.
  std::vector<int64_t> strides(x.rank(), 0);
  for (int64_t d = x.rank() - 1, stride = 1; d >= 0; --d) {
    if (outShape[d] != 1 || x.shape[d] == 1) {
      strides[d] = stride;
      stride *= outShape[d];
    }
  }
  std::vector<int64_t> index(x.rank(), 0);
  int64_t offset = 0;
  for (int64_t n = 0; n < x.size(); ++n) {
    double v = x.data[n];
    double &acc = out.data[offset];
    if (kind == Reduction::Max)
      acc = (std::isnan(v) || v > acc) && !std::isnan(acc) ? v : acc;
    else
      acc += v;
    for (int64_t d = x.rank() - 1; d >= 0; --d) {
      offset += strides[d];
      if (++index[d] < x.shape[d])
        break;
      offset -= strides[d] * x.shape[d];
      index[d] = 0;
    }
  }
  if (kind == Reduction::Mean)
    for (double &v : out.data)
      v /= double(count);
  return out;
}

} // namespace hetc::hetg::eval
