//===- Minimize.h - one-dimensional minimization for the fits ---*- C++ -*-===//
//
// The cost model's fits to measurements minimize an error over one
// parameter at a time: a scan of a grid finds the basin, golden-section
// search refines it.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PLANNER_MINIMIZE_H
#define HETC_PLANNER_MINIMIZE_H

#include "llvm/ADT/STLFunctionalExtras.h"

namespace hetc::planner {

/// The minimum of `error` on [low, high], where it is unimodal, by golden
/// section.
double goldenMinimum(double low, double high,
                     llvm::function_ref<double(double)> error);

/// The minimum of `error` on [low, high]: the best of `steps` + 1 evenly
/// spaced points, refined by golden section between its neighbours.
double scanThenRefine(double low, double high, int steps,
                      llvm::function_ref<double(double)> error);

} // namespace hetc::planner

#endif // HETC_PLANNER_MINIMIZE_H
