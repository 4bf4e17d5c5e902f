//===- HetExecDialect.td - hetx dialect and op base classes -*- tablegen -*-===//
//
// hetx is what gets serialized: one program per rank, a straight-line list of
// kernel launches over buffers at static offsets of one arena. Nothing after
// it is MLIR; each op maps onto one message of runtime/package/hetpkg.proto.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECT_HETEXEC_DIALECT
#define HETC_DIALECT_HETEXEC_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def HetExec_Dialect : Dialect {
  let name = "hetx";
  let cppNamespace = "::hetc::hetx";
  let summary = "Per-rank programs of kernel launches over statically placed buffers";
  let description = [{
    A `hetx.program` is one rank's training step (or one forward function).
    Its body declares every
    buffer the step touches (`hetx.buffer`: dtype and shape as a static
    `memref` type, a byte offset in the rank's arena, where its contents come
    from) and then lists the kernel launches in execution order
    (`hetx.launch`), ending with `hetx.return` of the loss buffer and the
    output buffers. The memory
    plan is part of the IR: offsets are fixed and `arena_bytes` is the peak.

    Programs map 1:1 onto `Program` in `runtime/package/hetpkg.proto`: a
    buffer's `id` is its index in the program, a launch is an `Instruction`
    whose kernel is the name of the `hetg` or `hetd` op it came from.
  }];
}

def HetX_ElementType : AnyTypeOf<[F16, BF16, F32, F64, I1, I8, I32, I64, UI8]>;
def HetX_Buffer : StaticShapeMemRefOf<[HetX_ElementType]>;
def HetX_LossBuffer : MemRefRankOf<[F32], [0]>;

class HetX_Op<string mnemonic, list<Trait> traits = []>
    : Op<HetExec_Dialect, mnemonic, traits>;

#endif // HETC_DIALECT_HETEXEC_DIALECT
