"""Quick match: four humans, bots after the chosen wait, cancelling; and the room a placement makes."""

import pytest

from rooms.quickmatch import Placement, QuickMatch
from rooms.room import Room

from tests.rooms.support import CODE, POLICIES, SECRET, config, play_human


def test_four_humans_are_seated_at_once():
    qm = QuickMatch()
    assert qm.enqueue("a", "guobiao", None, 0) == []
    assert qm.enqueue("b", "guobiao", 30, 1) == []
    assert qm.enqueue("x", "wufan", None, 1) == []  # another queue
    assert qm.enqueue("c", "guobiao", None, 2) == []
    assert qm.enqueue("d", "guobiao", 5, 3) == [Placement("guobiao", ("a", "b", "c", "d"), 0)]
    assert qm.queued("a") is None and qm.queued("x") == "wufan"


def test_bots_fill_after_the_chosen_wait():
    qm = QuickMatch()
    qm.enqueue("a", "dazhong", 10, 0)
    qm.enqueue("b", "dazhong", 60, 4)
    qm.enqueue("c", "dazhong", None, 5)  # humans only: not taken into a table with bots
    assert qm.next_deadline() == 10
    assert qm.tick(9.9) == []
    assert qm.tick(10) == [Placement("dazhong", ("a", "b"), 2)]
    assert qm.queued("c") == "dazhong" and qm.next_deadline() is None


def test_wait_zero_places_at_once_with_three_bots():
    qm = QuickMatch()
    assert qm.enqueue("a", "wufan", 0, 0) == [Placement("wufan", ("a",), 3)]


def test_cancel_while_queued():
    qm = QuickMatch()
    qm.enqueue("a", "guobiao", 10, 0)
    qm.enqueue("b", "guobiao", None, 0)
    assert qm.cancel("a") is True
    assert qm.cancel("a") is False and qm.cancel("nobody") is False
    assert qm.tick(100) == [] and qm.next_deadline() is None
    qm.enqueue("a", "guobiao", None, 101)  # may queue again
    assert qm.queued("a") == "guobiao"


def test_bad_input():
    qm = QuickMatch()
    with pytest.raises(ValueError):
        qm.enqueue("a", "riichi", None, 0)
    with pytest.raises(ValueError):
        qm.enqueue("a", "guobiao", -1, 0)
    qm.enqueue("a", "guobiao", None, 0)
    with pytest.raises(ValueError):
        qm.enqueue("a", "wufan", None, 0)


def test_a_placement_makes_a_room_that_starts_and_plays():
    qm = QuickMatch()
    (p,) = qm.enqueue("a", "wufan", 0, 0)
    room = Room.create("q1", config(type=p.type, private=False, bot_delay=0), p.players[0], CODE, SECRET, 0,
                       players=list(p.players), bots=p.bots, bot_policies=POLICIES)
    assert room.phase == "playing" and room.host == "a"
    assert [s.bot for s in room.seats] == [None, "fan", "fan", "fan"]
    play_human(room, "a", 1.0)
    assert len(room.records()["matches"]) == 1


def test_a_placement_room_must_be_full():
    with pytest.raises(ValueError):
        Room.create("q1", config(), "a", CODE, SECRET, 0, players=["a", "b"], bots=1, bot_policies=POLICIES)


def test_quick_match_lengths_queue_apart():
    qm = QuickMatch()
    for i, p in enumerate("abc"):
        assert qm.enqueue(p, "guobiao", None, i, hands=8) == []
    assert qm.enqueue("x", "guobiao", None, 3, hands=16) == []  # a 16-hand player does not complete them
    assert qm.enqueue("y", "guobiao", None, 3) == []  # nor a 4-hand one
    assert qm.queue_of("x") == ("guobiao", 16) and qm.waiting(("guobiao", 8)) == ["a", "b", "c"]
    assert qm.enqueue("d", "guobiao", None, 4, hands=8) == [Placement("guobiao", ("a", "b", "c", "d"), 0, 8)]
    assert qm.enqueue("z", "wufan", 0, 5, hands=16) == [Placement("wufan", ("z",), 3, 16)]
    with pytest.raises(ValueError):
        qm.enqueue("w", "guobiao", 0, 6, hands=12)
    assert qm.queued("w") is None


def test_quick_match_estimate_is_the_first_bot_fill_that_takes_you():
    qm = QuickMatch()
    qm.enqueue("a", "guobiao", 30, 0, rating=10)
    qm.enqueue("b", "guobiao", 120, 5, rating=12)  # within a's window when a's wait runs out
    qm.enqueue("c", "guobiao", 120, 5, rating=40)  # 30 points off: a's window is 5 + 0.5 * 30 = 20
    qm.enqueue("h", "guobiao", None, 5)  # humans only: no estimate
    assert qm.estimate("a", 10) == 20
    assert qm.estimate("b", 10) == 20
    assert qm.estimate("c", 10) == 115
    assert qm.estimate("h", 10) is None and qm.estimate("nobody", 10) is None
    assert qm.tick(30) == [Placement("guobiao", ("a", "b"), 2)]  # as estimated


def test_a_placement_put_back_waits_where_it_was_until_the_hold_ends():
    qm = QuickMatch()
    qm.enqueue("a", "guobiao", 5, 0)
    qm.enqueue("b", "guobiao", 5, 1)
    (p,) = qm.tick(6)
    assert p == Placement("guobiao", ("a", "b"), 2)
    qm.put_back(p, until=9)  # the table could not be made
    assert qm.enqueue("c", "guobiao", 0, 6) == []  # due at once, but nobody is placed before 9
    assert qm.waiting(("guobiao", 4)) == ["a", "b", "c"] and qm.queued("a") == "guobiao"
    assert qm.tick(8) == [] and qm.next_deadline() == 9
    assert qm.tick(9) == [Placement("guobiao", ("a", "b", "c"), 1)]
