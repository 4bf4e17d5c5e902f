// RUN: hetc-opt %s --hetg-specialize="seq=4" --verify-diagnostics -o /dev/null

// expected-error @+1 {{input #0 has a dynamic dimension 0; pass batch=N to hetg-specialize}}
func.func @needs_batch(%ids: tensor<?x?xi64>) -> tensor<?x?xi64> {
  return %ids : tensor<?x?xi64>
}
