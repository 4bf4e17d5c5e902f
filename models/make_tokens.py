#!/usr/bin/python3
"""Write a deterministic token file in nanoGPT's train.bin format (a flat array of
little-endian uint16, or uint32 with --dtype uint32), for training tests.

    make_tokens.py OUT.bin --tokens N --vocab V [--seed S] [--dtype uint16|uint32]
                   [--kind zipf|uniform|arange]

Kinds:
  zipf     (default) t[i] = floor(V * u[i]*u[i]*u[i]), u[i] = (r[i] >> 11) / 2^53 in [0, 1):
           small ids are far more frequent (entropy ~4.8 nats at V = 256 against
           ln 256 = 5.55), so a model's loss falls within a few steps;
  uniform  t[i] = r[i] mod V: nothing to learn;
  arange   t[i] = i mod V: makes sample positions visible (token value = position).

r[i] is splitmix64 of (seed, i), written out here, so the bytes depend only on the
arguments, not on NumPy's random generators: the same arguments give the same file on
any machine. Prints the file name, token count and a checksum of the bytes.
"""
import argparse
import hashlib
import sys

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)


def splitmix64(seed, n):
    """r[i] = splitmix64 output number i (0-based) of the stream started at `seed`."""
    with np.errstate(over="ignore"):
        x = np.uint64(seed % 2**64) + (np.arange(1, n + 1, dtype=np.uint64) * _GOLDEN)
        z = (x ^ (x >> np.uint64(30))) * _MUL1
        z = (z ^ (z >> np.uint64(27))) * _MUL2
        return z ^ (z >> np.uint64(31))


def make_tokens(n, vocab, seed=0, kind="zipf"):
    """int64 array of n tokens in [0, vocab)."""
    if kind == "arange":
        return np.arange(n, dtype=np.int64) % vocab
    r = splitmix64(seed, n)
    if kind == "uniform":
        return (r % np.uint64(vocab)).astype(np.int64)
    if kind != "zipf":
        raise ValueError(f"unknown kind {kind!r}")
    u = (r >> np.uint64(11)).astype(np.float64) * (1.0 / 2**53)  # exact: 53-bit integers
    return np.minimum(np.floor(vocab * (u * u * u)), vocab - 1).astype(np.int64)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--tokens", type=int, required=True, help="number of tokens N")
    ap.add_argument("--vocab", type=int, required=True, help="vocabulary size V (tokens are in [0, V))")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dtype", choices=["uint16", "uint32"], default="uint16")
    ap.add_argument("--kind", choices=["zipf", "uniform", "arange"], default="zipf")
    ap.add_argument("--set", action="append", default=[], metavar="INDEX=VALUE",
                    help="override the token at INDEX (to make bad data for error tests)")
    ap.add_argument("--extra-bytes", type=int, default=0, metavar="K",
                    help="append K zero bytes (a file that is not whole tokens)")
    args = ap.parse_args(argv)
    if args.tokens < 0:
        ap.error("--tokens must be >= 0")
    limit = 2**16 if args.dtype == "uint16" else 2**32
    if not 1 <= args.vocab <= limit:
        ap.error(f"--vocab must be in [1, {limit}] for --dtype {args.dtype}")
    tokens = make_tokens(args.tokens, args.vocab, args.seed, args.kind)
    tokens = tokens.astype("<u2" if args.dtype == "uint16" else "<u4")
    for override in args.set:
        index, value = (int(x) for x in override.split("="))
        tokens[index] = value
    data = tokens.tobytes() + bytes(args.extra_bytes)
    with open(args.out, "wb") as f:
        f.write(data)
    print(f"{args.out}: {args.tokens} {args.dtype} tokens, vocab {args.vocab}, kind {args.kind}, "
          f"seed {args.seed}, sha256 {hashlib.sha256(data).hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
