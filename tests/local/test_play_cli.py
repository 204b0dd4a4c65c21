"""`durak-bot play` driven through its stdin like a person at the keyboard: bad input is explained, a game
interrupted and started again with the same command continues, and a whole game reaches its result."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

from tests.local.cli import Conversation, clean_env, run_cli

PROMPT = "Your move ("
SUIT_LETTER = {"♠": "s", "♥": "h", "♦": "d", "♣": "c"}
RANKS = ("6", "7", "8", "9", "10", "J", "Q", "K", "A")
MOVE = re.compile(r"(\d+)\) (.+?)(?=\s{3}\d+\) |$)")


def typed(card_symbol: str) -> str:
    """``10♥`` as a person types it: ``10h``."""
    return card_symbol[:-1].lower() + SUIT_LETTER[card_symbol[-1]]


def latest(lines: list[str], prefix: str) -> str:
    return next(line for line in reversed(lines) if line.startswith(prefix))


def moves_shown(lines: list[str]) -> dict[int, str]:
    """The numbered moves printed under the latest hand: {number: label}."""
    start = max(i for i, line in enumerate(lines) if line.startswith("Your cards: "))
    found: dict[int, str] = {}
    for line in lines[start:]:
        if line.startswith("1) ") or (found and re.match(r"\d+\) ", line)):
            found.update({int(n): label.strip() for n, label in MOVE.findall(line)})
    return found


def card_not_held(lines: list[str]) -> str:
    hand = latest(lines, "Your cards: ").removeprefix("Your cards: ").split()
    return next(f"{rank}{suit}" for suit in "♠♥♦♣" for rank in RANKS if f"{rank}{suit}" not in hand)


def wait_for(conversation: Conversation, *starts: str, deadline: float) -> str:
    """Read until a line starting with one of ``starts``; fails on a traceback or an early exit."""
    while True:
        line = conversation.next_line(deadline)
        assert line is not None, "durak-bot ended early:\n" + "\n".join(conversation.transcript[-30:])
        assert "Traceback" not in line
        if line.startswith(starts):
            return line


def answer_and_expect(conversation: Conversation, text: str, expected: str, deadline: float) -> None:
    conversation.send(text)
    wait_for(conversation, expected, deadline=deadline)
    wait_for(conversation, PROMPT, deadline=deadline)


def test_bad_input_is_explained_and_an_interrupted_game_continues_to_its_result(tmp_path: Path) -> None:
    env = clean_env(tmp_path / "data")
    args = ["play", "--players", "3", "--seed", "5", "--name", "Tess"]
    deadline = time.monotonic() + 45

    first = Conversation(args, tmp_path, env)
    try:
        wait_for(first, PROMPT, deadline=deadline)
        count = len(moves_shown(first.transcript))
        answer_and_expect(first, "hello", "Type a move's number", deadline)
        answer_and_expect(first, "0", "There is no move 0", deadline)
        answer_and_expect(
            first, str(count + 1), f"There is no move {count + 1}: choose 1 to {count}.", deadline
        )
        missing = card_not_held(first.transcript)
        answer_and_expect(first, typed(missing), f"You do not hold {missing}.", deadline)
        answer_and_expect(first, "zz9", "Type a move's number", deadline)
        hand_before = latest(first.transcript, "Your cards: ")
        first.send("1")
        wait_for(first, PROMPT, deadline=deadline)
        assert latest(first.transcript, "Your cards: ") != hand_before  # the move was made
        table_at_quit = latest(first.transcript, "Your cards: ")
        first.send("q")
        wait_for(first, "The game is saved", deadline=deadline)
        status, errors = first.finish()
        assert status == 0 and "Traceback" not in errors
    finally:
        first.kill()

    second = Conversation(args, tmp_path, env)
    rng = random.Random(3)
    try:
        wait_for(second, "A game is in progress here. Continue it?", deadline=deadline)
        assert latest(second.transcript, "Your cards: ") == table_at_quit
        second.send("y")
        by_card = 0
        while True:
            line = wait_for(second, PROMPT, "Play again?", deadline=deadline)
            if line.startswith("Play again?"):
                second.send("n")
                break
            moves = moves_shown(second.transcript)
            number = rng.choice(sorted(moves))
            label = moves[number]
            cards = [m for m in moves.values() if m == label]
            if (
                label[-1] in SUIT_LETTER
                and len(cards) == 1
                and not any(label in m and m != label for m in moves.values())
            ):
                second.send(typed(label))  # a card typed by name, mapped to its button
                by_card += 1
            else:
                second.send(str(number))
        status, errors = second.finish()
    finally:
        second.kill()
    transcript = "\n".join(second.transcript)
    assert status == 0, errors
    assert "Traceback" not in errors + transcript
    assert re.search(r"Game over: .+ (is the durak|surrendered|a draw)", transcript)
    assert by_card > 0
    assert "Standings" in transcript and "Tess" in transcript

    game_id = re.search(r"durak-bot replay (\w+)", transcript)
    assert game_id is not None
    replayed = run_cli(["replay", game_id.group(1)], tmp_path, env)
    assert replayed.returncode == 0, replayed.stderr
    result_line = next(line for line in second.transcript if line.startswith("Game over:"))
    assert result_line in replayed.stdout.splitlines()
    assert f"durak-bot verify {game_id.group(1)}" in transcript, "the result says how to check the deal"
    lines = second.transcript
    hint = max(i for i, text in enumerate(lines) if text.startswith("Replay this game with"))
    assert hint > max(i for i, text in enumerate(lines) if "Standings" in text), (
        "under the standings, not above"
    )
    verified = run_cli(["verify", game_id.group(1)], tmp_path, env)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "The deal checks out" in verified.stdout


def test_input_ending_mid_game_leaves_cleanly_and_keeps_the_game(tmp_path: Path) -> None:
    env = clean_env(tmp_path / "data")
    ended = run_cli(["play", "--seed", "2"], tmp_path, env)
    assert ended.returncode == 0 and "Traceback" not in ended.stderr
    assert "Input ended. The game is saved" in ended.stdout
    again = run_cli(["play", "--seed", "2"], tmp_path, env)
    assert "A game is in progress here. Continue it?" in again.stdout
