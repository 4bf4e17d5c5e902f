//===- HetDistOps.td - hetd ops ----------------------------*- tablegen -*-===//
//
// send, recv, all_reduce, reduce_scatter, all_gather: what crosses ranks;
// to_host, to_device: what crosses between a rank's device and its host.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECT_HETDIST_OPS
#define HETC_DIALECT_HETDIST_OPS

include "HetDistDialect.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// The channel between ranks: every communication op reads and writes it,
/// so none is reordered, merged or dropped.
def HetD_Channel : Resource<"::hetc::hetd::ChannelResource">;

def HetD_StaticTensor : StaticShapeTensorOf<[AnyFloat, AnySignlessInteger]>;
def HetD_FloatTensor : StaticShapeTensorOf<[F32, F64]>;
def HetD_FlatFloatTensor : 1DTensorOf<[F32, F64]>;

class HetD_CommOp<string mnemonic, list<Trait> traits = []>
    : HetD_Op<mnemonic, !listconcat(traits, [
        MemoryEffects<[MemRead<HetD_Channel>, MemWrite<HetD_Channel>]>])>;

def HetD_SendOp : HetD_CommOp<"send"> {
  let summary = "Sends rows of a tensor to another rank";
  let description = [{
    Sends rows `[begin, end)` of dimension 0 of `value` (a sample range of
    a micro-batch: rows are contiguous) to rank `peer`. `tag` identifies the
    message; the receiving `hetd.recv` names the same tag, and messages
    between one pair of ranks arrive in the order they were sent.

    ```mlir
    hetd.send %x rows [0, 2) to 3 tag 5 : tensor<4x16x32xf32>
    ```
  }];
  let arguments = (ins HetD_StaticTensor:$value, I64Attr:$begin,
                       I64Attr:$end, I64Attr:$peer, I64Attr:$tag);
  let assemblyFormat = [{
    $value `rows` `[` $begin `,` $end `)` `to` $peer `tag` $tag attr-dict
    `:` type($value)
  }];
  let hasVerifier = 1;
}

def HetD_RecvOp : HetD_CommOp<"recv"> {
  let summary = "Receives the next message from another rank";
  let description = [{
    The next message from rank `peer`; it must carry `tag` and the bytes of
    the result type.

    ```mlir
    %y = hetd.recv from 0 tag 5 : tensor<2x16x32xf32>
    ```
  }];
  let arguments = (ins I64Attr:$peer, I64Attr:$tag);
  let results = (outs HetD_StaticTensor:$result);
  let assemblyFormat = "`from` $peer `tag` $tag attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def HetD_AllReduceOp : HetD_CommOp<"all_reduce", [AllTypesMatch<["input", "result"]>]> {
  let summary = "Sums a tensor over a group of ranks";
  let description = [{
    Every member gets the sum over the group's members, added in member
    order.

    ```mlir
    %s = hetd.all_reduce %x group [0, 1, 2] : tensor<f32>
    ```
  }];
  let arguments = (ins HetD_FloatTensor:$input, DenseI64ArrayAttr:$group);
  let results = (outs HetD_FloatTensor:$result);
  let assemblyFormat = "$input `group` $group attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def HetD_ReduceScatterOp : HetD_CommOp<"reduce_scatter"> {
  let summary = "Sums a flat tensor over a group and keeps this rank's shard";
  let description = [{
    `input` holds `sum(counts)` elements on every member; member `i` gets
    the sum over members of elements `[counts[0] + ... + counts[i-1],
    ... + counts[i])`: the uneven shards of ragged state sharding. The
    result has `counts[i]` elements for this rank's index `i` in `group`.

    ```mlir
    %shard = hetd.reduce_scatter %grads group [1, 2] counts [7, 3]
        : tensor<10xf32> -> tensor<7xf32>
    ```
  }];
  let arguments = (ins HetD_FlatFloatTensor:$input, DenseI64ArrayAttr:$group,
                       DenseI64ArrayAttr:$counts);
  let results = (outs HetD_FlatFloatTensor:$result);
  let assemblyFormat = [{
    $input `group` $group `counts` $counts attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def HetD_AllGatherOp : HetD_CommOp<"all_gather"> {
  let summary = "Concatenates every member's shard in member order";
  let description = [{
    Member `i` contributes `counts[i]` elements; every member gets all the
    contributions concatenated in member order.

    ```mlir
    %full = hetd.all_gather %shard group [1, 2] counts [7, 3]
        : tensor<7xf32> -> tensor<10xf32>
    ```
  }];
  let arguments = (ins HetD_FlatFloatTensor:$input, DenseI64ArrayAttr:$group,
                       DenseI64ArrayAttr:$counts);
  let results = (outs HetD_FlatFloatTensor:$result);
  let assemblyFormat = [{
    $input `group` $group `counts` $counts attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

class HetD_TransferOp<string mnemonic>
    : HetD_Op<mnemonic, [Pure, AllTypesMatch<["input", "result"]>]> {
  let arguments = (ins HetD_StaticTensor:$input);
  let results = (outs HetD_StaticTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def HetD_ToHostOp : HetD_TransferOp<"to_host"> {
  let summary = "Copies a device value into the rank's host memory";
  let description = [{
    The result is `input` in the memory of the rank's host. Ops whose
    operands are all in host memory run on the host, and so do their
    results; globals marked `hetd.host` live there (an offloaded optimizer
    state). A host op never reads a device value directly: the lowering to
    hetx rejects one that does.

    ```mlir
    %g_host = hetd.to_host %g : tensor<96xf32>
    ```
  }];
}

def HetD_ToDeviceOp : HetD_TransferOp<"to_device"> {
  let summary = "Copies a host value into the rank's device memory";
  let description = [{
    The inverse of `hetd.to_host`: the result is `input` in the memory of
    the rank's device.

    ```mlir
    %p = hetd.to_device %p_host : tensor<96xf32>
    ```
  }];
}

#endif // HETC_DIALECT_HETDIST_OPS
