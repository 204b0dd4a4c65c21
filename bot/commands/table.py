"""Every command, declared once. The service's dispatch, `/help`, Telegram's menu and command handlers, the
Discord ``/durak`` subcommands and the terminal's help are all built from `COMMANDS`.

The table is data and imports no handler: what each command does is registered under its name in
`bot.commands.handlers.HANDLERS`. Adding a command: an entry here, its handler there, and the catalogs (the
help text is a gettext msgid; `scripts/i18n.sh` extracts it from this file). `tests/bot/test_command_table.py`
checks that every platform offers exactly the commands this table gives it, and that every name has a
handler.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from bot import platforms


def _(text: str) -> str:
    """Marks a msgid for extraction; it is translated where it is shown (`tr.declared(spec.help)`)."""
    return text


DISCORD_NAME = "Discord command"  # the msgctxt of the names Discord shows; p_ calls spell it out for babel


def p_(context: str, text: str) -> str:
    """Marks a msgid of ``context`` for extraction (Discord's command names: `tr.declared_in`)."""
    return text


class Who(Enum):
    """Who may use a command. The handler refuses the others, with a reason in the chat."""

    ANYONE = "anyone"
    ADMIN = "admin"  # some or all of it only for the chat's admins: the platform is asked who administers it
    PRIVATE = "private"  # only in a private chat with the bot (practice games against AI)


class Place(Enum):
    """Where a command is offered: a platform's menu or command list, or the terminal's help (each named by
    its platform id, declared in `bot.platforms`)."""

    TELEGRAM = platforms.TELEGRAM
    DISCORD = platforms.DISCORD
    TERMINAL = platforms.LOCAL


EVERY_CHAT = frozenset({Place.TELEGRAM, Place.DISCORD})


@dataclass(frozen=True)
class OnDiscord:
    """The command as a subcommand of ``/durak``: Discord's own name and description, in English; the
    catalogs give what clients in each of our other languages see (the name as a msgid of the
    context "Discord command", so a short word cannot clash with another msgid)."""

    name: str  # lowercase, 1-32 word characters; also what the service is sent (a name or alias below)
    description: str  # msgid, sentence case
    # "words" (rules words, completed), "language" (a choice of LANGUAGES), "season" (a number: "season=N")
    options: tuple[str, ...] = ()
    public: bool = False  # the answer is posted in the channel, not shown to the sender only


@dataclass(frozen=True)
class CommandSpec:
    """One command: what it is called, who may use it, and where it is offered (what it does is its
    handler's, `bot.commands.handlers.HANDLERS[name]`)."""

    name: str  # what is typed after the slash on Telegram and in the terminal
    help: str  # msgid: the line in /help and the description in Telegram's menu
    args: str = ""  # shown after the name in /help, e.g. "[words]"
    aliases: tuple[str, ...] = ()  # other names the service answers to
    who: Who = Who.ANYONE
    places: frozenset[Place] = EVERY_CHAT
    in_help: bool = True  # /help lists it (/help does not list itself)
    discord: OnDiscord | None = None  # set exactly when `places` has Place.DISCORD
    lists_commands: bool = False  # its answer names commands, which a platform renames (Discord's /durak)

    def __post_init__(self) -> None:
        if (Place.DISCORD in self.places) != (self.discord is not None):
            raise ValueError(
                f"/{self.name}: a Discord subcommand is declared exactly when it shows on Discord"
            )

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    @property
    def usage(self) -> str:
        """As /help shows it: ``/newgame [words]``."""
        return f"/{self.name} {self.args}" if self.args else f"/{self.name}"


NEWGAME = CommandSpec(
    "newgame",
    _("open a lobby, e.g. /newgame transfer neighbours"),
    args="[words]",
    aliases=("new",),
    discord=OnDiscord(
        p_("Discord command", "new"),
        _("Open a lobby for a new game"),
        options=("words",),
    ),
)

COMMANDS: tuple[CommandSpec, ...] = (
    NEWGAME,
    CommandSpec(
        "join",
        _("join the open lobby"),
        discord=OnDiscord(
            p_("Discord command", "join"),
            _("Join the open lobby"),
        ),
    ),
    CommandSpec(
        "leave",
        _("leave the lobby; during a game: surrender"),
        places=EVERY_CHAT | {Place.TERMINAL},
        discord=OnDiscord(
            p_("Discord command", "leave"),
            _("Leave the lobby; during a game: surrender"),
        ),
    ),
    CommandSpec(
        "start",
        _("start the game"),
        discord=OnDiscord(
            p_("Discord command", "start"),
            _("Start the game"),
        ),
    ),
    CommandSpec(
        "cancel",
        _("close the lobby or stop the game (creator or admin)"),
        who=Who.ADMIN,
        places=EVERY_CHAT | {Place.TERMINAL},
        discord=OnDiscord(
            p_("Discord command", "cancel"),
            _("Close the lobby or stop the game (creator or admin)"),
        ),
    ),
    CommandSpec(
        "rules",
        _("the rules in force"),
        places=EVERY_CHAT | {Place.TERMINAL},
        discord=OnDiscord(
            p_("Discord command", "rules"),
            _("The rules in force"),
        ),
    ),
    CommandSpec(
        "settings",
        _("this chat's default rules and language (admins)"),
        args="[words]",
        who=Who.ADMIN,
        discord=OnDiscord(
            p_("Discord command", "settings"),
            _("This channel's default rules and language (admins change them)"),
            options=("words", "language"),
        ),
    ),
    CommandSpec(
        "stats",
        _("the standings of this chat by rating, with durak counts; season=1 for an earlier season"),
        args="[season=N]",
        places=EVERY_CHAT | {Place.TERMINAL},
        discord=OnDiscord(
            p_("Discord command", "stats"),
            _("The standings of this channel by rating, with durak counts"),
            options=("season",),
            public=True,
        ),
    ),
    CommandSpec(
        "me",
        _("your own record in this chat: rating, trend, rivals (sent to you only)"),
        places=EVERY_CHAT | {Place.TERMINAL},
        discord=OnDiscord(
            p_("Discord command", "me"),
            _("Your own record in this channel: rating, trend, rivals"),
        ),
    ),
    CommandSpec(
        "hint",
        _("a suggestion for your move (private chat)"),
        who=Who.PRIVATE,
        places=frozenset({Place.TELEGRAM, Place.TERMINAL}),  # Discord has no private practice chats
    ),
    CommandSpec(
        "help",
        _("how to play and all commands"),
        in_help=False,
        lists_commands=True,
        discord=OnDiscord(
            p_("Discord command", "help"),
            _("How to play with this bot"),
        ),
    ),
)

_BY_NAME = {name: spec for spec in COMMANDS for name in spec.names}


def command_named(name: str) -> CommandSpec | None:
    """The command typed as ``name`` (any case, its name or an alias), None if there is none."""
    return _BY_NAME.get(name.lower())


def offered_in(place: Place) -> tuple[CommandSpec, ...]:
    """The commands ``place`` offers, in the table's order."""
    return tuple(spec for spec in COMMANDS if place in spec.places)


def spelled(name: str, platform: str, option: str = "", value: str = "") -> str:
    """A command, with at most one option, as a reply names it to the people of ``platform``: typed on
    Telegram and in the terminal (``/newgame``, ``/stats season=1``), a subcommand of ``/durak`` whose option
    is filled in on Discord (``/durak new``, ``/durak stats season:1``, Discord's own way of showing it)."""
    spec = _BY_NAME[name]
    if platform == Place.DISCORD.value and spec.discord is not None:
        command, separator = f"/durak {spec.discord.name}", ":"
    else:
        command, separator = f"/{spec.name}", "="
    return f"{command} {option}{separator}{value}" if option else command


def names_with(who: Who) -> tuple[str, ...]:
    """Every name (aliases too) of the commands used by ``who``."""
    return tuple(name for spec in COMMANDS if spec.who is who for name in spec.names)
