"""Golden transcripts: whole games driven through `GameService`, every effect written down and compared.

Four games (2 players classic with a reminder and a timeout, 3 players transfer with a 5-card first bout,
4 players transfer on a 24-card deck, 6 players with neighbours throwing in and a rematch), each once in English and once with the chat switched to Russian
by an admin (with one English or Italian player whose private hand keeps their own language). Seats are
people who tap a button chosen by a seeded generator among all the buttons they were shown, so the English
and the Russian run play the very same game. Clock, ids and the deal's seed are fixed.

A change to rendering, wording or the engine shows up as a diff here. When the change is intended,
regenerate the files with ``UPDATE_GOLDEN=1 python -m pytest tests/bot/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import difflib
import os
import random
from dataclasses import dataclass
from pathlib import Path

import fakeredis
import pytest

from bot import payloads
from bot.effects import Alert, Button, Effect, Message, Notice, Reply, Retract, ShowHand, ShowTable
from bot.inputs import User
from storage.store import RedisGameStore
from tests.bot.harness import Harness

GOLDEN_DIR = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN", "") not in ("", "0")
MAX_PRESSES = 1500
# words that appear on an English table or lobby and never on a Russian one
ENGLISH_ONLY = ("Trump", "talon", "card", "attack", "defend", "player", "Join", "Start", "My hand", "Durak")
NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")


@dataclass(frozen=True)
class GameSpec:
    name: str
    words: str
    seed: int
    ru_langs: tuple[str, ...]  # each seat's platform language in the Russian run (the English run: all "en")
    timeout_at: int = 0  # before this press, let the player to act get the reminder and then time out
    stale_at: int = 0  # before this press, replay the previous press (an out-of-date button)
    hand_at: int = 0  # before this press, someone taps "My hand" on the table
    epilogue: tuple[str, ...] = ()  # after the result: "stats", "rematch"


GAMES = (
    GameSpec("two_players_classic", "", 10, ("ru", "ru"), timeout_at=6, epilogue=("stats",)),
    GameSpec("three_players_transfer", "transfer first5", 7, ("ru", "it", "ru"), epilogue=("stats",)),
    GameSpec(
        "four_players_transfer",
        "transfer deck=24",
        11,
        ("ru", "en", "ru", "ru"),
        stale_at=5,
        hand_at=9,
        epilogue=("stats",),
    ),
    GameSpec(
        "six_players_neighbours",
        "neighbours",
        24,
        ("ru", "ru", "ru", "it", "ru", "ru"),
        epilogue=("rematch",),
    ),
)
_recordings: dict[tuple[str, str], Recorder] = {}


def players(spec: GameSpec, lang: str) -> list[User]:
    langs = spec.ru_langs if lang == "ru" else ("en",) * len(spec.ru_langs)
    return [User(str(number), NAMES[number - 1], code) for number, code in enumerate(langs, start=1)]


def flat(message: Message | None) -> list[Button]:
    return [b for row in (message.buttons if message else ()) for b in row]


def choose(options: list[tuple[User, Button]], rng: random.Random) -> tuple[User, Button]:
    """Mostly play a card (attack, cover, throw in, transfer); sometimes take, pass or swap. Random taps
    alone take far too often, and the games (and files) get long."""
    cards = [(u, b) for u, b in options if code_of(b)[0] in "acx"]
    return rng.choice(cards if cards and rng.random() < 0.8 else options)


def code_of(button: Button) -> str:
    return button.payload.rsplit("|", 1)[-1]


def drawn_at(button: Button) -> int:
    parsed = payloads.parse(button.payload)
    assert parsed is not None
    return parsed.step


class Recorder:
    """Runs the inputs through the harness and writes each one's effects as readable text."""

    def __init__(self, harness: Harness, users: list[User]) -> None:
        self.harness = harness
        self.users = users
        self.names = {user.id: user.name for user in users}
        self.lines: list[str] = []
        self.entries = 0
        self.codes: list[str] = []  # what was pressed, in order: the same game whatever the language
        self.shown: list[tuple[str, Message]] = []  # ("table" or a user id, message) of every screen update

    async def command(self, user: User, name: str, words: str = "", **extra: object) -> list[Effect]:
        effects = await self.harness.command(user, name, words, **extra)
        self.write(f"{user.name}: /{name}{' ' + words if words else ''}", effects)
        return effects

    async def press(self, user: User, button: Button) -> list[Effect]:
        effects = await self.harness.press(user, button.payload)
        self.codes.append(code_of(button))
        self.write(f"{user.name} presses [{button.label}] ({code_of(button)})", effects)
        return effects

    async def timers(self, seconds: float) -> list[Effect]:
        self.harness.clock += seconds
        effects = await self.harness.fire_timers()
        self.write(f"{seconds:g} seconds pass: timers fire", effects)
        return effects

    def write(self, title: str, effects: list[Effect]) -> None:
        self.entries += 1
        self.lines.append(f"=== {self.entries}. {title}")
        for effect in effects:
            self.lines.extend(self.describe(effect))

    def describe(self, effect: Effect) -> list[str]:
        if isinstance(effect, Retract):
            return [f"--- retract {effect.tag} of {self.names.get(effect.user_id, effect.user_id)}"]
        if isinstance(effect, Alert):
            if not effect.text:
                return []
            kind = "popup" if effect.show_alert else "alert"
            return [f"{kind} to {self.names.get(effect.user_id, effect.user_id)}: {effect.text}"]
        if isinstance(effect, ShowTable):
            head = "table (new message)" if effect.new_message else "table"
            if effect.announce:
                head += f" (pings {self.names[effect.turn_user]})"
            self.shown.append(("table", effect.message))
        elif isinstance(effect, ShowHand):
            self.shown.append((effect.user_id, effect.message))
            head = f"hand of {self.names[effect.user_id]}" + (" (new message)" if effect.new_message else "")
            head += " (your turn: sent anew)" if effect.announce else ""
        elif isinstance(effect, Notice):
            head = "notice"
        elif isinstance(effect, Reply):
            head = f"private reply to {self.names[effect.user_id]}" if effect.private else "reply"
        return [f"--- {head}", *render(effect.message)]


