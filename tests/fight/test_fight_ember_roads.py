"""FIGHTS §16.4 on Ember Roads (two six-sided dice, no dying rule, conditions and levels
that change numbers): E24, E26, E29, and §8.4's modifiers (a level's attack bonus on the
attack line, a condition's guard on the defense)."""

from __future__ import annotations

from fight_fixtures import Game, em, juno, pell


def e_start() -> Game:
    game = Game(em(), (juno(), pell()))
    game.S(
        "Juno, Pell",
        "Ash-hound (hounds/big-hound), Cinder-hound (hounds/big-hound)",
        6,
        5,
        3,
        3,
        2,
        1,
        1,
        2,
    )
    return game


def test_e24_two_dice_of_initiative() -> None:
    game = Game(em(), (juno(), pell()))
    answer = game.S(
        "Juno, Pell",
        "Ash-hound (hounds/big-hound), Cinder-hound (hounds/big-hound)",
        6,
        5,
        3,
        3,
        2,
        1,
        1,
        2,
    )
    assert (
        'now="initiative: Juno (6,5)+1=12, Pell (3,3)+2=8, Ash-hound (2,1)+1=4, Cinder-hound (1,2)+1=4; round 1; turn: Juno"'
        in answer
    )


def test_e26_hits_on_two_dice_never_critical() -> None:
    assert e_start().A("Juno", "Road axe", "Ash-hound", 4, 3, 5) == (
        "Juno Road axe at Ash-hound: (4,3)+2=9 vs 6 hit; Ash-hound: (5)+2=7 cut, takes 7, 13/20"
    )
    double_six = e_start()
    assert double_six.A("Juno", "Road axe", "Ash-hound", 6, 6, 1).startswith(
        "Juno Road axe at Ash-hound: (6,6)+2=14 vs 6 hit;"
    )
    assert double_six.last is not None and not double_six.last.events[2]["critical"]
    assert (
        e_start().A("Juno", "Road axe", "Ash-hound", 1, 1)
        == "Juno Road axe at Ash-hound: (1,1)+2=4 vs 6 miss"
    )
    helped = Game(em(), (juno(), pell()))
    helped.S("Juno, Pell", "Ash-hound (hounds/hound)", 3, 3, 6, 5, 1, 1)
    assert helped.fight is not None and helped.fight["order"] == ["pell", "juno", "ash-hound"]
    helped.A("Pell", "help", "Juno")
    helped.E("Pell")
    said = helped.A("Juno", "Road axe", "Ash-hound", 4, 4, 2)
    assert said.startswith("Juno Road axe at Ash-hound: (4,4)+2=10 vs 6 hit")
    assert helped.last is not None and helped.last.events[1]["mode"] == "normal"


def test_e29_no_dying_rule_and_victory() -> None:
    game = Game(em(), (juno({"pools": {"grit": {"value": 2}}}), pell()))
    game.S("Juno, Pell", "Ash-hound (hounds/hound)", 1, 1, 2, 1, 6, 6)
    assert game.fight is not None and game.fight["order"] == ["ash-hound", "pell", "juno"]
    assert game.A("Ash-hound", "Claw", "Juno", 4, 4, 4) == (
        "Ash-hound Claw at Juno: (4,4)+1=9 vs 7 hit; Juno: (4)+0=4 cut, takes 4, 0/8; Juno is down"
    )
    assert game.E("Ash-hound") == "turn: Pell"
    pinned = Game(em(), (juno({"conditions": ["pinned"]}),))
    pinned.S("Juno", "Ash-hound (hounds/hound)", 6, 5, 1, 1)
    assert pinned.A("Juno", "Road axe", "Ash-hound") == "refused:cannot-act"
    free = Game(em(), (juno(),))
    free.S("Juno", "Ash-hound (hounds/hound)", 6, 5, 1, 1)
    answer = free.tag('op="act" who="Juno" option="Road axe" target="Ash-hound"', 5, 5, 6)
    assert (
        'now="Juno Road axe at Ash-hound: (5,5)+2=12 vs 6 hit; Ash-hound: (6)+2=8 cut, takes 8, 0/6; Ash-hound is defeated; outcome victory" rolls="5|5|6" outcome="victory"'
        in answer
    )
    from dicebound.fight import summary

    assert free.fight is not None
    assert summary(free.ruleset, free.fight, free.party)["party"] == [
        {
            "id": "juno",
            "name": "Juno",
            "health": 8,
            "maxHealth": 8,
            "temp": 0,
            "down": False,
            "dying": False,
            "stable": False,
            "conditions": [],
        }
    ]


def test_a_level_and_a_condition_change_the_numbers() -> None:
    hot = Game(em(), (juno({"tracks": {"heat": 3}}),))
    hot.S("Juno", "Ash-hound (hounds/hound)", 6, 5, 1, 1)
    assert (
        hot.A("Juno", "Road axe", "Ash-hound", 3, 1)
        == "Juno Road axe at Ash-hound: (3,1)+2 -1 (Heat)=5 vs 6 miss"
    )
    assert hot.last is not None
    assert hot.last.events[1]["bonuses"] == [{"level": "heat", "label": "Heat", "value": -1}]
    hurt = Game(em(), (juno({"conditions": ["wounded"]}),))
    hurt.S("Juno", "Ash-hound (hounds/hound)", 1, 1, 6, 6)
    assert hurt.A("Ash-hound", "Claw", "Juno", 3, 2, 1) == (
        "Ash-hound Claw at Juno: (3,2)+1=6 vs 6 hit; Juno: (1)+0=1 cut, takes 1, 7/8"
    )


def test_e25_forecast_with_and_without_a_level() -> None:
    from dicebound.dice import ForcedFaces
    from dicebound.fight.context import Step
    from dicebound.fight.dice import Thrower
    from dicebound.fight.menu import offered

    def first_forecast(game: Game) -> object:
        assert game.fight is not None
        work = Step(game.ruleset, game.fight, game.party, Thrower(ForcedFaces(())))
        return offered(work, game.c("juno"))[0]["forecast"]

    assert first_forecast(e_start()) == {"hitChance": 0.917, "averageDamage": 5.5}
    hot = Game(em(), (juno({"tracks": {"heat": 3}}),))
    hot.S("Juno", "Ash-hound (hounds/hound)", 6, 5, 1, 1)
    assert first_forecast(hot) == {"hitChance": 0.833, "averageDamage": 5.5}
