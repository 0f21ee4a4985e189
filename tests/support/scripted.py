"""A scripted deal for hint tests: every match of the room deals the same wall."""

from game import match as gm
from game.tiles import parse_tiles
from game.wall import arrange_wall

# Seat 0 deals first: a pure straight with 11s 23s and N to throw; after N it waits on 1s and 4s.
HANDS = ("123456789m11s23sN", "19m19p5s5pESWCFP7s", "28m28p6s6p8sESWCFP", "37m37p4p5s7p9sESWCF")


def T(text: str) -> int:
    return parse_tiles(text)[0]


def deal_scripted(monkeypatch, hands=HANDS) -> None:
    wall = arrange_wall([parse_tiles(h) for h in hands])
    real = gm.start_match
    monkeypatch.setattr(gm, "start_match", lambda rules, seed=None, walls=None: real(rules, walls=[wall] * rules.hands))
