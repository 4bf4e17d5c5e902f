"""Read the manifest and the programs' buffers of a hetc package with the Python
standard library alone (no protobuf package, no generated code): the GPU machine's
Python has torch but nothing of hetc.

    manifest = read_manifest(PKG)    # dict: global_batch, seq_len, vocab_size,
                                     # weights_file, optimizer, ranks, plan_json, ...
    buffers = read_buffers(PKG, manifest["ranks"][0]["program_file"])
                                     # list of dicts: id, name, dtype, shape, kind,
                                     # alias_of, whole_shape
    python3 hetpkg.py PKG            # prints the package in a canonical text form

Field numbers are those of runtime/package/hetpkg.proto; only the fields read here
are decoded, the others (instructions, attributes) are skipped. Proto3 leaves fields
at their default out of the message, so a missing number is 0 ("" for strings), and
`alias_of` absent means 0, not -1.
"""
import json
import os
import struct
import sys

DTYPES = {1: "F32", 2: "F64", 3: "F16", 4: "BF16", 5: "I64", 6: "I32", 7: "I8", 8: "U8",
          9: "BOOL"}
KINDS = {1: "PARAMETER", 2: "OPTIMIZER_STATE", 3: "CONSTANT", 4: "INPUT", 5: "ACTIVATION"}
MANIFEST_FILE = "manifest.pb"


class PackageError(ValueError):
    pass


def _varint(data, pos):
    result = shift = 0
    while True:
        if pos >= len(data):
            raise PackageError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise PackageError("varint longer than 10 bytes")


def _signed(value, bits=64):
    """Two's complement of a varint-encoded int32/int64 (negative ones take 10 bytes)."""
    value &= (1 << 64) - 1
    if value >= 1 << 63:
        value -= 1 << 64
    if bits == 32:
        value = ((value + (1 << 31)) % (1 << 32)) - (1 << 31)
    return value


