// RUN: hetc-opt %s --split-input-file --hetx-lower-to-program | FileCheck %s

// Every hetg op becomes a launch named after it, with its inherent
// attributes (defaults and unit attributes included) as params. Arguments are
// inputs by their hetg.name, globals parameters by their symbol, and the
// returned scalar is the loss.

// CHECK-LABEL: hetx.program @rank0
// CHECK-SAME: arena_bytes = 384 : i64, first_sample = 0 : i64, num_samples = 2 : i64, rank = 0 : i32
// CHECK-DAG: %[[W:b0]] = hetx.buffer 0 "wte.weight" parameter at 0 init dense<{{.*}}> : tensor<3x2xf32> : memref<3x2xf32>
// CHECK-DAG: %[[IDS:b1]] = hetx.buffer 1 "input_ids" input(tokens) at 64 : memref<2x4xi64>
// CHECK-DAG: %[[LAB:b2]] = hetx.buffer 2 "labels" input(labels) at 128 : memref<2x4xi64>
// CHECK-DAG: %[[E:b3]] = hetx.buffer 3 "gather.0" activation at 192 : memref<2x4x2xf32>
// CHECK-DAG: %[[G:b4]] = hetx.buffer 4 "gelu.1" activation at 320 : memref<2x4x2xf32>
// CHECK-DAG: %[[Y:b5]] = hetx.buffer 5 "matmul.2" activation at 192 : memref<2x4x3xf32>
// CHECK-DAG: %[[L:b8]] = hetx.buffer 8 "cross_entropy.3" activation at 320 : memref<f32>
// CHECK: hetx.launch "gather"(%[[W]], %[[IDS]]) -> (%[[E]]) params {axis = 0 : i64}
// CHECK: hetx.launch "gelu"(%[[E]]) -> (%[[G]]) params {approximate = #hetg<gelu_approximation tanh>}
// CHECK: hetx.launch "matmul"(%[[G]], %[[W]]) -> (%[[Y]]) params {transpose_rhs}
// CHECK: hetx.launch "cross_entropy"(%{{.*}}, %{{.*}}) -> (%[[L]]) params {reduction = #hetg<loss_reduction mean>}
// CHECK: hetx.return %[[L]] : memref<f32>
// CHECK-NOT: func.func
// CHECK-NOT: ml_program.global
module {
  ml_program.global private @wte.weight(dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>) : tensor<3x2xf32>
  func.func @main(%ids: tensor<2x4xi64> {hetg.name = "input_ids"},
                  %labels: tensor<2x4xi64> {hetg.name = "labels"}) -> tensor<f32> {
    %w = ml_program.global_load_const @wte.weight : tensor<3x2xf32>
    %e = hetg.gather %w[%ids] <{axis = 0 : i64}> : tensor<3x2xf32>, tensor<2x4xi64>
    %g = hetg.gelu %e <{approximate = #hetg<gelu_approximation tanh>}> : tensor<2x4x2xf32>
    %y = hetg.matmul %g, %w <{transpose_rhs}> : tensor<2x4x2xf32>, tensor<3x2xf32>
    %r = hetg.reshape %y : tensor<2x4x3xf32> -> tensor<8x3xf32>
    %l = hetg.reshape %labels : tensor<2x4xi64> -> tensor<8xi64>
    %loss = hetg.cross_entropy %r, %l <{reduction = #hetg<loss_reduction mean>}> : tensor<8x3xf32>, tensor<8xi64>
    return %loss : tensor<f32>
  }
}

// -----

// A reshape is an alias of the buffer owning the bytes (of a reshape too),
// with its kind; it costs no launch. A constant is a constant buffer holding
// its value.

// CHECK-LABEL: hetx.program @rank0
// CHECK: %[[IDS:b0]] = hetx.buffer 0 "input_ids" input(tokens)
// CHECK: %[[A:b1]] = hetx.buffer 1 "reshape.1" input(tokens) at 0 alias %[[IDS]] : memref<2x4xi64> : memref<8xi64>
// CHECK: %[[B:b2]] = hetx.buffer 2 "reshape.2" input(tokens) at 0 alias %[[IDS]] : memref<2x4xi64> : memref<4x2xi64>
// CHECK: %[[C:b3]] = hetx.buffer 3 "constant.0" constant at 64 init dense<2> : tensor<4x2xi64> : memref<4x2xi64>
// CHECK: hetx.launch "mul"(%[[B]], %[[C]]) -> (%[[M:.*]]) :
// CHECK-NOT: hetx.launch "reshape"
// CHECK: hetx.launch "cast"(%[[M]])
module {
  func.func @main(%ids: tensor<2x4xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %a = hetg.reshape %ids : tensor<2x4xi64> -> tensor<8xi64>
    %b = hetg.reshape %a : tensor<8xi64> -> tensor<4x2xi64>
    %c = hetg.constant dense<2> : tensor<4x2xi64>
    %m = hetg.mul %b, %c : tensor<4x2xi64>, tensor<4x2xi64>
    %f = hetg.cast %m to f32 : tensor<4x2xi64>
    %s = hetg.reduce_sum %f <{axes = array<i64: 0, 1>, keep_dims = false}> : tensor<4x2xf32>
    return %s : tensor<f32>
  }
}

// -----

// The update of a parameter writes straight into its buffer when nothing
// reads the old value afterwards: no copy.

// CHECK-LABEL: hetx.program @rank0
// CHECK: %[[W:b0]] = hetx.buffer 0 "w" parameter at 0
// CHECK: hetx.launch "sgd"(%[[W]], %{{.*}}) -> (%[[W]]) params {lr = 1.000000e-01 : f64, weight_decay = 0.000000e+00 : f64}
// CHECK-NOT: "copy"
// CHECK: hetx.return
module {
  ml_program.global private mutable @w(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %w = ml_program.global_load @w : tensor<2xf32>
    %sq = hetg.mul %w, %w : tensor<2xf32>, tensor<2xf32>
    %loss = hetg.reduce_sum %sq <{axes = array<i64: 0>, keep_dims = false}> : tensor<2xf32>
    %two = hetg.constant dense<2.0> : tensor<f32>
    %g = hetg.mul %w, %two : tensor<2xf32>, tensor<f32>
    %w1 = hetg.sgd %w, %g <{lr = 1.0e-1 : f64}> : tensor<2xf32>
    ml_program.global_store @w = %w1 : tensor<2xf32>
    return %loss : tensor<f32>
  }
}

// -----

// The old value is read after the producer ran (here by the loss), so the
// producer writes an activation and a copy updates the parameter at the
// store.

// CHECK-LABEL: hetx.program @rank0
// CHECK: %[[W:b0]] = hetx.buffer 0 "w" parameter
// CHECK: %[[NEW:b[0-9]+]] = hetx.buffer {{[0-9]+}} "sgd.1" activation
// CHECK: hetx.launch "sgd"(%[[W]], %{{.*}}) -> (%[[NEW]])
// CHECK: hetx.launch "reduce_sum"(%[[W]])
// CHECK: hetx.launch "copy"(%[[NEW]]) -> (%[[W]])
module {
  ml_program.global private mutable @w(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %w = ml_program.global_load @w : tensor<2xf32>
    %g = hetg.neg %w : tensor<2xf32>
    %w1 = hetg.sgd %w, %g <{lr = 1.0e-1 : f64}> : tensor<2xf32>
    %loss = hetg.reduce_sum %w <{axes = array<i64: 0>, keep_dims = false}> : tensor<2xf32>
    ml_program.global_store @w = %w1 : tensor<2xf32>
    return %loss : tensor<f32>
  }
}

// -----

// A kernel that is not elementwise in the global's old value (matmul) may
// not write over it while reading it.

// CHECK-LABEL: hetx.program @rank0
// CHECK: %[[W:b0]] = hetx.buffer 0 "w" parameter
// CHECK: hetx.launch "matmul"(%[[W]], %[[W]]) -> (%[[NEW:b[0-9]+]])
// CHECK: hetx.launch "copy"(%[[NEW]]) -> (%[[W]])
module {
  ml_program.global private mutable @w(dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %w = ml_program.global_load @w : tensor<2x2xf32>
    %w1 = hetg.matmul %w, %w : tensor<2x2xf32>, tensor<2x2xf32>
    ml_program.global_store @w = %w1 : tensor<2x2xf32>
    %loss = hetg.reduce_sum %w1 <{axes = array<i64: 0, 1>, keep_dims = false}> : tensor<2x2xf32>
    return %loss : tensor<f32>
  }
}

// -----

// A loaded value read after the global is stored keeps a copy of the old
// value, taken at the load.

// CHECK-LABEL: hetx.program @rank0
// CHECK: %[[W:b0]] = hetx.buffer 0 "w" parameter
// CHECK: %[[OLD:b[0-9]+]] = hetx.buffer {{[0-9]+}} "w.old" activation
// CHECK: hetx.launch "copy"(%[[W]]) -> (%[[OLD]])
// CHECK: hetx.launch "neg"(%[[OLD]]) -> (%[[W]])
// CHECK: hetx.launch "reduce_sum"(%[[OLD]])
module {
  ml_program.global private mutable @w(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %w = ml_program.global_load @w : tensor<2xf32>
    %w1 = hetg.neg %w : tensor<2xf32>
    ml_program.global_store @w = %w1 : tensor<2xf32>
    %loss = hetg.reduce_sum %w <{axes = array<i64: 0>, keep_dims = false}> : tensor<2xf32>
    return %loss : tensor<f32>
  }
}

// -----

// AdamW: the state globals (zero-initialized, hetg.state_of) are optimizer
// state, the step count too; all three results update in place.

// CHECK-LABEL: hetx.program @rank0
// CHECK-DAG: %[[P:b0]] = hetx.buffer 0 "p" parameter
// CHECK-DAG: %[[M:b1]] = hetx.buffer 1 "p.adam_m" optimizer_state at {{[0-9]+}} : memref<2xf32>
// CHECK-DAG: %[[V:b2]] = hetx.buffer 2 "p.adam_v" optimizer_state at {{[0-9]+}} : memref<2xf32>
// CHECK-DAG: %[[T:b3]] = hetx.buffer 3 "optimizer.step" optimizer_state at {{[0-9]+}} : memref<i64>
// CHECK: hetx.launch "add"(%[[T]], %{{.*}}) -> (%[[T]])
// CHECK: hetx.launch "adamw"(%[[P]], %{{.*}}, %[[M]], %[[V]], %[[T]]) -> (%[[P]], %[[M]], %[[V]]) params {beta1 = 9.000000e-01 : f64, beta2 = {{.*}} : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, weight_decay = 0.000000e+00 : f64}
// CHECK-NOT: "copy"
module {
  ml_program.global private mutable @p(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private mutable @p.adam_m(dense<0.0> : tensor<2xf32>) : tensor<2xf32> {hetg.state_of = @p}
  ml_program.global private mutable @p.adam_v(dense<0.0> : tensor<2xf32>) : tensor<2xf32> {hetg.state_of = @p}
  ml_program.global private mutable @optimizer.step(dense<0> : tensor<i64>) : tensor<i64>
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %t = ml_program.global_load @optimizer.step : tensor<i64>
    %one = hetg.constant dense<1> : tensor<i64>
    %t1 = hetg.add %t, %one : tensor<i64>, tensor<i64>
    ml_program.global_store @optimizer.step = %t1 : tensor<i64>
    %p = ml_program.global_load @p : tensor<2xf32>
    %loss = hetg.reduce_sum %p <{axes = array<i64: 0>, keep_dims = false}> : tensor<2xf32>
    %g = hetg.neg %p : tensor<2xf32>
    %m = ml_program.global_load @p.adam_m : tensor<2xf32>
    %v = ml_program.global_load @p.adam_v : tensor<2xf32>
    %p1, %m1, %v1 = hetg.adamw %p, %g, %m, %v, %t1 <{lr = 1.0e-3 : f64, weight_decay = 0.0 : f64}> : tensor<2xf32>, tensor<i64>
    ml_program.global_store @p = %p1 : tensor<2xf32>
    ml_program.global_store @p.adam_m = %m1 : tensor<2xf32>
    ml_program.global_store @p.adam_v = %v1 : tensor<2xf32>
    return %loss : tensor<f32>
  }
}

// -----

// Buffers whose lifetimes do not overlap share bytes: the chain a, b, c, d
// of 256 bytes each needs two slots after the persistent input (64 bytes)
// and constant (256 bytes).

// CHECK-LABEL: hetx.program @rank0
// CHECK-SAME: arena_bytes = 832 : i64
// CHECK: hetx.buffer 2 "neg.0" activation at 320 : memref<64xf32>
// CHECK: hetx.buffer 3 "exp.1" activation at 576 : memref<64xf32>
// CHECK: hetx.buffer 4 "neg.2" activation at 320 : memref<64xf32>
// CHECK: hetx.buffer 5 "exp.3" activation at 576 : memref<64xf32>
// CHECK: hetx.buffer 6 "reduce_sum.4" activation at 320 : memref<f32>
module {
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %z = hetg.constant dense<1.0> : tensor<64xf32>
    %a = hetg.neg %z : tensor<64xf32>
    %b = hetg.exp %a : tensor<64xf32>
    %c = hetg.neg %b : tensor<64xf32>
    %d = hetg.exp %c : tensor<64xf32>
    %s = hetg.reduce_sum %d <{axes = array<i64: 0>, keep_dims = false}> : tensor<64xf32>
    return %s : tensor<f32>
  }
}

// -----

// With several optional operands, operandSegmentSizes stays in the params so
// the runtime knows a lone second operand is the bias, not the scale.

// CHECK-LABEL: hetx.program @rank0
// CHECK: hetx.launch "layer_norm"(%{{.*}}, %{{.*}}) -> (%{{.*}}) params {axis = 1 : i64, epsilon = {{.*}} : f32, operandSegmentSizes = array<i32: 1, 0, 1>}
module {
  ml_program.global private @ln.bias(dense<[0.5, -0.5]> : tensor<2xf32>) : tensor<2xf32>
  func.func @main(%ids: tensor<2x4xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %b = ml_program.global_load_const @ln.bias : tensor<2xf32>
    %f = hetg.cast %ids to f32 : tensor<2x4xi64>
    %x = hetg.reshape %f : tensor<2x4xf32> -> tensor<4x2xf32>
    %y = hetg.layer_norm %x bias %b : tensor<2xf32> <{axis = 1 : i64, epsilon = 1.0e-05 : f32}> : tensor<4x2xf32>
    %s = hetg.reduce_sum %y <{axes = array<i64: 0, 1>, keep_dims = false}> : tensor<4x2xf32>
    return %s : tensor<f32>
  }
}

// -----

// A function that is no train step (no input_ids): arguments other than
// input_ids/labels are FEED inputs named by hetg.name (or arg<N>), even in a
// train step, and the results are output buffers in result order.
// CHECK-LABEL: hetx.program @rank0
// CHECK-SAME: num_samples = 1 : i64
// CHECK-DAG: %[[X:b0]] = hetx.buffer 0 "x" input(feed) at {{[0-9]+}} : memref<2x3xf32>
// CHECK-DAG: %[[Y:b1]] = hetx.buffer 1 "arg1" input(feed) at {{[0-9]+}} : memref<2x3xf32>
// CHECK-DAG: %[[S:b2]] = hetx.buffer 2 "add.0" activation
// CHECK-DAG: %[[M:b3]] = hetx.buffer 3 "mul.1" activation
// CHECK: hetx.launch "add"(%[[X]], %[[Y]]) -> (%[[S]])
// CHECK: hetx.launch "mul"(%[[S]], %[[X]]) -> (%[[M]])
// CHECK: hetx.return outputs(%[[M]], %[[S]], %[[Y]] : memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>)
module {
  func.func @main(%x: tensor<2x3xf32> {hetg.name = "x"}, %y: tensor<2x3xf32>)
      -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
    %s = hetg.add %x, %y : tensor<2x3xf32>, tensor<2x3xf32>
    %m = hetg.mul %s, %x : tensor<2x3xf32>, tensor<2x3xf32>
    return %m, %s, %y : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
  }
}

