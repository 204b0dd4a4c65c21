"""The examples in core's docstrings run as written (a game in five lines, `new_game`, `legal_actions`,
`apply`, `view`), so the first thing a researcher reads is known to work."""

from __future__ import annotations

import doctest
from typing import Any

import pytest

import core
from core import Game, new_game

WITH_EXAMPLES = [core, new_game, Game.legal_actions, Game.apply, Game.view]


@pytest.mark.parametrize("documented", WITH_EXAMPLES, ids=lambda documented: documented.__name__)
def test_the_docstring_examples_run_as_written(documented: Any) -> None:
    (examples,) = doctest.DocTestFinder(recurse=False).find(documented, globs={})
    assert examples.examples, "it has examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(examples)
    assert runner.failures == 0, f"{runner.failures} of {runner.tries} examples failed: see the output above"
