"""The feature blocks bench/ml_frozen_variants.py adds to (or swaps into) the frozen
predictor: MiniLM's last four layers, the bare homonym's cosines with the sense, WordNet 3.0
lookups and the story-sense products of the bilinear variant. ``CACHE`` is the feature cache
every variant reads (``--smoke`` and the tests point it at a scratch folder)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

CACHE = "var/quality-cache"
LAYERS = (3, 4, 5, 6)  # hidden_states indices: MiniLM-L6's last four layers
TOKEN_PAIRS = (  # the token-to-token similarities the layer variants recompute
    ("tok_story_example", "story", "example"),
    ("tok_noend_example", "noend", "example"),
    ("tok_shift_example", "shift", "example"),
    ("tok_story_tsense", "story", "tsense"),
    ("tok_noend_tsense", "noend", "tsense"),
    ("tok_story_texample", "story", "texample"),
    ("tok_shift_tsense", "shift", "tsense"),
)


def layer_columns(samples, scratch: Path) -> np.ndarray:
    from predictions.ml.encoder import EmbeddingCache
    from predictions.ml.features import homonym_items, homonym_vectors

    cache = EmbeddingCache(scratch / "layer_tokens.npz")
    vec = {
        k: homonym_vectors(v, cache=cache, layers=LAYERS) for k, v in homonym_items(samples).items()
    }
    vec["shift"] = vec["story"] - vec["noend"]
    return np.stack([(vec[a] * vec[b]).sum(1) for _, a, b in TOKEN_PAIRS], 1).astype(float)


def dominance_columns(samples, scratch: Path) -> np.ndarray:
    from predictions.ml.encoder import EmbeddingCache, embed
    from predictions.ml.texts import field, gloss_text, sense_text

    bare = embed([field(s, "homonym") for s in samples], cache=scratch / "bare.npz")
    cache = EmbeddingCache(Path(CACHE) / "minilm_sentences.npz")
    cols = []
    for fn in (sense_text, gloss_text, lambda s: field(s, "example_sentence")):
        cols.append((bare * embed([fn(s) for s in samples], cache=cache)).sum(1))
    return np.stack(cols, 1).astype(float)


class WordNet:
    """The few WordNet 3.0 lookups the ``wordnet`` variants need, read from the database
    files (wndb(5WN): ``index.sense``, ``data.*``, ``*.exc``) in ``root``."""

    POS = {"1": "noun", "2": "verb", "3": "adj", "4": "adv", "5": "adj"}
    SUFFIXES = (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
                ("shes", "sh"), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
                ("ing", "e"), ("ing", ""), ("er", ""), ("est", ""))  # fmt: skip

    def __init__(self, root: Path):
        self.root = Path(root)
        self.senses: dict[str, list[tuple[str, int, int, int]]] = {}
        with open(self.root / "index.sense") as fh:
            for line in fh:
                key, offset, number, count = line.split()
                lemma, rest = key.split("%", 1)
                self.senses.setdefault(lemma, []).append(
                    (self.POS[rest[0]], int(offset), int(number), int(count))
                )
        self.exceptions: dict[str, list[str]] = {}
        for pos in ("noun", "verb", "adj", "adv"):
            with open(self.root / f"{pos}.exc") as fh:
                for line in fh:
                    word, *bases = line.split()
                    self.exceptions.setdefault(word, []).extend(bases)

    def synset(self, pos: str, offset: int) -> dict:
        """Lemmas, definition, examples and hypernym pointers of one data-file line."""
        with open(self.root / f"data.{pos}", "rb") as fh:
            fh.seek(offset)
            head, gloss = fh.readline().decode().split(" | ", 1)
        a = head.split()
        n_words = int(a[3], 16)
        words = [a[4 + 2 * i].replace("_", " ") for i in range(n_words)]
        j = 4 + 2 * n_words
        pchar = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}
        hypernyms = [
            (pchar[a[j + 3 + 4 * k]], int(a[j + 2 + 4 * k]))
            for k in range(int(a[j]))
            if a[j + 1 + 4 * k] in ("@", "@i")
        ]
        parts = [p.strip() for p in gloss.strip().split(";")]
        examples = [p.strip('"') for p in parts[1:] if p.startswith('"')]
        return {"words": words, "definition": parts[0], "examples": examples,
                "hypernyms": hypernyms, "gloss": gloss.strip()}  # fmt: skip

    def lemmas(self, word: str) -> list[str]:
        word = word.lower().strip().replace(" ", "_")
        found = [word, *self.exceptions.get(word, [])]
        found += [word[: -len(a)] + b for a, b in self.SUFFIXES if word.endswith(a)]
        for a in ("ing", "ed"):  # running -> run
            if (
                word.endswith(a)
                and len(word) > len(a) + 2
                and word[-len(a) - 1] == word[-len(a) - 2]
            ):
                found.append(word[: -len(a) - 1])
        return [w for w in dict.fromkeys(found) if w in self.senses]

    def sense(self, homonym: str, gloss: str) -> dict | None:
        """The homonym's WordNet sense whose definition is ``gloss`` (else one whose gloss holds
        it, or whose definition it holds),
        with its text, tag count, share of its lemma's counts and rank; None if none matches."""
        import re

        def norm(text: str) -> str:
            return re.sub(r"\W+", " ", text.lower()).strip()

        target, candidates = norm(gloss), []
        for lemma in self.lemmas(homonym):
            for pos, offset, number, count in self.senses[lemma]:
                candidates.append((lemma, number, count, self.synset(pos, offset)))
        found = [c for c in candidates if norm(c[3]["definition"]) == target] or [
            c
            for c in candidates
            if target and (target in norm(c[3]["gloss"]) or norm(c[3]["definition"]) in target)
        ]
        if not found:
            return None
        lemma, number, count, syn = found[0]
        siblings = [c for c in candidates if c[0] == lemma]
        text = ", ".join(syn["words"])
        if syn["hypernyms"]:
            hyper = self.synset(*syn["hypernyms"][0])
            text += f"; a kind of {', '.join(hyper['words'][:3])}: {hyper['definition']}"
        if syn["examples"]:
            text += "; " + " ".join(syn["examples"][:2])
        share = (count + 1) / (sum(c[2] for c in siblings) + len(siblings))
        return {"text": text, "count": count, "share": share, "rank": number}


