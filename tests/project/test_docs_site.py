"""The documentation site: generated pages up to date, every page in the nav, every
public name documented. (``mkdocs build --strict`` itself runs in .ci/run.)"""

from __future__ import annotations

import importlib.util
import re
from types import ModuleType

import dicebound
from dicebound.edge.files import packaged_rulesets
from repo_paths import REPO

ROOT = REPO


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "gen_ruleset_pages", ROOT / "scripts" / "gen_ruleset_pages.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _nav_pages() -> list[str]:
    # mkdocs.yml's nav, read without a YAML parser: every "...: page.md" or "- page.md".
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = text[text.index("\nnav:") :]
    return re.findall(r"(?:: |- )([\w./-]+\.md)\s*$", nav, flags=re.MULTILINE)


def test_each_packaged_rulesets_page_is_what_the_generator_writes_now() -> None:
    # The pages hold `dicebound gm` and `dicebound report` output: a change in the engine
    # that moves an odd or a taught line fails here until the pages are regenerated.
    pages = _generator().every_page()
    assert sorted(p.stem for p in pages) == sorted(packaged_rulesets())
    for path, text in pages.items():
        assert path.is_file(), f"{path} is missing: run scripts/gen_ruleset_pages.py"
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.relative_to(ROOT)} is out of date: run scripts/gen_ruleset_pages.py"
        )
    on_disk = sorted(p.stem for p in (ROOT / "docs" / "rulesets").glob("*.md"))
    assert on_disk == sorted(packaged_rulesets()), "a page for a ruleset no longer packaged"


def test_every_page_is_in_the_nav_and_every_nav_entry_is_a_page() -> None:
    nav = _nav_pages()
    pages = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md"))
    assert sorted(nav) == pages
    assert len(set(nav)) == len(nav)


def test_the_rulesets_index_links_every_packaged_rulesets_page() -> None:
    text = (ROOT / "docs" / "rulesets.md").read_text(encoding="utf-8")
    for ruleset_id in packaged_rulesets():
        assert f"(rulesets/{ruleset_id}.md)" in text, ruleset_id


def test_every_public_name_has_its_entry_in_the_api_page() -> None:
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    documented = re.findall(r"^::: dicebound\.(\w+)$", text, flags=re.MULTILINE)
    assert sorted(documented) == sorted(dicebound.__all__)
