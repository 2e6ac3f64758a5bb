"""Ruleset files in the store: the packaged ones kept, uploads stored once per version,
a file checked without storing it, and symbol dice thrown by a stored ruleset."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from dicebound.app.access import Access, Use
from dicebound.app.errors import Conflict, Invalid, NotFound
from dicebound.app.limits import LIMITS
from dicebound.app.loaded import stored_compiled, stored_ruleset
from dicebound.app.seeds import seed_text
from dicebound.compiler import load_ruleset_text, run_to_end
from dicebound.dice import fresh_seed
from dicebound.errors import DiceboundError, RulesetInvalid
from dicebound.lesson import gm_lesson
from dicebound.packaged import data_text, packaged_rulesets
from dicebound.ruleset.model import Ruleset
from dicebound.store.repo import Repo, RulesetVersion
from dicebound.throw import roll_json
from dicebound.values import frozen
from dicebound.views import problems_with_lines

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

__all__ = [
    "PackagedFile",
    "RulesetEntry",
    "compiled_ruleset",
    "get_ruleset",
    "list_rulesets",
    "packaged_files",
    "put_ruleset",
    "roll_dice",
    "sync_packaged_rulesets",
    "try_ruleset",
]


@frozen
class RulesetEntry:
    """One stored version of a ruleset, as the list of rulesets names it."""

    id: str
    version: int
    name: str
    kind: str
    packaged: bool


def digest_of(value: object) -> str:
    """The SHA-256 of a JSON value written canonically (keys sorted, no spaces)."""
    canon = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


def _digest_text(text: str) -> str:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()
    return digest_of(raw)


def _version(ruleset: Ruleset, text: str, *, packaged: bool) -> RulesetVersion:
    """The row that keeps one version of a ruleset, as its file was given."""
    return RulesetVersion(
        id=ruleset.id,
        version=ruleset.version,
        name=ruleset.name,
        kind=ruleset.resolution.kind,
        packaged=packaged,
        digest=_digest_text(text),
        content=text,
        created=datetime.now(UTC),
    )


@frozen
class PackagedFile:
    """A packaged ruleset: its file as shipped and that file compiled."""

    text: str
    ruleset: Ruleset


@functools.cache
def packaged_files() -> tuple[PackagedFile, ...]:
    """Every packaged ruleset, read and compiled once per process: the files never
    change while it runs, and each app it makes (a test run makes thousands) would
    otherwise compile every one of them again."""
    made = []
    for ruleset_id in packaged_rulesets():
        text = data_text(f"rulesets/{ruleset_id}.json")
        made.append(PackagedFile(text, load_ruleset_text(text)))
    return tuple(made)


def sync_packaged_rulesets(session: Session) -> None:
    """Store every packaged ruleset's version that the store does not hold yet, so a
    game pinned to it keeps it even after dicebound ships a newer file. Processes that
    start together may all do it at once: a version already stored is skipped."""
    repo = Repo(session)
    stored = repo.stored_versions()
    missing = []
    for packaged in packaged_files():
        ruleset = packaged.ruleset
        if (ruleset.id, ruleset.version) not in stored:
            missing.append(_version(ruleset, packaged.text, packaged=True))
    if missing:
        repo.keep_rulesets(missing)


def list_rulesets(session: Session) -> list[RulesetEntry]:
    """Every stored version, packaged and uploaded, by id and version."""
    return [
        RulesetEntry(r.id, r.version, r.name, r.kind, r.packaged) for r in Repo(session).rulesets()
    ]


def get_ruleset(session: Session, ruleset_id: str, version: int | None) -> str:
    """The file of a ruleset's newest version, or of ``version``."""
    return stored_ruleset(Repo(session), ruleset_id, version)[2]


def compiled_ruleset(session: Session, ruleset_id: str, version: int | None) -> Ruleset:
    """A ruleset's newest version, or ``version``, compiled (``NotFound`` as
    ``get_ruleset``)."""
    return stored_compiled(Repo(session), ruleset_id, version)


def put_ruleset(session: Session, access: Access, text: str) -> tuple[dict[str, object], bool]:
    """Store an uploaded ruleset; (its id and version, made). The same id, version and
    content again is no change; other content under a stored id and version is
    refused."""
    access.require_admin(Use.UPLOAD_RULESET)
    LIMITS.check_ruleset(text)
    try:
        ruleset = load_ruleset_text(text)
    except RulesetInvalid as exc:
        raise Invalid(
            f"the ruleset was refused: {len(exc.problems)} problem(s).", exc.problems
        ) from exc
    answer: dict[str, object] = {"id": ruleset.id, "version": ruleset.version}
    # Insert first, then read what is stored: an upload racing this one for the same
    # version (through another process) is waited for, then compared like any other.
    repo = Repo(session)
    row = _version(ruleset, text, packaged=False)
    if repo.keep_rulesets([row]):
        return answer, True
    if repo.ruleset_digest(ruleset.id, ruleset.version) == row.digest:
        return answer, False
    raise Conflict(
        f'version {ruleset.version} of "{ruleset.id}" is already stored with other '
        "content, and a stored version never changes: raise the file's version."
    )


def try_ruleset(
    text: str, layers: Sequence[str] = (), *, checkpoint: Callable[[], None] = run_to_end
) -> dict[str, object]:
    """Check a ruleset file without storing it: ``validate --json`` with each problem's
    line and column (the first ``LIMITS.problems_shown``, and how many more in
    ``omitted``), and, when it is valid, what ``gm`` would teach from it. ``checkpoint``
    is called between the steps of the work and raises to abandon it."""
    LIMITS.check_ruleset(text)
    try:
        ruleset = load_ruleset_text(text, checkpoint=checkpoint)
    except RulesetInvalid as exc:
        checkpoint()
        shown = exc.problems[: LIMITS.problems_shown]
        return {
            "ok": False,
            "problems": problems_with_lines(text, shown),
            "omitted": len(exc.problems) - len(shown),
            "notes": [],
            "id": None,
            "version": None,
            "name": None,
            "gm": None,
        }
    checkpoint()
    try:
        lesson: str | None = gm_lesson(ruleset, layers=layers)
    except DiceboundError as exc:
        raise Invalid(str(exc)) from exc
    return {
        "ok": True,
        "problems": [],
        "omitted": 0,
        "notes": [f"{b}: accepted and kept, not played by dicebound" for b in ruleset.not_played],
        "id": ruleset.id,
        "version": ruleset.version,
        "name": ruleset.name,
        "gm": lesson,
    }


def usable_ruleset(repo: Repo, ruleset_id: str, version: int | None) -> Ruleset:
    """A stored ruleset a request names in its body (so one not stored is ``Invalid``,
    not ``NotFound``), compiled."""
    try:
        return stored_compiled(repo, ruleset_id, version)
    except NotFound as exc:
        raise Invalid(exc.detail) from exc


def roll_dice(
    session: Session, ruleset_id: str, version: int | None, dice: str, seed: object
) -> dict[str, Any]:
    """Throw symbol dice by name; the seed is read by the rule of every route's seed
    (``seeds.seed_text``)."""
    text_seed = seed_text(seed)
    LIMITS.check_short(dice, "dice text")
    ruleset = usable_ruleset(Repo(session), ruleset_id, version)
    try:
        return roll_json(ruleset, dice, seed=text_seed or fresh_seed())
    except DiceboundError as exc:
        raise Invalid(str(exc)) from exc
