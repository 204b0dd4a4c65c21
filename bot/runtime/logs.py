"""Log set-up: plain lines by default, one JSON object per line with ``LOG_FORMAT=json``.

The service logs one line per applied input (`durak.actions`) with its fields in ``extra={"fields": ...}``:
platform, chat, game, version, action, ms. The plain format shows them as ``key=value``; the JSON format
as keys of the object, ready for a log pipeline (Loki, CloudWatch, Elastic) to filter on.

Every line passes one `RedactingFilter` on the root logger's handler first, so no token, webhook secret or
password reaches the output: not in a message, its arguments, its fields, nor an exception's traceback
(bot/runtime/redact.py says what is masked). An uncaught exception's traceback is masked the same way.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
import traceback
from types import TracebackType
from typing import IO, Any

from bot.runtime.config import BotConfig
from bot.runtime.redact import Redactor, configured_secrets

PLAIN = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": round(record.created, 3),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        data.update(getattr(record, "fields", None) or {})
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            data["exc"] = record.exc_text
        return json.dumps(data, ensure_ascii=False, default=str)


class PlainFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        fields = getattr(record, "fields", None)
        if fields:
            text += " " + " ".join(f"{key}={value}" for key, value in fields.items())
        return text


class RedactingFilter(logging.Filter):
    """Masks secrets in a record before any formatter sees it: the message with its arguments merged in,
    the exception and stack text, and the ``fields`` extra. It sits on the root logger's handler because a
    filter on the root logger itself never sees the records that propagate up from named loggers."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        redact = self.redactor
        try:
            message = record.getMessage()
        except Exception:  # arguments that do not fit the message: logging would print them in a traceback
            message = f"{record.msg} {record.args!r}"
        record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = TRACEBACKS.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            record.fields = {key: redacted_value(redact, value) for key, value in fields.items()}
        return True


TRACEBACKS = logging.Formatter()


def redacted_value(redact: Redactor, value: object) -> object:
    """Numbers and flags as they are (a JSON pipeline filters on them); anything else as masked text."""
    if value is None or isinstance(value, bool | int | float):
        return value
    return redact(value if isinstance(value, str) else str(value))


def configure(
    level: str | int, fmt: str = "plain", *, config: BotConfig | None = None, stream: IO[str] | None = None
) -> None:
    """Root logging for the bot: ``fmt`` "json" or "plain" (anything else counts as plain), to ``stream``
    (default stderr), with the secrets of ``config`` and every secret-shaped value masked."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter() if fmt.strip().lower() == "json" else PlainFormatter(PLAIN))
    redactor = Redactor(configured_secrets(config) if config is not None else ())
    handler.addFilter(RedactingFilter(redactor))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # httpx logs every request's URL at INFO: noise (the filter masks the token in it anyway)
    logging.getLogger("httpx").setLevel(max(logging.WARNING, root.level))
    mask_uncaught_tracebacks(redactor)


def keep_secret(secret: str) -> None:
    """Mask ``secret`` in the log from now on: for a secret chosen while running (a random webhook secret)."""
    for handler in logging.getLogger().handlers:
        for found in handler.filters:
            if isinstance(found, RedactingFilter):
                found.redactor.add(secret)


def mask_uncaught_tracebacks(redactor: Redactor) -> None:
    """An exception nobody caught is printed by the interpreter, not by logging: mask that traceback too."""

    def print_masked(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        sys.stderr.write(redactor("".join(traceback.format_exception(kind, error, trace))))

    def print_masked_in_thread(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is not SystemExit and args.exc_value is not None:
            print_masked(args.exc_type, args.exc_value, args.exc_traceback)

    sys.excepthook = print_masked
    threading.excepthook = print_masked_in_thread
