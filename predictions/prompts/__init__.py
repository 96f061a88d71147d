"""Versioned prediction prompts (data files) and their pure renderer.

>>> prompt = get_prompt("ambistory-b3-zeroshot-v1")
>>> messages = render(prompt, sample_dict)  # [{"role": "user", "content": "..."}]
"""

from __future__ import annotations

from .registry import (
    DATA_DIR,
    SCHEMA,
    InvalidPrompt,
    Prompt,
    UnknownPrompt,
    all_prompts,
    get_prompt,
    parse_prompt,
)
from .render import RenderError, comparative_order, reask_messages, render, story_text

DEFAULT_PROMPT = "ambistory-b3-zeroshot-v1"

__all__ = [
    "DATA_DIR",
    "DEFAULT_PROMPT",
    "SCHEMA",
    "InvalidPrompt",
    "Prompt",
    "RenderError",
    "UnknownPrompt",
    "all_prompts",
    "comparative_order",
    "get_prompt",
    "parse_prompt",
    "reask_messages",
    "render",
    "story_text",
]