def render(message: Message) -> list[str]:
    lines = [f"  {text}".rstrip() for text in message.plain_text.split("\n")]
    lines.extend("  " + " ".join(f"[{b.label}]" for b in row) for row in message.buttons)
    return lines


async def record_game(store: RedisGameStore, spec: GameSpec, lang: str) -> Recorder:
    harness = Harness(store, seed=spec.seed)
    users = players(spec, lang)
    rec = Recorder(harness, users)
    creator = users[0]
    rec.lines.append(f"# {spec.name} ({lang}): /newgame {spec.words or '(classic)'}; seed {spec.seed}")
    rec.lines.append("# players: " + ", ".join(f"{u.name} ({u.lang})" for u in users))
    rec.lines.append("# regenerate: UPDATE_GOLDEN=1 python -m pytest tests/bot/test_golden.py")
    if lang != "en":
        await rec.command(creator, "settings", f"lang={lang}", is_admin=True)
    await rec.command(creator, "newgame", spec.words)
    for user in users[1:]:
        join = next(b for b in flat(harness.screen.table) if code_of(b) == "J")
        await rec.press(user, join)
    start = next(b for b in flat(harness.screen.table) if code_of(b) == "S")
    await rec.press(creator, start)

    rng = random.Random(spec.seed)
    previous: tuple[User, Button] | None = None
    for press_no in range(1, MAX_PRESSES + 1):
        if any(isinstance(effect, Notice) for effect in harness.last):
            break
        if press_no == spec.timeout_at:
            await rec.timers(45)  # the reminder, 15 seconds before the deadline
            await rec.timers(15)  # the deadline: the safe default is played for the seat
        if press_no == spec.stale_at and previous is not None:
            await rec.press(*previous)
        if press_no == spec.hand_at:
            my_hand = next(b for b in flat(harness.screen.table) if code_of(b) == "H")
            await rec.press(users[-1], my_hand)
        options = [(u, b) for u in users for b in flat(harness.screen.hands.get(u.id))]
        assert options, "nobody has a button to press, but the game is not over"
        newest = max(drawn_at(b) for _u, b in options)  # not a hand left after its own press
        options = [(u, b) for u, b in options if drawn_at(b) == newest]
        previous = choose(options, rng)
        await rec.press(*previous)
    else:
        pytest.fail(f"{spec.name}: no result after {MAX_PRESSES} presses")

    for step in spec.epilogue:
        if step == "stats":
            await rec.command(creator, "stats")
        elif step == "rematch":
            notice = next(e.message for e in harness.last if isinstance(e, Notice))
            await rec.press(users[1], flat(notice)[0])
    return rec


