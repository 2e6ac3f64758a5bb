"""The repository's writes of a text's records, on SQLite and PostgreSQL: one statement
for them all, and ids that grow in the order the records were given (text order),
each id the one of its own row, every text read back as it was written; and the events
a commit hands this process's listeners, as the table keeps them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import text
from sqlalchemy.exc import StatementError

from dicebound.store import Store, open_store
from dicebound.store.db import fault_of
from dicebound.store.models import dumps
from dicebound.store.repo import (
    Game,
    NewCheck,
    NewSheetCommand,
    Repo,
    sheet_digest,
    snapshot_head,
)
from dicebound.values import replace

GAME = Game("g1", "A game", "ruleset", 3, ["core", "grit"], "0" * 64)
NOW = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    opened = open_store(store_url)
    try:
        with opened.write() as session:
            Repo(session).add_game(GAME, NOW)
        yield opened
    finally:
        opened.close()


def _who(i: int) -> str:
    """A name as a table writes them: accents, quotes, a backslash, past the BMP."""
    return f'Zoë "{i}" \\ \U0001f409'


def _check(i: int) -> NewCheck:
    return NewCheck(
        who=_who(i),
        ask=f'[skill_check: skill="S{i}" note="Zoë \U0001f409"]',
        result={"tag": i, "outcome": "success"},
        seed=f"seed-{i}",
        faces=[i % 6 + 1, 2] if i % 2 == 0 else None,
        choose="fail" if i % 4 == 3 else None,
        sheet=dumps({"name": _who(i), "live": {}}),
    )


def _command(i: int) -> NewSheetCommand:
    return NewSheetCommand(
        who=_who(i),
        ask=f'[sheet: op="spend" pool="P{i}" amount="1"]',
        result={"tag": i, "ok": True, "changes": []},
        number=i + 1,
        party=[dumps({"name": _who(i)}), '{"name":"other"}'],
    )


def _text(count: int) -> list[NewCheck | NewSheetCommand]:
    """Checks and commands interleaved as a text writes them: every third a check."""
    return [_check(i) if i % 3 == 0 else _command(i) for i in range(count)]


@pytest.mark.parametrize("count", [1, 2, 45, 3000], ids=lambda n: f"{n} records")
def test_records_of_one_text_get_ids_growing_in_text_order(store: Store, count: int) -> None:
    """Each id given back is the row of the record at its place: read by its id, it
    holds that record's own ask, kind, result and sheet; ids grow in text order, also
    past the rows one statement takes on SQLite (3000: one statement per 1000 there)."""
    records = _text(count)
    with store.write() as session:
        ids = [w.id for w in Repo(session).add_records(GAME, NOW, records)]
    assert len(ids) == count and ids == sorted(set(ids))
    with store.read() as session:
        repo = Repo(session)
        for record_id, given in zip(ids, records, strict=True):
            row = repo.record(GAME.id, record_id)
            assert row is not None
            assert (row.ask, row.who, row.result) == (given.ask, given.who, given.result)
            if isinstance(given, NewCheck):
                assert row.kind == "check"
                assert (row.seed, row.choose) == (given.seed, given.choose)
                assert row.faces == (list(given.faces) if given.faces else None)
                assert row.sheet == {"name": given.who, "live": {}}
            else:
                assert row.kind == "sheet"
                assert (row.seed, row.faces, row.choose) == (None, None, None)
                assert row.sheet == {
                    "number": given.number,
                    "party": [{"name": given.who}, {"name": "other"}],
                }
            assert (row.ruleset_id, row.ruleset_version, row.layers) == ("ruleset", 3, GAME.layers)
            assert (row.created, row.answer, row.answer_sheet) == (NOW, None, None)


def test_records_keep_the_json_texts_given_byte_for_byte(store: Store) -> None:
    """The JSON columns hold the very texts written (``dumps``, and a sheet as spliced),
    the same bytes on both stores, never parsed and written again."""
    records = _text(6)
    with store.write() as session:
        ids = [w.id for w in Repo(session).add_records(GAME, NOW, records)]
    query = text("SELECT ask, result, faces, layers, sheet FROM records WHERE id = :id")
    with store.read() as session:
        for record_id, given in zip(ids, records, strict=True):
            stored = session.execute(query, {"id": record_id}).one()
            faces = given.faces if isinstance(given, NewCheck) else None
            want_sheet = (
                given.sheet
                if isinstance(given, NewCheck)
                else f'{{"number":{given.number},"party":[{",".join(given.party)}]}}'
            )
            assert tuple(stored) == (
                dumps(given.ask),
                dumps(given.result),
                dumps(faces) if faces else None,
                '["core","grit"]',
                want_sheet,
            )


# sheets as a store may hold them: spaced as an old writer wrote them, a text with
# quotes, accents, a NUL escape and past the BMP, a key named as a card's digest, none
SHEETS = (
    '{"v": 1, "build": {"fields": {"level": 3}}}',
    dumps({"v": 1, "build": {"text": {"note": 'Zo\u00eb "the" \\ \x00 \U0001f409'}}}),
    dumps({"sheet_digest": "not a card's", "sheet": [1.5, None, True]}),
    "null",
)


def _card(name: str, sheet: str, live: object) -> str:
    return f"{snapshot_head(name, sheet)}{dumps(live)}}}"


def _file(name: str, sheet: str, live: object) -> dict[str, object]:
    """The character file the card stood for (``app.loaded.character_file``)."""
    whole: dict[str, object] = {"name": name}
    if sheet != "null":
        whole["sheet"] = json.loads(sheet)
    return {**whole, "live": live}


def test_a_snapshot_names_its_sheet_by_digest_and_reads_back_whole(store: Store) -> None:
    """A card as a record keeps it names the member's sheet, kept once when the member
    was put, by its digest; the record reads back with each card whole, the sheet in its
    place (a check's roller, and the cards of a sheet command's party). A live state
    with a text named as the digest's key is only a live state."""
    live = {"text": {"sheet_digest": "x"}, "pools": {"hp": {"value": 3}}}
    names = [_who(i) for i in range(len(SHEETS))]
    with store.write() as session:
        repo = Repo(session)
        for name, sheet in zip(names, SHEETS, strict=True):
            repo.add_member(GAME.id, name, sheet, "{}", NOW)
        records: list[NewCheck | NewSheetCommand] = [
            replace(_check(0), who=name, sheet=_card(name, sheet, live))
            for name, sheet in zip(names, SHEETS, strict=True)
        ]
        party = [_card(name, sheet, live) for name, sheet in zip(names, SHEETS, strict=True)]
        records.append(replace(_command(1), party=[*party, dumps({"name": "other"})]))
        ids = [w.id for w in repo.add_records(GAME, NOW, records)]
    query = text("SELECT sheet FROM records WHERE id = :id")
    with store.read() as session:
        repo = Repo(session)
        stored = session.execute(query, {"id": ids[0]}).scalar_one()
        digest = sheet_digest(SHEETS[0])
        assert (
            stored == f'{{"name":{dumps(names[0])},"sheet_digest":"{digest}","live":{dumps(live)}}}'
        )
        for record_id, name, sheet in zip(ids, names, SHEETS, strict=False):
            row = repo.record(GAME.id, record_id)
            assert row is not None and row.sheet == _file(name, sheet, live)
            assert list(row.sheet) == list(_file(name, sheet, live))  # the keys' order too
        row = repo.record(GAME.id, ids[-1])
        assert row is not None
        wholes = [_file(n, s, live) for n, s in zip(names, SHEETS, strict=True)]
        assert row.sheet == {"number": 2, "party": [*wholes, {"name": "other"}]}


