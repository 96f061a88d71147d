"""Pair-aware features from frozen all-MiniLM-L6-v2.

For every sample (one story judged against one sense) we compute

* sentence level: cosines between MiniLM embeddings of parts of the story (whole story,
  story without ending, ending, ambiguous sentence, precontext) and of the sense (sense
  text, "homonym: gloss", example sentence, bare gloss);
* token level: the contextual vector of the homonym inside the story (with and without the
  ending) against the homonym's vector inside the example sentence and the sense text,
  and the ending's shift of the homonym vector towards the sense;

then make them pair-aware: each feature minus the same feature for the *other sense of
the same story* (same homonym + precontext + sentence + ending, other judged_meaning),
plus the mean of those differences over the setup's variants of the same sense, and the
differences again gated by "the story has an ending". Only input fields are read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .encoder import EmbeddingCache, embed, load_encoder
from .texts import (
    SampleFields,
    field,
    gloss_text,
    partners,
    sense_text,
    setup_key,
    story_groups,
    story_key,
    story_text,
)

__all__ = [
    "partner_index",
    "setup_sense_groups",
    "setup_views",
    "homonym_span",
    "homonym_vectors",
    "homonym_items",
    "raw_features",
    "contrast_features",
    "RAW_NAMES",
    "HUB_NAMES",
    "reference_means",
    "hub_features",
]

_STORY_PARTS = ("story", "ending", "sentence", "precontext", "story_noend")
_SENSE_PARTS = ("sense", "gloss", "example", "meaning")
RAW_NAMES = [f"cos_{a}_{b}" for a in _STORY_PARTS for b in _SENSE_PARTS] + [
    "tok_story_example",
    "tok_noend_example",
    "tok_story_sense",
    "tok_story_gloss",
    "tok_shift_example",
    "tok_noend_sense",
    "tok_shift_sense",
    "tok_story_tsense",
    "tok_noend_tsense",
    "tok_story_texample",
    "tok_shift_tsense",
    "cos_ending_tsense",
]


def partner_index(samples: Sequence[SampleFields]) -> list[int | None]:
    """For each sample, the index of the other sense of the same story (None if absent)."""
    return partners([story_key(s) for s in samples], [field(s, "judged_meaning") for s in samples])


def setup_sense_groups(samples: Sequence[SampleFields]) -> list[list[int]]:
    """For each sample, the indices of all samples of its setup judged on the same sense."""
    of: list[list[int]] = [[] for _ in samples]
    for group in story_groups([setup_key(s) + (field(s, "judged_meaning"),) for s in samples]):
        for i in group:
            of[i] = group
    return of


def setup_views(samples: Sequence[SampleFields]) -> tuple[list[int | None], list[int | None]]:
    """For each sample of a story with an ending, the index of the same sense judged on the
    setup's other ending and on the setup's story without an ending (None where absent, and
    for the stories without an ending)."""
    other: list[int | None] = []
    bare: list[int | None] = []
    groups = setup_sense_groups(samples)
    for i, group in enumerate(groups):
        ending = field(samples[i], "ending")
        views = [(j, field(samples[j], "ending")) for j in group if j != i]
        other.append(next((j for j, e in views if e and e != ending), None) if ending else None)
        bare.append(next((j for j, e in views if not e), None) if ending else None)
    return other, bare


def homonym_span(text: str, homonym: str, start: int = 0) -> tuple[int, int] | None:
    """Character span of the first word at/after ``start`` that starts like ``homonym``.

    Tries the full word, then shorter stems (inflections: "bats", "banking").
    """
    lowered, word = text.lower(), homonym.lower().strip()
    if not word:
        return None
    stems = [word, word[:-1] if len(word) > 4 else word, word[: max(3, len(word) - 2)]]
    for stem in stems:
        match = re.search(r"\b" + re.escape(stem) + r"\w*", lowered[start:])
        if match:
            return start + match.start(), start + match.end()
    return None


def _token_model() -> tuple[Any, Any]:
    encoder = load_encoder()
    transformer = encoder[0]
    return transformer.auto_model, transformer.tokenizer


def homonym_vectors(
    items: Sequence[tuple[str, tuple[int, int] | None]],
    *,
    cache: EmbeddingCache | None = None,
    batch_size: int = 32,
    layers: Sequence[int] = (),
) -> np.ndarray:
    """Unit-norm MiniLM vectors of the tokens covering each span: the last layer's, or with
    ``layers`` the sum of those hidden states (indices into ``hidden_states``, 0 being the
    embeddings; cached under their own keys).

    ``items`` are ``(text, (start, end))``; a missing span falls back to mean pooling.
    """
    import torch

    prefix = "tok" + ("L" + "-".join(str(i) for i in layers) if layers else "")
    keyed = [
        f"{prefix}|{a}|{b}|{t}" if sp else f"{prefix}|-|-|{t}"
        for t, sp in items
        for a, b in [sp or (0, 0)]
    ]
    store = cache if cache is not None else EmbeddingCache(None)
    todo = [(k, it) for k, it in dict(zip(keyed, items)).items() if store.get(k) is None]
    if todo:
        model, tokenizer = _token_model()
        model.eval()
        for start in range(0, len(todo), batch_size):
            chunk = todo[start : start + batch_size]
            enc = tokenizer(
                [t for _, (t, _) in chunk],
                return_offsets_mapping=True,
                padding=True,
                truncation=True,
                max_length=256,
                return_tensors="pt",
            )
            offsets = enc.pop("offset_mapping")
            inputs = {k: v.to(model.device) for k, v in enc.items()}
            with torch.inference_mode():
                if layers:
                    states = model(**inputs, output_hidden_states=True).hidden_states
                    hidden = sum(states[i] for i in layers).cpu()
                else:
                    hidden = model(**inputs).last_hidden_state.cpu()
            for j, (key, (_, span)) in enumerate(chunk):
                mask = enc["attention_mask"][j].bool()
                sel = torch.zeros_like(mask)
                if span is not None:
                    a, b = span
                    sel = (offsets[j][:, 0] < b) & (offsets[j][:, 1] > a) & mask
                if int(sel.sum()) == 0:
                    sel = mask
                vec = hidden[j][sel].mean(0)
                store.put(key, (vec / vec.norm()).numpy())
        store.save()
    return np.stack([store.vector(k) for k in keyed]).astype(np.float32)


def homonym_items(
    samples: Sequence[SampleFields],
) -> dict[str, list[tuple[str, tuple[int, int] | None]]]:
    """The (text, homonym span) items of :func:`homonym_vectors` per view: the story with
    and without its ending (the homonym at or after the ambiguous sentence), the example
    sentence, and the sense text at its leading homonym and at the example inside it."""
    hom = [field(s, "homonym") for s in samples]
    pre = [len(field(s, "precontext")) for s in samples]
    story = [story_text(s, mark=False) for s in samples]
    noend = [story_text(s, mark=False, with_ending=False) for s in samples]
    example = [field(s, "example_sentence") for s in samples]
    sense = [sense_text(s) for s in samples]
    return {
        "story": [(t, homonym_span(t, h, p)) for t, h, p in zip(story, hom, pre)],
        "noend": [(t, homonym_span(t, h, p)) for t, h, p in zip(noend, hom, pre)],
        "example": [(t, homonym_span(t, h)) for t, h in zip(example, hom)],
        "tsense": [(t, homonym_span(t, h)) for t, h in zip(sense, hom)],
        "texample": [
            (t, homonym_span(t, h, len(gloss_text(s)))) for t, h, s in zip(sense, hom, samples)
        ],
    }


def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(1)


def raw_features(
    samples: Sequence[SampleFields], cache_dir: str | Path | None = None
) -> np.ndarray:
    """Per-sample similarity features, shape ``(n, len(RAW_NAMES))`` (no pairing yet)."""
    cache = EmbeddingCache(Path(cache_dir) / "minilm_sentences.npz") if cache_dir else None
    tcache = EmbeddingCache(Path(cache_dir) / "minilm_tokens.npz") if cache_dir else None
    has_end = np.array([1.0 if field(s, "ending") else 0.0 for s in samples])
    texts = {
        "story": [story_text(s, mark=False) for s in samples],
        "ending": [field(s, "ending") for s in samples],
        "sentence": [field(s, "sentence") for s in samples],
        "precontext": [field(s, "precontext") for s in samples],
        "story_noend": [story_text(s, mark=False, with_ending=False) for s in samples],
        "sense": [sense_text(s) for s in samples],
        "gloss": [gloss_text(s) for s in samples],
        "example": [field(s, "example_sentence") for s in samples],
        "meaning": [field(s, "judged_meaning") for s in samples],
    }
    vec = {k: embed(v, cache=cache) for k, v in texts.items()}
    cols = []
    for a in _STORY_PARTS:
        for b in _SENSE_PARTS:
            c = _cos(vec[a], vec[b])
            cols.append(c * has_end if a == "ending" else c)
    tv = {k: homonym_vectors(v, cache=tcache) for k, v in homonym_items(samples).items()}
    shift = tv["story"] - tv["noend"]
    cols += [
        _cos(tv["story"], tv["example"]),
        _cos(tv["noend"], tv["example"]),
        _cos(tv["story"], vec["sense"]),
        _cos(tv["story"], vec["gloss"]),
        _cos(shift, tv["example"]),
        _cos(tv["noend"], vec["sense"]),
        _cos(shift, vec["sense"]),
        _cos(tv["story"], tv["tsense"]),
        _cos(tv["noend"], tv["tsense"]),
        _cos(tv["story"], tv["texample"]),
        _cos(shift, tv["tsense"]),
        _cos(vec["ending"], tv["tsense"]) * has_end,
    ]
    return np.stack(cols, 1).astype(np.float64)


HUB_NAMES = [
    f"hub_{a}_{b}" for b in ("sense", "gloss", "example", "meaning") for a in ("story", "ending")
]


def reference_means(
    samples: Sequence[SampleFields], cache_dir: str | Path | None = None
) -> dict[str, list[float]]:
    """Mean MiniLM embedding of the distinct stories and of the distinct endings of
    ``samples`` (the training split): the reference for :func:`hub_features`."""
    cache = EmbeddingCache(Path(cache_dir) / "minilm_sentences.npz") if cache_dir else None
    stories = sorted({story_text(s, mark=False) for s in samples})
    endings = sorted({field(s, "ending") for s in samples if field(s, "ending")})
    return {
        "story": embed(stories, cache=cache).mean(0).tolist(),
        "ending": embed(endings, cache=cache).mean(0).tolist() if endings else [0.0] * 384,
    }


def hub_features(
    samples: Sequence[SampleFields],
    reference: dict[str, list[float]],
    cache_dir: str | Path | None = None,
) -> np.ndarray:
    """Hubness-corrected similarities, shape ``(n, 8)``: cos(story or ending, sense side)
    minus the sense side's mean cosine to the reference stories (or endings). Senses whose
    gloss is close to *any* story stop looking preferred everywhere."""
    cache = EmbeddingCache(Path(cache_dir) / "minilm_sentences.npz") if cache_dir else None
    story = embed([story_text(s, mark=False) for s in samples], cache=cache)
    ending = embed([field(s, "ending") for s in samples], cache=cache)
    has_end = np.array([1.0 if field(s, "ending") else 0.0 for s in samples])
    ref_story, ref_end = np.array(reference["story"]), np.array(reference["ending"])
    cols = []
    for fn in (
        sense_text,
        gloss_text,
        lambda s: field(s, "example_sentence"),
        lambda s: field(s, "judged_meaning"),
    ):
        v = embed([fn(s) for s in samples], cache=cache)
        cols.append(_cos(story, v) - v @ ref_story)
        cols.append((_cos(ending, v) - v @ ref_end) * has_end)
    return np.stack(cols, 1).astype(np.float64)


def contrast_features(
    samples: Sequence[SampleFields], raw: np.ndarray, fallback: np.ndarray | None = None
) -> np.ndarray:
    """Pair-aware feature matrix from :func:`raw_features` output.

    Blocks: [raw - raw(other sense)] , [setup/sense mean of that], [that * has_ending].
    Where a story has no other sense, ``fallback`` (e.g. training means of ``raw``) stands
    in for the partner's row (zeros difference if ``fallback`` is None).
    """
    partners = partner_index(samples)
    other = (
        np.stack(
            [
                raw[p] if p is not None else (fallback if fallback is not None else raw[i])
                for i, p in enumerate(partners)
            ]
        )
        if len(samples)
        else raw
    )
    diff = raw - other
    groups = setup_sense_groups(samples)
    mean = np.stack([diff[g].mean(0) for g in groups]) if len(samples) else diff
    has_end = np.array([[1.0 if field(s, "ending") else 0.0] for s in samples]).reshape(-1, 1)
    return np.hstack([diff, mean, diff * has_end])
