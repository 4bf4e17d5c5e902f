// RUN: hetc-opt %s --split-input-file --hetg-segment --verify-diagnostics

// expected-error @+1 {{hetg-segment needs @logits to return one 0-D float loss; run hetg-attach-loss first}}
func.func @logits(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  return %x : tensor<2x3xf32>
}

// -----

// expected-error @+1 {{hetg-segment needs static shapes, but argument 0 has type 'tensor<?x3xf32>'; run hetg-simplify first}}
func.func @dynamic(%x: tensor<?x3xf32>) -> tensor<f32> {
  %l = hetg.reduce_sum %x <{axes = array<i64: 0, 1>, keep_dims = false}> : tensor<?x3xf32>
  return %l : tensor<f32>
}

// -----

func.func private @opaque(tensor<2x3xf32>) -> tensor<2x3xf32>

func.func @call(%x: tensor<2x3xf32>) -> tensor<f32> {
  // expected-error @+1 {{'func.call' has no cost model (hetg ops and ml_program global loads only)}}
  %y = func.call @opaque(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %l = hetg.reduce_sum %y <{axes = array<i64: 0, 1>, keep_dims = false}> : tensor<2x3xf32>
  return %l : tensor<f32>
}
