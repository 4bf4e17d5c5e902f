// RUN: hetc-opt %s --split-input-file --hetx-lower-to-program --verify-diagnostics

// An op the lowering cannot turn into a launch is an error at that op.
module {
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    // expected-error @+1 {{'tensor.empty' op cannot be lowered into a hetx program; only hetg ops, hetd communication and transfers, ml_program global accesses and func.return can}}
    %e = tensor.empty() : tensor<f32>
    return %e : tensor<f32>
  }
}

// -----

// One train-step function per module.
module {
  // expected-note @+1 {{the first function is here}}
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
  // expected-error @+1 {{'func.func' op is a second function; hetx-lower-to-program lowers a module holding one train-step function or rank functions (hetd.rank)}}
  func.func @other() {
    return
  }
}

// -----

// Labels without tokens are no train step.
module {
  // expected-error @+1 {{'func.func' op has labels but no argument named input_ids (hetg.name); a train step reads its tokens from one}}
  func.func @main(%labels: tensor<1x2xi64> {hetg.name = "labels"}) -> tensor<f32> {
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
}

// -----

// Shapes must be static.
module {
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}, %x: tensor<?x2xf32> {hetg.name = "labels"}) -> tensor<f32> {
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
}
// expected-error @-5 {{argument 1 ('labels') has type 'tensor<?x2xf32>'; a program needs static ranked tensors (run hetg-simplify with the batch and sequence length first)}}

// -----

// The step returns its scalar f32 loss first.
module {
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> (tensor<2xf32>, tensor<f32>) {
    %c = hetg.constant dense<1.0> : tensor<2xf32>
    %l = hetg.constant dense<1.0> : tensor<f32>
    // expected-error @+1 {{'func.return' op returns 'tensor<2xf32>', 'tensor<f32>'; a step returns its loss (tensor<f32>) first}}
    return %c, %l : tensor<2xf32>, tensor<f32>
  }
}

// -----

module {
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) {
    // expected-error @+1 {{'func.return' op returns ; a step returns its loss (tensor<f32>) first}}
    return
  }
}

// -----

// Each global is stored at most once per step.
module {
  ml_program.global private mutable @w(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %w = ml_program.global_load @w : tensor<2xf32>
    %a = hetg.neg %w : tensor<2xf32>
    // expected-note @+1 {{the first store is here}}
    ml_program.global_store @w = %a : tensor<2xf32>
    // expected-error @+1 {{'ml_program.global_store' op stores @w a second time in one step; a program updates each global once}}
    ml_program.global_store @w = %w : tensor<2xf32>
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
}

// -----

// Mutable integer globals are optimizer state, which starts at zero.
module {
  // expected-error @+1 {{'ml_program.global' op is mutable and starts at a non-zero splat or integer value; trained parameters are float tensors with data and optimizer state starts at zero}}
  ml_program.global private mutable @count(dense<[1, 2]> : tensor<2xi64>) : tensor<2xi64>
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
}

// -----

module {
  // expected-error @+1 {{'ml_program.global' op is optimizer state (hetg.state_of) but does not start at zero}}
  ml_program.global private mutable @m(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32> {hetg.state_of = @w}
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
}

// -----

// Element types without a package dtype are rejected.
module {
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    // expected-error @+1 {{the constant has element type 'i16', which no package dtype holds}}
    %c = hetg.constant dense<1> : tensor<2xi16>
    %d = hetg.constant dense<1.0> : tensor<f32>
    return %d : tensor<f32>
  }
}

// -----

// The module holds globals and functions only, and at least one function
// with a body.
module {
  // expected-error @+1 {{'hetx.program' op cannot be lowered into a hetx program; the module may hold only ml_program globals and func.funcs}}
  hetx.program @rank0 attributes {rank = 0 : i32, arena_bytes = 4 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
    %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
    hetx.return %l : memref<f32>
  }
}

// -----

// expected-error @+1 {{the module has no function to lower}}
module {
  ml_program.global private @w(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
}

// -----

module {
  // expected-error @+1 {{'func.func' op is only a declaration; a program lowers a function with a body}}
  func.func private @main(tensor<1x2xi64>) -> tensor<f32>
}

// -----

// A program is straight-line code.
module {
  // expected-error @+1 {{'func.func' op must have a single block to lower into a straight-line program}}
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %c = hetg.constant dense<1.0> : tensor<f32>
    cf.br ^next
  ^next:
    return %c : tensor<f32>
  }
}

// -----

// A train step reads one batch of tokens and labels.
module {
  // expected-error @+1 {{'func.func' op argument 1 ('input_ids') repeats the input 'input_ids'}}
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}, %more: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
}

