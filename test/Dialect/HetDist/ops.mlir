// RUN: hetc-opt %s --split-input-file | hetc-opt --split-input-file | FileCheck %s
// RUN: hetc-opt %s --split-input-file --mlir-print-op-generic | hetc-opt --split-input-file | FileCheck %s

// Outside a rank function the ops name any ranks: a peer or group is not
// checked against the enclosing rank, nor a shard size against a count.

// CHECK-LABEL: func.func @anywhere
// CHECK-SAME: (%[[X:.*]]: tensor<4x16x32xf32>, %[[G:.*]]: tensor<10xf32>, %[[S:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<2x3xi64>)
// CHECK: hetd.send %[[X]] rows[0, 2) to 3 tag 5 : tensor<4x16x32xf32>
// CHECK: hetd.send %[[I]] rows[1, 2) to 0 tag 0 : tensor<2x3xi64>
// CHECK: %[[Y:.*]] = hetd.recv from 0 tag 5 : tensor<2x16x32xf32>
// CHECK: %[[N:.*]] = hetd.recv from 1 tag 7 : tensor<f32>
// CHECK: hetd.all_reduce %[[N]] group [0, 1, 2] : tensor<f32>
// CHECK: hetd.all_reduce %[[Y]] group [4] : tensor<2x16x32xf32>
// CHECK: hetd.reduce_scatter %[[G]] group [1, 2] counts [7, 3] : tensor<10xf32> -> tensor<7xf32>
// CHECK: hetd.reduce_scatter %[[G]] group [1, 2] counts [7, 3] : tensor<10xf32> -> tensor<3xf32>
// CHECK: hetd.all_gather %[[S]] group [1, 2] counts [7, 3] : tensor<3xf32> -> tensor<10xf32>
// CHECK: hetd.all_gather %[[S]] group [0, 5] counts [0, 3] : tensor<3xf32> -> tensor<3xf32>
func.func @anywhere(%x: tensor<4x16x32xf32>, %g: tensor<10xf32>, %s: tensor<3xf32>, %ids: tensor<2x3xi64>) {
  hetd.send %x rows [0, 2) to 3 tag 5 : tensor<4x16x32xf32>
  hetd.send %ids rows [1, 2) to 0 tag 0 : tensor<2x3xi64>
  %y = hetd.recv from 0 tag 5 : tensor<2x16x32xf32>
  %n = hetd.recv from 1 tag 7 : tensor<f32>
  %sum = hetd.all_reduce %n group [0, 1, 2] : tensor<f32>
  %ysum = hetd.all_reduce %y group [4] : tensor<2x16x32xf32>
  %mine = hetd.reduce_scatter %g group [1, 2] counts [7, 3] : tensor<10xf32> -> tensor<7xf32>
  %theirs = hetd.reduce_scatter %g group [1, 2] counts [7, 3] : tensor<10xf32> -> tensor<3xf32>
  %full = hetd.all_gather %s group [1, 2] counts [7, 3] : tensor<3xf32> -> tensor<10xf32>
  %empty = hetd.all_gather %s group [0, 5] counts [0, 3] : tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

// In a rank function (rank 2 here), the shard sizes are the rank's count.

// CHECK-LABEL: func.func @rank2
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf64>, %[[G:.*]]: tensor<10xf64>)
// CHECK-SAME: hetd.rank = 2 : i64
// CHECK: hetd.send %[[X]] rows[2, 4) to 3 tag 1 : tensor<4x8xf64>
// CHECK: %[[Y:.*]] = hetd.recv from 1 tag 0 : tensor<4x8xf64>
// CHECK: %[[SUM:.*]] = hetd.all_reduce %[[Y]] group [0, 2] : tensor<4x8xf64>
// CHECK: %[[SHARD:.*]] = hetd.reduce_scatter %[[G]] group [1, 2, 3] counts [5, 3, 2] : tensor<10xf64> -> tensor<3xf64>
// CHECK: %[[FULL:.*]] = hetd.all_gather %[[SHARD]] group [1, 2, 3] counts [5, 3, 2] : tensor<3xf64> -> tensor<10xf64>
// CHECK: return %[[SUM]], %[[FULL]]
func.func @rank2(%x: tensor<4x8xf64>, %g: tensor<10xf64>) -> (tensor<4x8xf64>, tensor<10xf64>) attributes {hetd.rank = 2 : i64} {
  hetd.send %x rows [2, 4) to 3 tag 1 : tensor<4x8xf64>
  %y = hetd.recv from 1 tag 0 : tensor<4x8xf64>
  %sum = hetd.all_reduce %y group [0, 2] : tensor<4x8xf64>
  %shard = hetd.reduce_scatter %g group [1, 2, 3] counts [5, 3, 2] : tensor<10xf64> -> tensor<3xf64>
  %full = hetd.all_gather %shard group [1, 2, 3] counts [5, 3, 2] : tensor<3xf64> -> tensor<10xf64>
  return %sum, %full : tensor<4x8xf64>, tensor<10xf64>
}

// -----

// A rank that holds no elements of the shards still takes part.

// CHECK-LABEL: func.func @rank0
// CHECK: hetd.reduce_scatter %{{.*}} group [0, 1] counts [0, 4] : tensor<4xf32> -> tensor<0xf32>
// CHECK: hetd.all_gather %{{.*}} group [0, 1] counts [0, 4] : tensor<0xf32> -> tensor<4xf32>
func.func @rank0(%g: tensor<4xf32>) -> tensor<4xf32> attributes {hetd.rank = 0 : i64} {
  %shard = hetd.reduce_scatter %g group [0, 1] counts [0, 4] : tensor<4xf32> -> tensor<0xf32>
  %full = hetd.all_gather %shard group [0, 1] counts [0, 4] : tensor<0xf32> -> tensor<4xf32>
  return %full : tensor<4xf32>
}

// -----

// Transfers between a rank's device and its host keep the type.

// CHECK-LABEL: func.func @transfers
// CHECK: %[[H:.*]] = hetd.to_host %{{.*}} : tensor<4xf32>
// CHECK: hetd.to_device %[[H]] : tensor<4xf32>
func.func @transfers(%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = hetd.to_host %x : tensor<4xf32>
  %d = hetd.to_device %h : tensor<4xf32>
  return %d : tensor<4xf32>
}
