"""The release burst of ``bench/load/run.py --burst N --within T``: N participants open the
arrival link evenly spread over T seconds (``generator.start_delays``), as when Prolific shows
a new study to many eligible people at once, and each then walks the rest of the study as in
the steady runs (no think time). Printed per tool: link-to-first-item p50 / p95 / max (from
the arrival link to the first item page with its assets; Potato has no consent or
qualification step, AmbiSite has both), arrivals accepted / refused / errored, errors,
quota exactness, and CPU per arrival: the web server's (and PostgreSQL's) CPU seconds from
the first arrival until every participant was past its arrival, divided by the arrivals.
That CPU also pays for the ratings the early arrivals gave meanwhile (printed beside it),
as does the machine's: how many of its cores were busy over the same time (at the count
of cores the arrivals queue for CPU).

The study of a burst has one place per arrival (``--setups`` defaults to N), so when every
arrival finishes every sample must have exactly its 5 ratings. AmbiStory's train split has
380 setups; a larger study repeats them with the story marked as a copy (new setups to the
importer, new items to Potato), so the work per item stays the same.
"""

from __future__ import annotations

TRAIN_SETUPS = 380


def study_samples(data: dict[str, dict], setups: int) -> dict[str, dict]:
    """The first ``setups`` x 6 samples of ``data`` (6 per setup, in file order), repeated
    past its end with ``[copy k]`` in the precontext and ``c<k>-`` before each id."""
    items = list(data.items())
    have = len(items) // 6
    if setups <= have:
        return dict(items[: setups * 6])
    out = dict(items[: have * 6])
    copy = 1
    while len(out) < setups * 6:
        for sid, sample in items[: have * 6]:
            if len(out) >= setups * 6:
                break
            out[f"c{copy}-{sid}"] = {
                **sample,
                "precontext": f"{sample['precontext']} [copy {copy}]",
                "sample_id": f"c{copy}-{sample.get('sample_id', sid)}",
            }
        copy += 1
    return out


def summary(r: dict) -> dict:
    """The burst figures of one run (``r`` as ``run.report`` returns it)."""
    a, until = r["arrivals"], r["cpu"].get("until_arrivals") or {}
    arrivals = a["accepted"] + a["refused"] + a["errored"]
    per = (lambda s: round(1000 * s / arrivals, 1)) if arrivals else (lambda s: None)
    integrity, stored = r.get("integrity"), r.get("stored")
    if integrity is not None:
        exact = (
            "exact"
            if integrity["ok"] and integrity["exact_checked"]
            else ("OK, study not full" if integrity["ok"] else "FAILED")
        )
    elif stored is not None:
        most = stored["max_ratings_of_an_item"]
        exact = f"{stored['items_over_quota']} items over quota (max {most})"
    else:
        exact = "unknown"
    return {
        "arrivals": arrivals,
        "link_to_first_ms": r["link_to_first_ms"],
        "steps_p50_ms": r.get("arrival_steps_p50_ms"),
        "errors": a["errored"] + r["stopped"] + sum(r["http_errors"].values()),
        "quotas": exact,
        "until_arrivals_s": until.get("wall_s"),
        "rated_before_arrivals_done": r.get("rated_before_arrivals_done"),
        "cores_busy": busy(until),
        "web_ms_per_arrival": per(until["web_s"]) if until else None,
        "postgresql_ms_per_arrival": per(until["postgresql_s"]) if until else None,
    }


def busy(until: dict) -> str | None:
    """How many of the machine's cores were busy, on average, from the first arrival until
    every participant was past its arrival ("1.98 of 2"): at the cores' count the arrivals
    wait for CPU, and only a cheaper arrival (or a bigger machine) lets them in sooner."""
    if not until.get("wall_s") or until.get("machine_s") is None:
        return None
    return f"{until['machine_s'] / until['wall_s']:.2f} of {until['cores']}"


def line(name: str, n: int, within: float, r: dict) -> str:
    b = r["burst"]
    link = b["link_to_first_ms"]
    a = r["arrivals"]
    return (
        f"burst {name} {n} in {within:g} s"
        + (f", {r['think_s']:g} s per item" if r.get("think_s") else "")
        + f" | link to first item p50 {link['p50']} "
        f"p95 {link['p95']} max {link['max']} ms | arrivals {a['accepted']}/{a['refused']}/"
        f"{a['errored']} | errors {b['errors']} | finished {r['finished']} | quotas "
        f"{b['quotas']} | CPU per arrival web {b['web_ms_per_arrival']} PG "
        f"{b['postgresql_ms_per_arrival']} ms (all past arrival at {b['until_arrivals_s']} s,"
        f" {b['rated_before_arrivals_done']} items rated meanwhile, cores busy"
        f" {b['cores_busy']}; load "
        f"{r['cpu']['load_avg_1m'][0]}) | steps to the first item p50 {b['steps_p50_ms']} ms"
    )


def ratio_lines(runs: list[dict]) -> list[str]:
    """AmbiSite / Potato link-to-first-item p95 and CPU per arrival, same burst size."""
    potato = {r["participants"]: r for r in runs if r["tool"] == "potato" and "burst" in r}
    out = []
    for a in runs:
        p = potato.get(a["participants"])
        if a["tool"] != "ambisite" or "burst" not in a or p is None:
            continue
        ap, pp = a["burst"]["link_to_first_ms"]["p95"], p["burst"]["link_to_first_ms"]["p95"]
        aw, pw = a["burst"]["web_ms_per_arrival"], p["burst"]["web_ms_per_arrival"]
        out.append(
            f"burst AmbiSite ({a['size']}, {a['client']})/Potato at {a['participants']}: "
            f"link-to-first-item p95 x{round(ap / pp, 3) if ap and pp else '-'}, "
            f"web CPU per arrival x{round(aw / pw, 3) if aw and pw else '-'}"
            " (target: p95 under 3000 ms, 0 errors, quotas exact)"
        )
    return out
