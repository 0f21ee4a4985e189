"""``guobiao serve --workers N``: N nodes of the cluster on one machine, each a process of the same command
sharing the port (SO_REUSEPORT: the kernel spreads the connections). A worker that dies is started
again after a back-off (logged), so the machine keeps N nodes; SIGINT/SIGTERM are passed on to them
all and end the supervision."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from typing import Callable

log = logging.getLogger("guobiao.workers")

BACKOFF_FIRST = 1.0  # seconds before a dead worker is started again; doubled each time it dies soon again,
BACKOFF_MAX = 30.0  # up to this
STEADY = 60.0  # seconds a worker must have lived for its back-off to start again from BACKOFF_FIRST
POLL = 0.2  # seconds between two looks at the workers


class Supervisor:
    def __init__(self, n: int, start: Callable[[], subprocess.Popen], clock: Callable[[], float] = time.monotonic):
        self.start, self.clock = start, clock
        self.procs: list[subprocess.Popen | None] = [start() for _ in range(n)]
        self.began = [clock()] * n
        self.backoff = [BACKOFF_FIRST] * n
        self.due: dict[int, float] = {}  # worker slot -> when it is started again
        self.stopping = False

    def signal(self, sig: int) -> None:
        """Passed on to every worker; the supervisor stops restarting them."""
        self.stopping = True
        for p in self.procs:
            if p is not None and p.poll() is None:
                p.send_signal(sig)

    def check(self) -> None:
        """One look: dead workers scheduled for a restart, due restarts done."""
        now = self.clock()
        for i, p in enumerate(self.procs):
            if p is None or p.poll() is None or i in self.due or self.stopping:
                continue
            if now - self.began[i] >= STEADY:
                self.backoff[i] = BACKOFF_FIRST
            wait = self.backoff[i]
            log.warning("worker %d (pid %d) exited with code %s; started again in %.0f s", i, p.pid, p.returncode, wait)
            self.due[i] = now + wait
            self.backoff[i] = min(2 * wait, BACKOFF_MAX)
        for i, at in list(self.due.items()):
            if self.stopping:
                self.due.clear()
            elif now >= at:
                del self.due[i]
                self.procs[i], self.began[i] = self.start(), now
                log.warning("worker %d started again (pid %d)", i, self.procs[i].pid)

    def run(self) -> int:
        """Until a signal stopped them all: the highest exit code of the last workers."""
        while not (self.stopping and all(p is None or p.poll() is not None for p in self.procs)):
            self.check()
            time.sleep(POLL)
        return max(p.wait() for p in self.procs if p is not None)


def workers(args, env_flag: str) -> int:
    if args.cluster is None or args.workers < 1 or args.port == 0:
        print("serve: --workers needs --cluster and a --port other than 0", file=sys.stderr)
        return 2
    argv = [sys.executable, "-m", "server.cli", *sys.argv[1:]]
    sup = Supervisor(args.workers, lambda: subprocess.Popen(argv, env={**os.environ, env_flag: "1"}))
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda s, _frame: sup.signal(s))
    return sup.run()
