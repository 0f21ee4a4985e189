"""The worked examples of every fan (shared/rules/fan-examples.json) scored by our engine.

The shared folder is found by walking up from this file to the first folder that holds
shared/rules/fan-examples.json (the checkout's parent, or any ancestor: a worktree nested one level
deeper finds it too); GUOBIAO_SHARED overrides its location. Missing examples skip locally but fail on CI, so they are never silently
lost there.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from game.fans.table import FANS, FLOWER_TILES
from game.hand import format_hand
from game.scoring import score
from tests.support.handgen import format_context, format_fans
from tests.support.reference import from_reference_args

RELATIVE = Path("rules") / "fan-examples.json"


def _examples_file() -> Path | None:
    roots = []
    if os.environ.get("GUOBIAO_SHARED"):
        roots.append(Path(os.environ["GUOBIAO_SHARED"]))
    # Walking up, not a fixed depth: a checkout at <root>/main and a worktree at <root>/wt/x both find it.
    roots += [parent / "shared" for parent in Path(__file__).resolve().parents]
    return next((root / RELATIVE for root in roots if (root / RELATIVE).is_file()), None)


def _load() -> list:
    path = _examples_file()
    if path is None:
        return []
    params, seen = [], Counter()
    for example in json.loads(path.read_text(encoding="utf-8"))["examples"]:
        entry = example["entry"]
        seen[entry] += 1
        # English names: pytest escapes non-ASCII ids, which makes Chinese ones unreadable.
        name = FANS[entry].name_en.replace(" ", "_")
        params.append(pytest.param(example, id=f"{entry}-{name}-{seen[entry]}"))
    return params


EXAMPLES = _load()


def _as_counts(d: dict) -> dict[int, int]:
    return {int(k): v for k, v in d.items() if v}


def test_examples_present():
    if EXAMPLES:
        assert len(EXAMPLES) >= 81
        return
    message = f"fan examples not found: set GUOBIAO_SHARED to the shared folder (holding {RELATIVE})"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.mark.parametrize("example", EXAMPLES)
def test_fan_example(example):
    hand, ctx = from_reference_args(example["args"])
    accepted = [_as_counts(example["expected"])]
    if "also_accepted" in example:
        accepted.append(_as_counts(example["also_accepted"]))
    result = score(hand, ctx)
    got = {i: n for i, n in result.counts().items() if n}
    if all(FLOWER_TILES not in e for e in accepted):
        got.pop(FLOWER_TILES, None)
    assert got in accepted, (
        f"\nexample:  {example['notation']} {example.get('context', '')}\n"
        f"hand:     {format_hand(hand, ctx.win_tile)}\n"
        f"context:  {format_context(ctx)}\n"
        f"expected: {' or '.join(format_fans(e) for e in accepted)}\n"
        f"got:      total {result.total}: {format_fans(got)}"
    )
