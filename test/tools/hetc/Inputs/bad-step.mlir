// A train step that stores one global twice, which a program cannot do.
module {
  ml_program.global private mutable @w(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %w = ml_program.global_load @w : tensor<2xf32>
    %a = hetg.neg %w : tensor<2xf32>
    ml_program.global_store @w = %a : tensor<2xf32>
    ml_program.global_store @w = %w : tensor<2xf32>
    %loss = hetg.reduce_sum %a <{axes = array<i64: 0>, keep_dims = false}> : tensor<2xf32>
    return %loss : tensor<f32>
  }
}
