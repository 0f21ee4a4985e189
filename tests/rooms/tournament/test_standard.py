"""标准分 for every tie pattern (tournament.md §2.2) and the standings' tie-breaks (R98 第十一条)."""

import pytest

from rooms.tournament.standard import display, standard_scores, standings, team_standings


@pytest.mark.parametrize("scores, expected", [
    ([560, 520, 480, 440], [48, 24, 12, 0]),  # 4 / 2 / 1 / 0
    ([440, 480, 520, 560], [0, 12, 24, 48]),  # seat order does not matter
    ([540, 540, 480, 440], [36, 36, 12, 0]),  # two tied first: 3, 3, 1, 0
    ([560, 500, 500, 440], [48, 18, 18, 0]),  # two tied second: 4, 1.5, 1.5, 0
    ([560, 520, 460, 460], [48, 24, 6, 6]),  # two tied third: 4, 2, 0.5, 0.5
    ([520, 520, 520, 440], [28, 28, 28, 0]),  # three tied first: 2⅓ each
    ([560, 480, 480, 480], [48, 12, 12, 12]),  # three tied second: 4, 1, 1, 1
    ([500, 500, 500, 500], [21, 21, 21, 21]),  # all four: 1.75 each
    ([530, 530, 470, 470], [36, 36, 6, 6]),  # two pairs
    ([0, 560, 520, 480], [0, 48, 24, 12]),  # a forfeit's 0 is last
])
def test_standard_scores(scores, expected):
    assert standard_scores(scores) == expected
    assert sum(expected) == 84  # the table always shares 7 (×12)


def test_display_floats():
    assert display(21) == 1.75
    assert display(18) == 1.5
    assert display(6) == 0.5
    assert display(28) == pytest.approx(7 / 3)
    assert [display(x) for x in (48, 24, 12, 0)] == [4.0, 2.0, 1.0, 0.0]


def test_standard_scores_needs_four():
    with pytest.raises(ValueError):
        standard_scores([500, 500, 500])


def test_standings_by_total_standard_score():
    rows = standings(["a", "b", "c"], {"a": [(24, 520)], "b": [(48, 560)], "c": [(0, 440)]})
    assert [(r["player"], r["place"], r["std12"], r["std"], r["score"]) for r in rows] == [
        ("b", 1, 48, 4.0, 560), ("a", 2, 24, 2.0, 520), ("c", 3, 0, 0.0, 440)]


def test_equal_standard_score_then_total_match_points():
    rows = standings(["a", "b"], {"a": [(48, 510), (0, 480)], "b": [(24, 520), (24, 500)]})
    # both 48 in total; b has 1020 局分 against a's 990
    assert [r["player"] for r in rows] == ["b", "a"]
    assert [r["place"] for r in rows] == [1, 2]


def test_then_best_single_standard_score():
    # equal 标准分 (48) and 局分 (1000): a has a single 4 (48), b two 2s
    rows = standings(["b", "a"], {"a": [(48, 500), (0, 500)], "b": [(24, 500), (24, 500)]})
    assert [r["player"] for r in rows] == ["a", "b"]


def test_then_count_of_high_standard_scores():
    # same total 96 and same best (48); a has two 48s, b one 48 and two 24s
    rows = standings(["b", "a"], {"a": [(48, 500), (48, 500), (0, 500)], "b": [(48, 500), (24, 500), (24, 500)]})
    assert [r["player"] for r in rows] == ["a", "b"]
    assert rows[0]["by_std"] == [48, 48, 0]


def test_then_registration_order_with_a_shared_place():
    rows = standings(["x", "y", "z"], {"x": [(21, 500)], "y": [(21, 500)], "z": [(21, 500)]})
    assert [r["player"] for r in rows] == ["x", "y", "z"]  # registration order
    assert [r["place"] for r in rows] == [1, 1, 1]  # but the same place


def test_a_missing_session_counts_as_zero():
    # a bye (no result) against a 0: same lists once padded, so registration order decides
    rows = standings(["a", "b"], {"a": [(48, 500)], "b": [(48, 500), (0, 0)]})
    assert rows[0]["player"] == "a"
    assert rows[1]["sessions"] == 2


def test_players_without_results_are_listed_with_zero():
    rows = standings(["a", "b"], {"b": [(12, 480)]})
    assert [(r["player"], r["std12"], r["score"]) for r in rows] == [("b", 12, 480), ("a", 0, 0)]


def test_team_standings():
    rows = standings(["a1", "a2", "b1", "b2", "solo"], {
        "a1": [(48, 560)], "a2": [(0, 440)], "b1": [(24, 520)], "b2": [(24, 510)], "solo": [(12, 480)]})
    teams = team_standings(rows, {"a1": "A", "a2": "A", "b1": "B", "b2": "B", "solo": None})
    # both teams have 48 (×12); B has 1030 局分 against A's 1000
    assert [(t["team"], t["place"], t["std12"], t["score"]) for t in teams] == [("B", 1, 48, 1030),
                                                                              ("A", 2, 48, 1000)]
    assert sorted(teams[1]["players"]) == ["a1", "a2"]
    assert teams[0]["std"] == 4.0


@pytest.mark.parametrize("scores, forfeits, expected", [
    ([0, 560, 460, -20], [True, False, False, False], [0, 48, 24, 12]),  # -20 present is above the forfeit
    ([0, 0, 700, -200], [True, True, False, False], [6, 6, 48, 24]),  # two no-shows share 3rd and 4th
    ([0, 0, 0, 0], [True, True, True, True], [21, 21, 21, 21]),
])
def test_a_forfeiting_seat_ranks_last_whatever_the_numbers(scores, forfeits, expected):
    assert standard_scores(scores, forfeits) == expected