def fields(data):
    """(number, wire type, value) of each field: ints for varints, bytes for
    length-delimited fields, raw bytes for fixed 32/64-bit ones."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 2:
            length, pos = _varint(data, pos)
            value, pos = data[pos:pos + length], pos + length
        elif wire == 5:
            value, pos = data[pos:pos + 4], pos + 4
        else:
            raise PackageError(f"unsupported wire type {wire} (field {number})")
        if pos > len(data):
            raise PackageError(f"field {number} runs past the end of the message")
        yield number, wire, value


def _ints(wire, value):
    """A repeated int64, packed (proto3's default) or not."""
    if wire == 0:
        return [_signed(value)]
    out, pos = [], 0
    while pos < len(value):
        v, pos = _varint(value, pos)
        out.append(_signed(v))
    return out


def _double(value):
    return struct.unpack("<d", value)[0]


def _decode_optimizer(data):
    names = {1: "kind", 2: "lr", 3: "weight_decay", 4: "beta1", 5: "beta2", 6: "eps",
             7: "clip_norm"}
    out = {"kind": "", "lr": 0.0, "weight_decay": 0.0, "beta1": 0.0, "beta2": 0.0,
           "eps": 0.0, "clip_norm": 0.0}
    for number, wire, value in fields(data):
        if number == 1:
            out["kind"] = value.decode()
        elif number in names and wire == 1:
            out[names[number]] = _double(value)
    return out


def _decode_rank(data):
    out = {"rank": 0, "program_file": "", "arena_bytes": 0, "device": "", "stage": 0,
           "replica": 0, "device_memory_bytes": 0}
    for number, _, value in fields(data):
        if number == 1:
            out["rank"] = _signed(value, 32)
        elif number == 2:
            out["program_file"] = value.decode()
        elif number == 3:
            out["arena_bytes"] = _signed(value)
        elif number == 4:
            out["device"] = value.decode()
        elif number == 5:
            out["stage"] = _signed(value, 32)
        elif number == 6:
            out["replica"] = _signed(value, 32)
        elif number == 7:
            out["device_memory_bytes"] = _signed(value)
    return out


def read_manifest(package):
    path = os.path.join(package, MANIFEST_FILE)
    if not os.path.isfile(path):
        raise PackageError(f"{package}: no {MANIFEST_FILE}; not a hetc package")
    with open(path, "rb") as f:
        data = f.read()
    out = {"format_version": 0, "model_name": "", "global_batch": 0, "seq_len": 0,
           "vocab_size": 0, "optimizer": None, "ranks": [], "weights_file": "",
           "constants_file": "", "compiler_version": "", "plan_json": ""}
    strings = {2: "model_name", 8: "weights_file", 9: "constants_file",
               10: "compiler_version", 11: "plan_json"}
    ints = {1: "format_version", 3: "global_batch", 4: "seq_len", 5: "vocab_size"}
    try:
        for number, _, value in fields(data):
            if number in strings:
                out[strings[number]] = value.decode()
            elif number in ints:
                out[ints[number]] = _signed(value)
            elif number == 6:
                out["optimizer"] = _decode_optimizer(value)
            elif number == 7:
                out["ranks"].append(_decode_rank(value))
    except (PackageError, UnicodeDecodeError, struct.error) as e:
        raise PackageError(f"{path}: not a valid manifest: {e}") from None
    if out["format_version"] != 3:
        raise PackageError(f"{path}: package format {out['format_version']}; this reader "
                           f"knows format 3")
    out["weights_file"] = out["weights_file"] or "weights.safetensors"
    return out


def _decode_buffer(data):
    out = {"id": 0, "name": "", "dtype": "", "shape": [], "offset": 0, "kind": "",
           "role": 0, "alias_of": 0, "first_sample": 0, "whole_shape": [], "host": False}
    for number, wire, value in fields(data):
        if number == 1:
            out["id"] = _signed(value, 32)
        elif number == 2:
            out["name"] = value.decode()
        elif number == 3:
            out["dtype"] = DTYPES.get(value, f"dtype {value}")
        elif number == 4:
            out["shape"] += _ints(wire, value)
        elif number == 5:
            out["offset"] = _signed(value)
        elif number == 6:
            out["kind"] = KINDS.get(value, f"kind {value}")
        elif number == 7:
            out["role"] = value
        elif number == 8:
            out["alias_of"] = _signed(value, 32)
        elif number == 9:
            out["first_sample"] = _signed(value)
        elif number == 10:
            out["whole_shape"] += _ints(wire, value)
        elif number == 11:
            out["host"] = bool(value)
    return out


def read_buffers(package, program_file):
    """The buffers of one rank's program, in id order."""
    path = os.path.join(package, program_file)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise PackageError(f"{path}: cannot read the program: {e.strerror}") from None
    try:
        buffers = [_decode_buffer(value) for number, _, value in fields(data) if number == 3]
    except (PackageError, UnicodeDecodeError) as e:
        raise PackageError(f"{path}: not a valid program: {e}") from None
    for i, b in enumerate(buffers):
        if b["id"] != i:
            raise PackageError(f"{path}: buffer {i} has id {b['id']}")
    return buffers


def _decode_attribute(data):
    for number, wire, value in fields(data):
        if number == 1:
            return _signed(value)
        if number == 2:
            return _double(value)
        if number == 3:
            return bool(value)
        if number == 4:
            return value.decode()
        if number == 5:
            return [v for n, w, x in fields(value) if n == 1 for v in _ints(w, x)]
        if number == 6:
            return [struct.unpack("<d", x[i:i + 8])[0] if w == 2 else _double(x)
                    for n, w, x in fields(value) if n == 1
                    for i in (range(0, len(x), 8) if w == 2 else [0])]
    return None  # an attribute left at its default


def _decode_instruction(data):
    out = {"kernel": "", "operands": [], "results": [], "attributes": {}, "location": ""}
    for number, wire, value in fields(data):
        if number == 1:
            out["kernel"] = value.decode()
        elif number == 2:
            out["operands"] += _ints(wire, value)
        elif number == 3:
            out["results"] += _ints(wire, value)
        elif number == 4:
            key, attr = "", None
            for n, _, v in fields(value):
                if n == 1:
                    key = v.decode()
                elif n == 2:
                    attr = _decode_attribute(v)
            out["attributes"][key] = attr
        elif number == 5:
            out["location"] = value.decode()
    return out


def read_instructions(package, program_file):
    """The launches of one rank's program, in order."""
    with open(os.path.join(package, program_file), "rb") as f:
        data = f.read()
    return [_decode_instruction(value) for number, _, value in fields(data) if number == 4]


def dump(package, out):
    """A canonical text form of the manifest and the programs (attributes sorted by
    name; protobuf writes maps in no fixed order, so equal programs may differ in
    bytes)."""
    manifest = read_manifest(package)
    for key in sorted(manifest):
        if key != "ranks":
            out.write(f"{key}: {manifest[key]}\n")
    for rank in manifest["ranks"]:
        out.write(f"rank {json.dumps(rank, sort_keys=True)}\n")
        for b in read_buffers(package, rank["program_file"]):
            out.write(f"  buffer {json.dumps(b, sort_keys=True)}\n")
        for i in read_instructions(package, rank["program_file"]):
            i["attributes"] = dict(sorted(i["attributes"].items()))
            out.write(f"  launch {json.dumps(i, sort_keys=True)}\n")


def parameter_tensors(package, manifest=None):
    """The tensors the package's weights file must hold, in the order `hetc compile`
    writes them: each PARAMETER buffer that owns its bytes (alias_of == -1), by rank,
    then by buffer id, a name held by several ranks once. A list of dicts with name,
    dtype, shape, whole_shape and the ranks that hold it."""
    manifest = manifest or read_manifest(package)
    out, seen = [], {}
    for rank in manifest["ranks"]:
        for b in read_buffers(package, rank["program_file"]):
            if b["kind"] != "PARAMETER" or b["alias_of"] != -1:
                continue
            known = seen.get(b["name"])
            if known is not None:
                if (known["dtype"], known["shape"]) != (b["dtype"], b["shape"]):
                    raise PackageError(
                        f"{package}: parameter {b['name']!r} is {known['dtype']} "
                        f"{known['shape']} on rank {known['ranks'][0]} but {b['dtype']} "
                        f"{b['shape']} on rank {rank['rank']}")
                known["ranks"].append(rank["rank"])
                continue
            entry = {"name": b["name"], "dtype": b["dtype"], "shape": list(b["shape"]),
                     "whole_shape": list(b["whole_shape"]), "ranks": [rank["rank"]]}
            seen[b["name"]] = entry
            out.append(entry)
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.exit("usage: hetpkg.py PACKAGE  (prints the manifest and programs as text)")
    try:
        dump(sys.argv[1], sys.stdout)
    except PackageError as e:
        sys.exit(f"hetpkg.py: error: {e}")
