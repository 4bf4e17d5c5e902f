//===- KernelContractTest.cpp - the lowering's kernels exist at run time --===//
//
// hetx-lower-to-program turns every hetg op (but constants and views) and
// every hetd communication op into a launch named after the op, whose
// params are the op's inherent attributes. The runtime registries must
// have a kernel of each such name that reads only attributes the op has,
// and no kernel that no op can emit: this test keeps the two sides in step
// as ops and kernels are added.
//
//===----------------------------------------------------------------------===//

#include "dialects/HetDist/HetDist.h"
#include "dialects/HetGraph/HetGraph.h"
#include "runtime/exec/KernelRegistry.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringSet.h"

#include <gtest/gtest.h>

namespace {

namespace exec = hetc::runtime::exec;

/// hetg and hetd ops that never become a launch of their own: constants
/// are buffers, reshapes views, the shape computations fold once
/// hetg-specialize makes the shapes static (the lowering refuses dynamic
/// shapes), and the transfers between device and host are copies.
const llvm::StringSet<> kNotLaunched = {
    "constant",          "reshape",           "shape",
    "dynamic_reshape",   "dynamic_broadcast", "dynamic_slice",
    "constant_of_shape", "to_host",           "to_device"};

/// The launches of the lowering's own that come from no op.
const llvm::StringSet<> kLoweringKernels = {"copy"};

/// The launched ops: name (without the dialect) -> inherent attributes.
std::map<std::string, llvm::StringSet<>> launchedOps(mlir::MLIRContext &context) {
  std::map<std::string, llvm::StringSet<>> ops;
  for (mlir::RegisteredOperationName op : context.getRegisteredOperations()) {
    llvm::StringRef dialect = op.getDialectNamespace();
    if (dialect != "hetg" && dialect != "hetd")
      continue;
    llvm::StringRef name = op.getStringRef().drop_front(dialect.size() + 1);
    if (kNotLaunched.contains(name))
      continue;
    llvm::StringSet<> &attributes = ops[name.str()];
    for (mlir::StringAttr attribute : op.getAttributeNames())
      attributes.insert(attribute.getValue());
  }
  return ops;
}

class KernelContract : public ::testing::Test {
protected:
  void SetUp() override {
    context.loadDialect<hetc::hetg::HetGraphDialect,
                        hetc::hetd::HetDistDialect>();
    ops = launchedOps(context);
  }
  mlir::MLIRContext context;
  std::map<std::string, llvm::StringSet<>> ops;
};

TEST_F(KernelContract, EveryLaunchedOpHasAKernelReadingItsAttributes) {
  const exec::KernelRegistry &registry = exec::cpuKernelRegistry();
  ASSERT_GT(ops.size(), 50u);
  for (const auto &[name, attributes] : ops) {
    const exec::KernelInfo *kernel = registry.find(name);
    if (!kernel) {
      ADD_FAILURE() << "the lowering emits '" << name
                    << "' launches, but the runtime has no such kernel";
      continue;
    }
    for (const exec::AttrSpec &spec : kernel->attrs)
      EXPECT_TRUE(attributes.contains(spec.name))
          << "kernel '" << name << "' reads attribute '" << spec.name
          << "', which op '" << name << "' does not have";
  }
}

TEST_F(KernelContract, EveryKernelHasAnOp) {
  for (const std::string &name : exec::cpuKernelRegistry().names())
    EXPECT_TRUE(ops.count(name) || kLoweringKernels.contains(name))
        << "kernel '" << name << "' is registered, but no op lowers to it";
}

#ifdef HETC_HAVE_CUDA
// The CUDA backend registers the same adapters (kernels/Backend.h), so a
// kernel is never CPU-only.
TEST_F(KernelContract, CudaHasEveryCpuKernel) {
  EXPECT_EQ(exec::cudaKernelRegistry().names(),
            exec::cpuKernelRegistry().names());
}
#endif

} // namespace
