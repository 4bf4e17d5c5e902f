// RUN: hetc-opt %s --split-input-file --hetx-lower-to-program | FileCheck %s

// Every hetg op becomes a launch named after it, with its inherent
// attributes (defaults and unit attributes included) as params. Arguments are
// inputs by their hetg.name, globals parameters by their symbol, and the
// returned scalar is the loss. Each launch carries its op's FLOPs
// (CostOpInterface), and model_flops sums them.

// CHECK-LABEL: hetx.program @rank0
// CHECK-SAME: arena_bytes = 384 : i64, first_sample = 0 : i64, model_flops = 472 : i64, num_samples = 2 : i64, rank = 0 : i32
// CHECK-DAG: %[[W:b0]] = hetx.buffer 0 "wte.weight" parameter at 0 init dense<{{.*}}> : tensor<3x2xf32> : memref<3x2xf32>
// CHECK-DAG: %[[IDS:b1]] = hetx.buffer 1 "input_ids" input(tokens) at 64 : memref<2x4xi64>
// CHECK-DAG: %[[LAB:b2]] = hetx.buffer 2 "labels" input(labels) at 128 : memref<2x4xi64>
// CHECK-DAG: %[[E:b3]] = hetx.buffer 3 "gather.0" activation at 192 : memref<2x4x2xf32>
// CHECK-DAG: %[[G:b4]] = hetx.buffer 4 "gelu.1" activation at 320 : memref<2x4x2xf32>
// CHECK-DAG: %[[Y:b5]] = hetx.buffer 5 "matmul.2" activation at 192 : memref<2x4x3xf32>
// CHECK-DAG: %[[L:b8]] = hetx.buffer 8 "cross_entropy.3" activation at 320 : memref<f32>
// CHECK: hetx.launch "gather"(%[[W]], %[[IDS]]) -> (%[[E]]) params {axis = 0 : i64}
// CHECK: hetx.launch "gelu"(%[[E]]) -> (%[[G]]) params {approximate = #hetg<gelu_approximation tanh>}
// CHECK: hetx.launch "matmul"(%[[G]], %[[W]]) -> (%[[Y]]) params {transpose_rhs} flops 96 :
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

// A forward-only step returns its loss and then its logits: the logits are
// an output buffer named like the result.

