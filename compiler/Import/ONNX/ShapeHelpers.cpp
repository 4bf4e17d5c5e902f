//===- ShapeHelpers.cpp - building shapes of dynamic tensors
//---------------===//

#include "compiler/Import/ONNX/ShapeHelpers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace hetc::onnximport {

using hetg::kDynamic;

void ShapeBuilder::addSize(int64_t size) {
  Piece piece;
  piece.size = size;
  pieces.push_back(piece);
}

void ShapeBuilder::addDims(Value source, int64_t begin, int64_t end) {
  if (begin < end)
    pieces.push_back({source, begin, end, /*product=*/false, 0});
}

void ShapeBuilder::addDimProduct(Value source, int64_t begin, int64_t end) {
  pieces.push_back({source, begin, end, /*product=*/true, 0});
}

hetg::Shape ShapeBuilder::knownShape() const {
  hetg::Shape shape;
  for (const Piece &piece : pieces) {
    if (!piece.source) {
      shape.push_back(piece.size);
      continue;
    }
    ArrayRef<int64_t> dims = NodeContext::typeOf(piece.source)
                                 .getShape()
                                 .slice(piece.begin, piece.end - piece.begin);
    if (!piece.product) {
      shape.append(dims.begin(), dims.end());
      continue;
    }
    std::optional<int64_t> product = hetg::staticElementCount(dims);
    shape.push_back(product ? *product : kDynamic);
  }
  return shape;
}

FailureOr<Value> ShapeBuilder::build() {
  SmallVector<Value> parts;
  SmallVector<int64_t> known;
  auto flushKnown = [&] {
    if (!known.empty())
      parts.push_back(ctx.i64Constant(known));
    known.clear();
  };

  for (const Piece &piece : pieces) {
    if (!piece.source) {
      known.push_back(piece.size);
      continue;
    }
    RankedTensorType type = NodeContext::typeOf(piece.source);
    if (!piece.product) {
      // Static dims become constants; each run of dynamic ones one
      // hetg.shape.
      for (int64_t d = piece.begin; d < piece.end;) {
        if (!type.isDynamicDim(d)) {
          known.push_back(type.getDimSize(d++));
          continue;
        }
        int64_t runEnd = d;
        while (runEnd < piece.end && type.isDynamicDim(runEnd))
          ++runEnd;
        flushKnown();
        FailureOr<Value> dims =
            ctx.create<hetg::ShapeOp>(piece.source, d, runEnd);
        if (failed(dims))
          return failure();
        parts.push_back(*dims);
        d = runEnd;
      }
      continue;
    }
    int64_t staticProduct = 1;
    SmallVector<int64_t> dynamicDims;
    for (int64_t d = piece.begin; d < piece.end; ++d) {
      if (type.isDynamicDim(d))
        dynamicDims.push_back(d);
      else
        staticProduct *= type.getDimSize(d);
    }
    if (dynamicDims.empty()) {
      known.push_back(staticProduct);
      continue;
    }
    flushKnown();
    Value product;
    if (staticProduct != 1)
      product = ctx.i64Constant({staticProduct});
    for (int64_t d : dynamicDims) {
      FailureOr<Value> size = dimSize(ctx, piece.source, d);
      if (failed(size))
        return failure();
      if (!product) {
        product = *size;
        continue;
      }
      FailureOr<Value> next = ctx.create<hetg::MulOp>(product, *size);
      if (failed(next))
        return failure();
      product = *next;
    }
    parts.push_back(product);
  }
  flushKnown();

  if (parts.empty())
    return ctx.i64Constant({});
  if (parts.size() == 1)
    return parts.front();
  return ctx.create<hetg::ConcatOp>(parts, /*axis=*/0);
}

FailureOr<Value> dimSize(NodeContext &ctx, Value source, int64_t dim) {
  RankedTensorType type = NodeContext::typeOf(source);
  if (!type.isDynamicDim(dim))
    return ctx.i64Constant({type.getDimSize(dim)});
  return ctx.create<hetg::ShapeOp>(source, dim, dim + 1);
}