// -----

// The outputs live to the end of the step: exp.2 could reuse the bytes of
// neg.0, which nothing reads after exp.1, but neg.0 is returned.
// CHECK-LABEL: hetx.program @rank0
// CHECK: hetx.buffer 1 "neg.0" activation at 64 :
// CHECK: hetx.buffer 2 "exp.1" activation at 128 :
// CHECK: hetx.buffer 3 "exp.2" activation at 192 :
// CHECK: hetx.return outputs(%b1, %b3 :
module {
  func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %n = hetg.neg %x : tensor<4xf32>
    %e = hetg.exp %n : tensor<4xf32>
    %f = hetg.exp %e : tensor<4xf32>
    return %n, %f : tensor<4xf32>, tensor<4xf32>
  }
}

// -----

// A function that is no train step returns its loss when its single 0-D f32
// result is named loss.
// CHECK-LABEL: hetx.program @rank0
// CHECK: hetx.return %{{.*}} : memref<f32>
// CHECK-NOT: outputs
module {
  func.func @main(%x: tensor<4xf32> {hetg.name = "x"}) -> (tensor<f32> {hetg.name = "loss"}) {
    %s = hetg.reduce_sum %x <{axes = array<i64: 0>, keep_dims = false}> : tensor<4xf32>
    return %s : tensor<f32>
  }
}
