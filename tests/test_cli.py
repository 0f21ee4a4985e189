"""The command line: score, waits and the JSON-lines batch mode."""

import io
import json

from server.cli import main


def run(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_score_prints_breakdown(capsys):
    code, out, _ = run(capsys, "score", "[EEE] [SSSS] 55pWWWNN +N", "--self-drawn")
    assert code == 0
    assert "大四喜 (Big Four Winds)" in out and "98  total" in out
    assert "[EEE] [SSSS] WWW NNN" in out  # the sets behind the fan


def test_score_json_with_win_option(capsys):
    code, out, _ = run(capsys, "score", "123m456m789m123s5p", "--win", "5p", "--json")
    data = json.loads(out)
    assert code == 0 and data["total"] == 22
    assert {f["id"] for f in data["fans"]} == {28, 62, 63, 70, 79}


def test_score_error_names_the_tile(capsys):
    code, _, err = run(capsys, "score", "11111m34p567s789s", "--win", "5p")
    assert code == 1 and "hand/too_many_copies" in err and "1m" in err


def test_waits(capsys):
    code, out, _ = run(capsys, "waits", "1112345678999m")
    assert code == 0 and out.count("九莲宝灯") == 9


def test_jsonl_batch_goes_on_after_bad_lines(capsys, monkeypatch):
    good = {"pack": [["PENG", "F1", 1]], "hand": ["B5", "B5", "F3", "F3", "F3", "F4", "F4", "W1", "W2", "W3"],
            "winTile": "F4", "flowerCount": 2, "isSelfDrawn": True, "is4thTile": False,
            "isAboutKong": False, "isWallLast": False, "seatWind": 0, "prevalentWind": 0}
    lines = [json.dumps(good), "not json", json.dumps({**good, "hand": ["X1"]}),
             json.dumps({**good, "pack": [["CHI", "W1", 1]]}), json.dumps({**good, "flowerCount": 9}),
             json.dumps(good)]
    code, out, _ = run(capsys, "score", "--jsonl", stdin="\n".join(lines) + "\n", monkeypatch=monkeypatch)
    answers = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and len(answers) == 6
    assert answers[0] == answers[5] and answers[0]["total"] == 22
    assert answers[0]["fans"][0] == {"id": 38, "name": "三风刻", "name_en": "Big Three Winds", "points": 12, "count": 1}
    assert [a["error"]["code"] for a in answers[1:5]] == [
        "input/bad_json", "notation/bad_reference_code", "hand/bad_chow", "context/flowers"]
