"""Every bench/ script at its ``--smoke`` size, in a subprocess, on the real code path: a model,
API or schema change that breaks a benchmark fails here instead of on the next manual run.

Each run gets a private scratch directory (its SQLite databases, caches and outputs) and must
exit 0, print its result lines, leave bench/results/ untouched and drop its scratch databases.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "bench" / "results"
TIMEOUT_S = 600  # a loaded 2-core runner; the scripts take seconds to a minute each

pytestmark = pytest.mark.bench


def snapshot(folder: Path) -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def run_smoke(
    script: str, tmp_path: Path, *extra: str, database_url: str = "", **more_env: str
) -> str:
    """Output of ``python bench/<script> --smoke`` (exit 0 asserted), with SQLite scratch
    databases in ``tmp_path`` (or next to ``database_url``'s PostgreSQL database) and nothing
    written to bench/results/; ``more_env`` overrides the environment (``DEBUG=1``)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CACHE_URL")}
    env |= {"BENCH_SCRATCH_DIR": str(tmp_path), "DEBUG": "1", "PYTHONUNBUFFERED": "1"}
    env |= more_env
    if database_url:
        env["DATABASE_URL"] = database_url
    before = snapshot(RESULTS)
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / script), "--smoke", *extra],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert snapshot(RESULTS) == before, "a smoke run wrote into bench/results/"
    leftovers = [p.name for p in tmp_path.glob("*.sqlite3*")]
    assert leftovers == [], f"scratch databases not dropped: {leftovers}"
    return done.stdout


def test_score_smoke_gives_identical_results(tmp_path):
    out = run_smoke("score.py", tmp_path)
    assert "identical results: True" in out
    assert re.search(r"speed-up: [\d.]+x on 2,000 samples", out)


def test_adaptive_sim_smoke_prints_every_allocation(tmp_path):
    out = run_smoke("adaptive_sim.py", tmp_path)
    assert re.search(r"^\| 4 \| fixed \| 1200 \|", out, re.M)
    for rule in ("widest", "variance"):
        assert re.search(rf"^\| 4 \| {rule} \| \d+ \| .* \| [\d.]+ % ± [\d.]+ \|", out, re.M)


def test_export_memory_smoke_exports_every_rating_both_ways(tmp_path):
    out = run_smoke("export_memory.py", tmp_path)
    assert re.search(r"generator \(jsonl\)\s+2,000 lines", out)
    assert re.search(r"HTTP streaming view \(jsonl\)\s+2,000 lines", out)


def test_rating_path_smoke_walks_a_participant(tmp_path):
    out = run_smoke("rating_path.py", tmp_path, "--breakdown")
    assert re.search(r"arrival \(link to first item\): \d+ queries", out)
    for page in ("link", "consent", "qualification answer"):
        assert re.search(rf"^  {page}: \d+ queries, [\d.]+ ms CPU \(median\)$", out, re.M), out
    for page in ("qualification page", "first item"):  # in the consent's, the test's answer
        assert re.search(rf"^  {page}: in the answer to the POST before it$", out, re.M), out
    assert re.search(r"per rated item \(POST \+ next page\): [\d.]+ queries", out)
    pace = re.search(r"^machine pace .*: ([\d.]+) ms before, ([\d.]+) ms after", out, re.M)
    assert pace and all(float(ms) > 0 for ms in pace.groups()), out
    # --breakdown: one rating POST per timed item, its parts inside the request's CPU
    rows = dict(re.findall(r"^ +(\S.*?) +([\d.]+) ms +\([\d.]+ calls\)$", out, re.M))
    request, view = (
        float(rows["the request, middleware included"]),
        float(rows["the rating POST's view"]),
    )
    assert 0 < view <= request, out
    assert re.search(r"the rating POST's view +[\d.]+ ms +\(1\.00 calls\)", out), out
    assert 0 < float(rows["its template rendered"]) <= float(rows["the next page built"]) <= view


