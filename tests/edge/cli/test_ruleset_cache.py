"""The on-disk cache of compiled rulesets: a ruleset read back from it is the ruleset
compiled, and the cache can make a read slower, never wrong or failing. Every test
points ``DICEBOUND_CACHE_DIR`` at a folder of its own."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from dicebound import check_odds
from dicebound.compiler import load_ruleset_text
from dicebound.edge import ruleset_cache
from dicebound.edge.files import (
    packaged_characters,
    packaged_rulesets,
    read_character,
    read_ruleset,
    ruleset_text,
)
from dicebound.errors import RulesetInvalid
from dicebound.ruleset.model import Ruleset
from dicebound.tagpass import resolve_text

FIVE_E_TAG = 'skill="Stealth" dc="15" mode="advantage"'


class CountingCompiler:
    """The real compiler, counting how often the cache had to call it."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, text: str, capability_api: str | None) -> Ruleset:
        self.calls += 1
        return load_ruleset_text(text, capability_api=capability_api)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(ruleset_cache.ENV_DIR, str(folder))
    monkeypatch.delenv(ruleset_cache.ENV_OFF, raising=False)
    return folder


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.ruleset.pickle")) if folder.is_dir() else []


def test_a_second_read_comes_from_the_cache_and_equals_the_compiled_ruleset(cache: Path) -> None:
    text, _ = ruleset_text("dnd5e-srd")
    compiler = CountingCompiler()
    first = ruleset_cache.cached_ruleset(text, None, compiler)
    second = ruleset_cache.cached_ruleset(text, None, compiler)
    assert compiler.calls == 1
    assert len(_entries(cache)) == 1
    assert second == first == load_ruleset_text(text)
    assert second is not first  # read back, not the same object
    # the folder is its user's alone: an entry is a pickle
    assert stat.S_IMODE(cache.stat().st_mode) & 0o077 == 0


@pytest.mark.parametrize("ruleset_id", packaged_rulesets())
def test_every_packaged_ruleset_plays_and_answers_the_same_from_the_cache(
    ruleset_id: str, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled = read_ruleset(ruleset_id)  # compiled, and its entry written
    cached = read_ruleset(ruleset_id)  # read back
    assert len(_entries(cache)) == 1
    assert cached == compiled
    monkeypatch.setenv(ruleset_cache.ENV_OFF, "1")
    fresh = read_ruleset(ruleset_id)
    for name in packaged_characters(ruleset_id):
        party = [read_character(fresh, name)]
        for skill in fresh.sheet.skills[:3]:
            text = f'[skill_check: skill="{skill.label}"] [skill_check: skill="{skill.id}"]'
            plays = [resolve_text(r, party, text, seed="7").text for r in (cached, fresh)]
            assert plays[0] == plays[1]


def test_odds_from_a_cached_ruleset_equal_those_of_a_compiled_one(cache: Path) -> None:
    compiled = read_ruleset("dnd5e-srd")
    cached = read_ruleset("dnd5e-srd")
    mira = read_character(cached, "mira")
    assert check_odds(cached, mira, FIVE_E_TAG) == check_odds(compiled, mira, FIVE_E_TAG)


def test_an_entry_written_for_another_text_version_or_api_is_not_used(cache: Path) -> None:
    text, _ = ruleset_text("dnd5e-srd")
    other, _ = ruleset_text("fate-core")
    compiler = CountingCompiler()
    ruleset_cache.cached_ruleset(other, None, compiler)
    # the entry of another text, put where this text's entry would be (a hash collision)
    stamp = ruleset_cache._stamp(text, None)
    (entry,) = _entries(cache)
    entry.rename(cache / (ruleset_cache._key(stamp) + ruleset_cache._SUFFIX))
    read = ruleset_cache.cached_ruleset(text, None, compiler)
    assert compiler.calls == 2 and read.id == "dnd5e-srd"
    # another Capability API version is another entry
    ruleset_cache.cached_ruleset(text, "1.45", compiler)
    assert compiler.calls == 3
    assert len(_entries(cache)) == 2


@pytest.mark.parametrize(
    "damage",
    [b"", b"not a pickle", b"\x80\x05garbage", None],
    ids=["empty", "text", "truncated pickle", "half an entry"],
)
def test_a_damaged_entry_is_compiled_again_and_rewritten(cache: Path, damage: bytes | None) -> None:
    text, _ = ruleset_text("blades")
    compiler = CountingCompiler()
    ruleset_cache.cached_ruleset(text, None, compiler)
    (entry,) = _entries(cache)
    whole = entry.read_bytes()
    entry.write_bytes(whole[: len(whole) // 2] if damage is None else damage)
    assert ruleset_cache.cached_ruleset(text, None, compiler) == load_ruleset_text(text)
    assert compiler.calls == 2
    assert entry.read_bytes() == whole
    assert ruleset_cache.cached_ruleset(text, None, compiler).id == "blades"
    assert compiler.calls == 2


def test_a_folder_that_cannot_be_written_is_no_error(cache: Path) -> None:
    cache.write_text("a file where the folder would be")
    text, _ = ruleset_text("fate-core")
    compiler = CountingCompiler()
    assert ruleset_cache.cached_ruleset(text, None, compiler).id == "fate-core"
    assert ruleset_cache.cached_ruleset(text, None, compiler).id == "fate-core"
    assert compiler.calls == 2
    assert not list(cache.parent.glob(".*.tmp"))


def test_switched_off_the_cache_writes_nothing(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ruleset_cache.ENV_OFF, "1")
    assert ruleset_cache.cache_dir() is None
    read_ruleset("genesys")
    assert not cache.exists()
    monkeypatch.setenv(ruleset_cache.ENV_OFF, "0")  # "0" and "" leave it on
    assert ruleset_cache.cache_dir() == str(cache)


def test_a_ruleset_with_problems_is_refused_and_never_kept(cache: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"id": "broken", "resolution": {"kind": "nothing-like-it"}}')
    for _ in range(2):
        with pytest.raises(RulesetInvalid):
            read_ruleset(str(broken))
    assert _entries(cache) == []


@pytest.mark.skipif(os.name == "nt", reason="Windows keeps the cache under %LOCALAPPDATA%")
def test_the_default_folder_follows_the_platform(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(ruleset_cache.ENV_DIR, raising=False)
    monkeypatch.delenv(ruleset_cache.ENV_OFF, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert ruleset_cache.cache_dir() == str(tmp_path / "dicebound")
