from wug.graph import Graph, Judgment, edge_weights, judgments_by_pair


def j(a, b, annotator, score):
    return Judgment(a, b, annotator, score)


def test_an_edge_weight_is_the_median_of_the_decided_judgments():
    weights = edge_weights([j("u1", "u2", "A", 4), j("u2", "u1", "B", 1), j("u1", "u2", "C", 0)])
    assert weights == {("u1", "u2"): 2.5}


def test_a_pair_judged_only_cannot_decide_has_no_edge_but_is_known():
    judgments = [j("u1", "u2", "A", 0), j("u1", "u3", "A", 3)]
    assert edge_weights(judgments) == {("u1", "u3"): 3}
    assert judgments_by_pair(judgments)[("u1", "u2")] == []


def test_a_use_judged_against_itself_is_ignored():
    assert edge_weights([j("u1", "u1", "A", 4)]) == {}


def test_the_graph_keeps_uses_without_edges_and_finds_attracting_components():
    graph = Graph.build(
        ["u4"], [j("u1", "u2", "A", 4), j("u2", "u3", "A", 3), j("u3", "u5", "A", 2)]
    )
    assert graph.nodes == ("u1", "u2", "u3", "u4", "u5")
    components = sorted(sorted(c) for c in graph.components(2.5))
    assert components == [["u1", "u2", "u3"], ["u4"], ["u5"]]
