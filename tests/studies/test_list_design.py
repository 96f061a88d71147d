"""The list design's pure rules: lists made from samples, Latin-square orders, list files."""

from __future__ import annotations

from collections import Counter

import pytest

from studies.list_design import (
    ListFileError,
    SampleRef,
    item_order,
    list_count,
    list_sizes,
    make_lists,
    parse_lists,
    resolve_lists,
)


def ambistory_like(n_setups: int, per_setup: int = 6) -> list[tuple[int, int]]:
    return [(s * per_setup + k, s) for s in range(n_setups) for k in range(per_setup)]


def test_dev_sized_samples_make_twenty_lists_of_29_or_30_without_two_variants_of_a_story():
    samples = ambistory_like(98)  # 588 samples, as the dev split
    lists = make_lists(samples, 30, seed=7)
    setup_of = dict(samples)
    assert len(lists) == 20 == list_count(588, 30, 6)
    assert sorted(Counter(len(x) for x in lists).items()) == [(29, 12), (30, 8)]
    assert sorted(s for x in lists for s in x) == [s for s, _ in samples]  # each exactly once
    for items in lists:
        assert len({setup_of[s] for s in items}) == len(items)


@pytest.mark.parametrize("n_setups,size", [(98, 30), (3, 10), (4, 4), (5, 7), (1, 1)])
def test_list_sizes_are_the_shortest_and_longest_of_the_made_lists(n_setups, size):
    samples = ambistory_like(n_setups)
    made = [len(x) for x in make_lists(samples, size, seed=3)]
    assert list_sizes(len(samples), size, 6) == (min(made), max(made))


def test_lists_are_seeded_and_a_setup_larger_than_the_list_count_gets_more_lists():
    samples = ambistory_like(3)  # 18 samples, lists of 10 -> 2 by size, 6 by the largest setup
    assert make_lists(samples, 10, seed=1) == make_lists(samples, 10, seed=1)
    assert make_lists(samples, 10, seed=1) != make_lists(samples, 10, seed=2)
    lists = make_lists(samples, 10, seed=1)
    assert len(lists) == 6 and all(len(x) == 3 for x in lists)
    with pytest.raises(ValueError):
        make_lists(samples, 0, seed=1)


@pytest.mark.parametrize("n_items,n_rot", [(30, 5), (29, 5), (7, 3), (4, 4)])
def test_latin_square_rows_are_permutations_placing_each_item_at_distinct_positions(n_items, n_rot):
    rows = [item_order(n_items, r, n_rot) for r in range(n_rot)]
    for row in rows:
        assert sorted(row) == list(range(n_items))
    for item in range(n_items):
        assert len({row.index(item) for row in rows}) == n_rot
    if n_items == n_rot:  # a full Latin square: each item once in each position
        for pos in range(n_items):
            assert sorted(row[pos] for row in rows) == list(range(n_items))


def test_a_csv_file_is_one_list_per_line_and_errors_name_the_line():
    text = "# lists for the pilot\n1,2,3\n\n4, 5 ,6,\n"
    parsed = parse_lists(text, "lists.csv")
    assert [[e.ref for e in p.items] for p in parsed] == [["1", "2", "3"], ["4", "5", "6"]]
    assert [p.line for p in parsed] == [2, 4]
    with pytest.raises(ListFileError, match="line 3: an empty cell"):
        parse_lists("1,2\n3,4\n5,,6\n", "x.csv")
    with pytest.raises(ListFileError, match="no list"):
        parse_lists("# nothing\n", "x.csv")
    with pytest.raises(ListFileError, match="line 2: not a CSV line"):
        parse_lists("1,2\n" + "7" * 200_000 + "\n", "x.csv")  # a cell past csv's limit
    with pytest.raises(ListFileError, match="not valid JSON"):
        parse_lists("[" * 5000 + "]" * 5000, "x.json")


def test_a_json_file_names_the_line_of_a_bad_item():
    text = '{"lists": [\n  [1, 2, 3],\n  [4,\n   "5",\n   null]\n]}\n'
    with pytest.raises(ListFileError, match=r"line 5: list 2, item 3: not a sample id"):
        parse_lists(text, "lists.json")
    parsed = parse_lists('[\n ["a", "b"],\n ["c"]\n]', "l.json")
    assert [(p.line, [e.line for e in p.items]) for p in parsed] == [(2, [2, 2]), (3, [3])]
    with pytest.raises(ListFileError, match="line 2: not valid JSON"):
        parse_lists("[\n [1,, 2]]", "l.json")


def test_resolving_refuses_unknown_samples_repeats_and_two_variants_of_a_story():
    refs = {
        "1": [SampleRef(11, "A")],
        "2": [SampleRef(12, "A")],
        "3": [SampleRef(13, "B")],
        "dev:4": [SampleRef(14, "C")],
        "4": [SampleRef(14, "C"), SampleRef(24, "D")],
    }
    assert resolve_lists(parse_lists("1,3\ndev:4\n"), refs) == [[11, 13], [14]]
    cases = {
        "1,3\n3,9\n": "line 2: list 2: '9' is not a study sample",
        "1,3,1\n": "line 1: list 1: sample '1' twice",
        "3\n1,2\n": "line 2: list 2: '2' is a second variant of a story already in the list",
        "4\n": "line 1: list 1: '4' names samples of several splits",
    }
    for text, message in cases.items():
        with pytest.raises(ListFileError, match=message):
            resolve_lists(parse_lists(text), refs)
