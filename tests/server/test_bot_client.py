"""bench/bot_client.py, a client written from docs/protocol.md alone, plays a whole match as the four
seats of a private room against a running server, and every check it makes of the document holds."""

import asyncio
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


async def test_bot_client_plays_a_whole_match_from_the_protocol_document(server):
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(ROOT / "bench" / "bot_client.py"), "--url", server.url, "--hands", "8",
        "--type", "dazhong", "--rate", "0", "--timeout", "120", cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 180)
    text = out.decode()
    figures = {m[1]: int(m[2]) for m in re.finditer(r"^(\w[\w ]*?)\s{2,}(\d+)$", text, re.M)}
    assert proc.returncode == 0, text + err.decode()
    assert figures["matches"] == 1 and figures["hands"] == 8, text
    # the client prints only the figures that are not zero: eight draws (or wins) happen
    assert figures.get("wins", 0) + figures.get("exhaustive draws", 0) == 8, text
    assert figures["wall checks"] >= 4 and "wall check FAILURES" not in figures, text
    # Eight hands: two rounds, so game seats differ from room seats in the second.
    # (a hand dealt while the resuming seat was away reaches it as a snapshot: its deal is skipped, once)
    skipped = figures.get("seat checks skipped", 0)
    assert figures["seat checks"] + skipped == 4 * 8 and skipped <= 1 and "seat check FAILURES" not in figures, text
    assert figures["resume checks"] == 1 and "resume check FAILURES" not in figures, text
    assert not [k for k in figures if k.startswith("errors")], text
    assert figures["actions"] > 100, text
