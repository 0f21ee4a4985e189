"""Waits (听牌) and the score of each wait."""

from game.fans.context import WinContext
from game.hand import parse_hand
from game.tiles import parse_tiles
from game.waits import wait_scores, waits


def hand(text):
    h, win = parse_hand(text)
    assert win is None
    return h


def test_nine_gates_waits_on_every_tile_of_its_suit():
    assert waits(hand("1112345678999m")) == tuple(parse_tiles("123456789m"))


def test_two_sided_wait():
    assert waits(hand("123m456p789sEE45s")) == tuple(parse_tiles("36s"))


def test_thirteen_orphans_thirteen_sided():
    assert len(waits(hand("19m19s19pESWNCFP"))) == 13


def test_seven_pairs_wait_and_regular_reading():
    # 1122m3344p5566s + 7s: seven pairs only on 7s.
    assert waits(hand("1122m3344p5566s7s")) == tuple(parse_tiles("7s"))


def test_a_tile_held_four_times_is_no_wait():
    # 1111m234p567s789s waits formally on 1m only, and the fifth 1m does not exist.
    assert waits(hand("1111m234p567s789s")) == ()
    assert waits(hand("111m234p567s78sEE")) == tuple(parse_tiles("69s"))


def test_not_ready_has_no_waits():
    assert waits(hand("1357m2468p1357sE")) == ()


def test_wait_scores_use_the_context():
    h = hand("[123m] 456p789s11s45s")
    scores = wait_scores(h, WinContext(0, self_drawn=True))
    assert set(scores) == set(parse_tiles("36s"))
    assert all(s is not None and s.counts().get(80) == 1 for s in scores.values())


def test_melds_count_toward_the_copies():
    # Three 1s melded as a pung and one standing: no wait on the 1s.
    assert waits(hand("[111s] 1s 234m 567m 789m")) == ()
    assert waits(hand("[111s] 12s 234m 567m 99m")) == tuple(parse_tiles("3s"))
