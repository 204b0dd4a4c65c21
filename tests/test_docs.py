"""The docs keep up with the code: every `/newgame` word is documented, and every rules citation resolves.

Code and tests cite docs/rules.md by point ("rules.md §4.6"); a citation of a point that does not exist, or
of a rules file that is not in the repository, would send a reader nowhere.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from core.settings import accepted_words

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
CITED_IN = ("core", "storage", "bot", "adapters", "tests", "bench", "docs")
CITATION = re.compile(r"rules\.md[^\n]{0,40}?§")
POINT = re.compile(r"§(\d+(?:\.\d+)?)")


def words_and_keys() -> tuple[list[str], list[str]]:
    """The bare words (``teams``) and the keys of the ``key=value`` words (``deck``) `/newgame` accepts."""
    entries = accepted_words().split(", ")
    return [e for e in entries if "=" not in e], [e.split("=")[0] for e in entries if "=" in e]


def section(text: str, heading: str) -> str:
    """The text under a markdown ``## heading`` up to the next heading of that level."""
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end >= 0 else len(text)]


def missing_words(text: str) -> list[str]:
    bare, keys = words_and_keys()
    return [f"`{w}`" for w in bare if f"`{w}`" not in text] + [f"`{k}=" for k in keys if f"`{k}=" not in text]


def rules_points() -> set[str]:
    """Every section ("4") and point ("4.6") that docs/rules.md defines."""
    text = RULES.read_text(encoding="utf-8")
    sections = re.findall(r"^## (\d+)\. ", text, re.MULTILINE)
    points = re.findall(r"^- \*\*(\d+\.\d+)[ *]", text, re.MULTILINE)
    return {*sections, *points}


def test_the_readme_words_table_lists_every_word() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert missing_words(section(readme, "## The `/newgame` words")) == []


def test_the_rules_list_every_word() -> None:
    rules = RULES.read_text(encoding="utf-8")
    assert missing_words(section(rules, "## 11. The words")) == []


def test_every_rules_citation_names_a_point_that_exists() -> None:
    defined = rules_points()
    assert {"1", "1.1", "4.6", "11"} <= defined  # the parser reads the page's numbering
    cited: list[tuple[str, str]] = []
    files = [p for folder in CITED_IN for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".md")]
    for path in [*files, ROOT / "README.md", ROOT / "CONTRIBUTING.md"]:
        if not path.exists():
            continue
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if path == RULES or CITATION.search(text):
                cited += [(f"{path.relative_to(ROOT)}:{number}", point) for point in POINT.findall(text)]
    assert len(cited) > 20
    assert [(where, point) for where, point in cited if point not in defined] == []


def test_nothing_cites_a_rules_file_outside_the_repository() -> None:
    files = [p for folder in CITED_IN for p in (ROOT / folder).rglob("*.py") if p != Path(__file__).resolve()]
    citing = [str(p.relative_to(ROOT)) for p in files if "RULES.md" in p.read_text(encoding="utf-8")]
    assert citing == []


def readme_commands() -> list[str]:
    """The lines of the README's first ``sh`` block: the commands a new user pastes."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```sh\n", 1)[1].split("\n```", 1)[0]
    return block.splitlines()


def test_the_readme_starts_with_two_commands_that_make_their_own_virtual_environment() -> None:
    """A distribution's Python refuses installs outside a virtual environment (PEP 668): each line makes one."""
    play, tests = readme_commands()
    for command in (play, tests):
        assert command.startswith("python3 -m venv .venv && .venv/bin/pip install -e "), command
        assert "#" not in command, "a line a person pastes as it is"
    assert play.endswith(" && .venv/bin/durak-bot play")
    assert '.venv/bin/pip install -e ".[test]" && .venv/bin/python -m pytest' in tests


def test_ci_runs_the_readmes_test_command_in_a_new_environment() -> None:
    """CI reads the README's second line and runs it with `.venv` made anew, then its lint and type checks
    from that environment."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    function = re.search(r"^readme_test_command\(\) \{$.*?^\}$", ci, re.MULTILINE | re.DOTALL)
    assert function is not None
    found = subprocess.run(
        ["bash", "-c", f"{function.group(0)}\nreadme_test_command"], cwd=ROOT, capture_output=True, text=True
    )
    assert found.stdout.strip() == readme_commands()[1]
    assert 'bash -c "${command//.venv/$venv}"' in ci
    assert 'rm -rf "$venv"' in ci
    for check in ("ruff check", "ruff format --check", "mypy --strict"):
        assert f'"$venv/bin/python" -m {check}' in ci
