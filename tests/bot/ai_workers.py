"""Work functions for AI worker processes in tests: they wait for a gate (a file the test creates) instead of
sleeping, and note in a log (another file) when they start, so a test shows an order of events, never a
duration. Kept apart from the tests themselves, since a worker process imports the module its work function
lives in."""

from __future__ import annotations

import os
import time
from pathlib import Path

from bot.runtime.ai_work import AiJob, AiResult, AnalysisJob, analysis_steps, work

GATE = "DURAK_TEST_AI_GATE"  # workers are spawned with the environment of the moment: the gate's path
LOG = "DURAK_TEST_AI_LOG"  # the file each logged job adds a line to as it starts


def started(name: str) -> None:
    with Path(os.environ[LOG]).open("a") as log:
        log.write(name + "\n")


def started_jobs() -> list[str]:
    """The logged jobs' names, in the order the workers started them."""
    log = Path(os.environ[LOG])
    return log.read_text().split() if log.exists() else []


def wait_for_gate() -> None:
    gate = Path(os.environ[GATE])
    while not gate.exists():
        time.sleep(0.005)


def gated(job: AiJob) -> AiResult:
    """Wait for the test to open the gate, then answer as a worker does."""
    wait_for_gate()
    return work(job)


def gated_last_legal(job: AiJob) -> AiResult:
    """Wait for the gate, then answer the last legal action (a move the normal level does not choose)."""
    wait_for_gate()
    return AiResult(action=job.view.legal_actions[-1], pid=os.getpid())


def dies(job: AiJob) -> AiResult:
    """A worker killed mid-decision (out of memory, say)."""
    os._exit(1)


def gated_analysis_steps(job: AnalysisJob) -> tuple[int, ...]:
    """A game's analysis job that waits for the gate (see `analysis_steps`)."""
    wait_for_gate()
    return analysis_steps(job)


def logged(job: AiJob) -> AiResult:
    """A move or `/hint` that notes its kind as it starts, then answers as a worker does (no gate)."""
    started(job.kind)
    return work(job)


def logged_gated_analysis_steps(job: AnalysisJob) -> tuple[int, ...]:
    """An analysis job that notes "analysis" as it starts, then waits for the gate."""
    started("analysis")
    return gated_analysis_steps(job)
