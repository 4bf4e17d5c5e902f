#!/usr/bin/env python3
"""Export Hugging Face `transformers` models (and torch's own modules) to ONNX for hetc,
with either torch exporter.

    hf_export.py --arch llama --exporter dynamo --out llama.onnx [--seq 16] [--seed 0]
                 [--attention-mask]
    hf_export.py --corpus DIR [--archs gpt2,llama] [--exporters torchscript,dynamo]
                 [--attention-mask]

The corpus is one small configuration per architecture (random weights from a fixed
seed, nothing downloaded): GPT-2, Llama with grouped-query attention, Qwen2, GPT-NeoX
(parallel residual, partial rotary), BERT, and a language model made of torch's
nn.TransformerEncoder with its causal mask as a buffer. The graph takes `input_ids` int64
[batch, T] (batch dynamic) and returns `logits` float32 [batch, T, V]; with
--attention-mask it also takes `attention_mask` int64 [batch, T] (hetc feeds it all
ones), and the corpus files are named ARCH-EXPORTER-mask.onnx.

What makes an export right for training with hetc (`export_for_hetc`, usable on any
`transformers` or plain torch model):
- `use_cache=False` and dropout probabilities 0, so the graph is the training forward;
- initializers keep their `state_dict` names and layouts: the TorchScript exporter runs
  in TrainingMode.TRAINING without constant folding (in eval mode it merges
  initializers of equal value and folds `W.T` into unnamed copies), the torch.export
  exporter runs with `optimize=False` (its optimizer does the same folding);
- torch's `named_buffers()` are listed in the metadata key `hetc.buffers` (a JSON
  array of names), so hetc holds them constant instead of training them.
"""
import argparse
import json
import os
import warnings

import torch
import transformers

BUFFERS_KEY = "hetc.buffers"

TINY = dict(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, max_position_embeddings=64)


def _configs():
    t = transformers
    zero_dropout = dict(attention_dropout=0.0)
    return {
        "gpt2": (t.GPT2LMHeadModel, t.GPT2Config(
            vocab_size=TINY["vocab_size"], n_positions=TINY["max_position_embeddings"],
            n_embd=TINY["hidden_size"], n_inner=TINY["intermediate_size"],
            n_layer=TINY["num_hidden_layers"], n_head=TINY["num_attention_heads"],
            attn_pdrop=0.0, resid_pdrop=0.0, embd_pdrop=0.0)),
        "llama": (t.LlamaForCausalLM, t.LlamaConfig(
            **TINY, num_key_value_heads=2, **zero_dropout)),
        "qwen2": (t.Qwen2ForCausalLM, t.Qwen2Config(
            **TINY, num_key_value_heads=2, **zero_dropout)),
        "gpt-neox": (t.GPTNeoXForCausalLM, t.GPTNeoXConfig(
            **TINY, rotary_pct=0.5, use_parallel_residual=True, hidden_dropout=0.0,
            **zero_dropout)),
        # No pad token: nn.Embedding(padding_idx=...) zeroes that row's gradient in
        # PyTorch, which no ONNX graph records (and packed training has no padding).
        "bert": (t.BertForMaskedLM, t.BertConfig(
            **TINY, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
            pad_token_id=None)),
    }


