//===- WritePipelinePackage.cpp - the pipeline test package on disk -------===//
//
// `hetc-write-pipeline-package DIR` writes PipelineModel.h's three-rank
// package as DIR/pipeline.hetpkg and a token file DIR/tokens.bin, so that
// hetrun can run it as threads and under mpirun (hetrun-mpi.sh).
//
//===----------------------------------------------------------------------===//

#include "PipelineModel.h"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>

namespace hetc::runtime::test {
namespace {

bool writeMessage(const google::protobuf::Message &message,
                  const std::string &path) {
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  return os && message.SerializeToOstream(&os);
}

bool writePackage(const std::string &dir) {
  exec::LoadedPackage package = pipeline::package();
  package.manifest.set_weights_file(hetc::package::kWeightsFile);
  package.manifest.set_constants_file(hetc::package::kConstantsFile);
  package.manifest.mutable_optimizer()->set_kind("adamw");
  std::string error;
  if (::mkdir(dir.c_str(), 0755) != 0 ||
      !writeMessage(package.manifest,
                    dir + "/" + hetc::package::kManifestFile) ||
      !hetc::package::writeSafetensorsFile(dir + "/" +
                                               hetc::package::kWeightsFile,
                                           package.weights, {}, &error) ||
      !hetc::package::writeSafetensorsFile(dir + "/" +
                                               hetc::package::kConstantsFile,
                                           package.constants, {}, &error))
    return false;
  for (const pkg::Program &program : package.programs)
    if (!writeMessage(program,
                      dir + "/" +
                          hetc::package::programFileName(program.rank())))
      return false;
  return true;
}

bool writeTokens(const std::string &path) {
  std::vector<uint16_t> tokens = tokenStream(64, pipeline::kV);
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  os.write(reinterpret_cast<const char *>(tokens.data()),
           static_cast<std::streamsize>(tokens.size() * sizeof(uint16_t)));
  return static_cast<bool>(os);
}

} // namespace
} // namespace hetc::runtime::test

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: hetc-write-pipeline-package DIR\n");
    return 2;
  }
  std::string dir = argv[1];
  if (!hetc::runtime::test::writePackage(dir + "/pipeline.hetpkg") ||
      !hetc::runtime::test::writeTokens(dir + "/tokens.bin")) {
    std::fprintf(stderr, "cannot write the pipeline package into '%s'\n",
                 dir.c_str());
    return 1;
  }
  return 0;
}
