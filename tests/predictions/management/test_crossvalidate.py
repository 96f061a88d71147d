"""``manage.py crossvalidate`` on a small slice of the AmbiStory files, with a backend that
records what it is fitted on."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from predictions.backends.baselines import ConstantBackend
from tests.conftest import DATA

FITTED: list[list[dict]] = []


class RecordingConstant(ConstantBackend):
    def prepare(self, fit_samples=None):
        FITTED.append(list(fit_samples or []))
        super().prepare(fit_samples)


def write_slice(directory, split: str, homonyms: int, skip: int = 0) -> dict:
    data = json.loads((DATA / f"{split}.json").read_text())
    wanted = sorted({s["homonym"] for s in data.values()})[skip : skip + homonyms]
    part = {k: v for k, v in data.items() if v["homonym"] in wanted}
    (directory / f"{split}.json").write_text(json.dumps(part))
    return part


@pytest.fixture
def slices(tmp_path, settings):
    settings.AMBISITE_BACKENDS = {"recording": f"{__name__}.RecordingConstant"}
    FITTED.clear()
    train = write_slice(tmp_path, "train", 4)
    dev = write_slice(tmp_path, "dev", 3)
    return tmp_path, train, dev


def test_it_fits_each_fold_on_the_other_homonyms_and_writes_the_result(slices, capsys):
    data_dir, train, dev = slices
    out = data_dir / "cv.json"
    call_command(
        "crossvalidate", "--backend", "recording", "--params", '{"tune": true}',
        "--folds", "3", "--seeds", "2", "--data-dir", str(data_dir), "--output", str(out),
        "--label", "tuned constant",
    )  # fmt: skip
    entry = json.loads(out.read_text())["configs"]["tuned constant"]
    assert entry["n_samples"] == len(train) + len(dev)
    assert len(entry["folds"]) == 6 and entry["seeds"] == [0, 1] and entry["n_folds"] == 3
    assert entry["summary"]["accuracy"]["low"] <= entry["summary"]["accuracy"]["mean"]
    assert len(FITTED) == 6  # one fit per fold
    all_homonyms = {s["homonym"] for s in [*train.values(), *dev.values()]}
    for fit in FITTED:
        assert 0 < len({s["homonym"] for s in fit}) < len(all_homonyms)
        assert all(s["id"].split(":")[0] in ("train", "dev") for s in fit)
    printed = capsys.readouterr().out
    assert "seed 1 fold 3/3" in printed and "95% interval" in printed


def test_it_refuses_unknown_backends_and_bad_json(slices):
    data_dir, _, _ = slices
    with pytest.raises(CommandError, match="unknown backend"):
        call_command("crossvalidate", "--backend", "nope", "--data-dir", str(data_dir))
    with pytest.raises(CommandError):
        call_command("crossvalidate", "--backend", "constant", "--params", "{bad")
