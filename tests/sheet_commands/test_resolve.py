"""One pass over a text's sheet tags, rule by rule: the order of decisions for each tag,
one target against the party, storing, and the pass's outputs
(docs/design/sheet-commands.md "One pass")."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.edge.files import read_character, read_ruleset
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.sheet_commands.apply import apply_on
from dicebound.sheet_commands.current import WorkingSheet
from dicebound.sheet_commands.grammar import SheetTag, find_sheet_tags
from dicebound.sheet_commands.model import (
    Applied,
    Refused,
    SheetChange,
    SheetOutcome,
    SheetRequest,
)
from dicebound.sheet_commands.reasons import (
    AMBIGUOUS_CHARACTER,
    INSUFFICIENT,
    MALFORMED,
    TOO_MANY,
    UNKNOWN_CHARACTER,
    UNKNOWN_POOL,
    UNKNOWN_REST,
)
from dicebound.sheet_commands.resolve import (
    MAX_COMMANDS,
    SheetPass,
    apply_sheet_tag,
    resolve_sheet_text,
)
from dicebound.sheet_commands.written import read_back
from shared_files import shared_path


@functools.cache
def _marinara(name: str) -> Ruleset:
    return compile_ruleset(json.loads(shared_path("marinara", name).read_text("utf-8")))


def _fifth() -> Ruleset:
    return _marinara("ruleset-5e-2014.example.json")


def _card(ruleset: Ruleset, name: str, **fields: object) -> Character:
    return load_character(ruleset, {"name": name, "sheet": {"v": 1, "build": {"fields": fields}}})


def _caster(name: str = "Mira") -> Character:
    """Level 5, 31 hit points, two 1st-level and two 3rd-level slots."""
    return _card(
        _fifth(),
        name,
        level=5,
        hp_max=31,
        spellcasting_ability="wis",
        slots_max_1=2,
        slots_max_3=2,
    )


def _fighter(name: str = "Tam the Bold") -> Character:
    """Level 1, 12 hit points, no slots at all."""
    return _card(_fifth(), name, level=1, hp_max=12)


def _party() -> tuple[Character, ...]:
    return (_caster(), _fighter())


def _pass(
    text: str, party: Sequence[Character] | None = None, player: str | None = "Mira"
) -> SheetPass:
    return resolve_sheet_text(_fifth(), _party() if party is None else party, text, player)


def _pools(character: Character) -> dict[str, int]:
    return {key: pool.value for key, pool in character.live.pools.items()}


# ── 2.3 The order of decisions, and what each tag is rewritten to ─────────────

SPEND = 'op="spend" pool="slots_1" amount="1"'

TAGS = [
    (
        "no who is about the player card, rewritten with the card's name",
        f"[sheet: {SPEND}]",
        "Mira",
        f'[sheet: who="Mira" {SPEND} result="ok" now="1/2"]',
    ),
    (
        "who is matched by key and rewritten as the card's name: tam the bold",
        '[sheet: op="damage" pool="hp" amount="5" who="tam the bold"]',
        "Tam the Bold",
        '[sheet: who="Tam the Bold" op="damage" pool="hp" amount="5" result="ok" now="7/12"]',
    ),
    (
        "the head's spelling is replaced by lowercase [sheet: ",
        f"[SHEET:{SPEND}]",
        "Mira",
        f'[sheet: who="Mira" {SPEND} result="ok" now="1/2"]',
    ),
    (
        "an unreadable tag is refused malformed in the raw form, without who",
        '[sheet: op="explode" who="Mira"]',
        "Mira",
        '[sheet: raw="op= explode who= Mira" result="refused" reason="malformed"]',
    ),
    (
        "unknown-character keeps who as the model wrote it",
        f'[sheet: {SPEND} who=" zed "]',
        "zed",
        f'[sheet: who="zed" {SPEND} result="refused" reason="unknown-character"]',
    ),
    (
        "a refusal by the op names the resolved card",
        '[sheet: op="spend" pool="slots_1" amount="5" who="mira"]',
        "Mira",
        '[sheet: who="Mira" op="spend" pool="slots_1" amount="5" result="refused" '
        'reason="insufficient"]',
    ),
    (
        "a model's own result, now and reason are ignored",
        f'[sheet: {SPEND} result="refused" now="9/9" reason="x"]',
        "Mira",
        f'[sheet: who="Mira" {SPEND} result="ok" now="1/2"]',
    ),
    (
        "a party spend only the caster can afford is ok: successes, then refusals",
        f'[sheet: {SPEND} who="party"]',
        "party",
        f'[sheet: who="party" {SPEND} result="ok" '
        'now="Mira 1/2; Tam the Bold refused (unknown-pool)"]',
    ),
    (
        "a party where nobody succeeds is refused with the first member's reason",
        '[sheet: op="spend" pool="slots_1" amount="5" who="Party"]',
        "party",
        '[sheet: who="party" op="spend" pool="slots_1" amount="5" result="refused" '
        'reason="insufficient"]',
    ),
]


@pytest.mark.parametrize(
    ("text", "who", "written"), [r[1:] for r in TAGS], ids=[r[0] for r in TAGS]
)
def test_one_tag_is_rewritten(text: str, who: str, written: str) -> None:
    done = _pass(text)
    (outcome,) = done.outcomes
    assert done.text == written
    assert outcome.tag == written
    assert outcome.who == who
    assert outcome.span == (0, len(text))


EARLY_WHO = [
    ("who as read", '[sheet: op="nope" who=" Zed "]', "Mira", "Zed"),
    ("else the player name", '[sheet: op="nope"]', "Mira", "Mira"),
    ("else the empty string", '[sheet: op="nope"]', None, ""),
    (
        "unknown-character with no who: the player name that found no card",
        f"[sheet: {SPEND}]",
        "Zed",
        "Zed",
    ),
]


@pytest.mark.parametrize(
    ("text", "player", "who"), [r[1:] for r in EARLY_WHO], ids=[r[0] for r in EARLY_WHO]
)
def test_an_early_refusal_names_who_as_read_else_the_player_else_nobody(
    text: str, player: str | None, who: str
) -> None:
    (outcome,) = _pass(text, player=player).outcomes
    assert (outcome.ok, outcome.who) == (False, who)


REFUSED = [
    ("an unreadable tag is refused malformed", '[sheet: op="spend" pool="hp"]', "Mira", MALFORMED),
    ("no who and no player name: unknown-character", f"[sheet: {SPEND}]", None, UNKNOWN_CHARACTER),
    ("no who and no player card: unknown-character", f"[sheet: {SPEND}]", "Zed", UNKNOWN_CHARACTER),
    (
        "a name with no card: unknown-character",
        f'[sheet: {SPEND} who="Mir"]',
        "Mira",
        UNKNOWN_CHARACTER,
    ),
]


@pytest.mark.parametrize(
    ("text", "player", "reason"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_early_refusals_apply_nothing(text: str, player: str | None, reason: str) -> None:
    party = _party()
    done = _pass(text, party, player)
    (outcome,) = done.outcomes
    assert (outcome.ok, outcome.reason, outcome.now) == (False, reason, None)
    assert done.party == party
    assert not done.changed


def test_two_cards_sharing_a_key_that_is_not_the_players_are_ambiguous() -> None:
    party = (_caster(), _fighter("Tam"), _fighter("tam"))
    done = _pass(f'[sheet: {SPEND} who="TAM"]', party)
    assert done.outcomes[0].reason == AMBIGUOUS_CHARACTER
    assert done.outcomes[0].tag.startswith('[sheet: who="TAM" ')


def test_the_player_card_stands_for_its_shared_key() -> None:
    party = (_caster("Mira"), _caster("mira"))
    done = _pass(f"[sheet: {SPEND}] [sheet: {SPEND} who=MIRA] [sheet: {SPEND} who=party]", party)
    assert [o.now for o in done.outcomes] == ["1/2", "0/2", None]
    assert done.outcomes[2].reason == INSUFFICIENT  # a party of one: the player card alone
    assert _pools(done.party[0])["slots_1"] == 0
    assert done.party[1] == party[1]


# ── 2.3 step 1: too many ──────────────────────────────────────────────────────


def test_the_41st_tag_onward_is_refused_too_many_and_still_rewritten() -> None:
    text = " ".join(['[sheet: op="damage" pool="hp" amount="1"]'] * (MAX_COMMANDS + 2))
    done = _pass(text, (_card(_fifth(), "Mira", hp_max=100),))
    assert [o.ok for o in done.outcomes] == [True] * MAX_COMMANDS + [False, False]
    assert [o.reason for o in done.outcomes[MAX_COMMANDS:]] == [TOO_MANY, TOO_MANY]
    assert _pools(done.party[0])["hp"] == 100 - MAX_COMMANDS
    assert done.outcomes[-1].tag == (
        '[sheet: op="damage" pool="hp" amount="1" result="refused" reason="too-many"]'
    )
    assert done.outcomes[-1].who == "Mira"


def test_too_many_counts_unreadable_tags_and_writes_them_raw() -> None:
    text = "[sheet: junk]" * MAX_COMMANDS + f'[sheet: {SPEND} who="Tam the Bold"][sheet: junk]'
    done = _pass(text)
    assert [o.reason for o in done.outcomes] == [MALFORMED] * MAX_COMMANDS + [TOO_MANY] * 2
    assert done.outcomes[-2].tag.startswith('[sheet: who="Tam the Bold" op="spend"')
    assert done.outcomes[-1].tag == '[sheet: raw="junk" result="refused" reason="too-many"]'


def test_apply_sheet_tag_refuses_a_number_past_40_and_changes_nothing() -> None:
    party = _party()
    (tag,) = find_sheet_tags(f"[sheet: {SPEND}]")
    outcome, after = apply_sheet_tag(_fifth(), party, "Mira", tag, MAX_COMMANDS + 1)
    assert (outcome.ok, outcome.reason, after) == (False, TOO_MANY, party)
    outcome, after = apply_sheet_tag(_fifth(), party, "Mira", tag, MAX_COMMANDS)
    assert (outcome.ok, outcome.now) == (True, "1/2")
    assert _pools(after[0])["slots_1"] == 1


# ── 2.4 One target versus the party ───────────────────────────────────────────


def test_party_successes_come_first_whatever_the_party_order() -> None:
    party = (_fighter(), _caster())
    done = _pass(f"[sheet: {SPEND} who=party]", party)
    assert done.outcomes[0].now == "Mira 1/2; Tam the Bold refused (unknown-pool)"
    assert done.outcomes[0].who == "party"


def test_every_party_member_is_tried_each_against_its_own_state() -> None:
    done = _pass('[sheet: op="damage" pool="hp" amount="10" who="party"]')
    assert done.outcomes[0].now == "Mira 21/31; Tam the Bold 2/12"
    assert [_pools(c)["hp"] for c in done.party] == [21, 2]


def test_a_party_of_one_reads_like_one_target_but_says_party() -> None:
    done = _pass(f"[sheet: {SPEND} who=party]", (_caster(),))
    (outcome,) = done.outcomes
    assert (outcome.ok, outcome.now, outcome.who) == (True, "1/2", "party")
    assert outcome.tag == f'[sheet: who="party" {SPEND} result="ok" now="1/2"]'


def test_all_refused_gives_the_first_refused_member_in_party_order() -> None:
    party = (_fighter(), _caster())
    done = _pass('[sheet: op="spend" pool="slots_1" amount="5" who=party]', party)
    assert (done.outcomes[0].ok, done.outcomes[0].reason) == (False, UNKNOWN_POOL)


def test_a_long_party_now_is_cut_to_240_at_a_separator() -> None:
    party = tuple(_fighter(f"Fighter number {i:02d} of the long watch") for i in range(9))
    done = _pass('[sheet: op="damage" pool="hp" amount="1" who=party]', party, None)
    now = done.outcomes[0].now or ""
    entries = [f"Fighter number {i:02d} of the long watch 11/12" for i in range(9)]
    assert len("; ".join(entries)) > 240
    assert now == "; ".join(entries[: now.count("; ") + 1])
    assert len(now) <= 240
    assert len(now + "; " + entries[now.count("; ") + 1]) > 240
    assert all(_pools(c)["hp"] == 11 for c in done.party)  # the cut is in the words only


# ── 2.5 and 0.3 Storing, changed, changes, text outside tags ──────────────────


def test_each_command_sees_the_state_the_ones_before_it_left() -> None:
    done = _pass(f"[sheet: {SPEND}] then [sheet: {SPEND}] then [sheet: {SPEND}]")
    assert [o.now or o.reason for o in done.outcomes] == ["1/2", "0/2", INSUFFICIENT]
    assert _pools(done.party[0])["slots_1"] == 0


def test_text_outside_tags_never_changes() -> None:
    text = "She [casts]. [sheet:op=rest] and [sheet: bad] [skill_check: skill=x] end\n"
    done = _pass(text)
    rebuilt = text
    for outcome in reversed(done.outcomes):
        start, end = outcome.span
        rebuilt = rebuilt[:start] + outcome.tag + rebuilt[end:]
    assert done.text == rebuilt
    assert done.text.startswith("She [casts]. [sheet: ")
    assert done.text.endswith(" [skill_check: skill=x] end\n")


def test_changed_is_false_when_nothing_was_stored() -> None:
    done = _pass(f'[sheet: {SPEND} who=nobody] [sheet: op="spend" pool="slots_1" amount="9"]')
    assert not done.changed
    assert done.party == _party()


def test_changed_is_true_even_when_the_stored_state_equals_the_old() -> None:
    done = _pass('[sheet: op="restore" pool="hp" amount="5"]')
    assert done.changed
    assert done.outcomes[0].now == "31/31"
    assert done.outcomes[0].changes == ()
    assert done.party == _party()


def test_changes_name_what_each_member_changed() -> None:
    done = _pass('[sheet: op="damage" pool="hp" amount="3" who=party]')
    assert done.outcomes[0].changes == (
        SheetChange("Mira", "pool hp", 31, 28),
        SheetChange("Tam the Bold", "pool hp", 12, 9),
    )


def test_a_refusal_stores_nothing_for_that_member() -> None:
    done = _pass(f"[sheet: {SPEND} who=party]")
    assert [o.changes for o in done.outcomes] == [(SheetChange("Mira", "pool slots_1", 2, 1),)]
    assert done.party[1] == _fighter()


def test_an_unexpected_failure_is_malformed_for_that_character_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def failing_for_tam(sheet: WorkingSheet, request: SheetRequest) -> Applied | Refused:
        if sheet.character.name == "Tam the Bold":
            raise RuntimeError("a bug")
        return apply_on(sheet, request)

    monkeypatch.setattr("dicebound.sheet_commands.resolve.apply_on", failing_for_tam)
    done = _pass(
        '[sheet: op="damage" pool="hp" amount="3" who=party] [sheet: op="damage" pool="hp" amount="1" who="tam the bold"]'
    )
    assert done.outcomes[0].now == "Mira 28/31; Tam the Bold refused (malformed)"
    assert (done.outcomes[1].ok, done.outcomes[1].reason) == (False, MALFORMED)
    assert done.party[1] == _fighter()


def test_each_successful_rest_is_listed_per_character_as_the_tag_wrote_it() -> None:
    done = _pass(
        '[sheet: op="damage" pool="hp" amount="11"] '
        '[sheet: op="rest" rest=" Long " who="party"] '
        '[sheet: op="rest" rest="nap"] '
        '[sheet: op="rest" rest="short" who="tam the bold"]'
    )
    assert [o.rests for o in done.outcomes] == [
        (),
        (("Mira", "Long"), ("Tam the Bold", "Long")),
        (),
        (("Tam the Bold", "short"),),
    ]
    assert done.rests == (("Mira", "Long"), ("Tam the Bold", "Long"), ("Tam the Bold", "short"))
    assert done.outcomes[1].changes == (SheetChange("Mira", "pool hp", 20, 31),)
    assert done.outcomes[2].reason == UNKNOWN_REST


def test_a_text_without_tags_is_returned_as_it_is() -> None:
    party = _party()
    done = _pass("No tags [sheet here].", party)
    assert done == SheetPass("No tags [sheet here].", party, (), False, ())


# ── The Marinara rulesets, end to end with reading back ───────────────────────


def test_ember_roads_state_reads_back_as_the_test_fact() -> None:
    ruleset = _marinara("ember-roads.json")
    juno = _card(ruleset, "Juno")
    done = resolve_sheet_text(
        ruleset, (juno,), 'Juno braces. [sheet: op="state" state="Stance" value="reckless"]', "Juno"
    )
    assert [r.summary for r in read_back(done.text)] == ["Juno state Stance -> Stance Reckless"]
    assert done.party[0].live.states == {"stance": "reckless"}


def test_gravewatch_condition_and_wound_in_one_pass() -> None:
    ruleset = _marinara("gravewatch.json")
    (condition,) = ruleset.sheet.conditions[:1]
    done = resolve_sheet_text(
        ruleset,
        (_card(ruleset, "Ash"),),
        f'[sheet: op="condition" condition="{condition.label}"] '
        '[sheet: op="damage" track="Harm" kind="tear" amount="1"] '
        '[sheet: op="damage" track="harm" amount="1"]',
        "Ash",
    )
    assert [r.summary for r in read_back(done.text)] == [
        f"Ash condition {condition.label} -> {condition.label} on",
        "Ash damage Harm -> Harm 1/4 Scuffed",
        "sheet refused (malformed)",  # an unreadable tag is written back without who
    ]
    assert done.party[0].live.wounds["harm"].marks == ("tear",)


def test_a_packaged_ruleset_and_character() -> None:
    ruleset = read_ruleset("dnd5e-srd")
    mira = read_character(ruleset, "dnd5e-srd/mira")
    done = resolve_sheet_text(
        ruleset, (mira,), '[sheet: op="spend" pool="Inspiration" amount="1"]', mira.name
    )
    assert done.outcomes[0].tag == (
        '[sheet: who="Mira Quickfoot" op="spend" pool="Inspiration" amount="1" result="ok" '
        'now="0/1"]'
    )


# ── Never raises ──────────────────────────────────────────────────────────────

_PIECES = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "[sheet:",
                "[SHEET: ",
                "]",
                " op=spend",
                " op=damage",
                " op=restore",
                " op=temp",
                " op=track",
                " op=rest",
                " op=use",
                " op=note",
                " op=condition",
                " op=state",
                " pool=hp",
                " pool=slots_1",
                ' pool="Hit points"',
                " amount=1",
                " amount=-3",
                " amount=999999999",
                " track=exhaustion",
                " track=harm",
                " kind=tear",
                " box=99",
                " to=2",
                " by=-1",
                " condition=poisoned",
                " state=off",
                " field=concentration",
                " value=x",
                " rest=long",
                " name=Bless",
                " who=party",
                " who=Mira",
                ' who="Tam the Bold"',
                " who=Zed",
            ]
        ),
        st.text(max_size=4),
    ),
    max_size=30,
).map("".join)


@settings(max_examples=examples(60))
@given(_PIECES, st.sampled_from(["Mira", None, "Zed"]))
def test_resolving_never_raises_and_answers_every_tag(text: str, player: str | None) -> None:
    done = _pass(text, player=player)
    assert len(done.outcomes) == len(find_sheet_tags(text))
    assert len(done.party) == 2
    for outcome in done.outcomes:
        assert isinstance(outcome, SheetOutcome)
        assert outcome.ok == (outcome.reason is None)
        (tag,) = find_sheet_tags(outcome.tag)
        assert isinstance(tag, SheetTag)
    assert len(read_back(done.text)) == len(done.outcomes)
