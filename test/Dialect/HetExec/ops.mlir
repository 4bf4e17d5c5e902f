// RUN: hetc-opt %s --split-input-file | FileCheck %s
// RUN: hetc-opt %s --split-input-file --mlir-print-op-generic | hetc-opt --split-input-file | FileCheck %s

// A step over every buffer kind: parameters and constants carry their
// initial value, inputs their role, aliases the buffer whose bytes they view.

// CHECK-LABEL: hetx.program @rank0
// CHECK-SAME: arena_bytes = 452 : i64, first_sample = 2 : i64, num_samples = 2 : i64, rank = 1 : i32
// CHECK: %[[W:b0]] = hetx.buffer 0 "w" parameter at 0 init dense<1.000000e+00> : tensor<4x4xf32> : memref<4x4xf32>
// CHECK: %[[M:b1]] = hetx.buffer 1 "w.exp_avg" optimizer_state at 64 : memref<4x4xf32>
// CHECK: %[[C:b2]] = hetx.buffer 2 "cst.2" constant at 128 init dense<2.000000e+00> : tensor<f32> : memref<f32>
// CHECK: %[[X:b3]] = hetx.buffer 3 "input_ids" input(tokens) at 192 first_sample 2 : memref<2x4xi64>
// CHECK: %[[Y:b4]] = hetx.buffer 4 "labels" input(labels) at 256 first_sample 2 : memref<2x4xi64>
// CHECK: %[[G:b5]] = hetx.buffer 5 "gather.0" activation at 320 : memref<2x4x4xf32>
// CHECK: %[[R:b6]] = hetx.buffer 6 "reshape.1" activation at 320 alias %[[G]] : memref<2x4x4xf32> : memref<8x4xf32>
// CHECK: %[[L:b7]] = hetx.buffer 7 "loss" activation at 448 : memref<f32>
// CHECK: hetx.launch "gather"(%[[W]], %[[X]]) -> (%[[G]]) params {axis = 0 : i64} : (memref<4x4xf32>, memref<2x4xi64>) -> (memref<2x4x4xf32>)
// CHECK: hetx.launch "reduce_sum"(%[[R]]) -> (%[[L]]) params {axes = array<i64: 0, 1>, keep_dims = false} flops 32 segment 1 backward : (memref<8x4xf32>) -> (memref<f32>)
// CHECK: hetx.launch "mul"(%[[L]], %[[C]]) -> (%[[L]]) : (memref<f32>, memref<f32>) -> (memref<f32>)
// CHECK: hetx.return %[[L]] : memref<f32>
hetx.program @rank0 attributes {rank = 1 : i32, arena_bytes = 452 : i64,
                                first_sample = 2 : i64, num_samples = 2 : i64} {
  %w = hetx.buffer 0 "w" parameter at 0 init dense<1.0> : tensor<4x4xf32> : memref<4x4xf32>
  %m = hetx.buffer 1 "w.exp_avg" optimizer_state at 64 : memref<4x4xf32>
  %c = hetx.buffer 2 "cst.2" constant at 128 init dense<2.0> : tensor<f32> : memref<f32>
  %x = hetx.buffer 3 "input_ids" input(tokens) at 192 first_sample 2 : memref<2x4xi64>
  %y = hetx.buffer 4 "labels" input(labels) at 256 first_sample 2 : memref<2x4xi64>
  %g = hetx.buffer 5 "gather.0" activation at 320 : memref<2x4x4xf32>
  %r = hetx.buffer 6 "reshape.1" activation at 320 alias %g : memref<2x4x4xf32> : memref<8x4xf32>
  %l = hetx.buffer 7 "loss" activation at 448 : memref<f32>
  hetx.launch "gather"(%w, %x) -> (%g) params {axis = 0 : i64}
      : (memref<4x4xf32>, memref<2x4xi64>) -> (memref<2x4x4xf32>)
  hetx.launch "reduce_sum"(%r) -> (%l) params {axes = array<i64: 0, 1>, keep_dims = false}
      flops 32 segment 1 backward : (memref<8x4xf32>) -> (memref<f32>)
  hetx.launch "mul"(%l, %c) -> (%l) : (memref<f32>, memref<f32>) -> (memref<f32>)
  hetx.return %l : memref<f32>
}

// -----

// Several programs in one module, one per rank; kernels without operands.

// CHECK-LABEL: hetx.program @rank0
// CHECK: hetx.launch "zero"() -> (%b0) : () -> (memref<f32>)
// CHECK-LABEL: hetx.program @rank1
// CHECK: hetx.buffer 0 "loss" activation at 0 : memref<f32>
hetx.program @rank0 attributes {rank = 0 : i32, arena_bytes = 4 : i64,
                                first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  hetx.launch "zero"() -> (%l) : () -> (memref<f32>)
  hetx.return %l : memref<f32>
}
hetx.program @rank1 attributes {rank = 1 : i32, arena_bytes = 4 : i64,
                                first_sample = 1 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  hetx.return %l : memref<f32>
}

