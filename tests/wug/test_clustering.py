import numpy as np
import pytest

from wug.clustering import canonical, correlation_clustering, exact_clustering, loss
from wug.graph import Graph


def graph(edges: dict[tuple[str, str], float], nodes=()) -> Graph:
    names = set(nodes)
    for a, b in edges:
        names.update((a, b))
    return Graph(tuple(sorted(names)), dict(edges))


TWO_SENSES = graph(
    {
        ("a", "b"): 4,
        ("a", "c"): 4,
        ("b", "c"): 3,
        ("d", "e"): 4,
        ("d", "f"): 3.5,
        ("e", "f"): 4,
        ("a", "d"): 1,
        ("c", "f"): 1.5,
        ("b", "e"): 2,
    }
)


def test_two_clear_senses_are_found_with_no_loss():
    result = correlation_clustering(TWO_SENSES)
    assert result.loss == 0
    assert result.clusters() == [["a", "b", "c"], ["d", "e", "f"]]


def test_the_loss_counts_attracting_edges_across_and_repelling_edges_inside():
    labels = {"a": 0, "b": 0, "c": 0, "d": 0, "e": 0, "f": 1}
    # across: d-f 1.0, e-f 1.5; inside: a-d 1.5, b-e 0.5
    assert loss(TWO_SENSES, labels) == pytest.approx(1.0 + 1.5 + 1.5 + 0.5)


def test_a_frustrated_triangle_costs_the_cheapest_violation():
    triangle = graph({("a", "b"): 4, ("b", "c"): 4, ("a", "c"): 1})
    result = correlation_clustering(triangle)
    assert result.loss == pytest.approx(1.5) == exact_clustering(triangle).loss


def test_a_use_without_attraction_stands_alone():
    result = correlation_clustering(graph({("a", "b"): 4, ("b", "c"): 2.5}, nodes=["z"]))
    assert result.clusters() == [["a", "b"], ["c"], ["z"]]


def test_the_result_is_deterministic_for_a_seed_and_labels_are_canonical():
    rng = np.random.default_rng(3)
    names = [f"u{i:02d}" for i in range(30)]
    edges = {
        (names[i], names[k]): float(rng.integers(1, 5))
        for i in range(30)
        for k in range(i + 1, 30)
        if rng.random() < 0.3
    }
    g = graph(edges)
    first = correlation_clustering(g, seed=7)
    assert correlation_clustering(g, seed=7) == first
    assert canonical(first.labels) == first.labels
    sizes = [len(c) for c in first.clusters()]
    assert sizes == sorted(sizes, reverse=True)


@pytest.mark.parametrize("seed", range(12))
def test_the_search_finds_the_optimum_of_small_random_graphs(seed):
    rng = np.random.default_rng(seed)
    names = [f"u{i}" for i in range(8)]
    edges = {
        (names[i], names[k]): float(rng.choice([1, 1.5, 2, 3, 3.5, 4]))
        for i in range(8)
        for k in range(i + 1, 8)
        if rng.random() < 0.6
    }
    g = graph(edges, nodes=names)
    assert correlation_clustering(g, seed=0).loss == pytest.approx(exact_clustering(g).loss)


def test_exact_clustering_refuses_large_graphs():
    with pytest.raises(ValueError, match="too many"):
        exact_clustering(graph({}, nodes=[f"u{i}" for i in range(11)]))
