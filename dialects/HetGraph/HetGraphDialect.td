//===- HetGraphDialect.td - hetg dialect and op base classes -*- tablegen -*-===//
//
// hetg holds value-semantics tensor ops for transformer training graphs. The
// ONNX importer produces it; the train-step and partitioning passes consume it.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECT_HETGRAPH_DIALECT
#define HETC_DIALECT_HETGRAPH_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "HetGraphInterfaces.td"

def HetGraph_Dialect : Dialect {
  let name = "hetg";
  let cppNamespace = "::hetc::hetg";
  let summary = "Tensor-level graph of a transformer model";
  let description = [{
    Ops on builtin ranked `tensor` values with value semantics. Shapes may carry
    dynamic dimensions (the batch) right after import; `hetg-specialize` makes
    them static and folds away every shape computation. Weights are not
    constants inside functions: they are `ml_program.global` symbols holding
    `dense_resource` blobs and are read with `ml_program.global_load_const`.
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::ml_program::MLProgramDialect",
                           "::mlir::func::FuncDialect"];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def HetG_Float : AnyTypeOf<[F16, BF16, F32, F64]>;
def HetG_Index : AnyTypeOf<[I32, I64]>;
def HetG_FloatTensor : RankedTensorOf<[HetG_Float]>;
def HetG_IndexTensor : RankedTensorOf<[HetG_Index]>;
def HetG_BoolTensor : RankedTensorOf<[I1]>;
def HetG_NumericTensor : RankedTensorOf<[HetG_Float, I1, I8, I32, I64, UI8]>;
def HetG_ShapeTensor : 1DTensorOf<[I64]>;
def HetG_ScalarIndexTensor : 0DTensorOf<[I64, I32]>;
def HetG_ScalarTensor : 0DTensorOf<[HetG_Float, I32, I64]>;

//===----------------------------------------------------------------------===//
// Op base classes
//===----------------------------------------------------------------------===//

// Every op reports its cost (FLOPs, bytes moved) through CostOpInterface.
class HetG_Op<string mnemonic, list<Trait> traits = []>
    : Op<HetGraph_Dialect, mnemonic, !listconcat(traits, [HetG_Cost])>;

// An op whose result types follow from its operands and attributes. Declared
// result types may be less static than the inferred ones (e.g. before
// `hetg-specialize` refines them), so compatibility is "same rank and element
// type, equal where both dimensions are static".
class HetG_InferredOp<string mnemonic, list<Trait> traits = []>
    : HetG_Op<mnemonic, !listconcat(traits,
                                    [Pure, InferTypeOpAdaptorWithIsCompatible])> {
  let extraClassDefinition = [{
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange lhs,
                                            ::mlir::TypeRange rhs) {
      return ::hetc::hetg::areRefinableTypes(lhs, rhs);
    }
  }];
}

// y = f(x) elementwise; the result has the operand's type.
class HetG_UnaryOp<string mnemonic, Type operandType, list<Trait> traits = []>
    : HetG_Op<mnemonic, !listconcat(traits,
        [Pure, Elementwise, SameOperandsAndResultType])> {
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

// z = f(x, y) elementwise with numpy (ONNX multidirectional) broadcasting.
class HetG_BroadcastBinaryOp<string mnemonic, list<Trait> traits = []>
    : HetG_InferredOp<mnemonic, traits> {
  let arguments = (ins HetG_NumericTensor:$lhs, HetG_NumericTensor:$rhs);
  let results = (outs HetG_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
  }];
  let hasFolder = 1;
}

// Reduction over `axes` (normalized, ascending), keeping them as size-1 dims
// when `keep_dims` is set.
class HetG_ReduceOp<string mnemonic, list<Trait> traits = []>
    : HetG_InferredOp<mnemonic, traits> {
  let arguments = (ins HetG_NumericTensor:$input, DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<BoolAttr, "true">:$keep_dims);
  let results = (outs HetG_NumericTensor:$result);
  let assemblyFormat = "$input prop-dict attr-dict `:` type($input)";
}

#endif // HETC_DIALECT_HETGRAPH_DIALECT