// -----

// Once functions are marked with ranks, every function must be one: the
// stage functions they call are inlined and dropped first.
module {
  func.func @rank0() attributes {hetd.rank = 0 : i64, hetd.samples = array<i64: 0, 1>} {
    func.call @stage0_forward() : () -> ()
    return
  }
  // expected-error @+1 {{'func.func' op is not a rank function (no hetd.rank) in a module of rank functions; run the inliner and symbol-dce first}}
  func.func private @stage0_forward() {
    return
  }
}

// -----

module {
  // expected-note @+1 {{the first function of that rank is here}}
  func.func @a() attributes {hetd.rank = 1 : i64, hetd.samples = array<i64: 0, 1>} {
    return
  }
  // expected-error @+1 {{'func.func' op is a second function of rank 1}}
  func.func @b() attributes {hetd.rank = 1 : i64, hetd.samples = array<i64: 0, 1>} {
    return
  }
}

// -----

// The placement attributes have their types.
module {
  // expected-error @+1 {{'func.func' op hetd.rank must be a non-negative 32-bit integer, got -1 : i64}}
  func.func @a() attributes {hetd.rank = -1 : i64, hetd.samples = array<i64: 0, 1>} {
    return
  }
}

// -----

module {
  // expected-error @+1 {{'func.func' op hetd.replica must be a non-negative 32-bit integer, got "one"}}
  func.func @a() attributes {hetd.rank = 0 : i64, hetd.replica = "one", hetd.samples = array<i64: 0, 1>} {
    return
  }
}

// -----

module {
  // expected-error @+1 {{'func.func' op hetd.device must be a string, got 3 : i64}}
  func.func @a() attributes {hetd.rank = 0 : i64, hetd.device = 3 : i64, hetd.samples = array<i64: 0, 1>} {
    return
  }
}

// -----

module {
  // expected-error @+1 {{'func.func' op needs hetd.samples = array<i64: first, end> with 0 <= first <= end: the rank's samples of the global batch}}
  func.func @a() attributes {hetd.rank = 0 : i64} {
    return
  }
}

// -----

module {
  // expected-error @+1 {{'func.func' op needs hetd.samples = array<i64: first, end> with 0 <= first <= end: the rank's samples of the global batch}}
  func.func @a() attributes {hetd.rank = 0 : i64, hetd.samples = array<i64: 2, 1>} {
    return
  }
}

// -----

// A rank's micro-batches are samples of its range.
module {
  // expected-error @+1 {{'func.func' op argument 1 ('labels') holds samples [3, 5) (hetd.first_sample), outside the rank's samples [2, 4) (hetd.samples)}}
  func.func @a(%ids: tensor<2x3xi64> {hetg.name = "input_ids", hetd.first_sample = 2 : i64},
               %labels: tensor<2x3xi64> {hetg.name = "labels", hetd.first_sample = 3 : i64})
      attributes {hetd.rank = 0 : i64, hetd.samples = array<i64: 2, 4>} {
    return
  }
}

// -----

// A rank function returns its loss or nothing.
module {
  func.func @a(%x: tensor<2xf32> {hetg.name = "x"}) -> tensor<2xf32>
      attributes {hetd.rank = 0 : i64, hetd.samples = array<i64: 0, 1>} {
    // expected-error @+1 {{'func.return' op returns 'tensor<2xf32>'; a rank function returns its loss (one tensor<f32> result named loss) or nothing}}
    return %x : tensor<2xf32>
  }
}

// -----

module {
  func.func @a(%x: tensor<f32> {hetg.name = "x"}) -> tensor<f32>
      attributes {hetd.rank = 0 : i64, hetd.samples = array<i64: 0, 1>} {
    // expected-error @+1 {{'func.return' op returns 'tensor<f32>'; a rank function returns its loss (one tensor<f32> result named loss) or nothing}}
    return %x : tensor<f32>
  }
}

// -----