def test_a_sheet_is_kept_once_a_game_whatever_its_members_and_puts(store: Store) -> None:
    """Two members on one sheet, and a member put again on it, keep one text; a member
    put on another sheet keeps that one beside it (records name the first still)."""
    with store.write() as session:
        repo = Repo(session)
        repo.add_member(GAME.id, "A", SHEETS[0], "{}", NOW)
        repo.add_member(GAME.id, "B", SHEETS[0], "{}", NOW)
        repo.put_member(GAME.id, "A", SHEETS[0], "{}", 2, NOW)
        repo.put_member(GAME.id, "B", SHEETS[1], "{}", 2, NOW)
        repo.add_member(GAME.id, "C", "null", "{}", NOW)
    query = text("SELECT digest, body FROM sheet_texts WHERE game_id = :g ORDER BY body")
    with store.read() as session:
        kept = [tuple(row) for row in session.execute(query, {"g": GAME.id})]
    assert kept == sorted(((sheet_digest(s), s) for s in SHEETS[:2]), key=lambda r: r[1])


def test_a_snapshot_naming_a_sheet_the_game_does_not_keep_reads_as_written(
    store: Store,
) -> None:
    """A digest the game does not keep (a store changed by hand) is left as it is: the
    card reads as one without a sheet, and its record's replay will not match."""
    card = _card("Mira", SHEETS[0], {})
    with store.write() as session:
        ((record_id, _),) = Repo(session).add_records(GAME, NOW, [replace(_check(0), sheet=card)])
    with store.read() as session:
        row = Repo(session).record(GAME.id, record_id)
    assert row is not None and row.sheet == json.loads(card)


