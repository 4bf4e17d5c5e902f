// RUN: hetc-opt %s --canonicalize --split-input-file | FileCheck %s

// The folders of reductions and transformer ops on constants, against
// numbers worked out by hand (in comments). These folders are the reference
// semantics the gradient checks evaluate graphs with.

// CHECK-LABEL: func.func @reductions
func.func @reductions() -> (tensor<2x1xf64>, tensor<3xf64>, tensor<f64>, tensor<2xf64>) {
  %x = hetg.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf64>
  // CHECK-DAG: hetg.constant dense<{{\[\[}}6.000000e+00], [1.500000e+01]]> : tensor<2x1xf64>
  %s = hetg.reduce_sum %x <{axes = array<i64: 1>}> : tensor<2x3xf64>
  // CHECK-DAG: hetg.constant dense<[5.000000e+00, 7.000000e+00, 9.000000e+00]> : tensor<3xf64>
  %c = hetg.reduce_sum %x <{axes = array<i64: 0>, keep_dims = false}> : tensor<2x3xf64>
  // CHECK-DAG: hetg.constant dense<3.500000e+00> : tensor<f64>
  %m = hetg.reduce_mean %x <{axes = array<i64: 0, 1>, keep_dims = false}> : tensor<2x3xf64>
  // CHECK-DAG: hetg.constant dense<[3.000000e+00, 6.000000e+00]> : tensor<2xf64>
  %x2 = hetg.reduce_max %x <{axes = array<i64: 1>, keep_dims = false}> : tensor<2x3xf64>
  return %s, %c, %m, %x2 : tensor<2x1xf64>, tensor<3xf64>, tensor<f64>, tensor<2xf64>
}

// -----

// CHECK-LABEL: func.func @minimum_maximum
func.func @minimum_maximum() -> (tensor<3xf64>, tensor<3xi64>, tensor<2xf64>) {
  %x = hetg.constant dense<[1.0, 5.0, -2.0]> : tensor<3xf64>
  %two = hetg.constant dense<2.0> : tensor<f64>
  // CHECK-DAG: hetg.constant dense<[1.000000e+00, 2.000000e+00, -2.000000e+00]> : tensor<3xf64>
  %lo = hetg.minimum %x, %two : tensor<3xf64>, tensor<f64>
  %i = hetg.constant dense<[1, 5, -2]> : tensor<3xi64>
  %j = hetg.constant dense<2> : tensor<i64>
  // CHECK-DAG: hetg.constant dense<[2, 5, 2]> : tensor<3xi64>
  %hi = hetg.maximum %i, %j : tensor<3xi64>, tensor<i64>
  // NaN wins, as in torch.minimum.
  // CHECK-DAG: hetg.constant dense<[0x7FF8000000000000, 1.000000e+00]> : tensor<2xf64>
  %n = hetg.constant dense<[0x7FF8000000000000, 1.0]> : tensor<2xf64>
  %one = hetg.constant dense<1.0> : tensor<f64>
  %nm = hetg.minimum %n, %one : tensor<2xf64>, tensor<f64>
  return %lo, %hi, %nm : tensor<3xf64>, tensor<3xi64>, tensor<2xf64>
}

// -----

// ln 2 = 0.693..., ln 3 = 1.0986...: softmax of [0, ln 2] is [1/3, 2/3], of
// [0, ln 3] is [1/4, 3/4]; of [ln 2, ln 3] is [2/5, 3/5].