FailureOr<Value> reshapeTo(NodeContext &ctx, Value input,
                           ShapeBuilder &target) {
  RankedTensorType inputType = NodeContext::typeOf(input);
  hetg::Shape known = target.knownShape();
  bool targetStatic = llvm::none_of(known, ShapedType::isDynamic);
  if (inputType.hasStaticShape() && targetStatic) {
    if (ArrayRef<int64_t>(known) == inputType.getShape())
      return input;
    return ctx.create<hetg::ReshapeOp>(inputType.clone(known), input);
  }
  // With one unknown size (and no zeros, which ONNX reads as "copy"), a
  // constant target with -1 keeps every other size static.
  if (llvm::count(known, kDynamic) == 1 && !llvm::is_contained(known, 0)) {
    SmallVector<int64_t> withInferred(known.begin(), known.end());
    llvm::replace(withInferred, kDynamic, int64_t(-1));
    return ctx.create<hetg::DynamicReshapeOp>(input,
                                              ctx.i64Constant(withInferred));
  }
  FailureOr<Value> shape = target.build();
  if (failed(shape))
    return failure();
  return ctx.create<hetg::DynamicReshapeOp>(input, *shape);
}

std::string formatShape(ArrayRef<int64_t> shape) {
  return "[" +
         llvm::join(llvm::map_range(shape,
                                    [](int64_t d) {
                                      return d == kDynamic ? std::string("?")
                                                           : std::to_string(d);
                                    }),
                    ", ") +
         "]";
}

FailureOr<int64_t> normalizeAxisOrError(NodeContext &ctx, int64_t axis,
                                        int64_t rank, llvm::StringRef what) {
  std::optional<int64_t> normalized = hetg::normalizeAxis(axis, rank);
  if (!normalized)
    return ctx.emitError() << what << " " << axis
                           << " is out of range for rank " << rank;
  return *normalized;
}

FailureOr<SmallVector<int64_t>> normalizeAxesOrError(NodeContext &ctx,
                                                     ArrayRef<int64_t> axes,
                                                     int64_t rank,
                                                     llvm::StringRef what) {
  SmallVector<int64_t> normalized;
  for (int64_t axis : axes) {
    FailureOr<int64_t> n = normalizeAxisOrError(ctx, axis, rank, what);
    if (failed(n))
      return failure();
    if (llvm::is_contained(normalized, *n))
      return ctx.emitError() << what << " lists dimension " << *n << " twice";
    normalized.push_back(*n);
  }
  llvm::sort(normalized);
  return normalized;
}

void fullSlice(RankedTensorType type, SmallVectorImpl<int64_t> &starts,
               SmallVectorImpl<int64_t> &ends,
               SmallVectorImpl<int64_t> &steps) {
  for (int64_t d = 0; d < type.getRank(); ++d) {
    starts.push_back(0);
    ends.push_back(type.isDynamicDim(d) ? kSliceToEnd : type.getDimSize(d));
    steps.push_back(1);
  }
}

FailureOr<SmallVector<Value>> slicePieces(NodeContext &ctx, Value input,
                                          int64_t axis,
                                          ArrayRef<int64_t> sizes) {
  RankedTensorType type = NodeContext::typeOf(input);
  SmallVector<Value> pieces;
  int64_t offset = 0;
  for (int64_t size : sizes) {
    SmallVector<int64_t> starts, ends, steps;
    fullSlice(type, starts, ends, steps);
    starts[axis] = offset;
    ends[axis] = offset + size;
    offset += size;
    FailureOr<Value> piece =
        ctx.create<hetg::SliceOp>(input, starts, ends, steps);
    if (failed(piece))
      return failure();
    pieces.push_back(*piece);
  }
  return pieces;
}

} // namespace hetc::onnximport