class EncoderLM(torch.nn.Module):
    """A causal language model from torch's own modules: token and position
    embeddings, a pre-LN nn.TransformerEncoder, a linear head. The causal mask
    (-inf above the diagonal) and the position ids are buffers."""

    def __init__(self, vocab_size=TINY["vocab_size"], d=TINY["hidden_size"],
                 heads=TINY["num_attention_heads"], layers=TINY["num_hidden_layers"],
                 max_pos=TINY["max_position_embeddings"]):
        super().__init__()
        self.vocab_size = vocab_size
        self.embed = torch.nn.Embedding(vocab_size, d)
        self.pos = torch.nn.Embedding(max_pos, d)
        layer = torch.nn.TransformerEncoderLayer(
            d, heads, TINY["intermediate_size"], dropout=0.0, batch_first=True,
            norm_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = torch.nn.Linear(d, vocab_size)
        self.register_buffer("causal_mask",
                             torch.nn.Transformer.generate_square_subsequent_mask(max_pos))
        self.register_buffer("position_ids", torch.arange(max_pos))

    def forward(self, input_ids, attention_mask=None):
        t = input_ids.shape[1]
        h = self.embed(input_ids) + self.pos(self.position_ids[:t])
        h = self.encoder(h, mask=self.causal_mask[:t, :t], is_causal=True)
        return transformers.modeling_outputs.CausalLMOutput(logits=self.head(h))


ARCHS = list(_configs()) + ["torch-encoder"]
EXPORTERS = ["torchscript", "dynamo"]


def build_model(arch, seed=0):
    """The corpus model `arch`, random weights from `seed`, in float32."""
    torch.manual_seed(seed)
    if arch == "torch-encoder":
        return EncoderLM()
    model_class, config = _configs()[arch]
    config.use_cache = False
    return model_class(config).float()


def vocab_size(model):
    return model.vocab_size if isinstance(model, EncoderLM) else model.config.vocab_size


def corpus_metadata(arch, seed):
    """What models/reference_train.py needs to rebuild the model in PyTorch."""
    return {"hetc.corpus_arch": arch, "hetc.seed": seed,
            "hetc.transformers": transformers.__version__}


class LogitsOnly(torch.nn.Module):
    """model(input_ids).logits. Parameters and buffers keep the model's names: the
    wrapper holds no module of its own, it *is* the model's module tree."""

    def __init__(self, model):
        super().__init__()
        self._modules = model._modules
        self._parameters = model._parameters
        self._buffers = model._buffers
        self._inner_forward = model.forward

    def forward(self, input_ids, attention_mask=None):
        return self._inner_forward(input_ids=input_ids, attention_mask=attention_mask).logits


def export_for_hetc(model, path, seq, exporter="dynamo", opset=None, metadata=None,
                    attention_mask=False):
    """Exports `model` (input_ids [, attention_mask] -> an output with .logits) to
    `path` as hetc expects; `metadata` adds model metadata props."""
    import onnx

    wrapped = LogitsOnly(model)
    inputs = (torch.zeros(2, seq, dtype=torch.long),)
    names = ["input_ids"]
    if attention_mask:
        inputs += (torch.ones(2, seq, dtype=torch.long),)
        names.append("attention_mask")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if exporter == "torchscript":
            torch.onnx.export(
                wrapped, inputs, path, dynamo=False, opset_version=opset or 17,
                input_names=names, output_names=["logits"],
                dynamic_axes={name: {0: "batch"} for name in names + ["logits"]},
                do_constant_folding=False, training=torch.onnx.TrainingMode.TRAINING)
        elif exporter == "dynamo":
            program = torch.onnx.export(
                wrapped, inputs, dynamo=True, opset_version=opset or 18, optimize=False,
                input_names=names, output_names=["logits"],
                dynamic_shapes={name: {0: torch.export.Dim.AUTO} for name in names},
                verbose=False)
            program.save(path, external_data=False)
        else:
            raise SystemExit(f"unknown exporter {exporter!r}; have: {', '.join(EXPORTERS)}")
    proto = onnx.load(path)
    onnx.helper.set_model_props(proto, {
        BUFFERS_KEY: json.dumps([name for name, _ in model.named_buffers()]),
        **{key: str(value) for key, value in (metadata or {}).items()}})
    onnx.save(proto, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arch", choices=ARCHS)
    parser.add_argument("--exporter", choices=EXPORTERS, default="dynamo")
    parser.add_argument("--out", help="the .onnx file to write (with --arch)")
    parser.add_argument("--corpus", help="write every ARCH-EXPORTER.onnx into this folder")
    parser.add_argument("--archs", default=",".join(ARCHS))
    parser.add_argument("--exporters", default=",".join(EXPORTERS))
    parser.add_argument("--seq", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--attention-mask", action="store_true",
                        help="give the graph an attention_mask input too")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.corpus:
        os.makedirs(args.corpus, exist_ok=True)
        for arch in args.archs.split(","):
            for exporter in args.exporters.split(","):
                suffix = "-mask" if args.attention_mask else ""
                path = os.path.join(args.corpus, f"{arch}-{exporter}{suffix}.onnx")
                export_for_hetc(build_model(arch, args.seed), path, args.seq, exporter,
                                metadata=corpus_metadata(arch, args.seed),
                                attention_mask=args.attention_mask)
                print(f"hf_export: wrote {path}")
    elif args.arch and args.out:
        export_for_hetc(build_model(args.arch, args.seed), args.out, args.seq, args.exporter,
                        metadata=corpus_metadata(args.arch, args.seed),
                        attention_mask=args.attention_mask)
        print(f"hf_export: wrote {args.out}")
    else:
        parser.error("give --arch ARCH --out FILE, or --corpus DIR")


if __name__ == "__main__":
    main()
