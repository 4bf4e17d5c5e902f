"""GPT-2 style decoder-only transformer (Radford et al., 2019), written from scratch.

Pre-LN blocks, learned token + position embeddings, explicit causal self-attention,
GELU MLP, final LayerNorm and an LM head tied to the token embedding.

    forward(input_ids: int64 [B, T]) -> logits: float32 [B, T, vocab_size]
"""
import math
from dataclasses import dataclass, replace

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass(frozen=True)
class GPT2Config:
    vocab_size: int = 50257
    max_pos: int = 1024     # size of the position table (and of the causal-mask buffer)
    n_layer: int = 12
    n_head: int = 12
    d_model: int = 768
    ln_eps: float = 1e-5
    gelu: str = "erf"       # "erf" (exact, nn.GELU default) or "tanh" (GPT-2's original)


CONFIGS = {
    "tiny": GPT2Config(vocab_size=256, max_pos=64, n_layer=2, n_head=4, d_model=64),
    # A mid-size model for benchmarks (bench/), exported on the fly, never committed.
    "small": GPT2Config(vocab_size=4096, max_pos=256, n_layer=4, n_head=4, d_model=256),
    # GPT-2 124M's layers with a small vocabulary: the benchmark row where the
    # matrix products dominate.
    "bench-large": GPT2Config(vocab_size=4096, max_pos=256, n_layer=12, n_head=12, d_model=768),
    "124m": GPT2Config(vocab_size=50257, max_pos=1024, n_layer=12, n_head=12, d_model=768),
    "350m": GPT2Config(vocab_size=50257, max_pos=1024, n_layer=24, n_head=16, d_model=1024),
}


class TanhGELU(nn.Module):
    """GELU, tanh approximation, written out so that every opset exports the same
    elementwise ops (torch 1.13 does not export nn.GELU(approximate='tanh') uniformly)."""

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def make_gelu(kind):
    if kind == "erf":
        return nn.GELU()  # approximate='none'
    if kind == "tanh":
        return TanhGELU()
    raise ValueError(f"unknown gelu kind {kind!r} (expected 'erf' or 'tanh')")


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        assert cfg.d_model % cfg.n_head == 0
        self.n_head = cfg.n_head
        self.d_model = cfg.d_model
        self.c_attn = nn.Linear(cfg.d_model, 3 * cfg.d_model)  # q, k, v in one projection
        self.c_proj = nn.Linear(cfg.d_model, cfg.d_model)
        # Lower-triangular mask, sliced to T in forward. Not a parameter: the exporter
        # folds the slice and the comparison into a constant.
        mask = torch.tril(torch.ones(cfg.max_pos, cfg.max_pos)).view(1, 1, cfg.max_pos, cfg.max_pos)
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, x):
        B, T, C = x.size()
        hd = C // self.n_head
        q, k, v = self.c_attn(x).split(self.d_model, dim=2)
        q = q.view(B, T, self.n_head, hd).transpose(1, 2)  # [B, H, T, hd]
        k = k.view(B, T, self.n_head, hd).transpose(1, 2)
        v = v.view(B, T, self.n_head, hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))  # [B, H, T, T]
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v  # [B, H, T, hd]
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.c_fc = nn.Linear(cfg.d_model, 4 * cfg.d_model)
        self.act = make_gelu(cfg.gelu)
        self.c_proj = nn.Linear(4 * cfg.d_model, cfg.d_model)

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.d_model, eps=cfg.ln_eps)
        self.attn = CausalSelfAttention(cfg)
        self.ln_2 = nn.LayerNorm(cfg.d_model, eps=cfg.ln_eps)
        self.mlp = MLP(cfg)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT2(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.wte = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.wpe = nn.Embedding(cfg.max_pos, cfg.d_model)
        self.h = nn.ModuleList([Block(cfg) for _ in range(cfg.n_layer)])
        self.ln_f = nn.LayerNorm(cfg.d_model, eps=cfg.ln_eps)
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        self.lm_head.weight = self.wte.weight  # weight tying: one tensor, two uses
        self._init_weights()

    def _init_weights(self):
        # GPT-2: N(0, 0.02) weights, zero biases, residual projections scaled by 1/sqrt(2L).
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * self.cfg.n_layer))
            elif p.dim() >= 2:
                nn.init.normal_(p, 0.0, 0.02)
            elif ".ln_" in name or name.startswith("ln_"):
                nn.init.ones_(p) if name.endswith("weight") else nn.init.zeros_(p)
            else:
                nn.init.zeros_(p)

    def forward(self, input_ids):
        B, T = input_ids.size()
        assert T <= self.cfg.max_pos, f"sequence length {T} exceeds max_pos {self.cfg.max_pos}"
        pos = torch.arange(0, T, dtype=torch.long, device=input_ids.device)
        x = self.wte(input_ids) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        x = self.ln_f(x)
        return self.lm_head(x)


def build(config="tiny", seed=0, **overrides):
    """Model for a named config (fields may be overridden), initialized from `seed`."""
    cfg = replace(CONFIGS[config], **overrides)
    torch.manual_seed(seed)
    return GPT2(cfg).eval()
