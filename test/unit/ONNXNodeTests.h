//===- ONNXNodeTests.h - selecting and binding ONNX node tests --*- C++ -*-===//
//
// Shared by the tests that walk the ONNX backend node tests (Debian
// libonnx-testdata): which tests hetc imports, which it rejects on purpose,
// and the binding of attribute-like inputs to the test's own values.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_TEST_UNIT_ONNXNODETESTS_H
#define HETC_TEST_UNIT_ONNXNODETESTS_H

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace hetc::testing {

constexpr const char *kNodeTestDir = "/usr/share/libonnx-testdata/data/node";

/// The test folders under kNodeTestDir, sorted.
std::vector<std::string> listNodeTests();

/// The reason hetc rejects `test` on purpose (text its diagnostic carries),
/// or null.
const char *expectedRejection(llvm::StringRef test);

bool readProto(llvm::StringRef path, google::protobuf::MessageLite &message);

/// Whether every node is a default-domain op the importer supports.
bool hasSupportedOps(const onnx::ModelProto &model);

/// Whether every graph input and output has an element type hetc supports.
bool hasSupportedTypes(mlir::MLIRContext &context,
                       const onnx::ModelProto &model);

/// The version of the default opset import; 0 when none.
int64_t defaultOpset(const onnx::ModelProto &model);

/// Whether graph input `name` feeds an attribute-like operand.
bool isAttributeLikeInput(const onnx::ModelProto &model,
                          const std::string &name);

/// Makes the graph inputs that feed attribute-like operands initializers
/// holding the test's values. Returns false when a value is missing.
bool bindAttributeLikeInputs(onnx::ModelProto &model, llvm::StringRef testDir);

/// test_data_set_0/<kind>_<index>.pb of `testDir` ("input" or "output").
std::string testDataPath(llvm::StringRef testDir, llvm::StringRef kind,
                         int index);

} // namespace hetc::testing

#endif // HETC_TEST_UNIT_ONNXNODETESTS_H