// CHECK-LABEL: func.func @softmax
func.func @softmax() -> (tensor<2x2xf64>, tensor<2x2xf64>, tensor<2xf64>) {
  %x = hetg.constant dense<[[0.0, 0.69314718055994529], [0.0, 1.0986122886681098]]> : tensor<2x2xf64>
  // CHECK-DAG: hetg.constant dense<{{\[\[}}0.33333333333333{{[0-9]*}}, 0.66666666666666{{[0-9]*}}], [2.500000e-01, 7.500000e-01]]> : tensor<2x2xf64>
  %rows = hetg.softmax %x <{axis = 1 : i64}> : tensor<2x2xf64>
  // CHECK-DAG: hetg.constant dense<{{\[\[}}5.000000e-01, {{0.4000000000000[0-9]*|4.000000e-01}}], [5.000000e-01, {{0.6000000000000[0-9]*|0.5999999999999[0-9]*}}]]> : tensor<2x2xf64>
  %cols = hetg.softmax %x <{axis = 0 : i64}> : tensor<2x2xf64>
  // log(1/4) = -1.386294..., log(3/4) = -0.287682...
  // CHECK-DAG: hetg.constant dense<[-1.38629436111989{{[0-9]*}}, -0.28768207245178{{[0-9]*}}]> : tensor<2xf64>
  %y = hetg.constant dense<[0.0, 1.0986122886681098]> : tensor<2xf64>
  %l = hetg.log_softmax %y <{axis = 0 : i64}> : tensor<2xf64>
  return %rows, %cols, %l : tensor<2x2xf64>, tensor<2x2xf64>, tensor<2xf64>
}

// -----

// [1, 2, 3, 4]: mean 2.5, variance 1.25, so x^ = (x - 2.5) / sqrt(1.25) =
// [-1.3416, -0.4472, 0.4472, 1.3416]; scale [1, 1, 2, 2], bias [0, 0, 0, 1].
// RMS of [3, 4] is sqrt(12.5) = 3.5355: [0.8485, 1.1314], scaled by [2, 0.5].

// CHECK-LABEL: func.func @norms
func.func @norms() -> (tensor<2x4xf64>, tensor<4xf64>, tensor<2xf64>) {
  %x = hetg.constant dense<[[1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0]]> : tensor<2x4xf64>
  %w = hetg.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf64>
  %b = hetg.constant dense<[0.0, 0.0, 0.0, 1.0]> : tensor<4xf64>
  // CHECK-DAG: hetg.constant dense<{{\[\[}}-1.34164078649987{{[0-9]*}}, -0.44721359549995{{[0-9]*}}, 0.89442719099991{{[0-9]*}}, 3.68328157299974{{[0-9]*}}], [1.34164078649987{{[0-9]*}}, 0.44721359549995{{[0-9]*}}, -0.89442719099991{{[0-9]*}}, -1.68328157299974{{[0-9]*}}]]> : tensor<2x4xf64>
  %ln = hetg.layer_norm %x scale %w : tensor<4xf64> bias %b : tensor<4xf64> <{axis = 1 : i64, epsilon = 0.0 : f32}> : tensor<2x4xf64>
  // Over both dimensions: mean 2.5, variance 1.25 again.
  // CHECK-DAG: hetg.constant dense<[-1.34164078649987{{[0-9]*}}, -0.44721359549995{{[0-9]*}}, 0.44721359549995{{[0-9]*}}, 1.34164078649987{{[0-9]*}}]> : tensor<4xf64>
  %v = hetg.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf64>
  %ln0 = hetg.layer_norm %v <{axis = 0 : i64, epsilon = 0.0 : f32}> : tensor<4xf64>
  // CHECK-DAG: hetg.constant dense<[1.69705627484771{{[0-9]*}}, 0.56568542494923{{[0-9]*}}]> : tensor<2xf64>
  %r = hetg.constant dense<[3.0, 4.0]> : tensor<2xf64>
  %s = hetg.constant dense<[2.0, 0.5]> : tensor<2xf64>
  %rms = hetg.rms_norm %r scale %s : tensor<2xf64> <{epsilon = 0.0 : f32}> : tensor<2xf64>
  return %ln, %ln0, %rms : tensor<2x4xf64>, tensor<4xf64>, tensor<2xf64>
}

// -----

