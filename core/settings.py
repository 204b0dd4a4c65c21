"""The rules options of one game: one validated model, read from and written back to `/newgame` words.

Every field is an option of docs/rules.md and has a word (§11). ``Settings.from_words("transfer neighbours deck=24")``
builds the model; ``to_words()`` gives back the shortest words that build it again.
"""

from __future__ import annotations

import difflib
import unicodedata
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from core.numbers import whole_number

Mode = Literal["classic", "transfer"]
ThrowIn = Literal["all", "neighbours", "auto"]
Exchange = Literal["off", "lowest", "ace"]
Opener = Literal["durak_left", "durak_right", "lowest"]
Scoring = Literal["podium", "winner"]

TIMER_MIN, TIMER_MAX = 15, 600
TIMER_DIGITS = 9  # "timer=000000060" still reads; a longer number is refused before it is read
SHOWN_WORD = 32  # a refusal quotes at most this many characters of the word it refuses


class SettingsError(ValueError):
    """A `/newgame` word that is unknown, malformed or in conflict; the message says which and what works.

    `reason` and `details` say the same for a program, so a bot can put it in its users' language:
    ``unknown`` (word, accepted, and suggestion when a known word is close), ``conflict`` (word, other),
    ``timer_word`` (word, min, max), ``values`` (word, key, values), ``timer_range`` (timer, min, max),
    ``teams_transfer``."""

    def __init__(self, message: str, reason: str = "", **details: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.details = details


class Settings(BaseModel):
    """Rules options; the defaults are those of docs/rules.md."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: Mode = "classic"
    deck: Literal[24, 36, 52] = 36
    throw_in: ThrowIn = "all"
    first5: bool = False
    exchange: Exchange = "off"
    opener: Opener = "durak_left"
    timer: int = Field(default=60, description="seconds per turn; 0 turns the timer off")
    scoring: Scoring = "podium"
    teams: bool = Field(default=False, description="4 players as two pairs, or 6 as two teams of three")
    severny: bool = Field(
        default=False,
        description=(
            "Durak Severnyi: when the talon's last face-down card is drawn, it is shown to everyone and its suit "
            "is trumps for the rest of the game (the turned-up card, drawn after it, is then an ordinary card "
            "unless it shares that suit)"
        ),
    )

    @model_validator(mode="after")
    def _timer_in_range(self) -> Settings:
        if self.timer != 0 and not TIMER_MIN <= self.timer <= TIMER_MAX:
            raise SettingsError(
                f"timer must be 0 (off) or {TIMER_MIN}..{TIMER_MAX} seconds, not {self.timer}",
                "timer_range", timer=str(self.timer), min=str(TIMER_MIN), max=str(TIMER_MAX),
            )  # fmt: skip
        if self.teams and self.mode == "transfer":
            raise SettingsError(
                "“transfer” is not played in team games: choose teams or transfer", "teams_transfer"
            )
        return self

    @property
    def transfer(self) -> bool:
        return self.mode == "transfer"

    @classmethod
    def from_words(cls, words: str | list[str] | tuple[str, ...]) -> Settings:
        """Parse `/newgame` words such as ``"transfer neighbours first5 deck=24 exchange=ace timer=45"``."""
        tokens = words.split() if isinstance(words, str) else [w for word in words for w in word.split()]
        chosen: dict[str, object] = {}
        chosen_by: dict[str, str] = {}
        for token in tokens:
            field, value = _read_word(token)
            if field in chosen and chosen[field] != value:
                word, other = shown(token), shown(chosen_by[field])
                raise SettingsError(
                    f"“{word}” conflicts with “{other}”: choose one of them",
                    "conflict",
                    word=word,
                    other=other,
                )
            chosen[field] = value
            chosen_by[field] = token
        try:
            return cls.model_validate(chosen)
        except ValidationError as error:
            found = error.errors()
            first = found[0].get("ctx", {}).get("error") if len(found) == 1 else None
            if isinstance(first, SettingsError):  # one of our own checks: keep its reason
                raise first from None
            message = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in found)
            raise SettingsError(message) from None

    def to_words(self) -> str:
        """The words that rebuild these settings, defaults left out (``""`` for the defaults)."""
        words: list[str] = []
        if self.mode == "transfer":
            words.append("transfer")
        if self.deck != 36:
            words.append(f"deck={self.deck}")
        if self.throw_in != "all":
            words.append(self.throw_in)
        if self.first5:
            words.append("first5")
        if self.exchange == "lowest":
            words.append("exchange")
        elif self.exchange == "ace":
            words.append("exchange=ace")
        if self.opener != "durak_left":
            words.append(f"opener={self.opener}")
        if self.timer != 60:
            words.append(f"timer={self.timer}")
        if self.scoring != "podium":
            words.append(f"scoring={self.scoring}")
        if self.teams:
            words.append("teams")
        if self.severny:
            words.append("severny")
        return " ".join(words)


# word -> (field, value) for the words that stand alone
_BARE_WORDS: dict[str, tuple[str, object]] = {
    "classic": ("mode", "classic"),
    "podkidnoy": ("mode", "classic"),
    "подкидной": ("mode", "classic"),  # the variants' own names in Russian and Ukrainian
    "підкидний": ("mode", "classic"),
    "transfer": ("mode", "transfer"),
    "perevodnoy": ("mode", "transfer"),
    "переводной": ("mode", "transfer"),
    "перевідний": ("mode", "transfer"),
    "neighbours": ("throw_in", "neighbours"),
    "neighbors": ("throw_in", "neighbours"),
    "auto": ("throw_in", "auto"),
    "first5": ("first5", True),
    "exchange": ("exchange", "lowest"),
    "teams": ("teams", True),
    "severny": ("severny", True),
    "severnyi": ("severny", True),
}

# key -> (field, accepted values as written, converter)
_KEYED_WORDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "mode": ("mode", ("classic", "transfer")),
    "deck": ("deck", ("24", "36", "52")),
    "throw_in": ("throw_in", ("all", "neighbours", "auto")),
    "first5": ("first5", ("on", "off")),
    "exchange": ("exchange", ("off", "lowest", "ace")),
    "opener": ("opener", ("durak_left", "durak_right", "lowest")),
    "timer": ("timer", ()),
    "scoring": ("scoring", ("podium", "winner")),
    "teams": ("teams", ("on", "off")),
    "severny": ("severny", ("on", "off")),
}


def accepted_words() -> str:
    """Every word `/newgame` accepts, for error messages and `/help`."""
    keyed = [f"{key}={'|'.join(values) if values else 'N'}" for key, (_, values) in _KEYED_WORDS.items()]
    return ", ".join([*_BARE_WORDS, *keyed])


def closest_word(token: str) -> str | None:
    """The accepted word an unknown one was most likely meant to be (``transfr`` -> ``transfer``; a key keeps
    the value typed after it: ``dek=24`` -> ``deck=24``), or None when nothing is close."""
    word = token.strip().lower().replace("-", "_")
    key, sep, raw = word.partition("=")
    if sep:
        keys = difflib.get_close_matches(key, _KEYED_WORDS, n=1)
        return shown(f"{keys[0]}={raw}") if keys else None
    found = difflib.get_close_matches(word, [*_BARE_WORDS, *_KEYED_WORDS], n=1)
    if not found:
        return None
    if found[0] in _BARE_WORDS:
        return found[0]
    values = _KEYED_WORDS[found[0]][1]
    return f"{found[0]}={'|'.join(values) if values else 'N'}"


def shown(token: str) -> str:
    """A refused word as a refusal quotes it: without control or format characters (a right-to-left mark
    would turn the rest of the line around), and clipped."""
    visible = "".join(c for c in token if unicodedata.category(c) not in ("Cc", "Cf"))
    return visible if len(visible) <= SHOWN_WORD else visible[: SHOWN_WORD - 1] + "…"


def _read_word(token: str) -> tuple[str, object]:
    word = token.strip().lower().replace("-", "_")
    if word in _BARE_WORDS:
        return _BARE_WORDS[word]
    key, sep, raw = word.partition("=")
    if not sep or key not in _KEYED_WORDS:
        closest = closest_word(token)
        guess = f"did you mean “{closest}”? " if closest else ""
        raise SettingsError(
            f"unknown word “{shown(token)}”; {guess}accepted: {accepted_words()}",
            "unknown",
            word=shown(token),
            accepted=accepted_words(),
            **({"suggestion": closest} if closest else {}),
        )
    field, values = _KEYED_WORDS[key]
    if key == "timer":
        seconds = whole_number(raw, TIMER_DIGITS)
        if seconds is None:
            raise SettingsError(
                f"“{shown(token)}”: timer takes whole seconds, 0 or {TIMER_MIN}..{TIMER_MAX}",
                "timer_word", word=shown(token), min=str(TIMER_MIN), max=str(TIMER_MAX),
            )  # fmt: skip
        return field, seconds
    if raw == "neighbors":
        raw = "neighbours"
    if raw not in values:
        raise SettingsError(
            f"“{shown(token)}”: {key} takes {' | '.join(values)}",
            "values",
            word=shown(token),
            key=key,
            values=" | ".join(values),
        )
    if key == "deck":
        return field, int(raw)
    if key in ("first5", "teams", "severny"):
        return field, raw == "on"
    return field, raw
