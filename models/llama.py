"""Llama style decoder-only transformer (Touvron et al., 2023), written from scratch.

Pre-norm blocks with RMSNorm, rotary position embeddings (rotate_half form), causal
self-attention, SwiGLU MLP, no biases anywhere, untied LM head.

    forward(input_ids: int64 [B, T]) -> logits: float32 [B, T, vocab_size]
"""
import math
from dataclasses import dataclass, replace

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass(frozen=True)
class LlamaConfig:
    vocab_size: int = 32000
    max_pos: int = 2048      # size of the RoPE tables and of the causal-mask buffer
    n_layer: int = 16
    n_head: int = 16
    d_model: int = 2048
    d_ffn: int = 5632
    norm_eps: float = 1e-5
    rope_theta: float = 10000.0


CONFIGS = {
    "tiny": LlamaConfig(vocab_size=256, max_pos=64, n_layer=2, n_head=4, d_model=64, d_ffn=176),
    # Narrow but deep (7 blocks): pipeline tests with uneven layer splits (e.g. 1/4/2).
    "deep": LlamaConfig(vocab_size=128, max_pos=64, n_layer=7, n_head=2, d_model=24, d_ffn=64),
    # ~0.95B parameters (TinyLlama-like widths, full multi-head attention, 16 layers).
    "1b": LlamaConfig(vocab_size=32000, max_pos=2048, n_layer=16, n_head=16, d_model=2048, d_ffn=5632),
}


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(max_pos, head_dim, theta):
    """cos/sin tables [max_pos, head_dim] for rotate_half RoPE (the two halves repeat)."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
    angles = torch.outer(torch.arange(max_pos, dtype=torch.float64), inv_freq)  # [P, hd/2]
    angles = torch.cat((angles, angles), dim=-1)                                  # [P, hd]
    return angles.cos().float(), angles.sin().float()


def rotate_half(x):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rope(x, cos, sin):
    """x: [B, H, T, hd]; cos, sin: [T, hd]."""
    return x * cos + rotate_half(x) * sin


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        assert cfg.d_model % cfg.n_head == 0
        self.n_head = cfg.n_head
        self.head_dim = cfg.d_model // cfg.n_head
        self.q_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)
        self.k_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)
        self.v_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)
        self.o_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)

    def forward(self, x, cos, sin, mask):
        B, T, C = x.size()
        q = self.q_proj(x).view(B, T, self.n_head, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.n_head, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.n_head, self.head_dim).transpose(1, 2)
        q = apply_rope(q, cos, sin)
        k = apply_rope(k, cos, sin)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.head_dim))
        att = att.masked_fill(mask == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.o_proj(y)


class SwiGLU(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.gate_proj = nn.Linear(cfg.d_model, cfg.d_ffn, bias=False)
        self.up_proj = nn.Linear(cfg.d_model, cfg.d_ffn, bias=False)
        self.down_proj = nn.Linear(cfg.d_ffn, cfg.d_model, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.attn_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.attn = Attention(cfg)
        self.mlp_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.mlp = SwiGLU(cfg)

    def forward(self, x, cos, sin, mask):
        x = x + self.attn(self.attn_norm(x), cos, sin, mask)
        x = x + self.mlp(self.mlp_norm(x))
        return x


class Llama(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.embed_tokens = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.layers = nn.ModuleList([Block(cfg) for _ in range(cfg.n_layer)])
        self.norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        # Constant tables: become graph constants in the export, never parameters.
        cos, sin = rope_tables(cfg.max_pos, cfg.d_model // cfg.n_head, cfg.rope_theta)
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)
        self.register_buffer("mask", torch.tril(torch.ones(cfg.max_pos, cfg.max_pos)), persistent=False)
        for p in self.parameters():
            if p.dim() >= 2:
                nn.init.normal_(p, 0.0, 0.02)  # RMSNorm weights stay at one

    def forward(self, input_ids):
        B, T = input_ids.size()
        assert T <= self.cfg.max_pos, f"sequence length {T} exceeds max_pos {self.cfg.max_pos}"
        cos, sin = self.rope_cos[:T], self.rope_sin[:T]
        mask = self.mask[:T, :T]
        x = self.embed_tokens(input_ids)
        for block in self.layers:
            x = block(x, cos, sin, mask)
        return self.lm_head(self.norm(x))


def build(config="tiny", seed=0, **overrides):
    """Model for a named config (fields may be overridden), initialized from `seed`."""
    cfg = replace(CONFIGS[config], **overrides)
    torch.manual_seed(seed)
    return Llama(cfg).eval()
