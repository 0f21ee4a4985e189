"""The random hand generator: valid hands only, and wide enough coverage to make differential tests
against the reference calculator meaningful."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from game.fans.context import validate
from game.fans.table import FANS
from game.hand import KONG, format_hand
from tests.support.handgen import (
    FORMS,
    Generated,
    copies,
    random_win,
    reference_accepts,
    winning_hands,
)
from tests.support.reference import reference_fans

N = 20_000
SEED = 20240601


@pytest.fixture(scope="module")
def sample() -> list[tuple[Generated, Counter]]:
    out = []
    for g in winning_hands(SEED, N):
        _total, fans = reference_fans(g.hand, g.ctx)
        out.append((g, fans))
    return out


def test_reference_accepts_every_hand():
    rejected = []
    for g in winning_hands(SEED + 1, N):
        if not reference_accepts(g.hand, g.ctx):
            rejected.append(f"{g.form} {format_hand(g.hand, g.ctx.win_tile)} {g.ctx}")
    assert not rejected, "\n".join(rejected[:20])


def test_hands_are_valid(sample):
    for g, _ in sample:
        where = f"{format_hand(g.hand, g.ctx.win_tile)} {g.ctx}"
        assert max(copies(g.hand, g.ctx)) <= 4, where
        assert len(g.hand.tiles) == 13 - 3 * len(g.hand.melds), where
        assert list(g.hand.tiles) == sorted(g.hand.tiles), where
        validate(g.hand, g.ctx)  # our own validation (decisions.md item 5) raises on bad input


def test_flags_are_consistent(sample):
    for g, _ in sample:
        hand, ctx = g.hand, g.ctx
        where = f"{format_hand(hand, ctx.win_tile)} {ctx}"
        held = hand.tiles.count(ctx.win_tile)
        if ctx.fourth_tile:
            assert held == 0, where
        if ctx.kong and ctx.self_drawn:
            assert any(m.kind == KONG for m in hand.melds), where
        if ctx.kong and not ctx.self_drawn:
            assert held == 0 and all(ctx.win_tile not in m.tiles for m in hand.melds), where
            assert not ctx.last_tile, where
        assert 0 <= ctx.flowers <= 8 and 0 <= ctx.seat_wind <= 3 and 0 <= ctx.prevalent_wind <= 3


def test_every_form_occurs(sample):
    forms = Counter(g.form for g, _ in sample)
    assert set(forms) == set(FORMS)
    assert min(forms.values()) >= N // 200, forms
    # ... and the reference scores the special forms as such.
    seen = Counter(fan for _, fans in sample for fan in fans)
    for fan in (4, 6, 7, 19, 20, 34, 35):
        assert seen[fan] >= N // 200, (FANS[fan].name, seen[fan])


def test_every_flag_and_meld_kind_occurs(sample):
    ctxs = [g.ctx for g, _ in sample]
    assert any(c.self_drawn for c in ctxs) and any(not c.self_drawn for c in ctxs)
    assert any(c.fourth_tile for c in ctxs)
    assert any(c.kong and c.self_drawn for c in ctxs)  # 杠上开花
    assert any(c.kong and not c.self_drawn for c in ctxs)  # 抢杠和
    assert any(c.last_tile and c.self_drawn for c in ctxs)  # 妙手回春
    assert any(c.last_tile and not c.self_drawn for c in ctxs)  # 海底捞月
    assert any(c.kong and c.fourth_tile and not c.self_drawn for c in ctxs)
    assert {c.flowers for c in ctxs} == set(range(9))
    assert {c.seat_wind for c in ctxs} == {c.prevalent_wind for c in ctxs} == set(range(4))
    melds = [g.hand.melds for g, _ in sample]
    assert {len(m) for m in melds} == set(range(5))
    kinds = Counter((m.kind, m.concealed) for ms in melds for m in ms)
    assert set(kinds) == {("chow", False), ("pung", False), ("kong", False), ("kong", True)}
    assert any(max(copies(g.hand, g.ctx)) == 4 and not any(m.kind == KONG for m in g.hand.melds) for g, _ in sample)


def test_every_fan_occurs(sample):
    seen = Counter(fan for _, fans in sample for fan in fans)
    missing = [f"{i} {FANS[i].name}" for i in FANS if not seen[i]]
    assert not missing


def test_seeded():
    a = [random_win(random.Random(7)) for _ in range(3)]
    b = [random_win(random.Random(7)) for _ in range(3)]
    assert a == b
    assert [g.hand for g in winning_hands(1, 50)] != [g.hand for g in winning_hands(2, 50)]
