// RUN: hetc-opt %s --split-input-file --hetg-untie-parameters | FileCheck %s
// RUN: hetc-opt %s --split-input-file --hetg-untie-parameters --hetg-autodiff | FileCheck %s --check-prefix=GRAD

// One load of @w read by three ops (as the importer emits a shared
// initializer): each op gets its own global, the first keeps the name, the
// copies keep type, value and attributes and name the original. An op
// reading @w twice is one use site. A global read once and an integer
// global read twice are left alone.

ml_program.global private @w(dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>) : tensor<2x2xf32> {hetg.note = "kept"}
ml_program.global private @b(dense<0.5> : tensor<2xf32>) : tensor<2xf32>
ml_program.global private @idx(dense<[1, 0]> : tensor<2xi64>) : tensor<2xi64>

// CHECK:      ml_program.global private @w(dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>) : tensor<2x2xf32> {hetg.note = "kept"}
// CHECK-NEXT: ml_program.global private @w.1(dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>) : tensor<2x2xf32> {hetg.note = "kept", hetg.untied_from = @w}
// CHECK-NEXT: ml_program.global private @w.2(dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>) : tensor<2x2xf32> {hetg.note = "kept", hetg.untied_from = @w}
// CHECK-NEXT: ml_program.global private @b(dense<5.000000e-01> : tensor<2xf32>) : tensor<2xf32>{{$}}
// CHECK-NEXT: ml_program.global private @idx(dense<[1, 0]> : tensor<2xi64>) : tensor<2xi64>{{$}}
// CHECK-NOT:  ml_program.global
// CHECK-LABEL: func.func @shared
// CHECK-NEXT:  %[[W:.*]] = ml_program.global_load_const @w : tensor<2x2xf32>
// CHECK-NEXT:  %[[B:.*]] = ml_program.global_load_const @b : tensor<2xf32>
// CHECK-NEXT:  %[[I:.*]] = ml_program.global_load_const @idx : tensor<2xi64>
// CHECK-NEXT:  %[[M0:.*]] = hetg.matmul %arg0, %[[W]] bias %[[B]]
// CHECK-NEXT:  %[[W1:.*]] = ml_program.global_load_const @w.1 : tensor<2x2xf32>
// CHECK-NEXT:  %[[M1:.*]] = hetg.matmul %[[M0]], %[[W1]]
// CHECK-NEXT:  %[[W2:.*]] = ml_program.global_load_const @w.2 : tensor<2x2xf32>
// CHECK-NEXT:  %[[M2:.*]] = hetg.mul %[[W2]], %[[W2]]
// CHECK-NEXT:  %[[S:.*]] = hetg.add %[[M1]], %[[M2]]
// CHECK-NEXT:  %[[G0:.*]] = hetg.gather %[[S]][%[[I]]]
// CHECK-NEXT:  %[[G1:.*]] = hetg.gather %[[G0]][%[[I]]]
// CHECK-NOT:   global_load_const

// Each copy is a parameter of its own, with its own gradient.
// GRAD-LABEL: func.func @shared
// GRAD-SAME: hetg.gradient_of = @w}
// GRAD-SAME: hetg.gradient_of = @w.1}
// GRAD-SAME: hetg.gradient_of = @w.2}
// GRAD-SAME: hetg.gradient_of = @b}
func.func @shared(%x: tensor<2x2xf32>) -> tensor<f32> {
  %w = ml_program.global_load_const @w : tensor<2x2xf32>
  %b = ml_program.global_load_const @b : tensor<2xf32>
  %i = ml_program.global_load_const @idx : tensor<2xi64>
  %0 = hetg.matmul %x, %w bias %b : tensor<2xf32> : tensor<2x2xf32>, tensor<2x2xf32>
  %1 = hetg.matmul %0, %w : tensor<2x2xf32>, tensor<2x2xf32>
  %2 = hetg.mul %w, %w : tensor<2x2xf32>, tensor<2x2xf32>
  %3 = hetg.add %1, %2 : tensor<2x2xf32>, tensor<2x2xf32>
  %4 = hetg.gather %3[%i] <{axis = 0 : i64}> : tensor<2x2xf32>, tensor<2xi64>
  %5 = hetg.gather %4[%i] <{axis = 0 : i64}> : tensor<2x2xf32>, tensor<2xi64>
  %s = hetg.reduce_sum %5 <{axes = array<i64: 0, 1>, keep_dims = false}> : tensor<2x2xf32>
  return %s : tensor<f32>
}

// -----

// Two loads of one global (tied embedding and head, as after a pass that
// does not CSE): each reading op is a site; a dead load is none (and is
// left as it is). A name already taken is skipped. Dense resource blobs are
// shared by the copies.

// CHECK:      ml_program.global private @table(dense_resource<blob> : tensor<5x4xf32>) : tensor<5x4xf32>
// CHECK-NEXT: ml_program.global private @table.2(dense_resource<blob> : tensor<5x4xf32>) : tensor<5x4xf32> {hetg.untied_from = @table}
// CHECK-NEXT: ml_program.global private @table.1(dense<0.000000e+00> : tensor<3xf32>) : tensor<3xf32>{{$}}
// CHECK-NOT:  ml_program.global
// CHECK-LABEL: func.func @tied
// CHECK-NEXT: %[[T:.*]] = ml_program.global_load_const @table : tensor<5x4xf32>
// CHECK-NEXT: ml_program.global_load_const @table : tensor<5x4xf32>
// CHECK-NEXT: hetg.gather %[[T]][%arg0]
// CHECK-NEXT: %[[H:.*]] = ml_program.global_load_const @table.2 : tensor<5x4xf32>
// CHECK-NEXT: hetg.matmul %{{.*}}, %[[H]] <{transpose_rhs}>
// CHECK-NOT:  global_load_const

// GRAD-LABEL: func.func @tied
// GRAD-SAME: hetg.gradient_of = @table}
// GRAD-SAME: hetg.gradient_of = @table.2}
ml_program.global private @table(dense_resource<blob> : tensor<5x4xf32>) : tensor<5x4xf32>
ml_program.global private @table.1(dense<0.0> : tensor<3xf32>) : tensor<3xf32>
func.func @tied(%ids: tensor<3xi64>, %labels: tensor<3xi64>) -> tensor<f32> {
  %t = ml_program.global_load_const @table : tensor<5x4xf32>
  %dead = ml_program.global_load_const @table : tensor<5x4xf32>
  %e = hetg.gather %t[%ids] <{axis = 0 : i64}> : tensor<5x4xf32>, tensor<3xi64>
  %h = ml_program.global_load_const @table : tensor<5x4xf32>
  %z = hetg.matmul %e, %h <{transpose_rhs}> : tensor<3x4xf32>, tensor<5x4xf32>
  %l = hetg.cross_entropy %z, %labels <{reduction = #hetg<loss_reduction mean>}> : tensor<3x5xf32>, tensor<3xi64>
  return %l : tensor<f32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x04000000000000000000803F0000004000004040000080400000A0400000C0400000E040000000410000104100002041000030410000404100005041000060410000704100008041000088410000904100009841"
    }
  }
#-}
