"""The docs keep up with the code: every `/newgame` word is documented, and every rules citation resolves.

Code and tests cite docs/rules.md by point ("rules.md §4.6"); a citation of a point that does not exist, or
of a rules file that is not in the repository, would send a reader nowhere.
"""

from __future__ import annotations

import re
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


def test_ci_runs_the_readmes_test_command() -> None:
    """A fresh machine runs what the README says, and CI runs exactly that, plus its lint and type checks."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = next(line.split("#")[0].strip() for line in readme.splitlines() if "# the test suite" in line)
    assert command.endswith("python -m pytest")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert command in ci
    for check in ("ruff check", "ruff format --check", "mypy --strict"):
        assert f"python -m {check}" in ci
