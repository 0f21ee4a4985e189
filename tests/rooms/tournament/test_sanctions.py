"""The sanction records and their pure rules: lateness thresholds (R98 第十三条(二)1), the automatic
ladder (R98 第十四条 3/4/5), cancelling without deleting."""

import pytest

from rooms.tournament.sanctions import LADDER, LEVELS, Sanctions, ladder_points, lateness

START = 36_000.0


@pytest.mark.parametrize("after, expected", [
    (-60, (None, 0)),  # early
    (0, (None, 0)),  # exactly on time
    (1, ("late", 10)),
    (9 * 60 + 59, ("late", 10)),  # 9:59: warning and -10
    (10 * 60, ("late", 10)),  # 10:00 is still "up to 10 minutes"
    (10 * 60 + 1, ("late", 20)),  # 10:01: -20
    (14 * 60 + 59, ("late", 20)),  # 14:59
    (15 * 60, ("late", 20)),  # 15:00 is still "up to 15 minutes"
    (15 * 60 + 1, ("forfeit", 0)),  # 15:01: 自动弃权
])
def test_lateness(after, expected):
    assert lateness(START, START + after) == expected


def test_levels_and_ladder():
    assert LEVELS == (5, 10, 20, 30, 40, 50, 60)
    assert [ladder_points(n) for n in range(1, 11)] == [0, 5, 10, 20, 30, 40, 50, 60, 60, 60]
    assert LADDER[0] == 0  # the first occurrence is a warning
    with pytest.raises(ValueError):
        ladder_points(0)


def test_records_are_appended_and_cancelled_not_deleted():
    s = Sanctions()
    a = s.add("points", "p1", reason="slow", by="ref", at=5.0, points=10, session=1, table="1-1", hand=3)
    b = s.add("offence", "p1", reason="timeout", by="system", at=6.0, points=5, session=1, table="1-1", hand=3,
              offence="timeout")
    s.add("points", "p1", reason="other table", by="ref", at=6.0, points=20, session=2, table="2-1", hand=1)
    assert (a["id"], b["id"]) == (1, 2)
    assert s.hand_points("p1", "1-1") == {3: 15}
    s.cancel(1, "ref", 9.0, "mistake")
    assert len(s.records) == 3
    assert s.get(1)["cancelled"] == {"by": "ref", "at": 9.0, "reason": "mistake"}
    assert s.hand_points("p1", "1-1") == {3: 5}
    assert s.get(99) is None and s.get("1") is None


def test_late_forfeit_suspend_queries():
    s = Sanctions()
    s.add("late", "p1", reason="late", by="system", at=1.0, points=20, session=2)
    s.add("forfeit", "p2", reason="absent", by="system", at=1.0, session=2)
    s.add("suspend", "p3", reason="cheating", by="ref", at=1.0)
    assert s.late_points("p1", 2) == 20 and s.late_points("p1", 1) == 0
    assert s.forfeited("p2", 2) and not s.forfeited("p2", 1)
    assert s.suspended("p3") and not s.suspended("p1")
    s.cancel(3, "ref", 2.0, "appeal upheld")
    assert not s.suspended("p3")


def test_occurrences_count_per_hand_and_kind():
    s = Sanctions()
    for hand in (1, 1, 2):
        s.add("offence", "p1", reason="", by="system", at=0.0, table="1-1", hand=hand, offence="timeout")
    assert s.occurrences("p1", "1-1", 1, "timeout") == 2
    assert s.occurrences("p1", "1-1", 2, "timeout") == 1
    assert s.occurrences("p1", "1-1", 1, "false_win") == 0
    s.cancel(1, "ref", 1.0, "lag")
    assert s.occurrences("p1", "1-1", 1, "timeout") == 1


def test_visibility():
    s = Sanctions()
    s.add("warning", "p1", reason="private", by="ref", at=0.0)
    s.add("points", "p2", reason="public", by="ref", at=0.0, points=5, public=True)
    s.add("notice", None, reason="welcome", by="ref", at=0.0, public=True)
    assert [r["id"] for r in s.visible(None, False)] == [2, 3]
    assert [r["id"] for r in s.visible("p1", False)] == [1, 2, 3]
    assert [r["id"] for r in s.visible("p3", False)] == [2, 3]
    assert [r["id"] for r in s.visible("ref", True)] == [1, 2, 3]
    # handing a record out never exposes the log's own dicts
    s.visible("ref", True)[0]["points"] = 99
    assert s.get(1)["points"] == 0
