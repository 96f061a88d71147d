"""The computational annotator of use pairs (MiniLM offline) on a small word cut from
plane_nn, calibrated on another small word: real model, small data."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from wug.annotators import human_pairs, model_annotation_run, model_view
from wug.models import ModelAnnotation, ModelJudgment, Word
from wug.services import model_annotation_create
from wug.texts import target_window

WUG = Path(__file__).resolve().parents[2] / "data" / "wug" / "uug"


def cut(tmp_path: Path, word: str, n_uses: int, name: str, skip: int = 0) -> Path:
    """A word folder with ``n_uses`` uses of ``word`` (after the first ``skip``) and the
    judgments among them."""
    source, target = WUG / word, tmp_path / name
    target.mkdir(parents=True)
    uses = (source / "uses.csv").read_bytes().decode("utf-8").split("\r\n")
    kept = [uses[0], *uses[1 + skip : 1 + skip + n_uses]]
    ids = {line.split("\t")[4] for line in kept[1:]}
    (target / "uses.csv").write_bytes(("\r\n".join(kept) + "\r\n").encode())
    rows = (source / "judgments.csv").read_bytes().decode("utf-8").split("\r\n")
    judged = [r for r in rows[1:] if r and r.split("\t")[0] in ids and r.split("\t")[1] in ids]
    (target / "judgments.csv").write_bytes(("\r\n".join([rows[0], *judged]) + "\r\n").encode())
    return target


@pytest.mark.ml
@pytest.mark.django_db
def test_the_annotator_judges_every_human_pair_calibrated_on_another_word(tmp_path):
    call_command("import_wug", str(cut(tmp_path, "plane_nn", 60, "plane_small")), stdout=StringIO())
    other = cut(tmp_path, "plane_nn", 60, "plane_other", skip=100)
    call_command("import_wug", str(other), stdout=StringIO())
    word = Word.objects.get(name="plane_small")
    pairs = human_pairs(word)
    assert len(pairs) >= 10
    annotation = ModelAnnotation.objects.create(word=word, backend="minilm_use_pairs")
    annotation = model_annotation_run(annotation.pk)
    assert annotation.status == "done" and annotation.calibration_words == ["plane_other"]
    scores = list(annotation.judgments.values_list("score", flat=True))
    assert len(scores) == len(pairs) and all(1 <= s <= 4 for s in scores)
    # resumable: a second pass judges nothing twice
    model_annotation_run(annotation.pk)
    assert ModelJudgment.objects.filter(annotation=annotation).count() == len(pairs)
    view = model_view(annotation)
    assert view.pairs == len(pairs) and view.spearman is not None and -1 <= view.spearman <= 1
    out = StringIO()
    call_command("annotate_wug", "plane_small", stdout=out)
    assert f"{len(pairs)} pairs judged" in out.getvalue() and "Spearman" in out.getvalue()


@pytest.mark.django_db
def test_a_usage_sense_graph_gets_no_model_annotator():
    call_command("import_wug", str(WUG.parent / "usg"), stdout=StringIO())
    with pytest.raises(ValueError, match="usage-usage"):
        model_annotation_create(word=Word.objects.get(name="acerbus"))


def test_the_window_keeps_the_target_of_a_long_context():
    context = "x" * 5000 + " plane " + "y" * 5000
    text, (a, b) = target_window(context, (5001, 5006), (None, None), max_chars=100)
    assert len(text) <= 100 and text[a:b] == "plane"
