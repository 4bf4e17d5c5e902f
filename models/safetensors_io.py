"""Read and write .safetensors files with NumPy only (no `safetensors` package).

The layout (the same as runtime/package/Safetensors.cpp): an 8-byte little-endian
header length N, N bytes of JSON mapping each tensor name to
{"dtype", "shape", "data_offsets": [begin, end)} (offsets relative to the end of the
header, plus an optional "__metadata__" object of strings), padded with spaces so the
data starts 8-byte aligned, then the raw little-endian row-major data.

    write(path, {"name": ndarray, ...}, metadata={"key": "value"})
    tensors, metadata = read(path)      # dict name -> ndarray (file order), dict

Writing is deterministic: tensors are laid out in the order given, and the same
tensors give the same bytes.
"""
import json
import struct

import numpy as np

# safetensors dtype name <-> little-endian NumPy dtype.
_DTYPES = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "I64": "<i8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U64": "<u8",
    "U32": "<u4",
    "U16": "<u2",
    "U8": "u1",
    "BOOL": "?",
}
_NAMES = {np.dtype(v): k for k, v in _DTYPES.items()}


class SafetensorsError(ValueError):
    pass


def _dtype_name(array):
    dt = array.dtype.newbyteorder("<") if array.dtype.byteorder == ">" else array.dtype
    name = _NAMES.get(np.dtype(dt))
    if name is None:
        raise SafetensorsError(f"dtype {array.dtype} has no safetensors name")
    return name


def encode(tensors, metadata=None):
    """Bytes of a safetensors file holding `tensors` (a mapping name -> array-like)."""
    header = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    chunks, offset = [], 0
    for name, value in tensors.items():
        if not name or name == "__metadata__":
            raise SafetensorsError(f"invalid tensor name {name!r}")
        array = np.asarray(value)
        dtype = _dtype_name(array)
        data = np.ascontiguousarray(array, dtype=np.dtype(_DTYPES[dtype])).tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def write(path, tensors, metadata=None):
    with open(path, "wb") as f:
        f.write(encode(tensors, metadata))


def decode(data, source="<bytes>"):
    """(tensors, metadata) from a file's bytes; tensors in data-offset order."""
    if len(data) < 8:
        raise SafetensorsError(f"{source}: {len(data)} bytes is too short for a safetensors header")
    (length,) = struct.unpack("<Q", data[:8])
    if length > len(data) - 8:
        raise SafetensorsError(f"{source}: header length {length} exceeds the file ({len(data)} bytes)")
    try:
        header = json.loads(data[8:8 + length].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SafetensorsError(f"{source}: the header is not JSON: {e}") from None
    if not isinstance(header, dict):
        raise SafetensorsError(f"{source}: the header is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    body = memoryview(data)[8 + length:]
    entries = []
    for name, entry in header.items():
        try:
            dtype = np.dtype(_DTYPES[entry["dtype"]])
            shape = tuple(int(d) for d in entry["shape"])
            begin, end = (int(x) for x in entry["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise SafetensorsError(f"{source}: tensor {name!r} has a bad header entry {entry!r}") from None
        numel = int(np.prod(shape, dtype=np.int64))
        if not 0 <= begin <= end <= len(body) or end - begin != numel * dtype.itemsize:
            raise SafetensorsError(f"{source}: tensor {name!r}: data_offsets [{begin}, {end}) do not fit "
                                   f"{entry['dtype']} {list(shape)} in {len(body)} bytes of data")
        entries.append((begin, end, name, dtype, shape))
    entries.sort(key=lambda e: e[0])
    for a, b in zip(entries, entries[1:]):
        if b[0] < a[1]:
            raise SafetensorsError(f"{source}: tensors {a[2]!r} and {b[2]!r} overlap")
    tensors = {}
    for begin, end, name, dtype, shape in entries:
        tensors[name] = np.frombuffer(body[begin:end], dtype=dtype).reshape(shape).copy()
    return tensors, metadata


def read(path):
    with open(path, "rb") as f:
        return decode(f.read(), source=path)
