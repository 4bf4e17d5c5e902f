#!/usr/bin/python3
"""Runs a command and prints its exit code, so lit tests can check it
exactly (`not` only knows zero from non-zero).

    exit_code.py COMMAND [ARGS...]
"""
import subprocess
import sys

result = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
print(f"exit code: {result.returncode}")
