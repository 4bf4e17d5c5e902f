//===- hetrun.cpp - runs a hetc package's training steps ------------------===//

#include "tools/hetrun/HetrunDriver.h"

int main(int argc, char **argv) { return hetc::hetrun::runHetrun(argc, argv); }
