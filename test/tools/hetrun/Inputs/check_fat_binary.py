#!/usr/bin/env python3
"""Checks that a CUDA fat binary holds machine code for each architecture CMake built
for, and PTX for the ones that ask for it (CMAKE_CUDA_ARCHITECTURES entries: `90-real`
machine code only, `90` machine code and PTX, `90-virtual` PTX only).

    check_fat_binary.py CUOBJDUMP BINARY "75-real;80-real;90"

Prints `sm_N: elf` / `compute_N: ptx` for what it found, then `missing ...` and
exits 1 if anything asked for is absent.
"""
import re
import subprocess
import sys


def listed(cuobjdump, binary, what):
    out = subprocess.run([cuobjdump, f"--list-{what}", binary], capture_output=True,
                         text=True)
    if out.returncode != 0:
        raise SystemExit(f"check_fat_binary.py: {cuobjdump} --list-{what} {binary}: "
                         f"{out.stderr.strip()}")
    return {int(n) for n in re.findall(r"\.sm_(\d+)[a-z]?\.", out.stdout)}


def main():
    cuobjdump, binary, architectures = sys.argv[1:4]
    elves, ptxes = listed(cuobjdump, binary, "elf"), listed(cuobjdump, binary, "ptx")
    for n in sorted(elves):
        print(f"sm_{n}: elf")
    for n in sorted(ptxes):
        print(f"compute_{n}: ptx")
    missing = []
    for entry in filter(None, architectures.split(";")):
        number, _, kind = entry.partition("-")
        n = int(number)
        if kind in ("", "real") and n not in elves:
            missing.append(f"sm_{n} machine code")
        if kind in ("", "virtual") and n not in ptxes:
            missing.append(f"compute_{n} PTX")
    if missing:
        print(f"missing {', '.join(missing)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
