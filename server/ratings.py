"""Ratings and statistics of a finished match (docs/ratings.md): who placed where, the openskill
update of the humans' ratings, and what each human's hands add to their statistics. Plain data in,
plain data out: server.store_ratings applies it to the database in one transaction.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from openskill.models import PlackettLuce

# openskill's defaults (Weng and Lin 2011): a new player is mu 25, sigma 25/3; beta 25/6 is the
# performance spread of one match; tau 25/300 keeps sigma from freezing.
MU, SIGMA = 25.0, 25.0 / 3
BETA, TAU = 25.0 / 6, 25.0 / 300
# A bot plays as a fixed, well-known opponent of average strength: it takes part in the update (a
# human who beats three bots goes up) but its own rating never moves.
BOT_MU, BOT_SIGMA = 25.0, 1.0
MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)
ABANDONED_PLACE = 4  # a player who left during the match counts as last


def is_bot(pid) -> bool:
    """Seat ids of bots are ``bot-N`` (rooms.room) or ``bot:<name>`` (a tournament's bot competitor);
    a player id is alphanumeric."""
    return pid is None or pid.startswith(("bot-", "bot:"))


def score_of(mu: float, sigma: float) -> float:
    """The rating shown and ranked: openskill's ordinal, mu - 3 sigma (0 for a new player)."""
    return mu - 3 * sigma


@dataclass(frozen=True, slots=True)
class Seat:
    player: str | None  # the human who started the match in this seat; None: a bot
    place: int  # 1..4 (equal scores share a place); ABANDONED_PLACE if they left
    points: int
    abandoned: bool


def outcome(start_ids: list, record: dict) -> list[Seat]:
    """The four seats' places. A human whose seat a bot played by the end (they left) is last; the
    other seats are placed by final score among themselves."""
    end_ids, scores = record["ids"], record["scores"]
    left = [not is_bot(start_ids[p]) and end_ids[p] != start_ids[p] for p in range(4)]
    out = []
    for p in range(4):
        if left[p]:
            place = ABANDONED_PLACE
        else:
            place = 1 + sum(1 for q in range(4) if not left[q] and scores[q] > scores[p])
        out.append(Seat(None if is_bot(start_ids[p]) else start_ids[p], place, scores[p], left[p]))
    return out


def rate(seats: list[Seat], current: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """New (mu, sigma) of each human seat from their current ones (missing: a new player), by the
    Plackett-Luce update over the four seats' places; bots take part at BOT_MU, BOT_SIGMA."""
    teams, humans = [], []
    for s in seats:
        if s.player is None:
            teams.append([MODEL.rating(mu=BOT_MU, sigma=BOT_SIGMA)])
        else:
            mu, sigma = current.get(s.player, (MU, SIGMA))
            teams.append([MODEL.rating(mu=mu, sigma=sigma)])
            humans.append(s.player)
    if not humans:
        return {}
    new = MODEL.rate(teams, ranks=[s.place for s in seats])
    return {s.player: (t[0].mu, t[0].sigma) for s, t in zip(seats, new) if s.player is not None}


@dataclass(slots=True)
class HandStats:
    hands: int = 0
    wins: int = 0
    self_drawn: int = 0
    deal_ins: int = 0
    win_fan: int = 0
    fans: Counter = None  # (name, name_en) -> wins that scored it

    def __post_init__(self):
        if self.fans is None:
            self.fans = Counter()


def hand_stats(record: dict) -> dict[str, HandStats]:
    """Per human: the hands they sat in, their wins (self-drawn ones), deal-ins and fans. A hand counts
    for whoever was in the seat then (rooms.records.hand_record ``ids``); void hands count for nobody."""
    out: dict[str, HandStats] = {}
    for h in record["hands"]:
        if h.get("void"):
            continue
        for p, pid in enumerate(h["ids"]):
            if is_bot(pid):
                continue
            st = out.setdefault(pid, HandStats())
            st.hands += 1
            if h["winner"] == p:
                st.wins += 1
                st.self_drawn += bool(h["self_drawn"])
                st.win_fan += h["total"]
                for fan in h["fans"]:  # [id, name, name_en, points, count, sets]
                    st.fans[fan[1], fan[2]] += 1
            elif h["discarder"] == p:
                st.deal_ins += 1
    return out


__all__ = ["MU", "SIGMA", "BETA", "TAU", "BOT_MU", "BOT_SIGMA", "MODEL", "Seat", "outcome", "rate",
           "hand_stats", "is_bot", "score_of"]
