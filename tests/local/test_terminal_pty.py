"""On a real terminal (a pseudo-terminal here) the screen is redrawn in place with bold text, the AIs answer
through the timer loop at AI_DELAY, and Ctrl-C (SIGINT) leaves without a traceback, keeping the game."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import time
from pathlib import Path

from adapters.local.text import BOLD, CLEAR_SCREEN
from storage.embedded import socket_path_for
from tests.local.cli import ENTRY, clean_env


def read_until(fd: int, wanted: str, seconds: float, seen: list[str]) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                seen.append(os.read(fd, 65536).decode(errors="replace"))
            except OSError:  # the child closed the terminal
                break
            if wanted in "".join(seen):
                return "".join(seen)
    raise AssertionError(f"{wanted!r} did not appear:\n" + "".join(seen)[-1500:])


def test_terminal_redraws_the_screen_ai_moves_on_timers_and_sigint_leaves_cleanly(tmp_path: Path) -> None:
    env = clean_env(tmp_path / "data", AI_DELAY="0.05")
    del env["NO_COLOR"]
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [*ENTRY, "play", "--players", "3", "--seed", "4", "--name", "Tess"],
        cwd=tmp_path, env=env, stdin=slave, stdout=slave, stderr=slave,
    )  # fmt: skip
    os.close(slave)
    seen: list[str] = []
    try:
        read_until(master, "\n> ", 20, seen)
        for _move in range(3):
            seen.clear()
            os.write(master, b"1\n")
            read_until(master, "\n> ", 20, seen)  # the AIs moved (by timer) until it is Tess's turn again
        screen = "".join(seen)
        assert CLEAR_SCREEN in screen and BOLD in screen
        frame = screen.rsplit(CLEAR_SCREEN, 1)[-1]  # what the terminal shows now
        assert frame.count("Trump") == 1 and "Durak in" not in frame  # the hand repeats nothing of the table
        assert "AI 1" in screen or "AI 2" in screen
        process.send_signal(signal.SIGINT)
        out = read_until(master, "The game is saved", 10, seen)
        assert process.wait(10) == 0
        assert "Traceback" not in out
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    assert not socket_path_for(tmp_path / "data" / "local").exists()  # the embedded Redis was stopped
