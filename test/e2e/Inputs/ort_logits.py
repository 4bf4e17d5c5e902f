"""Checks a forward-only hetrun against onnxruntime on the same ONNX file:
the logits hetrun --outputs saved for step STEP's batch (default 0; the
data contract's sample order) against onnxruntime's, element by element,
and the step's loss (the metrics file's first line) against the mean token
cross-entropy (in float64) of onnxruntime's logits.

The logits match when max |hetrun - onnxruntime| <= RTOL * max |onnxruntime|
(the scale of the logits: an element-wise relative error is meaningless
for logits near zero); the loss when its relative error is <= RTOL.

usage: ort_logits.py MODEL.onnx TOKENS.bin B T OUTPUTS.safetensors
                     METRICS.jsonl RTOL [STEP]
"""
import json
import os
import sys

import numpy as np
import onnxruntime
from safetensors.numpy import load_file

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "models"))
import reference_train  # noqa: E402


def onnxruntime_logits(model, x):
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3  # no notes on nodes it cannot fold
    session = onnxruntime.InferenceSession(model, options,
                                           providers=["CPUExecutionProvider"])
    feeds = {"input_ids": x}
    if any(i.name == "attention_mask" for i in session.get_inputs()):
        feeds["attention_mask"] = np.ones_like(x)  # packed: every token is real
    (logits,) = session.run(["logits"], feeds)
    return logits


def mean_cross_entropy(logits, labels):
    logits = logits.astype(np.float64).reshape(-1, logits.shape[-1])
    top = logits.max(axis=1, keepdims=True)
    logsumexp = np.log(np.exp(logits - top).sum(axis=1)) + top[:, 0]
    return float(np.mean(logsumexp - logits[np.arange(len(logits)), labels.reshape(-1)]))


def main(model, tokens_path, batch, seq, outputs, metrics, rtol, step="0"):
    batch, seq, rtol = int(batch), int(seq), float(rtol)
    tokens = reference_train.load_tokens(tokens_path, "uint16")
    x, y = reference_train.get_batch(tokens, int(step), batch, seq)
    want = onnxruntime_logits(model, x)
    got = load_file(outputs)["logits"]
    name = os.path.basename(model)
    if got.shape != want.shape:
        print(f"{name}: hetrun's logits are {got.shape}, onnxruntime's {want.shape}")
        return 1
    scale = float(np.abs(want).max())
    logits_error = float(np.abs(got.astype(np.float64) - want).max()) / scale
    expected = mean_cross_entropy(want, y)
    with open(metrics) as f:
        loss = json.loads(f.readline())["loss"]
    loss_error = abs(loss - expected) / abs(expected)
    print(f"{name}: logits {got.shape} max error {logits_error:.2e} of max |logit| "
          f"{scale:.3g}; loss hetrun {loss:.9g}, onnxruntime {expected:.9g}, "
          f"relative error {loss_error:.2e} (tolerance {rtol:g})")
    return 0 if logits_error <= rtol and loss_error <= rtol else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