def test_a_later_text_s_records_come_after_an_earlier_one_s(store: Store) -> None:
    """Ids grow across texts too: the history reads newest first by id."""
    with store.write() as session:
        first = Repo(session).add_records(GAME, NOW, _text(10))
    with store.write() as session:
        second = Repo(session).add_records(GAME, NOW, _text(10))
    assert max(first) < min(second)


def test_a_text_with_nothing_to_record_writes_nothing(store: Store) -> None:
    """No records given: no statement, no ids (a text whose every tag failed)."""
    with store.write() as session:
        assert Repo(session).add_records(GAME, NOW, []) == []
    with store.read() as session:
        assert Repo(session).records(GAME.id, None, 10) == []


def test_set_lives_writes_each_member_s_live_state_and_revision(store: Store) -> None:
    """Several members' live states in one call: each its own text and revision; a
    member not named keeps what it had; none named changes nothing."""
    with store.write() as session:
        repo = Repo(session)
        for name in ("Mira", "Tam the Bold", "Zoë"):
            repo.add_member(GAME.id, name, "null", "{}", NOW)
    with store.write() as session:
        repo = Repo(session)
        repo.set_lives(GAME.id, [], NOW)
        lives = [("Mira", '{"tracks":{"x":1}}', 2), ("Zoë", '{"text":{"n":"\\u00e9"}}', 5)]
        repo.set_lives(GAME.id, lives, NOW)
    with store.read() as session:
        members = {m.name: (m.live, m.revision) for m in Repo(session).members(GAME.id)}
    assert members == {
        "Mira": ('{"tracks":{"x":1}}', 2),
        "Tam the Bold": ("{}", 1),
        "Zoë": ('{"text":{"n":"\\u00e9"}}', 5),
    }


def test_a_nul_in_a_name_is_kept_by_sqlite_and_refused_whole_by_postgresql(
    store: Store,
) -> None:
    """A name written with a NUL (a command naming nobody of the party): SQLite keeps it
    as written; PostgreSQL text cannot hold it, and the statement is refused as a value
    the store cannot keep (the edges' 422), none of the text's records written."""
    records: list[NewCheck | NewSheetCommand] = [_check(0), _command(1)]
    records[1] = replace(records[1], who="no\x00body")
    if store.dialect == "sqlite":
        with store.write() as session:
            ids = [w.id for w in Repo(session).add_records(GAME, NOW, records)]
        with store.read() as session:
            row = Repo(session).record(GAME.id, ids[1])
        assert row is not None and row.who == "no\x00body"
        return
    with pytest.raises(StatementError) as refused, store.write() as session:
        Repo(session).add_records(GAME, NOW, records)
    assert fault_of(refused.value) == "refused"
    with store.read() as session:
        assert Repo(session).records(GAME.id, None, 10) == []


