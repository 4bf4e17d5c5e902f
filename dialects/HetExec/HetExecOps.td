//===- HetExecOps.td - hetx ops ----------------------------*- tablegen -*-===//
//
// program, buffer, launch, return: one rank's step as the runtime executes it.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECT_HETEXEC_OPS
#define HETC_DIALECT_HETEXEC_OPS

include "HetExecDialect.td"
include "HetExecEnums.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def HetX_ProgramOp : HetX_Op<"program", [
    Symbol, IsolatedFromAbove, SingleBlock, NoRegionArguments]> {
  let summary = "One rank's training step over a statically planned arena";
  let description = [{
    The body holds, in this order, the `hetx.buffer` declarations (buffer `i`
    has `id` `i`), the `hetx.launch`es in execution order, and a
    `hetx.return` of the loss buffer and the output buffers. Every buffer
    that owns bytes lies in
    `[0, arena_bytes)` of the device's arena, or for a `host` buffer in
    `[0, host_arena_bytes)` of the rank's host arena; persistent buffers
    (everything but activations) never share bytes. The rank processes samples
    `[first_sample, first_sample + num_samples)` of the global batch, as
    replica `replica` of pipeline stage `stage` of the plan, on the plan's
    device `device` (absent when there is no plan); every `tokens` and
    `labels` input reads samples of that range. `model_flops` counts the
    FLOPs of one step of the rank's model ops (hetg's cost conventions,
    recomputation left out), for MFU.

    An `eval` program (`@rank<N>_eval`) is the forward-only copy of rank
    N's step, which computes the loss of a validation batch between two
    training steps. It runs in the same arena: its parameters and constants
    are the training program's buffers, at their offsets; its inputs and
    activations lie outside the training program's parameters, optimizer
    state and constants (in its activation space, which holds nothing
    between steps); a constant only it reads lies past the training
    program's arena. Its `arena_bytes` is the end of its last buffer.

    ```mlir
    hetx.program @rank1 attributes {arena_bytes = 320 : i64,
        device = "a100", first_sample = 2 : i64, num_samples = 2 : i64,
        rank = 1 : i32, replica = 1 : i32, stage = 0 : i32} {
      %b0 = hetx.buffer 0 "w" parameter at 0 init dense<1.0> : tensor<4x4xf32> : memref<4x4xf32>
      %b1 = hetx.buffer 1 "x" input(tokens) at 64 first_sample 2 : memref<2x4xi64>
      %b2 = hetx.buffer 2 "gather.0" activation at 128 : memref<2x4x4xf32>
      %b3 = hetx.buffer 3 "loss" activation at 256 : memref<f32>
      hetx.launch "gather"(%b0, %b1) -> (%b2) params {axis = 0 : i64}
          : (memref<4x4xf32>, memref<2x4xi64>) -> (memref<2x4x4xf32>)
      hetx.launch "reduce_sum"(%b2) -> (%b3)
          params {axes = array<i64: 0, 1, 2>, keep_dims = false}
          : (memref<2x4x4xf32>) -> (memref<f32>)
      hetx.return %b3 : memref<f32>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, I32Attr:$rank,
                       I64Attr:$arena_bytes, I64Attr:$first_sample,
                       I64Attr:$num_samples,
                       DefaultValuedAttr<I32Attr, "0">:$stage,
                       DefaultValuedAttr<I32Attr, "0">:$replica,
                       OptionalAttr<StrAttr>:$device,
                       DefaultValuedAttr<I64Attr, "0">:$model_flops,
                       DefaultValuedAttr<I64Attr, "0">:$host_arena_bytes,
                       UnitAttr:$eval);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The buffer declarations, in id order.
    auto getBuffers() { return getBody().front().getOps<BufferOp>(); }
    /// The launches, in execution order.
    auto getLaunches() { return getBody().front().getOps<LaunchOp>(); }
    /// The terminator, which names the loss and output buffers.
    ReturnOp getReturn();
  }];
}

def HetX_BufferOp : HetX_Op<"buffer", [
    HasParent<"ProgramOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "A buffer at a static byte offset of the arena";
  let description = [{
    The result type gives the dtype and the static, row-major shape. `kind`
    says where the contents come from: `parameter` and `constant` buffers
    carry their initial value (`init`, written to `weights.safetensors` and
    `constants.safetensors` under `name`), `optimizer_state` starts at zero,
    `input` buffers receive the `tokens` or `labels` of the rank's samples
    from the data loader, or a `feed` the caller writes before the step,
    and `activation`s live within one step. A `tokens` or `labels` input
    holds consecutive samples starting at global sample `first_sample`
    (0 when absent); a rank reads one pair per micro-batch.

    A buffer with `alias` is a view: it owns no bytes but names a
    contiguous byte range of the buffer it aliases, at its own absolute
    `offset` (a reshape views all of the bytes, a slice of rows or of a flat
    tensor a part of them). It has the kind and role of that buffer, which
    owns its bytes.

    A `host` buffer lies in the rank's host memory (its own arena, of the
    program's `host_arena_bytes`), not the device's: an offloaded optimizer
    state and the activations of the updates that run on the host. Only
    optimizer state and activations can be host buffers, and a view lies
    where the buffer it aliases does.

    A persistent buffer that holds one rank's flat piece `NAME[begin:end]`
    of a tensor sharded over ranks (a parameter or optimizer state of a
    sharded stage) says `piece of [shape]`: NAME's shape, which checkpoints
    need to join the pieces of all ranks back into NAME.

    ```mlir
    %b0 = hetx.buffer 0 "wte.weight" parameter at 0
        init dense_resource<wte.weight> : tensor<256x64xf32> : memref<256x64xf32>
    %b1 = hetx.buffer 1 "input_ids" input(tokens) at 65536 first_sample 4 : memref<2x16xi64>
    %b2 = hetx.buffer 2 "gather.0" activation at 65792 : memref<2x16x64xf32>
    %b3 = hetx.buffer 3 "reshape.1" activation at 65792
        alias %b2 : memref<2x16x64xf32> : memref<32x64xf32>
    %b4 = hetx.buffer 4 "slice.2" activation at 69888
        alias %b2 : memref<2x16x64xf32> : memref<1x16x64xf32>
    %b5 = hetx.buffer 5 "wpe.weight.adam_m[0:96]" optimizer_state at 70144
        piece of [64, 64] : memref<96xf32>
    %b6 = hetx.buffer 6 "wpe.weight.adam_v[0:96]" optimizer_state host at 0
        piece of [64, 64] : memref<96xf32>
    ```
  }];
  let arguments = (ins I32Attr:$id, StrAttr:$name, HetX_BufferKind:$kind,
                       OptionalAttr<HetX_InputRole>:$role, UnitAttr:$host,
                       I64Attr:$offset,
                       OptionalAttr<I64Attr>:$first_sample,
                       Optional<HetX_Buffer>:$alias_of,
                       OptionalAttr<ElementsAttr>:$init,
                       OptionalAttr<DenseI64ArrayAttr>:$whole_shape);
  let results = (outs HetX_Buffer:$result);
  let assemblyFormat = [{
    $id $name $kind (`(` $role^ `)`)? (`host` $host^)? `at` $offset
    (`first_sample` $first_sample^)?
    (`alias` $alias_of^ `:` type($alias_of))? (`init` $init^)?
    (`piece` `of` $whole_shape^)?
    attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes of the buffer: elements times the element size (i1 is a byte).
    int64_t getByteSize();
    /// Whether the buffer views another one's bytes instead of owning some.
    bool isAlias() { return static_cast<bool>(getAliasOf()); }
    /// Whether the contents outlive the step (everything but activations).
    bool isPersistent() { return getKind() != BufferKind::activation; }
  }];
}

def HetX_LaunchOp : HetX_Op<"launch", [
    HasParent<"ProgramOp">, AttrSizedOperandSegments]> {
  let summary = "Runs one kernel on buffers";
  let description = [{
    `kernel` is the name of the `hetg` or `hetd` op the launch comes from,
    without the dialect prefix, or `copy` (a byte copy between two buffers
    of one dtype and size); `params` are that op's attributes under their
    names. The kernel reads `inputs` and writes `outputs`, in the op's
    operand and result order. An output may be the buffer of an input only
    where the kernel updates in place (see docs/package-format.md).

    The communication kernels cross ranks: `send(x)` with params `peer` and
    `tag` (a send of some rows reads a view of them), `recv() -> (y)` with
    `peer` and `tag`, `all_reduce(y) -> (y)` in place with `group`, and
    `reduce_scatter(x) -> (y)` and `all_gather(x) -> (y)` with `group` and
    `counts`; their buffers are device buffers.

    A launch whose buffers are all `host` buffers runs on the rank's host;
    only `copy` moves bytes between a device and a host buffer.

    `flops`, when present, counts the FLOPs of the launch by hetg's cost
    conventions (what profiles divide by its time). `segment` and `phase`,
    together or not at all, say which model segment (hetg-segment's
    numbering) the launch computes and in which pass: its forward, its
    backward, or the forward recomputed for the backward. Measured profiles
    add launch times up by them.

    ```mlir
    hetx.launch "matmul"(%b2, %b4) -> (%b5) params {transpose_rhs}
        : (memref<2x16x64xf32>, memref<256x64xf32>) -> (memref<2x16x256xf32>)
    hetx.launch "send"(%b6) -> () params {peer = 1 : i64, tag = 0 : i64}
        : (memref<1x16x64xf32>) -> ()
    ```
  }];
  let arguments = (ins StrAttr:$kernel,
                       Arg<Variadic<HetX_Buffer>, "buffers read", [MemRead]>:$inputs,
                       Arg<Variadic<HetX_Buffer>, "buffers written", [MemWrite]>:$outputs,
                       OptionalAttr<DictionaryAttr>:$params,
                       OptionalAttr<I64Attr>:$flops,
                       OptionalAttr<I64Attr>:$segment,
                       OptionalAttr<HetX_LaunchPhase>:$phase);
  let assemblyFormat = [{
    $kernel `(` $inputs `)` `->` `(` $outputs `)` (`params` $params^)?
    (`flops` $flops^)? (`segment` $segment^ $phase)?
    attr-dict `:` custom<LaunchTypes>(type($inputs), type($outputs))
  }];
  let hasVerifier = 1;
}

def HetX_ReturnOp : HetX_Op<"return", [
    HasParent<"ProgramOp">, Terminator, Pure, AttrSizedOperandSegments]> {
  let summary = "Ends the step; names its loss and output buffers";
  let description = [{
    The loss, when the program computes one, is a 0-D f32, already scaled so
    that the sum over ranks is the mean token loss of the global batch.
    `outputs` are the buffers holding the function's other results, in
    result order.

    ```mlir
    hetx.return %b9 : memref<f32>
    hetx.return outputs(%b4, %b5 : memref<2x3xf32>, memref<2xi64>)
    ```
  }];
  let arguments = (ins Optional<HetX_LossBuffer>:$loss,
                       Variadic<HetX_Buffer>:$outputs);
  let assemblyFormat = [{
    ($loss^ `:` type($loss))?
    (`outputs` `(` $outputs^ `:` type($outputs) `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

#endif // HETC_DIALECT_HETEXEC_OPS