async def recording(spec: GameSpec, lang: str) -> Recorder:
    """Each game is played once per language and shared by the tests below (a fresh fake Redis each)."""
    if (spec.name, lang) not in _recordings:
        pytest.importorskip("lupa", reason="fakeredis runs the store's Lua scripts only with lupa")
        client = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
        try:
            _recordings[spec.name, lang] = await record_game(RedisGameStore(client), spec, lang)
        finally:
            await client.aclose()
    return _recordings[spec.name, lang]


def compare(path: Path, text: str) -> None:
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"{path.name} is missing: run with UPDATE_GOLDEN=1 to record it")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), text.splitlines(), f"{path.name} (repo)", f"{path.name} (now)", lineterm=""
        )
        shown = list(diff)[:80]
        pytest.fail(
            "transcript differs (UPDATE_GOLDEN=1 regenerates it if the change is intended):\n"
            + "\n".join(shown)
        )


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("spec", GAMES, ids=[spec.name for spec in GAMES])
async def test_transcript_matches_the_recorded_golden(spec: GameSpec, lang: str) -> None:
    rec = await recording(spec, lang)
    compare(GOLDEN_DIR / f"{spec.name}.{lang}.txt", "\n".join(rec.lines) + "\n")


@pytest.mark.parametrize("spec", GAMES, ids=[spec.name for spec in GAMES])
async def test_the_language_changes_the_words_never_the_game(spec: GameSpec) -> None:
    """Same presses in both runs; the Russian chat's table has no English left, and each person's hand
    speaks their own language."""
    english, russian = await recording(spec, "en"), await recording(spec, "ru")
    assert russian.codes == english.codes and len(russian.lines) > 100
    langs = {user.id: user.lang for user in players(spec, "ru")}
    your_cards = {"ru": "Ваши карты:", "en": "Your cards:", "it": "Le tue carte:"}
    for audience, message in russian.shown:
        text = message.plain_text + " ".join(b.label for b in flat(message))
        if audience == "table":
            assert not any(word in text for word in ENGLISH_ONLY), text
        else:
            assert your_cards[langs[audience]] in text, (langs[audience], text)


def test_the_games_cover_both_modes_transfers_a_timeout_a_rematch_and_all_sizes() -> None:
    recorded = {path.name: path.read_text(encoding="utf-8") for path in GOLDEN_DIR.glob("*.txt")}
    assert len(recorded) == 2 * len(GAMES)
    four = recorded["four_players_transfer.en.txt"]
    assert "transferred with" in four and "Transfer" in four
    two = recorded["two_players_classic.en.txt"]
    assert "Transfer" not in two and "ran out of time" in two and "15 seconds left for your move." in two
    six = recorded["six_players_neighbours.en.txt"]
    assert "Only the defender's two neighbours may throw in." in six and "presses [Rematch] (R)" in six
    assert "Le tue carte:" in recorded["six_players_neighbours.ru.txt"]  # the Italian seat keeps its language
    assert {len(players(spec, "en")) for spec in GAMES} == {2, 3, 4, 6}
    assert sum(len(text.encode()) for text in recorded.values()) < 800_000  # four games, both languages