def test_load_run_smoke_walks_ambisite_participants_with_exact_integrity(tmp_path):
    """AmbiSite only: Potato's own venv is installed from PyPI, which CI cannot reach."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        pytest.skip("bench/load serves gunicorn on PostgreSQL (CI runs it there)")
    out = run_smoke("load/run.py", tmp_path, database_url=url)
    assert re.search(r"^ambisite 1x2 form\s+4 \|\s+[\d.]+ items/s", out, re.M), out
    assert "arrivals 4/0/0 | finished 4 | HTTP errors 0" in out
    assert re.search(r"integrity OK: .* stored (\d+) = acknowledged \1", out)
    # the burst: 30 arrivals within 2 s fill the 30-place study, every sample at its quota
    burst = re.search(
        r"^burst ambisite 1x2 form 30 in 2 s \| link to first item p50 [\d.]+ p95 ([\d.]+) max"
        r" [\d.]+ ms \| arrivals 30/0/0 \| errors 0 \| finished 30 \| quotas exact \| CPU per"
        r" arrival web ([\d.]+) PG [\d.]+ ms \(all past arrival at [\d.]+ s, \d+ items rated"
        r" meanwhile, cores busy [\d.]+ of \d+;",
        out,
        re.M,
    )
    assert burst and float(burst.group(1)) > 0 and float(burst.group(2)) > 0, out
    assert "not exactly at quota 0" in out
    # the machine's pace and the hypervisor's steal beside each run's CPU
    assert re.search(r"steal [\d.]+ %, pace \[[\d.]+, [\d.]+\] ms, during p10/p50/p90", out)
    steady = json.loads((tmp_path / "load.json").read_text())["runs"][0]["cpu"]
    assert all(ms > 0 for ms in steady["pace_ms"]) and steady["steal_s"] >= 0
    assert steady["pace_during_ms"]["samples"] >= 0
    # the web workers' and the run's PostgreSQL backends' user and kernel CPU, page faults
    web, pg = steady["kernel_side"]["web"], steady["kernel_side"]["postgresql"]
    assert web["user_s"] + web["system_s"] > 0 and pg["minor_faults"] >= 0, steady
    assert re.search(r"web user/sys [\d.]+/[\d.]+ ms, [\d.]+ faults per item; PG user/sys", out)


# bench/dashboards.py's pages in their default scope (dashboards.precompute.default_paths)
PRECOMPUTED = (
    "agreement page",
    "agreement intervals (1000 bootstrap)",
    "item explorer (by SD)",  # the default sort
    "leaderboard",
    "leaderboard intervals",
    "ending effects",
    "annotator quality",
    "chart: rating histogram",
    "chart: homonym SD",
    "chart: label distribution",
)


def test_imports_smoke_times_each_import_and_a_second_one_writes_nothing(tmp_path):
    out = run_smoke("imports.py", tmp_path)
    rows = re.findall(
        r"^\| (.+?) \| (first|again) \| [\d.]+ \| [\d.]+ \| \d+ \| (.+) \|$", out, re.M
    )
    assert [(name, run) for name, run, _ in rows] == [
        (name, run)
        for name in ("AmbiStory dev", "RAW-C", "sense choice (120 items)")
        for run in ("first", "again")
    ], out
    written = {(name, run): tables for name, run, tables in rows}
    assert written[("RAW-C", "first")] == "Setup +672, Story +672, Sample +672, Rating +8,624"
    assert written[("sense choice (120 items)", "first")].endswith("Sample +120")
    assert all(written[(name, "again")] == "none" for name, _, _ in rows)
    assert "ERROR" not in out
    assert re.search(r"reference loop [\d.]+ ms CPU before", out)


def test_every_bench_script_has_a_smoke_test():
    """A script in bench/ (one with a ``__main__`` block) that no test runs would rot unseen."""
    here = Path(__file__).resolve().parent
    tests = "\n".join(p.read_text(encoding="utf-8") for p in here.glob("test_*.py"))
    scripts = [
        p.relative_to(REPO / "bench").as_posix()
        for p in sorted((REPO / "bench").rglob("*.py"))
        if "potato" not in p.parts and 'if __name__ == "__main__"' in p.read_text(encoding="utf-8")
    ]
    assert "imports.py" in scripts and "load/run.py" in scripts
    untested = [s for s in scripts if f'"{s}"' not in tests]
    assert untested == [], f"bench scripts no test in tests/bench/ runs: {untested}"


def test_dashboards_smoke_times_every_page_in_both_phases(tmp_path):
    """As production runs (DEBUG=0), with no collected static files (an empty STATIC_ROOT)."""
    no_static = str(tmp_path / "no-collectstatic")
    out = run_smoke("dashboards.py", tmp_path, DEBUG="0", STATIC_ROOT=no_static)
    phases = out.split("built a synthetic study: 120 samples")
    assert len(phases) == 2, out
    for phase in phases:  # every page answered 200 (asserted by the script) and was timed
        timed = re.findall(  # page, cold s, warm s, ratio, cold CPU, warm CPU, queries
            r"^  (\S.*?)\s+(\d+\.\d{3})\s+(\d+\.\d{3})\s+\d+\.\d{2}\s+[\d.]+\s+[\d.]+\s+(\d+)",
            phase,
            re.M,
        )
        assert len(timed) == 15, phase
        assert all(int(queries) <= 8 for *_, queries in timed), timed  # warm: from the cache
        # the first visit after an import, the default pages precomputed: computed nothing
        first = dict(re.findall(r"^  (\S.*?)\s+(\d+)\s+\d+\.\d{3}\s+\d+\.\d{3}$", phase, re.M))
        assert len(first) == 15, phase
        assert all(first[label] == "0" for label in PRECOMPUTED), first


# --- The ML benchmarks: MiniLM on a few homonyms' samples, frozen features where the script
# allows it; the ones that measure fine-tuning train one short epoch on a handful.


@pytest.mark.ml
def test_backends_smoke_times_embedding_and_both_fine_tunings(tmp_path):
    out = run_smoke("backends.py", tmp_path)
    assert re.search(r"embedding backend:\s+[\d.]+ samples/s \(4 samples", out)
    assert re.search(r"cross-encoder training: [\d.]+ s/epoch on 4 samples", out)
    assert re.search(r"bi-encoder training: [\d.]+ s/epoch on 4 samples", out)


@pytest.mark.ml
def test_ml_cv_smoke_scores_two_configurations_per_fold(tmp_path):
    out = run_smoke("ml_cv.py", tmp_path)
    for name in ("constant-tuned", "quality-ranker"):
        assert re.search(rf"^{name} accuracy: [\d.]+ \[", out, re.M), out
    assert len(re.findall(r"^seed 0 fold [12]/2: fit \d+, test \d+, accuracy", out, re.M)) == 4
    assert (tmp_path / "ml_cv" / "ml_cv.json").is_file()


@pytest.mark.ml
def test_ml_quality_smoke_prints_every_frozen_stage(tmp_path):
    out = run_smoke("ml_quality.py", tmp_path)
    assert re.search(r"^tuned constant \(OOF\)\s+acc [\d.]+", out, re.M)
    assert re.search(r"^FINAL \(ranker\+level\).*acc [\d.]+\s+spearman -?[\d.]+", out, re.M)
    assert (tmp_path / "ml_quality" / "out" / "quality_predictor.json").is_file()


@pytest.mark.ml
def test_ml_frozen_variants_smoke_pairs_a_variant_with_the_base(tmp_path):
    out = run_smoke("ml_frozen_variants.py", tmp_path)
    assert re.search(r'^base \{"accuracy": [\d.]+', out, re.M)
    assert re.search(r'^alpha-10 \{.*"accuracy_minus_base": \{"mean"', out, re.M)


@pytest.mark.ml
def test_ml_cv_device_smoke_runs_a_recipe_and_the_frozen_predictor(tmp_path):
    out = run_smoke("ml_cv_device.py", tmp_path)
    assert re.search(r"^4 rows in \d+ s", out, re.M)
    assert re.search(r'^frozen \{"accuracy": [\d.]+', out, re.M)
    assert re.search(r'^shipped@1.0 \{"accuracy": [\d.]+', out, re.M)


@pytest.mark.ml
def test_ml_seeds_smoke_fine_tunes_and_scores_one_seed(tmp_path):
    out = run_smoke("ml_seeds.py", tmp_path)
    assert re.search(r"^seed  13: accuracy [\d.]+  spearman -?[\d.]+", out, re.M)
    assert re.search(r"^accuracy [\d.]+-[\d.]+, spearman", out, re.M)