// -----

// A forward program: feed inputs, no loss, output buffers.
// CHECK-LABEL: hetx.program @rank0
// CHECK: %[[X:b0]] = hetx.buffer 0 "x" input(feed) at 0 : memref<4xf32>
// CHECK: %[[N:b1]] = hetx.buffer 1 "neg.0" activation at 64 : memref<4xf32>
// CHECK: hetx.return outputs(%[[N]], %[[X]] : memref<4xf32>, memref<4xf32>)
hetx.program @rank0 attributes {rank = 0 : i32, arena_bytes = 80 : i64,
                                first_sample = 0 : i64, num_samples = 1 : i64} {
  %x = hetx.buffer 0 "x" input(feed) at 0 : memref<4xf32>
  %n = hetx.buffer 1 "neg.0" activation at 64 : memref<4xf32>
  hetx.launch "neg"(%x) -> (%n) : (memref<4xf32>) -> (memref<4xf32>)
  hetx.return outputs(%n, %x : memref<4xf32>, memref<4xf32>)
}

// -----

// Both a loss and outputs.
// CHECK-LABEL: hetx.program @rank0
// CHECK: hetx.return %{{.*}} : memref<f32> outputs(%{{.*}} : memref<4xf32>)
hetx.program @rank0 attributes {rank = 0 : i32, arena_bytes = 80 : i64,
                                first_sample = 0 : i64, num_samples = 1 : i64} {
  %x = hetx.buffer 0 "x" input(feed) at 0 : memref<4xf32>
  %l = hetx.buffer 1 "loss" activation at 64 : memref<f32>
  hetx.launch "reduce_sum"(%x) -> (%l) params {axes = array<i64: 0>, keep_dims = false} : (memref<4xf32>) -> (memref<f32>)
  hetx.return %l : memref<f32> outputs(%x : memref<4xf32>)
}

// -----

// A rank of a pipeline: its stage, replica and device (stage and replica 0
// are the defaults, not printed); one tokens input per
// micro-batch, each at its first sample; views at an offset inside the
// bytes they alias; communication launches; no loss.
// CHECK-LABEL: hetx.program @rank2
// CHECK-SAME: device = "a100", first_sample = 4 : i64, num_samples = 2 : i64, rank = 2 : i32, replica = 1 : i32, stage = 1 : i32}
// CHECK: %[[T0:b0]] = hetx.buffer 0 "input_ids" input(tokens) at 0 first_sample 4 : memref<1x4xi64>
// CHECK: %[[T1:b1]] = hetx.buffer 1 "input_ids" input(tokens) at 64 first_sample 5 : memref<1x4xi64>
// CHECK: %[[X:b2]] = hetx.buffer 2 "x" activation at 128 : memref<2x4xf32>
// CHECK: %[[ROW:b3]] = hetx.buffer 3 "send.3" activation at 144 alias %[[X]] : memref<2x4xf32> : memref<1x4xf32>
// CHECK: hetx.launch "send"(%[[ROW]]) -> () params {peer = 3 : i64, tag = 1 : i64} : (memref<1x4xf32>) -> ()
// CHECK: hetx.launch "all_reduce"(%[[X]]) -> (%[[X]]) params {group = array<i64: 1, 2>} : (memref<2x4xf32>) -> (memref<2x4xf32>)
// CHECK: hetx.return{{$}}
hetx.program @rank2 attributes {rank = 2 : i32, stage = 1 : i32, replica = 1 : i32,
                                device = "a100", arena_bytes = 192 : i64,
                                first_sample = 4 : i64, num_samples = 2 : i64} {
  %t0 = hetx.buffer 0 "input_ids" input(tokens) at 0 first_sample 4 : memref<1x4xi64>
  %t1 = hetx.buffer 1 "input_ids" input(tokens) at 64 first_sample 5 : memref<1x4xi64>
  %x = hetx.buffer 2 "x" activation at 128 : memref<2x4xf32>
  %row = hetx.buffer 3 "send.3" activation at 144 alias %x : memref<2x4xf32> : memref<1x4xf32>
  hetx.launch "send"(%row) -> () params {peer = 3 : i64, tag = 1 : i64} : (memref<1x4xf32>) -> ()
  hetx.launch "all_reduce"(%x) -> (%x) params {group = array<i64: 1, 2>} : (memref<2x4xf32>) -> (memref<2x4xf32>)
  hetx.return
}
