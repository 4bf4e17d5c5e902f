//===- hetc.cpp - the hetc compiler driver
//---------------------------------===//

#include "compiler/Driver/Driver.h"

#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  return hetc::driver::runHetc(argc, argv);
}
