//===- FuzzCluster.cpp - cluster YAML, as hetc plan --cluster reads it ----===//

#include "FuzzTarget.h"

#include "planner/Cluster.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::Expected<hetc::planner::Cluster> cluster = hetc::planner::parseCluster(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.yaml");
  if (!cluster)
    llvm::consumeError(cluster.takeError());
  return 0;
}
