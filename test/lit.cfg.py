# -*- Python -*-
# lit configuration for hetc: IR tests for dialects and passes, importer
# tests that start from ONNX model text, and checks on the model fixtures.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "HETC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".onnxtxt", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.hetc_obj_root, "test")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

config.substitutions.append(("%models", os.path.join(config.hetc_src_root, "models")))
config.substitutions.append(("%python", "/usr/bin/python3"))
# The project's Python environment (scripts/setup-python.sh, run by `make test`):
# torch 2.x, transformers, onnxruntime. Tests that need it REQUIRE: pyenv.
pyenv = os.path.join(os.environ.get("HETC_PYENV") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "hetc", "pyenv"),
    "bin", "python")
if os.path.exists(pyenv):
    config.available_features.add("pyenv")
config.substitutions.append(("%pyenv", pyenv))

tool_dirs = [config.hetc_tools_dir, config.llvm_tools_dir]
# Scripts run from RUN lines (test/e2e/Inputs) call the tools by name.
llvm_config.with_environment("PATH", config.hetc_tools_dir, append_path=True)
# One MPI job on this machine, root allowed (CI containers run as root).
config.substitutions.append(("%mpirun", os.path.join(
    config.hetc_src_root, "test", "runtime", "comm", "mpirun.sh") + " mpiexec"))
llvm_config.add_tool_substitutions(["hetc-opt", "hetc", "hetrun", "FileCheck", "not", "count"], tool_dirs)

if os.path.isdir("/usr/share/libonnx-testdata/data/node"):
    config.available_features.add("onnx-testdata")

# `cuda`: hetrun has the CUDA backend; `cuda-gpu`: and a GPU to run it on
# (the CUDA end-to-end tests REQUIRE it and skip elsewhere).
if getattr(config, "hetc_enable_cuda", False):
    config.available_features.add("cuda")
    import shutil
    import subprocess
    # `cuobjdump`: lists a fat binary's architectures (the CUDA toolkit's, or
    # the pip package's in the project's Python environment).
    import glob
    cuobjdump = shutil.which("cuobjdump") or next(iter(sorted(glob.glob(os.path.join(
        os.path.dirname(os.path.dirname(pyenv)), "lib", "python3*", "site-packages",
        "nvidia", "cu*", "bin", "cuobjdump")))), None)
    if cuobjdump:
        config.available_features.add("cuobjdump")
        config.substitutions.append(("%cuobjdump", cuobjdump))
    config.substitutions.append(("%cuda_architectures", config.hetc_cuda_architectures))
    smi = shutil.which("nvidia-smi")
    if smi:
        listed = subprocess.run([smi, "-L"], capture_output=True, text=True)
        if listed.returncode == 0 and "GPU" in listed.stdout:
            config.available_features.add("cuda-gpu")

config.substitutions.append(("%hetc_obj", config.hetc_obj_root))
config.substitutions.append(("%hetc_src", config.hetc_src_root))
