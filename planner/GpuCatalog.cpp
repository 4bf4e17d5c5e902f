//===- GpuCatalog.cpp - spec-sheet figures of known GPUs ------------------===//
//
// Figures are dense peaks as printed by NVIDIA (docs/planner.md has the table
// and the reasoning). Sheets that print tensor rates only with 2:4 sparsity
// ("1,979*") are halved. fp16Tflops is the tensor rate with FP32 accumulate,
// the mode mixed-precision training uses: GeForce parts run it at half their
// FP16-accumulate rate, which is the figure their marketing quotes. memoryGB
// is the sheet's capacity read as 1e9 bytes: never more than the device
// holds, since sheets often mean GiB. bf16Tflops is 0 for GPUs of compute
// capability below 8.0, which have no bf16 units (supportsBf16(), and
// `--precision auto` picks f16 for them).
//
//===----------------------------------------------------------------------===//

#include "planner/Cluster.h"

#include "llvm/ADT/STLExtras.h"

namespace hetc::planner {

llvm::ArrayRef<GpuSpec> gpuCatalog() {
  // type, memory GB, FP32, FP16 tensor (FP32 acc.), BF16, GB/s, source
  static const GpuSpec catalog[] = {
      {"H200", 141, 67, 989, 989, 4800,
       "NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM; tensor "
       "figures printed with sparsity, halved"},
      {"H100-SXM", 80, 67, 989, 989, 3350,
       "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 SXM; tensor "
       "figures printed with sparsity, halved"},
      {"H100-PCIe", 80, 51, 756, 756, 2000,
       "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 PCIe; tensor "
       "figures printed with sparsity, halved"},
      {"A100-40GB", 40, 19.5, 312, 312, 1555,
       "NVIDIA A100 Tensor Core GPU datasheet (2021), A100 40GB SXM; dense"},
      {"A100-80GB", 80, 19.5, 312, 312, 2039,
       "NVIDIA A100 Tensor Core GPU datasheet (2021), A100 80GB SXM; dense"},
      {"A6000", 48, 38.7, 154.8, 154.8, 768,
       "NVIDIA Ampere GA102 GPU architecture whitepaper (2021), RTX A6000; "
       "dense, FP32 accumulate"},
      {"L40S", 48, 91.6, 362.05, 362.05, 864,
       "NVIDIA L40S datasheet (2023); dense"},
      // AWS's A10G is not the A10 (31.2 FP32, 125 tensor): more FP32, and
      // FP32-accumulate tensor math at half rate, as on GeForce parts.
      {"A10G", 24, 35, 70, 70, 600,
       "no NVIDIA datasheet (AWS-only part, G5 instances); figures as "
       "tabulated by Baseten, \"NVIDIA A10 vs A10G for ML model inference\" "
       "(2023); dense"},
      {"L4", 24, 30.3, 121, 121, 300,
       "NVIDIA L4 Tensor Core GPU datasheet (2023); tensor figures printed "
       "with sparsity, halved"},
      {"V100-16GB", 16, 15.7, 125, 0, 900,
       "NVIDIA V100 Tensor Core GPU datasheet (2020), V100 SXM2 16GB; "
       "tensor = mixed precision FP16/FP32; no BF16"},
      {"V100-32GB", 32, 15.7, 125, 0, 900,
       "NVIDIA V100 Tensor Core GPU datasheet (2020), V100 SXM2 32GB; "
       "tensor = mixed precision FP16/FP32; no BF16"},
      {"T4", 16, 8.1, 65, 0, 320,
       "NVIDIA T4 Tensor Core GPU datasheet (2019); tensor = mixed "
       "precision FP16/FP32; no BF16"},
      // No tensor cores: its FP16 runs at 1/64 of FP32 (0.18 TFLOP/s), never
      // worth training in, so it counts as none.
      {"P40", 24, 11.76, 0, 0, 346,
       "NVIDIA Tesla P40 datasheet (2016): FP32 \"12 TFLOPS\" is 3840 cores "
       "x 2 x 1.531 GHz; no tensor cores, no BF16"},
      {"RTX3090", 24, 35.6, 71, 71, 936,
       "NVIDIA Ampere GA102 GPU architecture whitepaper (2021), GeForce RTX "
       "3090; dense, FP32 accumulate (142 with FP16 accumulate)"},
      {"RTX4090", 24, 82.6, 165.2, 165.2, 1008,
       "NVIDIA Ada Lovelace GPU architecture whitepaper (2022), GeForce RTX "
       "4090; dense, FP32 accumulate (330.3 with FP16 accumulate)"},
  };
  return catalog;
}

const GpuSpec *findGpu(llvm::StringRef type) {
  llvm::ArrayRef<GpuSpec> catalog = gpuCatalog();
  const GpuSpec *it = llvm::find_if(
      catalog, [&](const GpuSpec &gpu) { return gpu.type == type; });
  return it == catalog.end() ? nullptr : it;
}

} // namespace hetc::planner
