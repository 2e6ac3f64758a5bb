"""The sheet form's description (``dicebound.sheet_form``) and its route,
``GET /rulesets/{id}/sheet-form``: what the web page's Sheet tab draws, said by the
service from the compiled ruleset. Every packaged ruleset's description is what the
page used to read from the ruleset file itself."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicebound.compiler import load_ruleset_text
from dicebound.edge.files import packaged_rulesets, read_ruleset, ruleset_text
from dicebound.sheet_form import FormAbility, sheet_form
from http_api_support import character_file, problem_of, ruleset_file
from service_support import JSON, admin_headers

_TYPES = ("number", "text", "longtext", "boolean", "enum", "dice")


def _whole(bound: Any) -> int | None:
    return int(bound) if isinstance(bound, int | float) and float(bound).is_integer() else None


def _field_of(f: dict[str, Any], labels: dict[str, str]) -> dict[str, Any]:
    number, enum = f["type"] == "number", f["type"] == "enum"
    texty = f["type"] in ("text", "longtext", "dice")
    most = 4000 if f["type"] == "longtext" else 40
    labels = {**labels, **f.get("valueLabels", {})}
    return {
        "id": f["id"],
        "label": f["label"],
        "type": f["type"],
        "default": f.get("default"),
        "min": _whole(f.get("min")) if number else None,
        "max": _whole(f.get("max")) if number else None,
        "max_length": (f.get("maxLength") or most) if texty else None,
        "values": [{"value": v, "label": labels.get(v) or v} for v in f.get("values", [])]
        if enum
        else [],
    }


def _as_the_page_read_it(file: dict[str, Any]) -> dict[str, Any]:
    """The form as the page's script read it from the ruleset file before the service
    described it: the same choices, made on the raw JSON (and the lists, wound tracks
    and each pool's start as the file writes them)."""
    sheet = file.get("sheet", {})
    live = sheet.get("live", {})
    tiers = file["resolution"].get("proficiencyTiers", [])
    groups = []
    for key, label, allowed_key in (
        ("skills", "Skills", "skillTiers"),
        ("saves", "Saves", "saveTiers"),
    ):
        items = sheet.get(key, [])
        allowed = sheet.get(allowed_key)
        if items and tiers:
            groups.append(
                {
                    "key": key,
                    "label": label,
                    "tiers": [
                        {"id": t["id"], "label": t.get("label") or t["id"]}
                        for t in tiers
                        if allowed is None or t["id"] in allowed
                    ],
                    "items": [{"id": s["id"], "label": s["label"]} for s in items],
                }
            )
    fields = [_field_of(f, {}) for f in sheet.get("fields", []) if f["type"] in _TYPES]
    named = {
        x["id"]: x["label"]
        for x in [*sheet.get("abilities", []), *sheet.get("skills", []), *sheet.get("saves", [])]
    }
    return {
        "ruleset": file["id"],
        "version": file["version"],
        "sheet_version": sheet.get("version") or 1,
        "name_max_length": 100,
        "abilities": [
            {k: a[k] for k in ("id", "label", "min", "max", "default")}
            for a in sheet.get("abilities", [])
        ],
        "groups": groups,
        "fields": fields,
        "pools": [
            {"id": p["id"], "label": p["label"], "start": p.get("start", "full")}
            for p in live.get("pools", [])
        ],
        "tracks": [
            {
                "id": t["id"],
                "label": t["label"],
                "min": t["min"],
                "max": t["max"] if isinstance(t["max"], int) else None,
            }
            for t in live.get("tracks", [])
            if not t.get("kinds")
        ],
        "lists": [
            {
                "id": x["id"],
                "label": x["label"],
                "max_items": x["maxItems"],
                "columns": [_field_of(c, named) for c in x["columns"]],
                "required": [c["id"] for c in x["columns"] if c.get("required")],
            }
            for x in sheet.get("lists", [])
        ],
        "wounds": [
            {
                "id": t["id"],
                "label": t["label"],
                "kinds": [{"id": k["id"], "label": k["label"]} for k in t["kinds"]],
                "max": t["max"] if isinstance(t["max"], int) else None,
                "fill": t.get("fill", "sequential"),
            }
            for t in live.get("tracks", [])
            if t.get("kinds")
        ],
    }


@pytest.mark.parametrize("ruleset_id", packaged_rulesets())
def test_every_packaged_form_is_what_the_page_read_from_the_file(ruleset_id: str) -> None:
    file = json.loads(ruleset_text(ruleset_id)[0])
    described = sheet_form(read_ruleset(ruleset_id)).to_json()
    assert described == _as_the_page_read_it(file)
    json.dumps(described, allow_nan=False)  # JSON as it is


def test_dnd5e_srd_has_abilities_two_tiered_groups_and_a_pool() -> None:
    form = sheet_form(read_ruleset("dnd5e-srd"))
    assert (form.ruleset, form.version, form.sheet_version, form.name_max_length) == (
        "dnd5e-srd",
        2,
        1,
        100,
    )
    assert form.abilities[0] == FormAbility("str", "Strength", 1, 30, 10)
    skills, saves = form.groups
    assert (skills.key, skills.label, saves.key, saves.label) == (
        "skills",
        "Skills",
        "saves",
        "Saves",
    )
    assert [t.id for t in skills.tiers] == ["none", "half", "proficient", "expertise"]
    assert [t.id for t in saves.tiers] == ["none", "proficient"]  # its saveTiers
    assert skills.items[0].label == "Acrobatics" and len(skills.items) == 18
    level = form.to_json()["fields"][0]
    assert level == {
        "id": "level",
        "label": "Level",
        "type": "number",
        "default": 1,
        "min": 1,
        "max": 20,
        "max_length": None,
        "values": [],
    }
    assert [(p.id, p.label) for p in form.pools] == [
        ("hit_points", "Hit points"),
        ("hit_dice", "Hit dice"),
        ("inspiration", "Inspiration"),
    ]
    assert [(t.id, t.min, t.max) for t in form.tracks] == [
        ("exhaustion", 0, 6),
        ("death_save_successes", 0, 3),
        ("death_save_failures", 0, 3),
    ]


def test_wod_pool_leaves_its_wound_track_out_and_has_no_saves() -> None:
    file = json.loads(ruleset_text("wod-pool")[0])
    assert [t["id"] for t in file["sheet"]["live"]["tracks"] if t.get("kinds")] == ["health"]
    form = sheet_form(read_ruleset("wod-pool"))
    assert form.tracks == ()
    assert [g.key for g in form.groups] == ["skills"]
    assert [t.id for t in form.groups[0].tiers][:2] == ["dots_0", "dots_1"]
    assert [(f.id, f.type, f.max_length) for f in form.fields] == [
        ("nature", "text", 40),
        ("demeanor", "text", 40),
        ("concept", "text", 80),
    ]
    assert [p.id for p in form.pools] == ["willpower_points"]


def test_advanced_resolution_has_number_fields_with_their_bounds() -> None:
    form = sheet_form(read_ruleset("advanced-resolution"))
    assert [(a.id, a.default) for a in form.abilities] == [
        ("skilled", 1),
        ("martial", 1),
        ("arcane", 1),
        ("social", 1),
    ]
    agility = form.fields[0]
    assert (agility.id, agility.min, agility.max, agility.default) == ("agility", -3, 5, 0)
    assert [p.id for p in form.pools] == ["body", "mind", "luck"]
    assert form.groups[0].items[0].label == "Scoundrel/Lockpick"


def test_enum_labels_whole_bounds_dice_and_tracks() -> None:
    """A fractional bound gives the input none; an enum's value without a label shows
    itself; dice take 40 characters; a track's maximum read from the sheet is None."""
    file = ruleset_file("dnd5e-srd")
    file["sheet"]["fields"] += [
        {"id": "speed", "label": "Speed", "type": "number", "min": 0.5, "max": 9, "integer": False},
        {
            "id": "side",
            "label": "Side",
            "type": "enum",
            "values": ["law", "chaos"],
            "valueLabels": {"law": "Lawful"},
        },
        {"id": "weapon", "label": "Weapon", "type": "dice"},
        {"id": "notes", "label": "Notes", "type": "longtext", "maxLength": 900},
        {"id": "brave", "label": "Brave", "type": "boolean", "default": True},
    ]
    file["sheet"]["live"]["tracks"] += [
        {"id": "luck", "label": "Luck", "min": 0, "max": 3},
        {"id": "grit", "label": "Grit", "min": 1, "max": {"field": "level"}},
    ]
    form = sheet_form(load_ruleset_text(json.dumps(file)))
    assert form.to_json() == _as_the_page_read_it(file)
    speed, side, weapon, notes, brave = form.fields[4:]
    assert (speed.min, speed.max) == (None, 9)
    assert [(v.value, v.label) for v in side.values] == [("law", "Lawful"), ("chaos", "chaos")]
    assert (weapon.max_length, notes.max_length, brave.default) == (40, 900, True)
    assert [(t.id, t.min, t.max) for t in form.tracks][3:] == [("luck", 0, 3), ("grit", 1, None)]


# ── the route ────────────────────────────────────────────────────────────────


def test_the_route_answers_the_description_without_a_token(service: TestClient) -> None:
    for ruleset_id in ("dnd5e-srd", "wod-pool", "advanced-resolution"):
        got = service.get(f"/rulesets/{ruleset_id}/sheet-form")
        assert got.status_code == 200, got.text
        assert got.json() == sheet_form(read_ruleset(ruleset_id)).to_json()
    pinned = service.get("/rulesets/dnd5e-srd/sheet-form?version=2")
    assert pinned.json() == service.get("/rulesets/dnd5e-srd/sheet-form").json()


def test_the_route_reads_the_version_asked_for(service: TestClient) -> None:
    file = ruleset_file("dnd5e-srd")
    file.update({"id": "house-d20", "version": 1, "name": "House d20"})
    assert service.post("/rulesets", json=file, headers=admin_headers()).status_code == 201
    file["version"] = 2
    file["sheet"]["abilities"][0]["max"] = 20
    assert service.post("/rulesets", json=file, headers=admin_headers()).status_code == 201
    newest = service.get("/rulesets/house-d20/sheet-form").json()
    first = service.get("/rulesets/house-d20/sheet-form?version=1").json()
    assert (newest["version"], newest["abilities"][0]["max"]) == (2, 20)
    assert (first["version"], first["abilities"][0]["max"]) == (1, 30)


def test_an_unknown_ruleset_or_version_is_404_as_reading_the_file_is(
    service: TestClient,
) -> None:
    for asked in ("/rulesets/nowhere", "/rulesets/dnd5e-srd?version=9"):
        path, _, query = asked.partition("?")
        form = service.get(f"{path}/sheet-form" + (f"?{query}" if query else ""))
        assert problem_of(form, 404) == problem_of(service.get(asked), 404)
    assert service.get("/rulesets/dnd5e-srd/sheet-form?version=-1").status_code == 422


def test_the_openapi_document_describes_the_answer(service: TestClient) -> None:
    document = service.get("/openapi.json").json()
    operation = document["paths"]["/rulesets/{ruleset_id}/sheet-form"]["get"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema == {"$ref": "#/components/schemas/SheetFormOut"}
    described = document["components"]["schemas"]["SheetFormOut"]["properties"]
    assert list(described) == list(sheet_form(read_ruleset("dnd5e-srd")).to_json())


def test_a_pool_says_how_it_starts_and_lists_and_wound_tracks_are_described() -> None:
    """5e's Inspiration starts empty (left blank it reads 0), WoD's specialties name
    the skill by its label, and a wound track gives its kinds and room."""
    dnd = sheet_form(read_ruleset("dnd5e-srd"))
    assert [(p.id, p.start) for p in dnd.pools] == [
        ("hit_points", "full"),
        ("hit_dice", "full"),
        ("inspiration", "empty"),
    ]
    assert ([lst.id for lst in dnd.lists], dnd.wounds) == (["attacks"], ())
    (attacks,) = dnd.lists
    assert [(c.id, c.type) for c in attacks.columns] == [
        ("name", "text"),
        ("ability", "enum"),
        ("proficient", "boolean"),
        ("bonus", "number"),
        ("damage", "dice"),
        ("damage_type", "text"),
    ]
    wod = sheet_form(read_ruleset("wod-pool")).to_json()
    specialties, weapons = wod["lists"]
    assert [(c["id"], c["type"]) for c in weapons["columns"]] == [
        ("name", "text"),
        ("attribute", "enum"),
        ("skill", "enum"),
        ("damage", "dice"),
        ("harm", "enum"),
    ]
    assert (specialties["id"], specialties["max_items"]) == ("specialties", 12)
    name, ability = specialties["columns"]
    assert (name["type"], name["max_length"], ability["type"]) == ("text", 60, "enum")
    assert {"value": "animal_ken", "label": "Animal Ken"} in ability["values"]
    assert wod["wounds"] == [
        {
            "id": "health",
            "label": "Health",
            "kinds": [
                {"id": "bashing", "label": "/"},
                {"id": "lethal", "label": "X"},
                {"id": "aggravated", "label": "*"},
            ],
            "max": 7,
            "fill": "sequential",
        }
    ]
    (harm,) = sheet_form(read_ruleset("blades")).wounds
    assert (harm.id, harm.max, harm.fill) == ("harm", 6, "indexed")


# ── the packaged characters, and a character file checked ───────────────────


def test_the_packaged_characters_of_a_ruleset_come_with_their_files(service: TestClient) -> None:
    got = service.get("/rulesets/wod-pool/characters")
    assert got.status_code == 200, got.text
    assert [(c["key"], c["name"]) for c in got.json()] == [
        ("lucia", "Lucia Marchetti"),
        ("tobias", "Tobias Grell"),
    ]
    assert got.json()[0]["file"] == character_file("wod-pool", "lucia")
    file = ruleset_file("dnd5e-srd")
    file.update({"id": "house-d20", "version": 1, "name": "House d20"})
    assert service.post("/rulesets", json=file, headers=admin_headers()).status_code == 201
    assert service.get("/rulesets/house-d20/characters").json() == []  # uploaded: none
    unknown = service.get("/rulesets/nowhere/characters")
    assert problem_of(unknown, 404) == problem_of(service.get("/rulesets/nowhere"), 404)


def test_a_character_file_is_checked_with_its_problems_at_their_lines(
    service: TestClient,
) -> None:
    lucia = json.dumps(character_file("wod-pool", "lucia"), indent=2)
    fine = service.post("/rulesets/wod-pool/characters/check", content=lucia, headers=JSON)
    assert fine.json() == {"ok": True, "name": "Lucia Marchetti", "problems": [], "omitted": 0}
    broken = lucia.replace('"dexterity": 4', '"dexterity": 9')
    line = broken[: broken.index('"dexterity": 9')].count("\n") + 1
    tried = service.post(
        "/rulesets/wod-pool/characters/check?version=2",
        content=broken,
        headers=JSON,
    ).json()
    assert (tried["ok"], tried["name"], tried["omitted"]) == (False, "Lucia Marchetti", 0)
    (problem,) = tried["problems"]
    assert (problem["path"], problem["line"]) == ("sheet.build.abilities.dexterity", line)
    assert "maximum 5" in problem["message"]
    # a syntax error is placed where the text stops being JSON, as its sentence says
    cut = lucia.replace('"Pistols",', '"Pistols"')
    syntax = service.post("/rulesets/wod-pool/characters/check", content=cut, headers=JSON).json()[
        "problems"
    ][0]
    assert syntax["code"] == "not-json"
    assert f"line {syntax['line']}, column {syntax['column']}" in syntax["message"]
    assert syntax["line"] == cut[: cut.index('"Pistols"')].count("\n") + 2
    # nothing is stored, and the body must say it is JSON
    assert service.get("/games", headers=admin_headers()).json() == []
    plain_text = service.post(
        "/rulesets/wod-pool/characters/check", content=lucia, headers={"Content-Type": "text/plain"}
    )
    assert plain_text.status_code == 415
    missing = service.post("/rulesets/nowhere/characters/check", content=lucia, headers=JSON)
    assert missing.status_code == 404
