"""BERT style bidirectional encoder (Devlin et al., 2018) with an MLM head, from scratch.

Post-LN blocks (LayerNorm after each residual add), word + learned position + token-type
embeddings followed by LayerNorm, unmasked self-attention, GELU MLP, and the MLM head
(dense -> GELU -> LayerNorm -> decoder tied to the word embedding, plus a vocab bias).

    forward(input_ids: int64 [B, T], token_type_ids=None) -> logits: float32 [B, T, vocab_size]

token_type_ids defaults to zeros, so the ONNX export takes input_ids only.
"""
import math
from dataclasses import dataclass, replace

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass(frozen=True)
class BertConfig:
    vocab_size: int = 30522
    max_pos: int = 512
    type_vocab_size: int = 2
    n_layer: int = 12
    n_head: int = 12
    d_model: int = 768
    d_ffn: int = 3072
    ln_eps: float = 1e-12


CONFIGS = {
    "tiny": BertConfig(vocab_size=256, max_pos=64, n_layer=2, n_head=4, d_model=64, d_ffn=256),
    "base": BertConfig(),  # ~110M parameters
}


class SelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        assert cfg.d_model % cfg.n_head == 0
        self.n_head = cfg.n_head
        self.head_dim = cfg.d_model // cfg.n_head
        self.query = nn.Linear(cfg.d_model, cfg.d_model)
        self.key = nn.Linear(cfg.d_model, cfg.d_model)
        self.value = nn.Linear(cfg.d_model, cfg.d_model)
        self.out = nn.Linear(cfg.d_model, cfg.d_model)

    def forward(self, x):
        B, T, C = x.size()
        q = self.query(x).view(B, T, self.n_head, self.head_dim).transpose(1, 2)
        k = self.key(x).view(B, T, self.n_head, self.head_dim).transpose(1, 2)
        v = self.value(x).view(B, T, self.n_head, self.head_dim).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.head_dim))
        att = F.softmax(att, dim=-1)  # bidirectional: no mask
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.out(y)


class Layer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.attn = SelfAttention(cfg)
        self.attn_ln = nn.LayerNorm(cfg.d_model, eps=cfg.ln_eps)
        self.ffn_in = nn.Linear(cfg.d_model, cfg.d_ffn)
        self.act = nn.GELU()
        self.ffn_out = nn.Linear(cfg.d_ffn, cfg.d_model)
        self.ffn_ln = nn.LayerNorm(cfg.d_model, eps=cfg.ln_eps)

    def forward(self, x):
        x = self.attn_ln(x + self.attn(x))                          # post-LN
        x = self.ffn_ln(x + self.ffn_out(self.act(self.ffn_in(x))))
        return x


class MLMHead(nn.Module):
    def __init__(self, cfg, word_embeddings):
        super().__init__()
        self.dense = nn.Linear(cfg.d_model, cfg.d_model)
        self.act = nn.GELU()
        self.ln = nn.LayerNorm(cfg.d_model, eps=cfg.ln_eps)
        self.decoder = nn.Linear(cfg.d_model, cfg.vocab_size)
        self.decoder.weight = word_embeddings.weight  # tied, as in BERT

    def forward(self, x):
        return self.decoder(self.ln(self.act(self.dense(x))))


class Bert(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.word_embeddings = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.position_embeddings = nn.Embedding(cfg.max_pos, cfg.d_model)
        self.token_type_embeddings = nn.Embedding(cfg.type_vocab_size, cfg.d_model)
        self.embed_ln = nn.LayerNorm(cfg.d_model, eps=cfg.ln_eps)
        self.layers = nn.ModuleList([Layer(cfg) for _ in range(cfg.n_layer)])
        self.mlm = MLMHead(cfg, self.word_embeddings)
        for name, p in self.named_parameters():
            if p.dim() >= 2:
                nn.init.normal_(p, 0.0, 0.02)
            elif "ln" in name.split(".")[-2] and name.endswith("weight"):
                nn.init.ones_(p)
            else:
                nn.init.zeros_(p)

    def forward(self, input_ids, token_type_ids=None):
        B, T = input_ids.size()
        assert T <= self.cfg.max_pos, f"sequence length {T} exceeds max_pos {self.cfg.max_pos}"
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        pos = torch.arange(0, T, dtype=torch.long, device=input_ids.device)
        x = (self.word_embeddings(input_ids) + self.position_embeddings(pos)
             + self.token_type_embeddings(token_type_ids))
        x = self.embed_ln(x)
        for layer in self.layers:
            x = layer(x)
        return self.mlm(x)


def build(config="tiny", seed=0, **overrides):
    """Model for a named config (fields may be overridden), initialized from `seed`."""
    cfg = replace(CONFIGS[config], **overrides)
    torch.manual_seed(seed)
    return Bert(cfg).eval()
