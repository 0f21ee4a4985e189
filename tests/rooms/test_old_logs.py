"""Logs written before claim windows were the game's still replay. The fixtures were written by that
code: a room log of a four-hand 无番馆 match (two humans, two bots, a restart mid-match) and the replay
of its match record. There a window asked the game only about seats that could claim, so the logs hold
the old seq numbers, ``close`` entries, and match records with answers from those seats only."""

import gzip
import json
from pathlib import Path

from game import match as gm
from game.actions import from_dict
from game.rules import Rules
from rooms.room import Room
from server.replays import _replay_streams

from tests.rooms.support import POLICIES

FIXTURES = Path(__file__).parent / "fixtures"


def load(name: str):
    with gzip.open(FIXTURES / name, "rt", encoding="utf-8") as f:
        return json.load(f)


def old_record(log: list[dict]) -> dict:
    (rec,) = [e["record"] for e in log if e["k"] == "match_result"]
    return rec


def stored(rec: dict) -> dict:
    """A match record as the server reads it back (the seed an int again)."""
    return {**rec, "seed": int(rec["seed"])}


def test_an_old_room_log_replays_to_the_same_results():
    log = load("old_claims_room_log.json.gz")
    assert any(e["k"] == "close" for e in log) and any(e["k"] == "restore" for e in log)
    room = Room.replay(log, POLICIES)
    old = old_record(log)
    (new,) = room.records()["matches"]
    assert "log_format" not in old and new["log_format"] == gm.LOG_FORMAT
    same = {k: v for k, v in new.items() if k not in ("actions", "log_format")}
    assert same == {k: v for k, v in old.items() if k != "actions"}
    assert room.hands == [e["record"] for e in log if e["k"] == "hand_result"][-len(room.hands):]
    assert room.phase == "lobby" and room.rseq == log[-1]["rseq"]


def test_every_prefix_of_an_old_room_log_replays():
    """A restart may come anywhere, in an old claim window too (with some answers given)."""
    log = load("old_claims_room_log.json.gz")
    ends = range(6, len(log), 23)
    for end in ends:
        room = Room.replay(log[:end], POLICIES)
        assert room.rseq == max(e["rseq"] for e in log[:end])
        if room.phase == "playing":
            assert room.snapshot("alice")["game"]["seq"] == room.match.seq


def unnumbered(streams):
    """The streams without seq (numbered the new way: two steps per discard)."""
    return [[{k: v for k, v in e.items() if k != "seq"} for e in hand] for hand in streams]


def test_an_old_match_record_replays_as_it_did():
    log = load("old_claims_room_log.json.gz")
    old = old_record(log)
    streams = unnumbered(load("old_claims_replay.json.gz"))
    assert unnumbered(_replay_streams(stored(old))) == streams  # no log_format: format 1
    # the same match recorded in the new format replays to the same streams
    (new,) = Room.replay(log, POLICIES).records()["matches"]
    assert _replay_streams(stored(new)) == _replay_streams(stored(old))
    assert len(new["actions"]) > len(old["actions"])  # every seat answers every window now
    m = gm.replay(Rules(**old["rules"]), [(p, from_dict(a)) for p, a in old["actions"]], seed=int(old["seed"]),
                  log_format=1)
    assert list(m.scores) == old["scores"] and m.phase == gm.FINISHED


def test_guobiao_replay_checks_an_old_served_match_file(tmp_path, capsys):
    from server import cli, fair

    rec = old_record(load("old_claims_room_log.json.gz"))
    salt = "0" * 32
    served = {**stored(rec), "format": "guobiao-match/1", "salt": salt,
              "commitment": fair.commitment(int(rec["seed"]), salt), "log_format": 1}
    f = tmp_path / "match.json"
    f.write_text(json.dumps(served))
    assert cli.main(["replay", str(f)]) == 0
    out = capsys.readouterr().out
    hands = [line for line in out.splitlines() if line.startswith("hand ")]
    assert len(hands) == len(rec["hands"]) and all(line.endswith(" ok") for line in hands)
    assert out.endswith(": ok\n")  # the final scores
