"""Checks hetrun's first loss against onnxruntime on the same ONNX file: the
mean token cross-entropy (in float64) of onnxruntime's logits for step 0's
batch (the data contract's sample order), against the first `loss` of a
hetrun --metrics file.

usage: ort_first_loss.py MODEL.onnx TOKENS.bin B T METRICS.jsonl RTOL
"""
import json
import os
import sys

import numpy as np
import onnxruntime

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "models"))
import reference_train  # noqa: E402


def main(model, tokens_path, batch, seq, metrics, rtol):
    batch, seq, rtol = int(batch), int(seq), float(rtol)
    tokens = reference_train.load_tokens(tokens_path, "uint16")
    x, y = reference_train.get_batch(tokens, 0, batch, seq)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3  # no notes on nodes it cannot fold
    session = onnxruntime.InferenceSession(model, options,
                                           providers=["CPUExecutionProvider"])
    feeds = {"input_ids": x}
    if any(i.name == "attention_mask" for i in session.get_inputs()):
        feeds["attention_mask"] = np.ones_like(x)  # packed: every token is real
    (logits,) = session.run(["logits"], feeds)
    logits = logits.astype(np.float64).reshape(-1, logits.shape[-1])
    top = logits.max(axis=1, keepdims=True)
    logsumexp = np.log(np.exp(logits - top).sum(axis=1)) + top[:, 0]
    expected = float(np.mean(logsumexp - logits[np.arange(len(logits)), y.reshape(-1)]))
    with open(metrics) as f:
        got = json.loads(f.readline())["loss"]
    error = abs(got - expected) / abs(expected)
    print(f"{os.path.basename(model)}: hetrun {got:.9g}, onnxruntime {expected:.9g}, "
          f"relative error {error:.2e} (tolerance {rtol:g})")
    return 0 if error <= rtol else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
