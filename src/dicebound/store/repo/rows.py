"""Rows as the repository reads and writes them: a record read back (its ask, its cards
whole), and a record's and a ruleset version's values as the statements take them."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from dicebound.store.models import RawJson, dumps
from dicebound.store.repo.values import (
    SHEET_KEY,
    Game,
    NewCheck,
    NewFightStep,
    NewRecord,
    Record,
    RulesetVersion,
)


def stored_ask(text: str) -> str:
    """The tag as the model wrote it. Kept as a JSON string; a record written before
    that (the tag as plain text, which always opens with "[") reads as it is."""
    if text.startswith('"'):
        ask: str = json.loads(text)
        return ask
    return text


def with_ask(row: Any) -> dict[str, Any]:
    values = dict(row._mapping)
    values["ask"] = stored_ask(values["ask"])
    return values


def record_of(row: Any) -> Record:
    return Record(**with_ask(row))


def snapshot_cards(record: Record) -> list[dict[str, Any]]:
    """The cards a record's snapshot holds: the roller's, or the party's."""
    sheet = record.sheet
    if record.kind in ("sheet", "fight"):
        party = sheet.get("party") if isinstance(sheet, dict) else None
        return [card for card in party if isinstance(card, dict)] if isinstance(party, list) else []
    return [sheet] if isinstance(sheet, dict) else []


def whole_card(card: Any, bodies: Mapping[str, Any]) -> Any:
    """A card as the record's snapshot stood: its sheet in place of its digest, in the
    same place (a digest the game does not keep is left as it is, and the card reads
    as one without a sheet)."""
    digest = card.get(SHEET_KEY) if isinstance(card, dict) else None
    if not isinstance(digest, str) or digest not in bodies:
        return card
    return {
        ("sheet" if key == SHEET_KEY else key): (bodies[value] if key == SHEET_KEY else value)
        for key, value in card.items()
    }


def pg_record_params(
    game: Game,
    created: str,
    rows: Sequence[Sequence[str | None]],
    tallies: Mapping[tuple[str, str], int],
) -> dict[str, Any]:
    """The parameters of PostgreSQL's one statement for a text's records and tallies."""
    return {
        "game_id": game.id,
        "created": created,
        "ruleset_id": game.ruleset_id,
        "ruleset_version": game.ruleset_version,
        "layers": dumps(list(game.layers)),
        "rows": dumps(rows),
        "tallies": dumps([[w, k, n] for (w, k), n in tallies.items()]),
    }


def record_texts(record: NewRecord) -> list[str | None]:
    """One record's own columns (``PER_ROW``), as the texts stored: its JSON written."""
    if isinstance(record, NewCheck):
        faces = dumps(list(record.faces)) if record.faces else None
        return [
            "check",
            record.who,
            dumps(record.ask),
            dumps(record.result),
            record.seed,
            faces,
            record.choose,
            record.sheet,
        ]
    if isinstance(record, NewFightStep):
        faces = dumps(list(record.faces)) if record.faces is not None else None
        kept = f'{{"fight":{record.fight},"party":[{",".join(record.party)}]}}'
        result = dumps(record.result)
        return ["fight", record.who, dumps(record.ask), result, record.seed, faces, None, kept]
    sheet = f'{{"number":{int(record.number)},"party":[{",".join(record.party)}]}}'
    result = record.result if isinstance(record.result, RawJson) else dumps(record.result)
    return ["sheet", record.who, dumps(record.ask), result, None, None, None, sheet]


def ruleset_values(version: RulesetVersion) -> dict[str, object]:
    return {
        "id": version.id,
        "version": version.version,
        "name": version.name,
        "kind": version.kind,
        "packaged": version.packaged,
        "digest": version.digest,
        "content": version.content,
        "created": version.created,
    }
