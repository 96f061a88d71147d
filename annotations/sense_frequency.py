"""AmbiStory's sense-frequency correlation (Gehring & Roth, section 4.2) as pure functions:
SemCor frequencies of the judged senses, read offline from WordNet 3.0's database files, and
Spearman's rho between a sense's frequency and the samples' average rating. No Django.

The offline source is WordNet 3.0 as Debian's ``wordnet-base`` package installs it
(``/usr/share/wordnet``): ``cntlist.rev`` gives, for each sense key, its sense number and how
often it is tagged in the semantic concordance (SemCor), and the ``index.*``/``data.*`` files
give each lemma's senses in sense-number order with their glosses. AmbiStory's senses are
WordNet glosses (``judged_meaning``), so a sense is found by its gloss among the senses of the
homonym's base forms (WordNet's morphy rules and exception lists); a sense with no line in
``cntlist.rev`` was never tagged (count 0). :func:`match_senses` makes the table the site
ships (``data/wordnet/ambistory-sense-frequencies.tsv``, ``build_sense_frequencies``), so the
page needs no WordNet at run time.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

POS = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
KEY_TYPES = {"n": ("1",), "v": ("2",), "a": ("3", "5"), "r": ("4",)}
# WordNet's morphy: (suffix, ending) substitutions per part of speech
RULES = {
    "n": [("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
          ("men", "man"), ("ies", "y")],
    "v": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
          ("ing", "e"), ("ing", "")],
    "a": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "r": [],
}  # fmt: skip
COLUMNS = ["homonym", "judged_meaning", "lemma", "pos", "sense_number", "semcor_count"]


@dataclass(frozen=True)
class WordNet:
    senses: dict[tuple[str, str], list[str]]  # (lemma, pos) -> synset offsets, sense order
    glosses: dict[tuple[str, str], str]  # (pos, offset) -> definition (examples dropped)
    counts: dict[tuple[str, str, int], int]  # (lemma, key type digit, sense number) -> count
    exceptions: dict[tuple[str, str], list[str]]  # (inflected form, pos) -> base forms


@dataclass(frozen=True)
class SenseCount:
    homonym: str
    judged_meaning: str
    lemma: str
    pos: str
    sense_number: int
    semcor_count: int


def normalise(gloss: str) -> str:
    return re.sub(r"\s+", " ", gloss.strip().lower()).rstrip(" ;.")


def _definition(gloss: str) -> str:
    """A data line's gloss without its quoted examples."""
    return normalise(re.split(r';\s*"', gloss, maxsplit=1)[0])


def read_wordnet(folder: str | Path) -> WordNet:
    folder = Path(folder)
    senses: dict[tuple[str, str], list[str]] = {}
    glosses: dict[tuple[str, str], str] = {}
    exceptions: dict[tuple[str, str], list[str]] = {}
    for pos, name in POS.items():
        for line in _lines(folder / f"index.{name}"):
            fields = line.split()
            synsets = int(fields[2])
            senses[(fields[0], pos)] = fields[-synsets:]
        for line in _lines(folder / f"data.{name}"):
            head, _, gloss = line.partition("|")
            glosses[(pos, head.split()[0])] = _definition(gloss)
        exc = folder / f"{name}.exc"
        for line in _lines(exc) if exc.exists() else []:
            form, *bases = line.split()
            exceptions[(form, pos)] = bases
    counts = {}
    for line in _lines(folder / "cntlist.rev"):
        key, number, count = line.split()
        lemma, _, rest = key.partition("%")
        counts[(lemma, rest[:1], int(number))] = int(count)
    return WordNet(senses, glosses, counts, exceptions)


def _lines(path: Path) -> Iterable[str]:
    with path.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.strip() and not line.startswith("  "):  # licence header lines
                yield line.rstrip("\n")


def base_forms(form: str, pos: str, wordnet: WordNet) -> list[str]:
    """morphy: the form itself, its exception-list bases, and each suffix rule's result,
    kept where WordNet has the lemma with that part of speech."""
    form = form.lower().replace(" ", "_")
    found = [form, *wordnet.exceptions.get((form, pos), [])]
    found += [form[: -len(s)] + e for s, e in RULES[pos] if form.endswith(s) and len(form) > len(s)]
    return [f for i, f in enumerate(found) if (f, pos) in wordnet.senses and f not in found[:i]]


def match_sense(homonym: str, gloss: str, wordnet: WordNet) -> SenseCount | None:
    """The WordNet sense of ``homonym`` (any base form, any part of speech) whose definition
    is ``gloss`` (compared case- and space-insensitively, without a final ';' or '.')."""
    wanted = normalise(gloss)
    for pos in POS:
        for lemma in base_forms(homonym, pos, wordnet):
            for number, offset in enumerate(wordnet.senses[(lemma, pos)], start=1):
                if wordnet.glosses.get((pos, offset)) == wanted:
                    count = sum(wordnet.counts.get((lemma, t, number), 0) for t in KEY_TYPES[pos])
                    return SenseCount(homonym, gloss, lemma, pos, number, count)
    return None


def match_senses(
    senses: Iterable[tuple[str, str]], wordnet: WordNet
) -> tuple[list[SenseCount], list[tuple[str, str]]]:
    """Each distinct (homonym, gloss) matched, and those that found no WordNet sense."""
    found, missing = [], []
    for homonym, gloss in sorted(set(senses)):
        match = match_sense(homonym, gloss, wordnet)
        if match is None:
            missing.append((homonym, gloss))
        else:
            found.append(match)
    return found, missing


def write_table(rows: Sequence[SenseCount], path: str | Path) -> None:
    with Path(path).open("w", encoding="utf-8", newline="") as f:
        out = csv.writer(f, delimiter="\t", lineterminator="\n")
        out.writerow(COLUMNS)
        for r in rows:
            out.writerow([r.homonym, r.judged_meaning, r.lemma, r.pos, r.sense_number,
                          r.semcor_count])  # fmt: skip


def read_table(path: str | Path) -> dict[tuple[str, str], int]:
    """The shipped table as {(homonym, normalised gloss): SemCor count}."""
    with Path(path).open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return {(r["homonym"], normalise(r["judged_meaning"])): int(r["semcor_count"]) for r in rows}


@dataclass(frozen=True)
class FrequencyCorrelation:
    n: int
    unmatched: int
    rho: float
    p: float
    zero_counts: int  # samples whose sense SemCor never tags


def frequency_correlation(
    samples: Iterable[tuple[str, str, float]], counts: dict[tuple[str, str], int]
) -> FrequencyCorrelation:
    """Spearman's rho (scipy, two-sided p) between each sample's sense frequency and its
    average rating; ``samples`` are (homonym, judged meaning, average)."""
    from scipy.stats import spearmanr

    pairs, unmatched = [], 0
    for homonym, gloss, average in samples:
        count = counts.get((homonym, normalise(gloss)))
        if count is None:
            unmatched += 1
        else:
            pairs.append((count, average))
    if len(pairs) < 3 or len({c for c, _ in pairs}) < 2:
        raise ValueError(f"{len(pairs)} samples with a known sense frequency: too few to rank")
    result = spearmanr([c for c, _ in pairs], [a for _, a in pairs])
    zero = sum(1 for c, _ in pairs if c == 0)
    return FrequencyCorrelation(len(pairs), unmatched, float(result.statistic),
                                float(result.pvalue), zero)  # fmt: skip
