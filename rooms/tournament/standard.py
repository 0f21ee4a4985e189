"""标准分 (standard scores) and the standings.

R98 第十条二(二): at a table of four, ranked by 局分, places score 4/2/1/0. R98 is silent on ties; we
split the values of the places the tied players span (tournament.md §2.2, as summerinsects'
``RankToStandardScore``), and store them ×12 so every split is an integer (4/2/1/0 → 48/24/12/0).
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

PLACE12 = (48, 24, 12, 0)  # R98 4/2/1/0, ×12


def standard_scores(scores: Sequence[int], forfeits: Sequence[bool] = (False,) * 4) -> list[int]:
    """标准分 ×12 of the four seats of a table from their 局分; tied seats share their places' values.

    超过15分钟未到者，将按自动弃权处理: a forfeiting seat (``forfeits[s]``) ranks last at its table
    whatever the numbers (its 局分 0 is not above a present player's −20); two forfeits share the
    last places, below every present player."""
    if len(scores) != 4 or len(forfeits) != 4:
        raise ValueError(f"a table has four seats, got {len(scores)} scores")
    key = [(not forfeits[s], scores[s]) for s in range(4)]
    order = sorted(range(4), key=lambda s: key[s], reverse=True)
    out = [0] * 4
    i = 0
    while i < 4:
        j = i
        while j + 1 < 4 and key[order[j + 1]] == key[order[i]]:
            j += 1
        total, n = sum(PLACE12[i:j + 1]), j - i + 1
        assert total % n == 0  # true for every tie pattern of four: that is why ×12
        for k in range(i, j + 1):
            out[order[k]] = total // n
        i = j + 1
    return out


def display(std12: int) -> float:
    """A ×12 标准分 as players read it (1.75, 2.333…)."""
    return std12 / 12


def _places(rows: list[dict], key) -> None:
    """Give rows (already sorted) a 1-based "place"; rows with equal ``key`` share one (1, 1, 3)."""
    for i, r in enumerate(rows):
        r["place"] = rows[i - 1]["place"] if i and key(rows[i - 1]) == key(r) else i + 1


def standings(players: Sequence[str], results: Mapping[str, Iterable[tuple[int, int]]],
              suspended: frozenset | set = frozenset()) -> list[dict]:
    """The ranking of ``players`` (registration order) from their finished sessions' (std12, 局分);
    a player in ``suspended`` (停赛) keeps the results played before and is marked ``suspended``.

    R98 第十一条 and tournament.md "Our decisions": total 标准分, then total 局分, then the best single
    标准分, then the count of high ones — i.e. the per-session 标准分 sorted high to low, compared
    lexicographically (missing sessions count 0) — then registration order (summerinsects' serial).
    """
    per = {p: list(results.get(p, ())) for p in players}
    width = max((len(v) for v in per.values()), default=0)
    rows = []
    for i, p in enumerate(players):
        stds = sorted((s for s, _ in per[p]), reverse=True)
        stds += [0] * (width - len(stds))
        std12 = sum(stds)
        score = sum(sc for _, sc in per[p])
        rows.append({"player": p, "std12": std12, "std": display(std12), "score": score,
                     "sessions": len(per[p]), "by_std": stds, "suspended": p in suspended, "_order": i})
    rows.sort(key=lambda r: (-r["std12"], -r["score"], [-x for x in r["by_std"]], r["_order"]))
    _places(rows, lambda r: (r["std12"], r["score"], r["by_std"]))
    for r in rows:
        del r["_order"]
    return rows


def team_standings(rows: Sequence[dict], teams: Mapping[str, str | None]) -> list[dict]:
    """Teams by the sum of their members' 标准分, then 局分 (R98 第十一条); ``rows`` from ``standings``."""
    acc: dict[str, dict] = {}
    for r in rows:
        team = teams.get(r["player"])
        if team is None:
            continue
        t = acc.setdefault(team, {"team": team, "players": [], "std12": 0, "score": 0})
        t["players"].append(r["player"])
        t["std12"] += r["std12"]
        t["score"] += r["score"]
    out = sorted(acc.values(), key=lambda t: (-t["std12"], -t["score"], t["team"]))
    for t in out:
        t["std"] = display(t["std12"])
    _places(out, lambda t: (t["std12"], t["score"]))
    return out


__all__ = ["PLACE12", "standard_scores", "display", "standings", "team_standings"]