// CHECK-LABEL: func.func @matmul
func.func @matmul() -> (tensor<2x2xf64>, tensor<2x2xf64>, tensor<2x2x2xf64>) {
  %a = hetg.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  %b = hetg.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf64>
  %c = hetg.constant dense<[1.0, -1.0]> : tensor<2xf64>
  // [[1*5+2*7, 1*6+2*8], [3*5+4*7, 3*6+4*8]] = [[19, 22], [43, 50]], plus [1, -1].
  // CHECK-DAG: hetg.constant dense<{{\[\[}}2.000000e+01, 2.100000e+01], [4.400000e+01, 4.900000e+01]]> : tensor<2x2xf64>
  %0 = hetg.matmul %a, %b bias %c : tensor<2xf64> : tensor<2x2xf64>, tensor<2x2xf64>
  // a^T b^T = (b a)^T: b a = [[23, 34], [31, 46]].
  // CHECK-DAG: hetg.constant dense<{{\[\[}}2.300000e+01, 3.100000e+01], [3.400000e+01, 4.600000e+01]]> : tensor<2x2xf64>
  %1 = hetg.matmul %a, %b <{transpose_lhs, transpose_rhs}> : tensor<2x2xf64>, tensor<2x2xf64>
  // A batch of [a, b] times the shared a: [a a, b a] = [[7, 10], [15, 22]], [[23, 34], [31, 46]].
  // CHECK-DAG: hetg.constant dense<{{\[\[\[}}7.000000e+00, 1.000000e+01], [1.500000e+01, 2.200000e+01]], {{\[\[}}2.300000e+01, 3.400000e+01], [3.100000e+01, 4.600000e+01]]]> : tensor<2x2x2xf64>
  %ab = hetg.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]> : tensor<2x2x2xf64>
  %2 = hetg.matmul %ab, %a : tensor<2x2x2xf64>, tensor<2x2xf64>
  return %0, %1, %2 : tensor<2x2xf64>, tensor<2x2xf64>, tensor<2x2x2xf64>
}

// -----

// q = k = I, v = [[1, 2], [3, 4]], scale 1: each query's probabilities are
// a = e / (e + 1) = 0.731 on its own key, b = 1 / (e + 1) = 0.269 on the other.
// Causal: query 0 sees only key 0.

// CHECK-LABEL: func.func @attention
func.func @attention() -> (tensor<1x2x2xf64>, tensor<1x2x2xf64>, tensor<1x2x2xf64>) {
  %i = hetg.constant dense<[[[1.0, 0.0], [0.0, 1.0]]]> : tensor<1x2x2xf64>
  %v = hetg.constant dense<[[[1.0, 2.0], [3.0, 4.0]]]> : tensor<1x2x2xf64>
  // CHECK-DAG: hetg.constant dense<{{\[\[\[}}1.53788284273999{{[0-9]*}}, 2.53788284273999{{[0-9]*}}], [2.4621171572600{{[0-9]*}}, 3.4621171572600{{[0-9]*}}]]]> : tensor<1x2x2xf64>
  %0 = hetg.attention %i, %i, %v <{scale = 1.0 : f32}> : tensor<1x2x2xf64>, tensor<1x2x2xf64>, tensor<1x2x2xf64>
  // CHECK-DAG: %[[CAUSAL:.*]] = hetg.constant dense<{{\[\[\[}}1.000000e+00, 2.000000e+00], [2.4621171572600{{[0-9]*}}, 3.4621171572600{{[0-9]*}}]]]> : tensor<1x2x2xf64>
  %1 = hetg.attention %i, %i, %v <{causal, scale = 1.0 : f32}> : tensor<1x2x2xf64>, tensor<1x2x2xf64>, tensor<1x2x2xf64>
  // An additive mask of -1e9 on key 1 of query 0 acts like causal.
  // CHECK: return %{{.*}}, %[[CAUSAL]], %[[CAUSAL]]
  %m = hetg.constant dense<[[0.0, -1.0e9], [0.0, 0.0]]> : tensor<2x2xf64>
  %2 = hetg.attention %i, %i, %v mask %m : tensor<2x2xf64> <{scale = 1.0 : f32}> : tensor<1x2x2xf64>, tensor<1x2x2xf64>, tensor<1x2x2xf64>
  return %0, %1, %2 : tensor<1x2x2xf64>, tensor<1x2x2xf64>, tensor<1x2x2xf64>
}

