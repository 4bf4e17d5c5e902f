//===- Views.h - hetg ops whose result views their input's bytes -*- C++ -*-===//
//
// A reshape, and a slice taking one contiguous byte range of its input, need
// no kernel: the program reads the result from the input's bytes. The
// lowering makes them alias buffers, and everything that reasons about who
// reads a buffer's bytes follows them to their input.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PASSES_CONVERSION_HETGRAPHTOHETEXEC_VIEWS_H
#define HETC_PASSES_CONVERSION_HETGRAPHTOHETEXEC_VIEWS_H

#include "mlir/IR/Operation.h"

#include <optional>

namespace hetc {

/// Where the result of `op` lies in the bytes of its input when it is a view
/// of them: 0 for a reshape; for a `hetg.slice` whose steps are all 1 that
/// takes every dimension after the first sliced one whole and has only
/// size-1 dimensions before it, the byte offset of its first element.
/// nullopt for every other op, which computes its result.
std::optional<int64_t> viewByteOffset(mlir::Operation *op);

} // namespace hetc

#endif // HETC_PASSES_CONVERSION_HETGRAPHTOHETEXEC_VIEWS_H