def _told(store: Store) -> list[tuple[str, int | None, list[tuple[int, str, str]]]]:
    """What the store's listeners of this process are told, from now on."""
    told: list[tuple[str, int | None, list[tuple[int, str, str]]]] = []
    store.on_events(
        lambda game, last, events: told.append(
            (game, last, [(e.id, e.kind, e.payload) for e in events])
        )
    )
    return told


def _kept_events(store: Store) -> list[tuple[int, str, str]]:
    with store.read() as session:
        return [(e.id, e.kind, e.payload) for e in Repo(session).events_after(GAME.id, 0, 5000)]


@pytest.mark.parametrize("keep", [1000, 3], ids=["in one statement", "more than kept"])
def test_listeners_are_handed_the_events_written_as_the_store_keeps_them(
    store: Store, keep: int
) -> None:
    """After each commit, this process's listeners get the events it wrote, with the
    ids and texts the table holds (a text's records' events, with their ids spliced,
    and the events after them, in one telling), so that its streams need not read them
    back; nothing for a transaction that rolls back; none with a bare announcement.
    Also when the events alone are more than the game keeps (the long way)."""
    told = _told(store)
    with store.write() as session:
        Repo(session).add_events(GAME.id, [("character", '{"name":"Zoë \\u00e9"}')], NOW, keep)
    records = _text(4)
    tails = [f',"n":{i},"who":{dumps(r.who)}}}' for i, r in enumerate(records)]
    after = [("character", dumps({"name": _who(7)}))]
    with store.write() as session:
        made = Repo(session).write_text(GAME, NOW, [], records, tails, after, keep)
        ids = [w.id for w in made]
    with store.write() as session:
        Repo(session).write_text(GAME, NOW, [], _text(2), ["}", "}"], [], keep)
    with pytest.raises(RuntimeError), store.write() as session:
        Repo(session).add_events(GAME.id, [("record", "{}")], NOW, keep)
        raise RuntimeError("refused")
    with store.write() as session:
        Repo(session).announce(GAME.id, None)

    written = [event for _, _, events in told for event in events]
    assert [(game, last) for game, last, _ in told] == [
        (GAME.id, 1),
        (GAME.id, 6),
        (GAME.id, 8),
        (GAME.id, None),
    ]
    assert [e[0] for e in written] == list(range(1, 9))
    assert written[1] == (2, "record", f'{{"id":{ids[0]},"number":1{tails[0]}')
    assert written[-len(_kept_events(store)) :] == _kept_events(store)


@pytest.mark.parametrize("keep", [1000, 3], ids=["in one statement", "more than kept"])
def test_a_text_s_lives_records_and_events_are_written_together(store: Store, keep: int) -> None:
    """``write_text``: the live states it changed, its records with their tallies, each
    record's event and then the events after them, numbered on from the game's newest,
    the game keeping its newest ``keep``; a member not named keeps its live state."""
    with store.write() as session:
        repo = Repo(session)
        for name in ("Mira", "Tam"):
            repo.add_member(GAME.id, name, "null", "{}", NOW)
        repo.add_events(GAME.id, [("seat", "{}")], NOW, keep)
    records = _text(3)
    tails = [f',"n":{i}}}' for i in range(3)]
    after = [("character", '{"name":"Mira"}')]
    with store.write() as session:
        lives = [("Mira", '{"tracks":{"x":1}}', 2)]
        made = Repo(session).write_text(GAME, NOW, lives, records, tails, after, keep)
        ids = [w.id for w in made]
    with store.read() as session:
        repo = Repo(session)
        members, counts, fight = repo.party(GAME.id)
    assert fight is None  # the game never fought
    assert [(m.name, m.live, m.revision) for m in members] == [
        ("Mira", '{"tracks":{"x":1}}', 2),
        ("Tam", "{}", 1),
    ]
    assert counts == {(r.who, "check" if isinstance(r, NewCheck) else "sheet"): 1 for r in records}
    written = [
        (2, "record", f'{{"id":{ids[0]},"number":1,"n":0}}'),
        (3, "record", f'{{"id":{ids[1]},"number":2,"n":1}}'),
        (4, "record", f'{{"id":{ids[2]},"number":3,"n":2}}'),
        (5, "character", '{"name":"Mira"}'),
    ]
    assert _kept_events(store) == [(1, "seat", "{}"), *written][-keep:]