// An evaluation reads only what the step of its rank holds.
module {
  ml_program.global private mutable @w(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
  // expected-error@below {{the evaluation reads parameter 'v' of type 'memref<2xf32>', which the training program of rank 0 does not hold}}
  ml_program.global private mutable @v(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
  func.func @rank0() attributes {hetd.rank = 0 : i64, hetd.samples = array<i64: 0, 1>} {
    %w = ml_program.global_load @w : tensor<2xf32>
    %n = hetg.neg %w : tensor<2xf32>
    ml_program.global_store @w = %n : tensor<2xf32>
    return
  }
  func.func @rank0_eval() -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.eval, hetd.rank = 0 : i64, hetd.samples = array<i64: 0, 1>} {
    %v = ml_program.global_load @v : tensor<2xf32>
    %s = hetg.reduce_sum %v <{axes = array<i64: 0>, keep_dims = false}> : tensor<2xf32>
    return %s : tensor<f32>
  }
}

// -----

module {
  func.func @rank0() attributes {hetd.rank = 0 : i64, hetd.samples = array<i64: 0, 1>} {
    return
  }
  // expected-error@below {{evaluates rank 1 (hetd.rank), which no rank function has}}
  func.func @rank1_eval() attributes {hetd.eval, hetd.rank = 1 : i64, hetd.samples = array<i64: 0, 1>} {
    return
  }
}

// -----

module {
  func.func @rank0() attributes {hetd.rank = 0 : i64, hetd.samples = array<i64: 0, 1>} {
    return
  }
  // expected-note@below {{the first one is here}}
  func.func @rank0_eval() attributes {hetd.eval, hetd.rank = 0 : i64, hetd.samples = array<i64: 0, 1>} {
    return
  }
  // expected-error@below {{is a second evaluation (hetd.eval) of @rank0}}
  func.func @rank0_eval2() attributes {hetd.eval, hetd.rank = 0 : i64, hetd.samples = array<i64: 0, 1>} {
    return
  }
}

// -----

// A host op reads host values only: the device's go through hetd.to_host.
module {
  ml_program.global private mutable @m(dense<0.0> : tensor<4xf32>) : tensor<4xf32> {hetd.host, hetg.state_of = @w}
  ml_program.global private mutable @w(dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %m = ml_program.global_load @m : tensor<4xf32>
    %w = ml_program.global_load @w : tensor<4xf32>
    // expected-error @+1 {{'hetg.add' op reads host and device values; copy them to one side first (hetd.to_host, hetd.to_device)}}
    %s = hetg.add %m, %w : tensor<4xf32>, tensor<4xf32>
    ml_program.global_store @m = %s : tensor<4xf32>
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
}

// -----

// Only optimizer state lives on the host.
module {
  // expected-error @+1 {{'ml_program.global' op lives on the host (hetd.host) but is no optimizer state; only optimizer state is offloaded}}
  ml_program.global private @w(dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) : tensor<4xf32> {hetd.host}
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
}

// -----

// A transfer moves a value to the other side.
module {
  ml_program.global private mutable @m(dense<0.0> : tensor<4xf32>) : tensor<4xf32> {hetd.host, hetg.state_of = @m}
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %m = ml_program.global_load @m : tensor<4xf32>
    // expected-error @+1 {{'hetd.to_host' op copies a value that is already on the host}}
    %h = hetd.to_host %m : tensor<4xf32>
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
}

// -----

// Ranks exchange device values only.
module {
  ml_program.global private mutable @m(dense<0.0> : tensor<4xf32>) : tensor<4xf32> {hetd.host, hetg.state_of = @m}
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %m = ml_program.global_load @m : tensor<4xf32>
    // expected-error @+1 {{'hetd.all_reduce' op communicates host values; ranks exchange device values only}}
    %s = hetd.all_reduce %m group [0] : tensor<4xf32>
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
}

// -----

// A host op's result stays on the host: storing it into a device global
// needs a transfer.
module {
  ml_program.global private mutable @m(dense<0.0> : tensor<4xf32>) : tensor<4xf32> {hetd.host, hetg.state_of = @m}
  ml_program.global private mutable @w(dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %m = ml_program.global_load @m : tensor<4xf32>
    // expected-error @+1 {{'hetg.neg' op writes a global on the device from the host; copy the value across first}}
    %n = hetg.neg %m : tensor<4xf32>
    ml_program.global_store @w = %n : tensor<4xf32>
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
}
