"""Ranked quick match seats players of close rating, the window widening with the time waited."""

from rooms.quickmatch import RATING_WIDEN, RATING_WINDOW, RECHECK, QuickMatch


def test_four_humans_far_apart_wait_until_the_window_has_widened():
    q = QuickMatch()
    for i, r in enumerate([0.0, 10.0, 20.0, 30.0]):
        assert q.enqueue(f"p{i}", "guobiao", None, 0.0, rating=r) == []
    assert q.next_deadline() == RECHECK  # looked at again as the windows widen
    assert q.tick(1.0) == []
    # p1 (10) has everybody within 20 points once its window is 20 wide.
    t = (20.0 - RATING_WINDOW) / RATING_WIDEN
    assert q.tick(t - 0.5) == []
    (p,) = q.tick(t)
    assert sorted(p.players) == ["p0", "p1", "p2", "p3"] and p.bots == 0


def test_the_closest_four_are_seated_and_the_outlier_waits():
    q = QuickMatch()
    ratings = {"a": 0.0, "far": 40.0, "b": 1.0, "c": -2.0, "d": 3.0}
    out = []
    for pid, r in ratings.items():
        out += q.enqueue(pid, "guobiao", None, 0.0, rating=r)
    (p,) = out
    assert sorted(p.players) == ["a", "b", "c", "d"]
    assert q.queued("far") == "guobiao"


def test_bots_fill_around_a_due_player_with_only_near_others():
    q = QuickMatch()
    for pid, r in (("a", 0.0), ("far", 50.0), ("b", 2.0)):
        assert q.enqueue(pid, "guobiao", 10.0, 0.0, rating=r) == []
    out = q.tick(10.0)  # all due; a's window is 10 points wide by now
    assert [(p.players, p.bots) for p in out] == [(("a", "b"), 2), (("far",), 3)]


def test_equal_ratings_seat_in_queue_order():
    q = QuickMatch()
    out = []
    for i in range(5):
        out += q.enqueue(f"p{i}", "guobiao", None, float(i), rating=0.0)
    (p,) = out
    assert p.players == ("p0", "p1", "p2", "p3")