def wordnet_columns(samples, scratch: Path, wordnet: WordNet, parts=("cos", "count")):
    from predictions.ml.encoder import EmbeddingCache, embed
    from predictions.ml.texts import field, sense_text, story_text

    found = [wordnet.sense(field(s, "homonym"), field(s, "judged_meaning")) for s in samples]
    extended = embed(
        [sense_text(s) + (f"; {w['text']}" if w else "") for s, w in zip(samples, found)],
        cache=EmbeddingCache(scratch / "wordnet.npz"),
    )
    cache = EmbeddingCache(Path(CACHE) / "minilm_sentences.npz")
    cols = []
    if "cos" in parts:
        for texts in (
            [story_text(s, mark=False) for s in samples],
            [field(s, "ending") for s in samples],
            [story_text(s, mark=False, with_ending=False) for s in samples],
        ):
            cols.append((extended * embed(texts, cache=cache)).sum(1))
    if "count" in parts:
        cols.append(np.array([np.log1p(w["count"]) if w else 0.0 for w in found]))
        cols.append(np.array([w["share"] if w else 0.0 for w in found]))
        cols.append(np.array([-np.log(w["rank"]) if w else 0.0 for w in found]))
    return np.stack(cols, 1).astype(float)


def diag_features(samples) -> np.ndarray:
    """Story-sense products of homonym vectors minus the same for the story's other sense."""
    from predictions.ml.encoder import EmbeddingCache, embed
    from predictions.ml.features import homonym_items, homonym_vectors, partner_index
    from predictions.ml.texts import sense_text, story_text

    tcache = EmbeddingCache(Path(CACHE) / "minilm_tokens.npz")
    scache = EmbeddingCache(Path(CACHE) / "minilm_sentences.npz")
    items = homonym_items(samples)
    story = homonym_vectors(items["story"], cache=tcache)
    blocks = [
        story * homonym_vectors(items["tsense"], cache=tcache),
        story * homonym_vectors(items["example"], cache=tcache),
        embed([story_text(s, mark=False) for s in samples], cache=scache)
        * embed([sense_text(s) for s in samples], cache=scache),
    ]
    prod = np.hstack(blocks).astype(float)
    partners = partner_index(samples)
    other = np.stack([prod[p] if p is not None else prod[i] for i, p in enumerate(partners)])
    return prod - other
