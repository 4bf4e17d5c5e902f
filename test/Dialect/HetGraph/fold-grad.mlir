// RUN: hetc-opt %s --canonicalize --split-input-file | FileCheck %s

// The folders of the gradient and optimizer ops, against numbers worked out
// by hand (in comments).

// x = [1, 2, 3, 4]: x^ = [-1.3416, -0.4472, 0.4472, 1.3416], 1/sigma =
// 1/sqrt(1.25) = 0.8944. For dy = [1, 0, 0, 0]: mean(dy) = 0.25,
// mean(dy x^) = -0.3354, dx = 0.8944 * (dy - 0.25 + 0.3354 x^) =
// 0.8944 * [0.3, -0.4, -0.1, 0.2]. The second row (dy on the last element)
// mirrors it; dscale sums dy x^ over rows, dbias sums dy.

// CHECK-LABEL: func.func @layer_norm_grad
func.func @layer_norm_grad() -> (tensor<2x4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %x = hetg.constant dense<[[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]]> : tensor<2x4xf64>
  %dy = hetg.constant dense<[[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]> : tensor<2x4xf64>
  // CHECK-DAG: hetg.constant dense<{{\[\[}}0.268328157299974{{[0-9]*}}, -0.35777087639996{{[0-9]*}}, -0.08944271909999{{[0-9]*}}, 0.17888543819998{{[0-9]*}}], [0.17888543819998{{[0-9]*}}, -0.08944271909999{{[0-9]*}}, -0.35777087639996{{[0-9]*}}, 0.268328157299974{{[0-9]*}}]]> : tensor<2x4xf64>
  // CHECK-DAG: hetg.constant dense<[-1.34164078649987{{[0-9]*}}, 0.000000e+00, 0.000000e+00, 1.34164078649987{{[0-9]*}}]> : tensor<4xf64>
  // CHECK-DAG: hetg.constant dense<[1.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00]> : tensor<4xf64>
  %dx, %dw, %db = hetg.layer_norm_grad %x, %dy <{axis = 1 : i64, epsilon = 0.0 : f32}> : tensor<2x4xf64>
  return %dx, %dw, %db : tensor<2x4xf64>, tensor<4xf64>, tensor<4xf64>
}

// -----

// x = [3, 4], r = sqrt(12.5), dy = [1, 0], scale [2, 1]: g = [2, 0],
// mean(g x) = 3, dx = g / r - x * 3 / r^3 = [0.5657 - 0.2036, -0.2715];
// dscale = dy x / r = [0.8485, 0].

// CHECK-LABEL: func.func @rms_norm_grad
func.func @rms_norm_grad() -> (tensor<2xf64>, tensor<2xf64>) {
  %x = hetg.constant dense<[3.0, 4.0]> : tensor<2xf64>
  %dy = hetg.constant dense<[1.0, 0.0]> : tensor<2xf64>
  %w = hetg.constant dense<[2.0, 1.0]> : tensor<2xf64>
  // CHECK-DAG: hetg.constant dense<[0.36203867196751{{[0-9]*}}, -0.27152900397563{{[0-9]*}}]> : tensor<2xf64>
  // CHECK-DAG: hetg.constant dense<[0.84852813742385{{[0-9]*}}, 0.000000e+00]> : tensor<2xf64>
  %dx, %dw = hetg.rms_norm_grad %x, %dy scale %w : tensor<2xf64> <{epsilon = 0.0 : f32}> : tensor<2xf64>
  return %dx, %dw : tensor<2xf64>, tensor<2xf64>
}

// -----

// softmax: y (dy - sum(dy y)) = [0.5, 0.5] * ([1, 0] - 0.5) = [0.25, -0.25].
// log_softmax: dy - exp(y) sum(dy) = [1, 1] - [0.25, 0.75] * 2 = [0.5, -0.5].

// CHECK-LABEL: func.func @softmax_grads
func.func @softmax_grads() -> (tensor<2xf64>, tensor<2xf64>) {
  %y = hetg.constant dense<[0.5, 0.5]> : tensor<2xf64>
  %dy = hetg.constant dense<[1.0, 0.0]> : tensor<2xf64>
  // CHECK-DAG: hetg.constant dense<[2.500000e-01, -2.500000e-01]> : tensor<2xf64>
  %0 = hetg.softmax_grad %y, %dy <{axis = 0 : i64}> : tensor<2xf64>
  %l = hetg.constant dense<[-1.3862943611198906, -0.28768207245178085]> : tensor<2xf64>
  %ones = hetg.constant dense<1.0> : tensor<2xf64>
  // CHECK-DAG: hetg.constant dense<[{{0.5000000000000[0-9]*|5.000000e-01|0.4999999999999[0-9]*}}, {{-0.5000000000000[0-9]*|-5.000000e-01|-0.4999999999999[0-9]*}}]> : tensor<2xf64>
  %1 = hetg.log_softmax_grad %l, %ones <{axis = 0 : i64}> : tensor<2xf64>
  return %0, %1 : tensor<2xf64>, tensor<2xf64>
}

// -----

// q = k = I, v = [[1, 2], [3, 4]], scale 1: P = [[a, b], [b, a]] with
// a = e / (e + 1), b = 1 / (e + 1). With dO = [[1, 0], [0, 0]]:
// dV = P^T dO = [[a, 0], [b, 0]]; dP = dO v^T = [[1, 3], [0, 0]];
// dS = P (dP - rowsum(P dP)) = [[-2ab, 2ab], [0, 0]], 2ab = 0.3932;
// dQ = dS k = dS, dK = dS^T q = [[-2ab, 0], [2ab, 0]].

// CHECK-LABEL: func.func @attention_grad
func.func @attention_grad() -> (tensor<1x2x2xf64>, tensor<1x2x2xf64>, tensor<1x2x2xf64>) {
  %i = hetg.constant dense<[[[1.0, 0.0], [0.0, 1.0]]]> : tensor<1x2x2xf64>
  %v = hetg.constant dense<[[[1.0, 2.0], [3.0, 4.0]]]> : tensor<1x2x2xf64>
  %do = hetg.constant dense<[[[1.0, 0.0], [0.0, 0.0]]]> : tensor<1x2x2xf64>
  // CHECK-DAG: hetg.constant dense<{{\[\[\[}}-0.39322386648296{{[0-9]*}}, 0.39322386648296{{[0-9]*}}], [0.000000e+00, 0.000000e+00]]]> : tensor<1x2x2xf64>
  // CHECK-DAG: hetg.constant dense<{{\[\[\[}}-0.39322386648296{{[0-9]*}}, 0.000000e+00], [0.39322386648296{{[0-9]*}}, 0.000000e+00]]]> : tensor<1x2x2xf64>
  // CHECK-DAG: hetg.constant dense<{{\[\[\[}}0.73105857863000{{[0-9]*}}, 0.000000e+00], [0.26894142136999{{[0-9]*}}, 0.000000e+00]]]> : tensor<1x2x2xf64>
  %dq, %dk, %dv = hetg.attention_grad %i, %i, %v, %do <{scale = 1.0 : f32}> : tensor<1x2x2xf64>, tensor<1x2x2xf64>, tensor<1x2x2xf64>, tensor<1x2x2xf64>
  return %dq, %dk, %dv : tensor<1x2x2xf64>, tensor<1x2x2xf64>, tensor<1x2x2xf64>
}

// -----

// Logits [0, ln 3] have probabilities [1/4, 3/4]. Mean over two tokens with
// loss gradient 2: each token's weight is 1: label 1 gives [0.25, -0.25],
// label 0 gives [-0.75, 0.75]. With token 1 ignored, token 0's weight is 2.

// CHECK-LABEL: func.func @cross_entropy_grad
func.func @cross_entropy_grad() -> (tensor<2x2xf64>, tensor<2x2xf64>) {
  %z = hetg.constant dense<[[0.0, 1.0986122886681098], [0.0, 1.0986122886681098]]> : tensor<2x2xf64>
  %l = hetg.constant dense<[1, 0]> : tensor<2xi64>
  %two = hetg.constant dense<2.0> : tensor<f64>
  // CHECK-DAG: hetg.constant dense<{{\[\[}}{{0.2500000000000[0-9]*|2.500000e-01|0.2499999999999[0-9]*}}, {{-0.2500000000000[0-9]*|-2.500000e-01|-0.2499999999999[0-9]*}}], [{{-0.7500000000000[0-9]*|-7.500000e-01|-0.7499999999999[0-9]*}}, {{0.7500000000000[0-9]*|7.500000e-01|0.7499999999999[0-9]*}}]]> : tensor<2x2xf64>
  %0 = hetg.cross_entropy_grad %z, %l, %two <{reduction = #hetg<loss_reduction mean>}> : tensor<2x2xf64>, tensor<2xi64>, tensor<f64>
  %li = hetg.constant dense<[1, -100]> : tensor<2xi64>
  // CHECK-DAG: hetg.constant dense<{{\[\[}}{{0.5000000000000[0-9]*|5.000000e-01|0.4999999999999[0-9]*}}, {{-0.5000000000000[0-9]*|-5.000000e-01|-0.4999999999999[0-9]*}}], [0.000000e+00, 0.000000e+00]]> : tensor<2x2xf64>
  %1 = hetg.cross_entropy_grad %z, %li, %two <{reduction = #hetg<loss_reduction mean>, ignore_index = -100 : i64}> : tensor<2x2xf64>, tensor<2xi64>, tensor<f64>
  return %0, %1 : tensor<2x2xf64>, tensor<2x2xf64>
}

// -----

// CHECK-LABEL: func.func @scatter_grads
func.func @scatter_grads() -> (tensor<3x2xf64>, tensor<4xf64>) {
  %dy = hetg.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf64>
  %ids = hetg.constant dense<[2, 0, -1]> : tensor<3xi64>
  // Rows 0 and 2 (index -1) of dy both land on row 2.
  // CHECK-DAG: hetg.constant dense<{{\[\[}}3.000000e+00, 4.000000e+00], [0.000000e+00, 0.000000e+00], [6.000000e+00, 8.000000e+00]]> : tensor<3x2xf64>
  %0 = hetg.gather_grad %dy[%ids] <{axis = 0 : i64}> : tensor<3x2xf64>, tensor<3xi64> -> tensor<3x2xf64>
  // Elements 1 and 3 of a [4] input, read by starts 1 and step 2.
  // CHECK-DAG: hetg.constant dense<[0.000000e+00, 1.000000e+00, 0.000000e+00, 2.000000e+00]> : tensor<4xf64>
  %d = hetg.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %1 = hetg.slice_grad %d <{starts = array<i64: 1>, ends = array<i64: 9223372036854775807>, steps = array<i64: 2>}> : tensor<2xf64> -> tensor<4xf64>
  return %0, %1 : tensor<3x2xf64>, tensor<4xf64>
}

// -----

// gelu'(0) = 0.5 for both forms; gelu'(1) = Phi(1) + phi(1) = 1.0833 exactly,
// 1.0830 with tanh. silu'(0) = 0.5, silu'(1) = s (1 + 1 - s) = 0.9277.

// CHECK-LABEL: func.func @activation_grads
func.func @activation_grads() -> (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) {
  %x = hetg.constant dense<[0.0, 1.0]> : tensor<2xf64>
  %dy = hetg.constant dense<1.0> : tensor<2xf64>
  // CHECK-DAG: hetg.constant dense<[5.000000e-01, 1.08331547058768{{[0-9]*}}]> : tensor<2xf64>
  %0 = hetg.gelu_grad %x, %dy : tensor<2xf64>
  // CHECK-DAG: hetg.constant dense<[5.000000e-01, 1.08296408384578{{[0-9]*}}]> : tensor<2xf64>
  %1 = hetg.gelu_grad %x, %dy <{approximate = #hetg<gelu_approximation tanh>}> : tensor<2xf64>
  // CHECK-DAG: hetg.constant dense<[5.000000e-01, 0.92767051187148{{[0-9]*}}]> : tensor<2xf64>
  %2 = hetg.silu_grad %x, %dy : tensor<2xf64>
  return %0, %1, %2 : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>
}

// -----

// SGD: p - lr (g + wd p). AdamW at step 1 with eps 0: m = (1 - b1) g,
// v = (1 - b2) g^2, the bias corrections give back g and g^2, so the
// update is lr * sign(g), after the decay p * (1 - lr wd).

// CHECK-LABEL: func.func @optimizers
func.func @optimizers() -> (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<f64>) {
  %p = hetg.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %g = hetg.constant dense<[0.5, -1.0]> : tensor<2xf64>
  // [1 - 0.1 (0.5 + 0.5), 2 - 0.1 (-1 + 1)]
  // CHECK-DAG: hetg.constant dense<[{{0.9000000000000[0-9]*|9.000000e-01|0.8999999999999[0-9]*}}, 2.000000e+00]> : tensor<2xf64>
  %0 = hetg.sgd %p, %g <{lr = 0.1 : f64, weight_decay = 0.5 : f64}> : tensor<2xf64>
  // A constant lr_factor scales lr: 0.5 * 0.2 = 0.1, the same update.
  %half = hetg.constant dense<0.5> : tensor<f64>
  %scaled = hetg.sgd %p, %g lr_factor %half <{lr = 0.2 : f64, weight_decay = 0.5 : f64}> : tensor<2xf64>
  %z = hetg.constant dense<0.0> : tensor<2xf64>
  %t = hetg.constant dense<1> : tensor<i64>
  // [1 * 0.99 - 0.1, 2 * 0.99 + 0.1]
  // CHECK-DAG: hetg.constant dense<[{{0.8900000000000[0-9]*|8.900000e-01|0.8899999999999[0-9]*}}, {{2.0800000000000[0-9]*|2.080000e\+00|2.0799999999999[0-9]*}}]> : tensor<2xf64>
  // CHECK-DAG: hetg.constant dense<[{{0.0500000000000[0-9]*|5.000000e-02|0.0499999999999[0-9]*}}, {{-0.1000000000000[0-9]*|-1.000000e-01|-0.0999999999999[0-9]*}}]> : tensor<2xf64>
  // CHECK-DAG: hetg.constant dense<[{{2.5000000000000[0-9]*E-4|2.500000e-04|2.4999999999999[0-9]*E-4}}, {{0.0010000000000[0-9]*|1.000000e-03|9.9999999999999[0-9]*E-4}}]> : tensor<2xf64>
  %p1, %m1, %v1 = hetg.adamw %p, %g, %z, %z, %t <{lr = 0.1 : f64, eps = 0.0 : f64, weight_decay = 0.1 : f64}> : tensor<2xf64>, tensor<i64>
  // sqrt(3^2 + 4^2) = 5.
  // CHECK-DAG: hetg.constant dense<5.000000e+00> : tensor<f64>
  %a = hetg.constant dense<[3.0]> : tensor<1xf64>
  %b = hetg.constant dense<[[4.0]]> : tensor<1x1xf64>
  %n = hetg.global_norm %a, %b : tensor<1xf64>, tensor<1x1xf64>
  return %0, %p1, %m1, %v1, %scaled, %n : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<f64>
}
