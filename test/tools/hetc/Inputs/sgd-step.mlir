// A hand-written single-rank train step: embedding, projection, mean
// cross-entropy, and an SGD update of both parameters.
module {
  ml_program.global private mutable @wte.weight(dense<[[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [0.7, 0.8]]> : tensor<4x2xf32>) : tensor<4x2xf32>
  ml_program.global private mutable @proj.weight(dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, -0.5]]> : tensor<4x2xf32>) : tensor<4x2xf32>
  func.func @main(%ids: tensor<2x3xi64> {hetg.name = "input_ids"},
                  %labels: tensor<2x3xi64> {hetg.name = "labels"}) -> tensor<f32> {
    %wte = ml_program.global_load @wte.weight : tensor<4x2xf32>
    %proj = ml_program.global_load @proj.weight : tensor<4x2xf32>
    %e = hetg.gather %wte[%ids] <{axis = 0 : i64}> : tensor<4x2xf32>, tensor<2x3xi64>
    %logits = hetg.matmul %e, %proj <{transpose_rhs}> : tensor<2x3x2xf32>, tensor<4x2xf32>
    %flat = hetg.reshape %logits : tensor<2x3x4xf32> -> tensor<6x4xf32>
    %y = hetg.reshape %labels : tensor<2x3xi64> -> tensor<6xi64>
    %loss = hetg.cross_entropy %flat, %y <{reduction = #hetg<loss_reduction mean>}> : tensor<6x4xf32>, tensor<6xi64>
    %one = hetg.constant dense<1.0> : tensor<f32>
    %dflat = hetg.cross_entropy_grad %flat, %y, %one <{reduction = #hetg<loss_reduction mean>}> : tensor<6x4xf32>, tensor<6xi64>, tensor<f32>
    %dlogits = hetg.reshape %dflat : tensor<6x4xf32> -> tensor<2x3x4xf32>
    %de = hetg.matmul %dlogits, %proj : tensor<2x3x4xf32>, tensor<4x2xf32>
    %dproj3 = hetg.matmul %dlogits, %e <{transpose_lhs}> : tensor<2x3x4xf32>, tensor<2x3x2xf32>
    %dproj = hetg.reduce_sum %dproj3 <{axes = array<i64: 0>, keep_dims = false}> : tensor<2x4x2xf32>
    %dwte = hetg.gather_grad %de[%ids] <{axis = 0 : i64}> : tensor<2x3x2xf32>, tensor<2x3xi64> -> tensor<4x2xf32>
    %wte1 = hetg.sgd %wte, %dwte <{lr = 1.0e-1 : f64}> : tensor<4x2xf32>
    %proj1 = hetg.sgd %proj, %dproj <{lr = 1.0e-1 : f64}> : tensor<4x2xf32>
    ml_program.global_store @wte.weight = %wte1 : tensor<4x2xf32>
    ml_program.global_store @proj.weight = %proj1 : tensor<4x2xf32>
    return %loss : tensor<f32>
  }
}
