from collections import Counter
from itertools import combinations

from wug.sampling import Criteria, connected_enough, degrees, first_round, next_round

USES = [f"u{i:02d}" for i in range(20)]


def test_the_first_round_draws_distinct_pairs_spread_over_the_uses():
    pairs = first_round(USES, 30, seed=1)
    assert len(pairs) == len(set(pairs)) == 30
    assert all(a < b for a, b in pairs)
    load = degrees(USES, pairs)
    assert max(load.values()) - min(load.values()) <= 1  # 60 ends over 20 uses: 3 each
    assert first_round(USES, 30, seed=1) == pairs
    assert first_round(USES, 30, seed=2) != pairs


def test_the_first_round_stops_at_every_possible_pair():
    assert len(first_round(USES[:4], 100)) == 6


def test_a_later_round_never_repeats_a_judged_pair_and_covers_weak_uses_first():
    judged = first_round(USES, 10, seed=0)
    labels = {u: (0 if u < "u10" else 1) for u in USES}
    new = next_round(USES, labels, judged, 25, seed=0)
    assert not set(new) & set(judged) and len(new) == len(set(new)) == 25
    load = degrees(USES, [*judged, *new])
    assert min(load.values()) >= Criteria().min_degree


def test_a_later_round_joins_clusters_with_no_pair_between_them():
    labels = {u: (0 if u < "u10" else 1) for u in USES}
    within = [p for p in combinations(USES, 2) if labels[p[0]] == labels[p[1]]]
    assert not connected_enough(USES, labels, within, Criteria())
    new = next_round(USES, labels, within, 1, seed=0)
    assert len(new) == 1 and labels[new[0][0]] != labels[new[0][1]]
    assert connected_enough(USES, labels, [*within, *new], Criteria())


def test_connected_enough_needs_every_use_judged_often_enough():
    pairs = list(combinations(USES[:3], 2))
    labels = {u: 0 for u in USES[:3]}
    assert connected_enough(USES[:3], labels, pairs, Criteria(min_degree=2))
    assert not connected_enough(USES[:3], labels, pairs[:2], Criteria(min_degree=2))
    counts = Counter(u for p in pairs for u in p)
    assert set(counts.values()) == {2}