// CHECK-LABEL: hetx.program @rank0
// CHECK-DAG: %[[Y:b[0-9]+]] = hetx.buffer {{[0-9]+}} "logits" activation
// CHECK-DAG: %[[L:b[0-9]+]] = hetx.buffer {{[0-9]+}} "cross_entropy.{{[0-9]+}}" activation
// CHECK: hetx.return %[[L]] : memref<f32> outputs(%[[Y]] : memref<2x4x3xf32>)
module {
  ml_program.global private @wte.weight(dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>) : tensor<3x2xf32>
  func.func @main(%ids: tensor<2x4xi64> {hetg.name = "input_ids"},
                  %labels: tensor<2x4xi64> {hetg.name = "labels"})
      -> (tensor<f32> {hetg.name = "loss"}, tensor<2x4x3xf32> {hetg.name = "logits"}) {
    %w = ml_program.global_load_const @wte.weight : tensor<3x2xf32>
    %e = hetg.gather %w[%ids] <{axis = 0 : i64}> : tensor<3x2xf32>, tensor<2x4xi64>
    %y = hetg.matmul %e, %w <{transpose_rhs}> : tensor<2x4x2xf32>, tensor<3x2xf32>
    %r = hetg.reshape %y : tensor<2x4x3xf32> -> tensor<8x3xf32>
    %l = hetg.reshape %labels : tensor<2x4xi64> -> tensor<8xi64>
    %loss = hetg.cross_entropy %r, %l <{reduction = #hetg<loss_reduction mean>}> : tensor<8x3xf32>, tensor<8xi64>
    return %loss, %y : tensor<f32>, tensor<2x4x3xf32>
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
// CHECK: hetx.launch "mul"(%[[B]], %[[C]]) -> (%[[M:[^)]*]]) flops 8 :
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

// Offloaded AdamW: the state globals marked hetd.host are host buffers of
// the host arena, where the update runs on host copies of the parameter,
// gradient and step; the copies are the only launches touching both sides.

// CHECK-LABEL: hetx.program @rank0 attributes {
// CHECK-SAME: host_arena_bytes = 384 : i64
// CHECK-DAG: %[[P:b0]] = hetx.buffer 0 "p" parameter at
// CHECK-DAG: %[[M:b1]] = hetx.buffer 1 "p.adam_m" optimizer_state host at 0 : memref<2xf32>
// CHECK-DAG: %[[V:b2]] = hetx.buffer 2 "p.adam_v" optimizer_state host at 64 : memref<2xf32>
// CHECK-DAG: %[[T:b3]] = hetx.buffer 3 "optimizer.step" optimizer_state at {{[0-9]+}} : memref<i64>
// CHECK-DAG: %[[PH:b[0-9]+]] = hetx.buffer {{[0-9]+}} "copy.{{[0-9]+}}" activation host at 128 : memref<2xf32>
// CHECK-DAG: %[[GH:b[0-9]+]] = hetx.buffer {{[0-9]+}} "copy.{{[0-9]+}}" activation host at {{[0-9]+}} : memref<2xf32>
// CHECK-DAG: %[[TH:b[0-9]+]] = hetx.buffer {{[0-9]+}} "copy.{{[0-9]+}}" activation host at {{[0-9]+}} : memref<i64>
// CHECK-DAG: %[[NEW:b[0-9]+]] = hetx.buffer {{[0-9]+}} "adamw.{{[0-9.]+}}" activation host at {{[0-9]+}} : memref<2xf32>
// CHECK: hetx.launch "copy"(%[[P]]) -> (%[[PH]])
// CHECK: hetx.launch "copy"(%{{.*}}) -> (%[[GH]])
// CHECK: hetx.launch "copy"(%[[T]]) -> (%[[TH]])
// CHECK: hetx.launch "adamw"(%[[PH]], %[[GH]], %[[M]], %[[V]], %[[TH]]) -> (%[[NEW]], %[[M]], %[[V]])
// CHECK: hetx.launch "copy"(%[[NEW]]) -> (%[[P]])
module {
  ml_program.global private mutable @p(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private mutable @p.adam_m(dense<0.0> : tensor<2xf32>) : tensor<2xf32> {hetd.host, hetg.state_of = @p}
  ml_program.global private mutable @p.adam_v(dense<0.0> : tensor<2xf32>) : tensor<2xf32> {hetd.host, hetg.state_of = @p}
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
    %ph = hetd.to_host %p : tensor<2xf32>
    %gh = hetd.to_host %g : tensor<2xf32>
    %th = hetd.to_host %t1 : tensor<i64>
    %p1, %m1, %v1 = hetg.adamw %ph, %gh, %m, %v, %th <{lr = 1.0e-3 : f64, weight_decay = 0.0 : f64}> : tensor<2xf32>, tensor<i64>
    %pd = hetd.to_device %p1 : tensor<2xf32>
    ml_program.global_store @p = %pd : tensor<2xf32>
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

// -----

// Rank functions (hetd.rank) become one program each, in rank order, with
// the globals each function references and the placement of its hetd
// attributes. A send of some rows reads a view of them at their byte
// offset; a recv writes a new buffer; a rank may read labels without tokens
// and a rank without the loss returns nothing.

// CHECK-LABEL: hetx.program @rank0
// CHECK-SAME: {arena_bytes = 192 : i64, device = "a100", first_sample = 0 : i64, num_samples = 2 : i64, rank = 0 : i32}
// CHECK-NEXT: %[[W:b0]] = hetx.buffer 0 "wte" parameter at 0 init {{.*}} : tensor<4x3xf32> : memref<4x3xf32>
// CHECK-NEXT: %[[IDS:b1]] = hetx.buffer 1 "input_ids" input(tokens) at 64 first_sample 0 : memref<2x2xi64>
// CHECK-NEXT: %[[E:b2]] = hetx.buffer 2 "gather.0" activation at 128 : memref<2x2x3xf32>
// CHECK-NEXT: %[[ROW0:b3]] = hetx.buffer 3 "send.3" activation at 128 alias %[[E]] : memref<2x2x3xf32> : memref<1x2x3xf32>
// CHECK-NEXT: %[[ROW1:b4]] = hetx.buffer 4 "send.4" activation at 152 alias %[[E]] : memref<2x2x3xf32> : memref<1x2x3xf32>
// CHECK-NEXT: hetx.launch "gather"(%[[W]], %[[IDS]]) -> (%[[E]]) params {axis = 0 : i64}
// CHECK-NEXT: hetx.launch "send"(%[[ROW0]]) -> () params {peer = 1 : i64, tag = 0 : i64} : (memref<1x2x3xf32>) -> ()
// CHECK-NEXT: hetx.launch "send"(%[[ROW1]]) -> () params {peer = 1 : i64, tag = 1 : i64} : (memref<1x2x3xf32>) -> ()
// CHECK-NEXT: hetx.return{{$}}

// CHECK-LABEL: hetx.program @rank1
// CHECK-SAME: {arena_bytes = {{[0-9]+}} : i64, device = "v100", first_sample = 0 : i64, model_flops = 216 : i64, num_samples = 2 : i64, rank = 1 : i32, stage = 1 : i32}
// CHECK-NEXT: %[[H:b0]] = hetx.buffer 0 "head" parameter at 0
// CHECK-NEXT: %[[LAB:b1]] = hetx.buffer 1 "labels" input(labels) at 64 first_sample 0 : memref<2x2xi64>
// CHECK-NEXT: %[[A:b2]] = hetx.buffer 2 "recv.0" activation at {{[0-9]+}} : memref<1x2x3xf32>
// CHECK-NEXT: %[[B:b3]] = hetx.buffer 3 "recv.1" activation at {{[0-9]+}} : memref<1x2x3xf32>
// CHECK-NEXT: %[[X:b4]] = hetx.buffer 4 "concat.2" activation
// CHECK: hetx.launch "recv"() -> (%[[A]]) params {peer = 0 : i64, tag = 0 : i64} : () -> (memref<1x2x3xf32>)
// CHECK-NEXT: hetx.launch "recv"() -> (%[[B]]) params {peer = 0 : i64, tag = 1 : i64} : () -> (memref<1x2x3xf32>)
// CHECK-NEXT: hetx.launch "concat"(%[[A]], %[[B]]) -> (%[[X]]) params {axis = 0 : i64}
// CHECK-NEXT: hetx.launch "matmul"(%[[X]], %[[H]])
// CHECK-NEXT: hetx.launch "cross_entropy"(%{{.*}}, %{{.*}}) -> (%[[L:b[0-9]+]])
// CHECK-NEXT: hetx.return %[[L]] : memref<f32>
// CHECK-NOT: func.func
// CHECK-NOT: ml_program.global
module {
  ml_program.global private @wte(dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [1.0, 0.0, 1.0]]> : tensor<4x3xf32>) : tensor<4x3xf32>
  ml_program.global private @head(dense<[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]]> : tensor<4x3xf32>) : tensor<4x3xf32>
  func.func @last_stage(%labels: tensor<2x2xi64> {hetg.name = "labels", hetd.first_sample = 0 : i64})
      -> (tensor<f32> {hetg.name = "loss"})
      attributes {hetd.rank = 1 : i64, hetd.stage = 1 : i64, hetd.replica = 0 : i64,
                  hetd.device = "v100", hetd.samples = array<i64: 0, 2>} {
    %a = hetd.recv from 0 tag 0 : tensor<1x2x3xf32>
    %b = hetd.recv from 0 tag 1 : tensor<1x2x3xf32>
    %x = hetg.concat %a, %b <{axis = 0 : i64}> : tensor<1x2x3xf32>, tensor<1x2x3xf32>
    %h = ml_program.global_load_const @head : tensor<4x3xf32>
    %y = hetg.matmul %x, %h <{transpose_rhs}> : tensor<2x2x3xf32>, tensor<4x3xf32>
    %r = hetg.reshape %y : tensor<2x2x4xf32> -> tensor<4x4xf32>
    %l = hetg.reshape %labels : tensor<2x2xi64> -> tensor<4xi64>
    %loss = hetg.cross_entropy %r, %l <{reduction = #hetg<loss_reduction mean>}> : tensor<4x4xf32>, tensor<4xi64>
    return %loss : tensor<f32>
  }
  func.func @first_stage(%ids: tensor<2x2xi64> {hetg.name = "input_ids", hetd.first_sample = 0 : i64})
      attributes {hetd.rank = 0 : i64, hetd.stage = 0 : i64, hetd.replica = 0 : i64,
                  hetd.device = "a100", hetd.samples = array<i64: 0, 2>} {
    %w = ml_program.global_load_const @wte : tensor<4x3xf32>
    %e = hetg.gather %w[%ids] <{axis = 0 : i64}> : tensor<4x3xf32>, tensor<2x2xi64>
    hetd.send %e rows [0, 1) to 1 tag 0 : tensor<2x2x3xf32>
    hetd.send %e rows [1, 2) to 1 tag 1 : tensor<2x2x3xf32>
    return
  }
}

// -----

// One tokens/labels pair per micro-batch, each at its first sample; the
// program covers the rank's samples (stage and replica 0, no device: not
// printed). A send of all rows reads the buffer itself. all_reduce sums in
// place: on the value's own activation when nothing else reads it, on a
// copy otherwise.

// CHECK-LABEL: hetx.program @rank0
// CHECK-SAME: {arena_bytes = {{[0-9]+}} : i64, first_sample = 4 : i64, model_flops = 8 : i64, num_samples = 2 : i64, rank = 0 : i32}
// CHECK-NEXT: hetx.buffer 0 "input_ids" input(tokens) at {{[0-9]+}} first_sample 4 : memref<1x2xi64>
// CHECK-NEXT: hetx.buffer 1 "input_ids" input(tokens) at {{[0-9]+}} first_sample 5 : memref<1x2xi64>
// CHECK-NEXT: hetx.buffer 2 "labels" input(labels) at {{[0-9]+}} first_sample 4 : memref<1x2xi64>
// CHECK-NEXT: hetx.buffer 3 "labels" input(labels) at {{[0-9]+}} first_sample 5 : memref<1x2xi64>
// CHECK-NEXT: %[[A:b4]] = hetx.buffer 4 "cast.0"
// CHECK-NEXT: %[[B:b5]] = hetx.buffer 5 "cast.1"
// CHECK-NEXT: %[[S:b6]] = hetx.buffer 6 "add.2"
// CHECK-NEXT: %[[T:b7]] = hetx.buffer 7 "all_reduce.4"
// CHECK: hetx.launch "add"(%[[A]], %[[B]]) -> (%[[S]])
// CHECK-NEXT: hetx.launch "all_reduce"(%[[S]]) -> (%[[S]]) params {group = array<i64: 0, 1>}
// CHECK-NEXT: hetx.launch "copy"(%[[A]]) -> (%[[T]])
// CHECK-NEXT: hetx.launch "all_reduce"(%[[T]]) -> (%[[T]]) params {group = array<i64: 0, 1>}
// CHECK-NEXT: hetx.launch "send"(%[[T]]) -> () params {peer = 1 : i64, tag = 7 : i64}
// CHECK-NEXT: hetx.launch "add"(%[[S]], %[[T]])
// CHECK-NEXT: hetx.launch "add"(%{{.*}}, %[[A]])
module {
  func.func @r0(%ids0: tensor<1x2xi64> {hetg.name = "input_ids", hetd.first_sample = 4 : i64},
                %ids1: tensor<1x2xi64> {hetg.name = "input_ids", hetd.first_sample = 5 : i64},
                %lab0: tensor<1x2xi64> {hetg.name = "labels", hetd.first_sample = 4 : i64},
                %lab1: tensor<1x2xi64> {hetg.name = "labels", hetd.first_sample = 5 : i64})
      -> (tensor<f32> {hetg.name = "loss"})
      attributes {hetd.rank = 0 : i64, hetd.samples = array<i64: 4, 6>} {
    %a = hetg.cast %ids0 to f32 : tensor<1x2xi64>
    %b = hetg.cast %lab1 to f32 : tensor<1x2xi64>
    %s = hetg.add %a, %b : tensor<1x2xf32>, tensor<1x2xf32>
    %r = hetd.all_reduce %s group [0, 1] : tensor<1x2xf32>
    %t = hetd.all_reduce %a group [0, 1] : tensor<1x2xf32>
    hetd.send %t rows [0, 1) to 1 tag 7 : tensor<1x2xf32>
    %u = hetg.add %r, %t : tensor<1x2xf32>, tensor<1x2xf32>
    %v = hetg.add %u, %a : tensor<1x2xf32>, tensor<1x2xf32>
    %loss = hetg.reduce_sum %v <{axes = array<i64: 0, 1>, keep_dims = false}> : tensor<1x2xf32>
    return %loss : tensor<f32>
  }
}

// -----

// A replica's sharded update: the gradient is reduce-scattered, the
// parameter's shard is a view at its byte offset (5 floats in), the shard's
// state updates in place, and the all-gathered parameter is copied back
// through a reshape, while a flat global takes the all_gather's result
// directly. A global the function does not reference gets no buffer.

// CHECK-LABEL: hetx.program @rank1
// CHECK-SAME: {arena_bytes = {{[0-9]+}} : i64, first_sample = 1 : i64, model_flops = 18 : i64, num_samples = 1 : i64, rank = 1 : i32, replica = 1 : i32}
// CHECK-NEXT: %[[W:b0]] = hetx.buffer 0 "w" parameter at 0 init {{.*}} : memref<4x2xf32>
// CHECK-NEXT: %[[M:b1]] = hetx.buffer 1 "w.momentum" optimizer_state at 64 : memref<3xf32>
// CHECK-NEXT: %[[BIAS:b2]] = hetx.buffer 2 "bias" parameter at 128 init {{.*}} : memref<4xf32>
// CHECK-NEXT: hetx.buffer 3 "input_ids" input(tokens) at {{[0-9]+}} first_sample 1 : memref<1x2xi64>
// CHECK-NEXT: %[[G:b4]] = hetx.buffer 4 "mul.0" activation
// CHECK-NEXT: %[[GFLAT:b5]] = hetx.buffer 5 "reshape.5" activation at {{[0-9]+}} alias %[[G]] : memref<4x2xf32> : memref<8xf32>
// CHECK-NEXT: %[[GSHARD:b6]] = hetx.buffer 6 "reduce_scatter.1" activation
// CHECK-NEXT: %[[WFLAT:b7]] = hetx.buffer 7 "reshape.7" parameter at 0 alias %[[W]] : memref<4x2xf32> : memref<8xf32>
// CHECK-NEXT: %[[WSHARD:b8]] = hetx.buffer 8 "slice.8" parameter at 20 alias %[[W]] : memref<4x2xf32> : memref<3xf32>
// CHECK-NEXT: %[[NEW:b9]] = hetx.buffer 9 "sgd.3" activation
// CHECK-NEXT: %[[FULL:b10]] = hetx.buffer 10 "all_gather.4" activation
// CHECK-NEXT: %[[FULL2D:b11]] = hetx.buffer 11 "reshape.11" activation at {{[0-9]+}} alias %[[FULL]] : memref<8xf32> : memref<4x2xf32>
// CHECK-NEXT: %[[BSHARD:b12]] = hetx.buffer 12 "slice.12" parameter at 140 alias %[[BIAS]] : memref<4xf32> : memref<1xf32>
// CHECK-NEXT: %[[BNEW:b13]] = hetx.buffer 13 "neg.6" activation
// CHECK-NEXT: hetx.launch "mul"(%[[W]], %[[W]]) -> (%[[G]])
// CHECK-NEXT: hetx.launch "reduce_scatter"(%[[GFLAT]]) -> (%[[GSHARD]]) params {counts = array<i64: 5, 3>, group = array<i64: 0, 1>} : (memref<8xf32>) -> (memref<3xf32>)
// CHECK-NEXT: hetx.launch "add"(%[[M]], %[[GSHARD]]) -> (%[[M]])
// CHECK-NEXT: hetx.launch "sgd"(%[[WSHARD]], %[[M]]) -> (%[[NEW]])
// CHECK-NEXT: hetx.launch "all_gather"(%[[NEW]]) -> (%[[FULL]]) params {counts = array<i64: 5, 3>, group = array<i64: 0, 1>} : (memref<3xf32>) -> (memref<8xf32>)
// CHECK-NEXT: hetx.launch "copy"(%[[FULL2D]]) -> (%[[W]])
// CHECK-NEXT: hetx.launch "neg"(%[[BSHARD]]) -> (%[[BNEW]])
// CHECK-NEXT: hetx.launch "all_gather"(%[[BNEW]]) -> (%[[BIAS]]) params {counts = array<i64: 3, 1>, group = array<i64: 0, 1>} : (memref<1xf32>) -> (memref<4xf32>)
// CHECK-NEXT: hetx.return{{$}}
// CHECK-NOT: "other"
module {
  ml_program.global private mutable @w(dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>) : tensor<4x2xf32>
  ml_program.global private mutable @w.momentum(dense<0.0> : tensor<3xf32>) : tensor<3xf32> {hetg.state_of = @w}
  ml_program.global private @other(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private mutable @bias(dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
  func.func @replica1(%ids: tensor<1x2xi64> {hetg.name = "input_ids", hetd.first_sample = 1 : i64})
      attributes {hetd.rank = 1 : i64, hetd.stage = 0 : i64, hetd.replica = 1 : i64,
                  hetd.samples = array<i64: 1, 2>} {
    %w = ml_program.global_load @w : tensor<4x2xf32>
    %g = hetg.mul %w, %w : tensor<4x2xf32>, tensor<4x2xf32>
    %gflat = hetg.reshape %g : tensor<4x2xf32> -> tensor<8xf32>
    %gshard = hetd.reduce_scatter %gflat group [0, 1] counts [5, 3] : tensor<8xf32> -> tensor<3xf32>
    %wflat = hetg.reshape %w : tensor<4x2xf32> -> tensor<8xf32>
    %wshard = hetg.slice %wflat <{starts = array<i64: 5>, ends = array<i64: 8>, steps = array<i64: 1>}> : tensor<8xf32>
    %m = ml_program.global_load @w.momentum : tensor<3xf32>
    %m1 = hetg.add %m, %gshard : tensor<3xf32>, tensor<3xf32>
    ml_program.global_store @w.momentum = %m1 : tensor<3xf32>
    %wshard1 = hetg.sgd %wshard, %m1 <{lr = 1.0e-1 : f64}> : tensor<3xf32>
    %wfull = hetd.all_gather %wshard1 group [0, 1] counts [5, 3] : tensor<3xf32> -> tensor<8xf32>
    %w1 = hetg.reshape %wfull : tensor<8xf32> -> tensor<4x2xf32>
    ml_program.global_store @w = %w1 : tensor<4x2xf32>
    %bias = ml_program.global_load @bias : tensor<4xf32>
    %bshard = hetg.slice %bias <{starts = array<i64: 3>, ends = array<i64: 4>, steps = array<i64: 1>}> : tensor<4xf32>
    %bshard1 = hetg.neg %bshard : tensor<1xf32>
    %bfull = hetd.all_gather %bshard1 group [0, 1] counts [3, 1] : tensor<1xf32> -> tensor<4xf32>
    ml_program.global_store @bias = %bfull : tensor<4xf32>
    return
  }
}

// -----

// A slice view of a global read after the global is stored reads the old
// value, like the load itself: the load takes a copy, and the view views it.

// CHECK-LABEL: hetx.program @rank0
// CHECK: %[[W:b0]] = hetx.buffer 0 "w" parameter at 0
// CHECK: %[[OLD:b2]] = hetx.buffer 2 "w.old" activation at 128 : memref<4xf32>
// CHECK: %[[TAIL:b3]] = hetx.buffer 3 "slice.3" activation at 136 alias %[[OLD]] : memref<4xf32> : memref<2xf32>
// CHECK: hetx.launch "copy"(%[[W]]) -> (%[[OLD]])
// CHECK-NEXT: hetx.launch "neg"(%[[OLD]]) -> (%[[W]])
// CHECK-NEXT: hetx.launch "reduce_sum"(%[[TAIL]])
module {
  ml_program.global private mutable @w(dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %w = ml_program.global_load @w : tensor<4xf32>
    %tail = hetg.slice %w <{starts = array<i64: 2>, ends = array<i64: 4>, steps = array<i64: 1>}> : tensor<4xf32>
    %w1 = hetg.neg %w : tensor<4xf32>
    ml_program.global_store @w = %w1 : tensor<4xf32>
    %loss = hetg.reduce_sum %tail <{axes = array<i64: 0>, keep_dims = false}> : tensor<2xf32>
    return %loss : tensor<f32>
  }
}

// -----

// A slice is a view when its result is one contiguous byte range of its
// input: rows of dimension 0 (bounds clamped as in ONNX), a range of a
// dimension after leading size-1 ones, or everything. Otherwise (a range of
// an inner dimension of several rows, steps other than 1) it is a launch.

// CHECK-LABEL: hetx.program @rank0
// CHECK-NEXT: %[[X:b0]] = hetx.buffer 0 "x" input(feed) at 0 : memref<2x3x4xf32>
// CHECK-NEXT: %[[Y:b1]] = hetx.buffer 1 "y" input(feed) at 128 : memref<1x3x4xf32>
// CHECK-NEXT: hetx.buffer 2 "slice.2" input(feed) at 48 alias %[[X]] : memref<2x3x4xf32> : memref<1x3x4xf32>
// CHECK-NEXT: hetx.buffer 3 "slice.3" input(feed) at 48 alias %[[X]] : memref<2x3x4xf32> : memref<1x3x4xf32>
// CHECK-NEXT: hetx.buffer 4 "slice.4" input(feed) at 0 alias %[[X]] : memref<2x3x4xf32> : memref<2x3x4xf32>
// CHECK-NEXT: hetx.buffer 5 "slice.5" input(feed) at 160 alias %[[Y]] : memref<1x3x4xf32> : memref<1x1x4xf32>
// CHECK-NEXT: %[[INNER:b6]] = hetx.buffer 6 "slice.0" activation
// CHECK-NEXT: %[[STRIDED:b7]] = hetx.buffer 7 "slice.1" activation
// CHECK-NEXT: hetx.launch "slice"(%[[X]]) -> (%[[INNER]]) params {ends = array<i64: 2, 2, 4>, starts = array<i64: 0, 1, 0>, steps = array<i64: 1, 1, 1>}
// CHECK-NEXT: hetx.launch "slice"(%[[Y]]) -> (%[[STRIDED]]) params {ends = array<i64: 1, 3, 4>, starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 2>}
// CHECK-NEXT: hetx.return outputs
module {
  func.func @main(%x: tensor<2x3x4xf32> {hetg.name = "x"}, %y: tensor<1x3x4xf32> {hetg.name = "y"})
      -> (tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<2x3x4xf32>, tensor<1x1x4xf32>, tensor<2x1x4xf32>, tensor<1x3x2xf32>) {
    %row = hetg.slice %x <{starts = array<i64: 1, 0, 0>, ends = array<i64: 2, 3, 4>, steps = array<i64: 1, 1, 1>}> : tensor<2x3x4xf32>
    %clamped = hetg.slice %x <{starts = array<i64: -1, 0, 0>, ends = array<i64: 100, 3, 4>, steps = array<i64: 1, 1, 1>}> : tensor<2x3x4xf32>
    %all = hetg.slice %x <{starts = array<i64: 0, 0, 0>, ends = array<i64: 2, 3, 4>, steps = array<i64: 1, 1, 1>}> : tensor<2x3x4xf32>
    %inner = hetg.slice %y <{starts = array<i64: 0, 2, 0>, ends = array<i64: 1, 3, 4>, steps = array<i64: 1, 1, 1>}> : tensor<1x3x4xf32>
    %column = hetg.slice %x <{starts = array<i64: 0, 1, 0>, ends = array<i64: 2, 2, 4>, steps = array<i64: 1, 1, 1>}> : tensor<2x3x4xf32>
    %strided = hetg.slice %y <{starts = array<i64: 0, 0, 0>, ends = array<i64: 1, 3, 4>, steps = array<i64: 1, 1, 2>}> : tensor<1x3x4xf32>
    return %row, %clamped, %all, %inner, %column, %strided : tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<2x3x4xf32>, tensor<1x1x4xf32>, tensor<2x1x4xf32>, tensor<1x3x2xf32>
  }
}

// -----

// An evaluation copy (hetd.eval) becomes @rank0_eval in the arena of the
// step's program: the parameter at the step's offset, the inputs and
// activations past the step's parameters and state ([0, 88) here), its own
// constant past the step's arena (512), nothing written over the state.

// CHECK-LABEL: hetx.program @rank0 attributes {arena_bytes = 512 : i64
// CHECK: hetx.buffer 0 "w" parameter at 0
// CHECK: hetx.buffer 1 "w.m" optimizer_state at 64
// CHECK-LABEL: hetx.program @rank0_eval attributes {arena_bytes = 576 : i64, eval,
// CHECK-NEXT: %[[W:b0]] = hetx.buffer 0 "w" parameter at 0
// CHECK-NEXT: hetx.buffer 1 "input_ids" input(tokens) at 128
// CHECK-NEXT: hetx.buffer 2 "labels" input(labels) at 192
// CHECK-NEXT: hetx.buffer 3 "gather.0" activation at 256
// CHECK-NEXT: hetx.buffer 4 "constant.0" constant at 512
// CHECK-NOT: w.m
// CHECK-NOT: -> (%[[W]])
// CHECK: hetx.return
module {
  ml_program.global private mutable @w(dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>) : tensor<3x2xf32>
  ml_program.global private mutable @w.m(dense<0.0> : tensor<3x2xf32>) : tensor<3x2xf32> {hetg.state_of = @w}
  func.func @step(%ids: tensor<2x4xi64> {hetg.name = "input_ids"},
                  %labels: tensor<2x4xi64> {hetg.name = "labels"}) -> (tensor<f32> {hetg.name = "loss"}) {
    %w = ml_program.global_load @w : tensor<3x2xf32>
    %m = ml_program.global_load @w.m : tensor<3x2xf32>
    %e = hetg.gather %w[%ids] <{axis = 0 : i64}> : tensor<3x2xf32>, tensor<2x4xi64>
    %y = hetg.matmul %e, %w <{transpose_rhs}> : tensor<2x4x2xf32>, tensor<3x2xf32>
    %r = hetg.reshape %y : tensor<2x4x3xf32> -> tensor<8x3xf32>
    %l = hetg.reshape %labels : tensor<2x4xi64> -> tensor<8xi64>
    %loss = hetg.cross_entropy %r, %l <{reduction = #hetg<loss_reduction mean>}> : tensor<8x3xf32>, tensor<8xi64>
    %w2 = hetg.add %w, %m : tensor<3x2xf32>, tensor<3x2xf32>
    ml_program.global_store @w = %w2 : tensor<3x2xf32>
    ml_program.global_store @w.m = %w : tensor<3x2xf32>
    return %loss : tensor<f32>
  }
  func.func @step_eval(%ids: tensor<2x4xi64> {hetg.name = "input_ids"},
                       %labels: tensor<2x4xi64> {hetg.name = "labels"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.eval} {
    %w = ml_program.global_load @w : tensor<3x2xf32>
    %e = hetg.gather %w[%ids] <{axis = 0 : i64}> : tensor<3x2xf32>, tensor<2x4xi64>
    %c = hetg.constant dense<2.0> : tensor<2x4x2xf32>
    %s = hetg.mul %e, %c : tensor<2x4x2xf32>, tensor<2x4x2xf32>
    %y = hetg.matmul %s, %w <{transpose_rhs}> : tensor<2x4x2xf32>, tensor<3x2xf32>
    %r = hetg.reshape %y : tensor<2x4x3xf32> -> tensor<8x3xf32>
    %l = hetg.reshape %labels : tensor<2x4xi64> -> tensor<8xi64>
    %loss = hetg.cross_entropy %r, %l <{reduction = #hetg<loss_reduction mean>}> : tensor<8x3xf32>, tensor<8xi64>
    return %loss : tensor<f32>
  }
}

// -----

// Two offloaded pieces: the host copies the second piece while it updates
// the first (runtime/exec/HostPipeline.h), so the first piece's staging
// stays live until the host's next kernel, the second update, and the
// second piece stages in other bytes: the state at 0 to 256, the step
// count at 256, the first piece at 320 to 512, the second at 512 to 704.

// CHECK-LABEL: hetx.program @rank0 attributes {
// CHECK-SAME: host_arena_bytes = 704 : i64
// CHECK-DAG: %[[PH:b[0-9]+]] = hetx.buffer {{[0-9]+}} "copy.{{[0-9]+}}" activation host at 320 : memref<2xf32>
// CHECK-DAG: %[[PG:b[0-9]+]] = hetx.buffer {{[0-9]+}} "copy.{{[0-9]+}}" activation host at 384 : memref<2xf32>
// CHECK-DAG: %[[PNEW:b[0-9]+]] = hetx.buffer {{[0-9]+}} "adamw.{{[0-9.]+}}" activation host at 448 : memref<2xf32>
// CHECK-DAG: %[[QH:b[0-9]+]] = hetx.buffer {{[0-9]+}} "copy.{{[0-9]+}}" activation host at 512 : memref<2xf32>
// CHECK-DAG: %[[QG:b[0-9]+]] = hetx.buffer {{[0-9]+}} "copy.{{[0-9]+}}" activation host at 576 : memref<2xf32>
// CHECK-DAG: %[[QNEW:b[0-9]+]] = hetx.buffer {{[0-9]+}} "adamw.{{[0-9.]+}}" activation host at 640 : memref<2xf32>
// CHECK: hetx.launch "adamw"(%[[PH]], %[[PG]], {{.*}}) -> (%[[PNEW]],
// CHECK: hetx.launch "adamw"(%[[QH]], %[[QG]], {{.*}}) -> (%[[QNEW]],
module {
  ml_program.global private mutable @p(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private mutable @q(dense<[3.0, 4.0]> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private mutable @p.adam_m(dense<0.0> : tensor<2xf32>) : tensor<2xf32> {hetd.host, hetg.state_of = @p}
  ml_program.global private mutable @p.adam_v(dense<0.0> : tensor<2xf32>) : tensor<2xf32> {hetd.host, hetg.state_of = @p}
  ml_program.global private mutable @q.adam_m(dense<0.0> : tensor<2xf32>) : tensor<2xf32> {hetd.host, hetg.state_of = @q}
  ml_program.global private mutable @q.adam_v(dense<0.0> : tensor<2xf32>) : tensor<2xf32> {hetd.host, hetg.state_of = @q}
  ml_program.global private mutable @optimizer.step(dense<0> : tensor<i64>) : tensor<i64>
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %t = ml_program.global_load @optimizer.step : tensor<i64>
    %one = hetg.constant dense<1> : tensor<i64>
    %t1 = hetg.add %t, %one : tensor<i64>, tensor<i64>
    ml_program.global_store @optimizer.step = %t1 : tensor<i64>
    %p = ml_program.global_load @p : tensor<2xf32>
    %q = ml_program.global_load @q : tensor<2xf32>
    %pq = hetg.mul %p, %q : tensor<2xf32>, tensor<2xf32>
    %loss = hetg.reduce_sum %pq <{axes = array<i64: 0>, keep_dims = false}> : tensor<2xf32>
    %th = hetd.to_host %t1 : tensor<i64>
    %pm = ml_program.global_load @p.adam_m : tensor<2xf32>
    %pv = ml_program.global_load @p.adam_v : tensor<2xf32>
    %ph = hetd.to_host %p : tensor<2xf32>
    %pg = hetd.to_host %q : tensor<2xf32>
    %p1, %pm1, %pv1 = hetg.adamw %ph, %pg, %pm, %pv, %th <{lr = 1.0e-3 : f64, weight_decay = 0.0 : f64}> : tensor<2xf32>, tensor<i64>
    %pd = hetd.to_device %p1 : tensor<2xf32>
    ml_program.global_store @p = %pd : tensor<2xf32>
    ml_program.global_store @p.adam_m = %pm1 : tensor<2xf32>
    ml_program.global_store @p.adam_v = %pv1 : tensor<2xf32>
    %qm = ml_program.global_load @q.adam_m : tensor<2xf32>
    %qv = ml_program.global_load @q.adam_v : tensor<2xf32>
    %qh = hetd.to_host %q : tensor<2xf32>
    %qg = hetd.to_host %p : tensor<2xf32>
    %q1, %qm1, %qv1 = hetg.adamw %qh, %qg, %qm, %qv, %th <{lr = 1.0e-3 : f64, weight_decay = 0.0 : f64}> : tensor<2xf32>, tensor<i64>
    %qd = hetd.to_device %q1 : tensor<2xf32>
    ml_program.global_store @q = %qd : tensor<2xf32>
    ml_program.global_store @q.adam_m = %qm1 : tensor<2xf32>
    ml_program.global_store @q.adam_v = %qv1 : tensor<2xf32>
    return %loss : tensor<f32>
  }
}