// -----

// Logits [0, ln 3] give probabilities [1/4, 3/4]: label 1 costs -log(3/4) =
// 0.2877, label 0 costs -log(1/4) = 1.3863.

// CHECK-LABEL: func.func @cross_entropy
func.func @cross_entropy() -> (tensor<f64>, tensor<f64>, tensor<2xf64>, tensor<f64>) {
  %z = hetg.constant dense<[[0.0, 1.0986122886681098], [0.0, 1.0986122886681098]]> : tensor<2x2xf64>
  %l = hetg.constant dense<[1, 0]> : tensor<2xi64>
  // CHECK-DAG: hetg.constant dense<0.83698821678583{{[0-9]*}}> : tensor<f64>
  %mean = hetg.cross_entropy %z, %l <{reduction = #hetg<loss_reduction mean>}> : tensor<2x2xf64>, tensor<2xi64>
  // CHECK-DAG: hetg.constant dense<1.67397643357167{{[0-9]*}}> : tensor<f64>
  %sum = hetg.cross_entropy %z, %l <{reduction = #hetg<loss_reduction sum>}> : tensor<2x2xf64>, tensor<2xi64>
  // CHECK-DAG: hetg.constant dense<[0.28768207245178{{[0-9]*}}, 1.38629436111989{{[0-9]*}}]> : tensor<2xf64>
  %none = hetg.cross_entropy %z, %l <{reduction = #hetg<loss_reduction none>}> : tensor<2x2xf64>, tensor<2xi64>
  // Ignored labels leave the mean: only token 0 counts.
  // CHECK-DAG: hetg.constant dense<0.28768207245178{{[0-9]*}}> : tensor<f64>
  %li = hetg.constant dense<[1, -100]> : tensor<2xi64>
  %ign = hetg.cross_entropy %z, %li <{reduction = #hetg<loss_reduction mean>, ignore_index = -100 : i64}> : tensor<2x2xf64>, tensor<2xi64>
  return %mean, %sum, %none, %ign : tensor<f64>, tensor<f64>, tensor<2xf64>, tensor<f64>
}

// -----

// A label out of range is left for the runtime to report.

// CHECK-LABEL: func.func @cross_entropy_bad_label
func.func @cross_entropy_bad_label() -> tensor<f64> {
  %z = hetg.constant dense<[[0.0, 1.0]]> : tensor<1x2xf64>
  %l = hetg.constant dense<[2]> : tensor<1xi64>
  // CHECK: hetg.cross_entropy
  %0 = hetg.cross_entropy %z, %l <{reduction = #hetg<loss_reduction mean>}> : tensor<1x2xf64>, tensor<1xi64>
  return %0 : tensor<f64>
}

// -----

// (x w^T)^T is w x^T: the transpose folds into the matmul's flags.

// CHECK-LABEL: func.func @transpose_of_matmul
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<6x4xf32>)
// CHECK: %[[R:.*]] = hetg.matmul %[[W]], %[[X]] <{transpose_rhs}> : tensor<6x4xf32>, tensor<8x4xf32>
// CHECK-NOT: hetg.transpose
// CHECK: return %[[R]]
func.func @transpose_of_matmul(%x: tensor<8x4xf32>, %w: tensor<6x4xf32>) -> tensor<6x8xf32> {
  %y = hetg.matmul %x, %w <{transpose_rhs}> : tensor<8x4xf32>, tensor<6x4xf32>
  %t = hetg.transpose %y [1, 0] : tensor<8x6xf32>
  return %t : tensor<6x8xf32>
}