OTHER = Game("g2", "Another game", "ruleset", 3, [], "1" * 64)


def test_each_game_numbers_its_records_from_one_in_the_order_written(store: Store) -> None:
    """A record's number counts its own game's records, from 1, in the order written
    (its id is the store's): texts of two games interleaved each read 1, 2, 3 ...;
    the record and the history's page carry it."""
    with store.write() as session:
        Repo(session).add_game(OTHER, NOW)
    made: dict[str, list[tuple[int, int]]] = {GAME.id: [], OTHER.id: []}
    for count, game in ((3, GAME), (2, OTHER), (130, GAME), (1, OTHER), (1, GAME)):
        with store.write() as session:
            made[game.id] += Repo(session).add_records(game, NOW, _text(count))
    assert [n for _, n in made[GAME.id]] == list(range(1, 135))
    assert [n for _, n in made[OTHER.id]] == [1, 2, 3]
    assert made[OTHER.id][0][0] > made[GAME.id][2][0]  # the other's #1 has a later id
    with store.read() as session:
        repo = Repo(session)
        for game in (GAME, OTHER):
            page = repo.records(game.id, None, 200)
            assert [(r.id, r.number) for r in page] == made[game.id][::-1]
            record_id, number = made[game.id][-1]
            row = repo.record(game.id, record_id)
            assert row is not None and row.number == number


def test_a_number_is_never_given_again_once_its_record_is_gone(store: Store) -> None:
    """The game keeps the last number it gave: a record deleted (a refused one pruned)
    leaves the others' numbers as they are, and the next text numbers on after the
    last ever given, not after those left."""
    with store.write() as session:
        first = Repo(session).add_records(GAME, NOW, _text(3))
    with store.write() as session:
        session.execute(text("DELETE FROM records WHERE id = :i"), {"i": first[-1].id})
    with store.write() as session:
        later = Repo(session).add_records(GAME, NOW, _text(2))
    assert [n for _, n in later] == [4, 5]
    with store.read() as session:
        numbers = [r.number for r in Repo(session).records(GAME.id, None, 10)]
    assert numbers == [5, 4, 2, 1]


def test_two_records_of_a_game_cannot_share_a_number(store: Store) -> None:
    """The store itself refuses a second record of a game under a number it holds."""
    with store.write() as session:
        (made,) = Repo(session).add_records(GAME, NOW, _text(1))
    with store.write() as session:
        session.execute(text("UPDATE games SET records_numbered = 0"))
    with pytest.raises(StatementError), store.write() as session:
        Repo(session).add_records(GAME, NOW, _text(1))
    with store.read() as session:
        assert [(r.id, r.number) for r in Repo(session).records(GAME.id, None, 10)] == [made]


def test_a_game_keeps_one_fight_its_revision_raised_on_each_write(store: Store) -> None:
    """One fight per game (migration 0011): written again, it is replaced and its
    revision goes up by one; the party's one statement reads it too, and a game with no
    member still reads it on its own."""
    with store.write() as session:
        repo = Repo(session)
        assert repo.fight(GAME.id) is None
        assert repo.put_fight(GAME.id, {"id": "f1", "turn": 0}, NOW) == 1
        assert repo.party(GAME.id) == ([], {}, ({"id": "f1", "turn": 0}, 1))
        assert repo.put_fight(GAME.id, {"id": "f1", "turn": 1}, NOW) == 2
        repo.add_member(GAME.id, "Mira", "null", "{}", NOW)
    with store.read() as session:
        repo = Repo(session)
        assert repo.fight(GAME.id) == ({"id": "f1", "turn": 1}, 2)
        assert repo.party(GAME.id)[2] == ({"id": "f1", "turn": 1}, 2)
        assert repo.fight(OTHER.id) is None
