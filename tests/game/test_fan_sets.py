"""The ``sets`` of a fan in a breakdown name the sets that formed it, and only those."""

import pytest

from game.fans.context import WinContext
from game.hand import parse_hand
from game.scoring import score


def sets_by_name(text: str, **ctx) -> dict:
    hand, win = parse_hand(text)
    return {f.name: f.sets for f in score(hand, WinContext(win, **ctx)).fans}


def test_melded_and_concealed_kong_list_only_their_own_kong():
    # decisions.md item 2: a melded and a concealed kong score 明杠 + 暗杠, each for its own kong.
    fans = sets_by_name("[1111m] {2222s} 345p678m9s +9s")
    assert fans["明杠"] == ("[1111m]",)
    assert fans["暗杠"] == ("{2222s}",)


@pytest.mark.parametrize("text, name, sets", [
    ("[1111m] [2222s] 345p678m9s +9s", "双明杠", ("[1111m]", "[2222s]")),
    ("{5555m} {7777s} 456p678m9s +9s", "双暗杠", ("{5555m}", "{7777s}")),
    ("[1111m] [2222s] {3333p} 678m9s +9s", "三杠", ("[1111m]", "[2222s]", "{3333p}")),
])
def test_kong_fans_of_several_kongs_list_theirs(text, name, sets):
    assert sets_by_name(text)[name] == sets
