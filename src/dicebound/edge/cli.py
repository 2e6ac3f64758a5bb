"""The ``dicebound`` command line (stable: scripts outside the project rely on it).

    dicebound validate RULESET [--capability-api V] [--json]
    dicebound check --ruleset R --character C [--character C2 ...] [--layer ID ...]
                    [--seed N | --faces 5,1,6] [--json] 'TEXT'
    dicebound odds  --ruleset R --character C [--json] 'TAG'
    dicebound fight --ruleset R --character C [--character C2 ...] --fight FILE [--json]
    dicebound rulesets
    dicebound schema [--output ruleset|check]
    dicebound db upgrade|new-game|backup|restore|export-game|import-game|prune|game-schema
    dicebound --version
    dicebound report --ruleset R --character C [--layer ID ...] [--html FILE]

Exit 0 when everything resolved, 1 when a file or a tag was refused, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from dicebound import __version__
from dicebound.dice import fresh_seed
from dicebound.edge.files import packaged_rulesets, read_character, read_ruleset, ruleset_text
from dicebound.errors import (
    CharacterInvalid,
    DiceboundError,
    RulesetInvalid,
    UsageError,
)

if TYPE_CHECKING:
    from dicebound.problems import Problem
    from dicebound.sheet import Character
    from dicebound.tagpass import CheckReport

# Each command imports what it alone needs, in its own function: a command's start is
# part of its time, and `dicebound odds` need not load the renderer, the replayer, the
# compiler or pathlib.

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"dicebound: {message}\n")

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse makes a formatter for every argument it adds, and each one imports
        # shutil for the terminal's width: the same width, read without shutil
        return argparse.HelpFormatter(prog=self.prog, width=_terminal_width())


def _terminal_width() -> int:
    """What argparse's formatter reads through ``shutil.get_terminal_size``, less 2."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        stdout = sys.__stdout__
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns if stdout else 0
        except (ValueError, OSError):
            columns = 0
        columns = columns or 80
    return columns - 2


_DB_HELP = "sqlite:///FILE or postgresql+psycopg://... (DICEBOUND_DB)"

# dicebound serve's limits (edge/http/guards.py reads and checks them): flag, metavar, help
_SERVE_LIMITS = (
    ("--header-timeout", "S", "seconds for a request's headers (DICEBOUND_HEADER_TIMEOUT, 10)"),
    ("--body-timeout", "S", "seconds for a request's body (DICEBOUND_BODY_TIMEOUT, 30)"),
    (
        "--limit-concurrency",
        "N",
        "connections at once, 503 past it; 0: none (DICEBOUND_LIMIT_CONCURRENCY, 500)",
    ),
    (
        "--limit-per-address",
        "N",
        "connections (behind a proxy, requests) at once per client address, 429 past it; "
        "0: none (DICEBOUND_LIMIT_PER_ADDRESS, 64)",
    ),
    (
        "--streams-per-token",
        "N",
        "event and MCP streams open at once per token, 429 past it; 0: none "
        "(DICEBOUND_STREAMS_PER_TOKEN, 4)",
    ),
    (
        "--rate-limit",
        "R",
        "requests a second per token and per game, 429 past it; 0: none (DICEBOUND_RATE_LIMIT, 50)",
    ),
    (
        "--shutdown-timeout",
        "S",
        "seconds SIGTERM waits for requests in flight (DICEBOUND_SHUTDOWN_TIMEOUT, 8)",
    ),
)


def _parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``only``, just that command's arguments (argparse
    takes milliseconds to make each command's, and one call runs one command)."""
    parser = _Parser(prog="dicebound", description="Resolve tabletop checks from a ruleset.")
    parser.add_argument("--version", action="version", version=f"dicebound {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    if only in (None, "validate"):
        validate = sub.add_parser("validate", help="check a ruleset file and list every problem")
        validate.add_argument("ruleset", help="a ruleset file, or a packaged ruleset's id")
        validate.add_argument("--capability-api", metavar="V", help="check as a packaged ruleset")
        validate.add_argument("--json", action="store_true", help="print JSON")

    if only in (None, "check"):
        check = sub.add_parser(
            "check", help="resolve every [skill_check: ...] and [sheet: ...] tag in a text"
        )
        check.add_argument("--ruleset", required=True)
        check.add_argument("--character", action="append", required=True, default=None)
        check.add_argument("--layer", action="append", default=[])
        dice = check.add_mutually_exclusive_group()
        dice.add_argument("--seed", help="replay: the same seed gives the same record")
        dice.add_argument("--faces", help="force the faces, in throw order: 5,1,6")
        check.add_argument("--after", metavar="POOL:N", help="spend after the roll (step-pool)")
        check.add_argument("--choose", choices=("fail", "succeed"), help="settle an open choice")
        check.add_argument("--json", action="store_true")
        check.add_argument(
            "--fight", metavar="FILE", help='the fight, {"fight": STATE} (absent: no fight yet)'
        )
        check.add_argument(
            "--save",
            action="store_true",
            help="write each character's new live state (and the fight) back (atomically)",
        )
        check.add_argument("text")

    if only in (None, "odds"):
        odds = sub.add_parser("odds", help="the exact chance of every outcome of a check")
        odds.add_argument("--ruleset", required=True)
        odds.add_argument("--character", required=True)
        odds.add_argument("--layer", action="append", default=[])
        odds.add_argument("--after", metavar="POOL:N")
        odds.add_argument("--json", action="store_true")
        odds.add_argument("tag")

    if only in (None, "fight"):
        fight = sub.add_parser(
            "fight", help="a fight's state and the current actor's options with exact odds"
        )
        fight.add_argument("--ruleset", required=True)
        fight.add_argument("--character", action="append", required=True, default=None)
        fight.add_argument("--fight", metavar="FILE", required=True, help='{"fight": STATE}')
        fight.add_argument("--json", action="store_true")

    if only in (None, "roll"):
        roll = sub.add_parser("roll", help="throw a symbol pool's dice by name")
        roll.add_argument("--ruleset", required=True)
        roll.add_argument("--seed", help="replay: the same seed gives the same throw")
        roll.add_argument("--json", action="store_true")
        roll.add_argument("dice", help="such as: 2 ability 1 proficiency vs 2 difficulty")

    if only in (None, "gm"):
        gm = sub.add_parser("gm", help="the text the Game Master is taught for a ruleset")
        gm.add_argument("--ruleset", required=True)
        gm.add_argument(
            "--character",
            action="append",
            default=[],
            help="a party member (repeat for the party): the first's chance at every step, "
            "the sheet commands for the party, and each member's sheet",
        )
        gm.add_argument("--skill", help="the check the chances are for (default: the first skill)")
        gm.add_argument("--layer", action="append", default=[])

    if only in (None, "rulesets"):
        sub.add_parser("rulesets", help="list the rulesets shipped with dicebound")

    if only in (None, "serve"):
        serve = sub.add_parser("serve", help="run the HTTP service (the [serve] extra)")
        serve.add_argument("--db", help=_DB_HELP)
        serve.add_argument("--host", default="127.0.0.1")
        serve.add_argument("--port", type=int, default=8000)
        serve.add_argument(
            "--workers",
            metavar="N",
            help="processes answering on the port (DICEBOUND_WORKERS; default: one per "
            "core on PostgreSQL, 1 on SQLite)",
        )
        serve.add_argument(
            "--pin",
            action="store_true",
            help="keep each process to one core, worker N on the Nth (DICEBOUND_PIN=on)",
        )
        serve.add_argument(
            "--http",
            metavar="PARSER",
            help="the HTTP parser: httptools or h11 (DICEBOUND_HTTP, httptools)",
        )
        serve.add_argument(
            "--log-format",
            metavar="FORM",
            help="text (readable, the default) or json: one object per line (DICEBOUND_LOG_FORMAT)",
        )
        for flag, metavar, what in _SERVE_LIMITS:
            serve.add_argument(flag, metavar=metavar, help=what)

    if only in (None, "mcp"):
        mcp = sub.add_parser("mcp", help="serve the Game Master's MCP tools over stdio")
        mcp.add_argument("--db", help=_DB_HELP)
        mcp.add_argument("--game", required=True, help="the game's id (see db new-game)")

    if only in (None, "db"):
        db = sub.add_parser("db", help="the service's store")
        db_sub = db.add_subparsers(dest="db_command", required=True, parser_class=_Parser)
        upgrade = db_sub.add_parser("upgrade", help="create or migrate the store's schema")
        upgrade.add_argument("--db", help=_DB_HELP)
        new_game = db_sub.add_parser("new-game", help="make a game in the store; prints its token")
        new_game.add_argument("--db", help=_DB_HELP)
        new_game.add_argument("--name", required=True, help="the game's name")
        new_game.add_argument("--ruleset", required=True, help="a packaged or stored ruleset id")
        new_game.add_argument("--version", type=int, help="the ruleset's version (default: newest)")
        new_game.add_argument("--layer", action="append", default=[], help="a layer to play")
        new_game.add_argument(
            "--character", action="append", default=[], help="a character file to put (repeat)"
        )
        from dicebound.edge.store_commands import add_db_commands

        add_db_commands(db_sub, _DB_HELP)

    if only in (None, "verify"):
        verify = sub.add_parser("verify", help="replay a record from its seed: does it match?")
        verify.add_argument(
            "record", help="a record JSON file (check --json's output or one result); - reads stdin"
        )
        verify.add_argument("--ruleset", required=True)
        verify.add_argument("--character", required=True, help="the roller as they stood before")
        verify.add_argument("--layer", action="append", default=[])
        verify.add_argument("--json", action="store_true")

    if only in (None, "schema"):
        schema = sub.add_parser("schema", help="print the JSON Schema of a ruleset file")
        schema.add_argument(
            "--output",
            choices=("ruleset", "check"),
            default="ruleset",
            help="ruleset: a ruleset file (draft-07, the default); check: check --json's "
            "answer (2020-12)",
        )

    if only in (None, "report"):
        report = sub.add_parser("report", help="every check's chance at every ladder step")
        report.add_argument("--ruleset", required=True)
        report.add_argument("--character", required=True)
        report.add_argument("--layer", action="append", default=[])
        report.add_argument("--html", metavar="FILE", help="also write the report as a web page")
    return parser


def _by_line(text: str, problems: Sequence[Problem]) -> list[Problem]:
    """``problems`` in the order of the lines (then columns) where their paths are
    written, so they read down the file as an author fixes them."""
    from dicebound.views import problems_with_lines

    placed = problems_with_lines(text, problems)
    order = sorted(range(len(problems)), key=lambda i: (placed[i]["line"], placed[i]["column"]))
    return [problems[i] for i in order]


def _validate(args: argparse.Namespace, out: TextIO) -> int:
    from dicebound.compiler import load_ruleset_text

    text, shown = ruleset_text(args.ruleset)
    try:
        ruleset = load_ruleset_text(text, capability_api=args.capability_api)
    except RulesetInvalid as exc:
        if args.json:
            problems = [p.to_json() for p in exc.problems]
            json.dump({"ok": False, "problems": problems, "notes": []}, out, indent=2)
            out.write("\n")
        else:
            for problem in _by_line(text, exc.problems):
                out.write(f"{problem}\n")
        return 1
    notes = [f"{block}: accepted and kept, not played by dicebound" for block in ruleset.not_played]
    if args.json:
        json.dump({"ok": True, "problems": [], "notes": notes}, out, indent=2)
        out.write("\n")
    else:
        at = f" at Capability API {args.capability_api}" if args.capability_api else ""
        out.write(f"{shown}: {ruleset.name} ({ruleset.id} v{ruleset.version}) is valid{at}.\n")
        for note in notes:
            out.write(f"{note}\n")
    return 0


def _faces(text: str) -> list[int]:
    try:
        return [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise UsageError(
            f'--faces takes whole numbers separated by commas, not "{text}".'
        ) from None


def _after(text: str) -> tuple[str, int]:
    pool, _, points = text.rpartition(":")
    if not pool or not points.strip().isdigit():
        raise UsageError(f'--after takes POOL:N, such as luck:5, not "{text}".')
    return pool.strip(), int(points)


def _check(args: argparse.Namespace, out: TextIO) -> int:
    from dicebound.engine import CheckResult, PlayerChoices
    from dicebound.render.text import render_text, sheet_line
    from dicebound.tagpass import resolve_text
    from dicebound.views import paid_lines

    ruleset = read_ruleset(args.ruleset)
    if args.save:
        packaged = [c for c in args.character if not os.path.isfile(c)]
        if packaged:
            raise UsageError(
                f'--save writes character files, and "{packaged[0]}" is not a file: copy a '
                "packaged character to a file to keep its state."
            )
    party = [read_character(ruleset, c) for c in args.character]
    faces = _faces(args.faces) if args.faces is not None else None
    seed = args.seed if args.seed is not None or faces is not None else fresh_seed()
    after = _after(args.after) if args.after is not None else None
    choices = PlayerChoices(after=after, choose=args.choose)
    fight = _read_fight(args.fight) if args.fight is not None else None
    report = resolve_text(
        ruleset,
        party,
        args.text,
        seed=seed,
        faces=faces,
        layers=args.layer,
        choices=choices,
        fight=fight,
    )
    if args.json:
        json.dump(report.to_json(), out, indent=2, ensure_ascii=False)
        out.write("\n")
    else:
        out.write(report.text + "\n")
        for item in report.items:
            out.write("\n")
            if isinstance(item, CheckResult):
                paid = paid_lines(ruleset, item.roller, item.changes) if item.roller else []
                card = render_text(
                    item.record, who=item.who, outcome=item.outcome, paid=paid, ruleset=ruleset
                )
                out.write(card + "\n")
                for note in item.notes:  # a value the ruleset did not know, and what was done
                    out.write(f"  Note     {note}\n")
            else:
                out.write(f"Not rolled: {item.error}\n")
        if report.sheet:
            out.write("\n")
        for outcome in report.sheet:
            out.write(sheet_line(outcome, [c.name for c in party]) + "\n")
        _fight_lines(report, out)
    if args.save:
        _save(args.character, party, report)
        if args.fight is not None and not report.errors and report.fight != fight:
            from pathlib import Path

            from dicebound.edge.save import save_fight

            save_fight(Path(args.fight), report.fight)
            sys.stderr.write(f"dicebound: saved the fight to {args.fight}.\n")
    return 0 if not report.errors else 1


def _read_fight(where: str) -> dict[str, Any] | None:
    """The fight of a fight file, ``{"fight": STATE}``; None when the file is absent."""
    from dicebound.fight import load_state
    from dicebound.jsontext import Unreadable, read_json

    if not os.path.exists(where):
        return None
    try:
        with open(where, encoding="utf-8") as f:
            body, _ = read_json(f.read())
    except (OSError, ValueError, Unreadable) as exc:
        raise UsageError(f'cannot read the fight file "{where}": {exc}') from exc
    if not isinstance(body, dict) or "fight" not in body:
        raise UsageError(f'"{where}" is not a fight file: it holds no {{"fight": ...}}.')
    return None if body["fight"] is None else load_state(body["fight"])


def _fight_lines(report: CheckReport, out: TextIO) -> None:
    """``Fight: <now>`` per fight tag, or ``Fight: refused (<reason>)``."""
    from dicebound.fight.lines import event_lines

    if report.fight_steps:
        out.write("\n")
    for _, step in report.fight_steps:
        if step.ok:
            out.write("Fight: " + "; ".join(event_lines(step.events)) + "\n")
        else:
            why = f" {step.message}" if step.message else ""
            out.write(f"Fight: refused ({step.reason}){why}\n")


def _save(files: Sequence[str], party: Sequence[Character], report: CheckReport) -> None:
    """Write back each character a check changed; nothing at all when a tag failed."""
    from pathlib import Path

    from dicebound.edge.save import save_live

    if report.errors:
        sys.stderr.write("dicebound: nothing was saved, because a tag did not resolve.\n")
        return
    for where, before, after in zip(files, party, report.party, strict=True):
        if after.live != before.live:
            save_live(Path(where), after)
            sys.stderr.write(f"dicebound: saved {after.name}'s live state to {where}.\n")


def _records(where: str) -> list[dict[str, Any]]:
    """The records a verify is asked about: check --json's output, one result, or a list."""
    from dicebound.jsontext import Unreadable, read_json

    if where == "-":
        text = sys.stdin.read()
    elif os.path.isfile(where):
        with open(where, encoding="utf-8", errors="replace") as f:
            text = f.read()
    else:
        raise UsageError(f'"{where}" is not a record file (give a path, or - for standard input).')
    try:
        body, _ = read_json(text)
    except Unreadable as exc:
        raise UsageError(f'"{where}" {exc}') from exc
    if isinstance(body, dict) and isinstance(body.get("results"), list):
        body = body["results"]
    found = body if isinstance(body, list) else [body]
    if not found or not all(isinstance(r, dict) for r in found):
        raise UsageError(f'"{where}" holds no record: give check --json\'s output or one result.')
    return found


def _verify(args: argparse.Namespace, out: TextIO) -> int:
    from dicebound.engine import ladder_in_force
    from dicebound.replay import replay_record

    ruleset = read_ruleset(args.ruleset)
    character = read_character(ruleset, args.character)
    ladder_in_force(ruleset, args.layer)
    checked = []
    for record in _records(args.record):
        differences = replay_record(ruleset, character, record, layers=args.layer)
        checked.append((record, differences))
    if args.json:
        records = [{"verified": not d, "differences": [x.to_json() for x in d]} for _, d in checked]
        json.dump({"verified": all(not d for _, d in checked), "records": records}, out, indent=2)
        out.write("\n")
    else:
        for number, (record, differences) in enumerate(checked, 1):
            name = f"record {number} ({record.get('who', '?')}, {record.get('outcome', '?')})"
            if not differences:
                out.write(f"{name}: verified, its seed replays it exactly.\n")
                continue
            out.write(f"{name}: NOT verified, the replay differs:\n")
            for d in differences:
                out.write(
                    f"  {d.field}: {json.dumps(d.stored)} in the record, "
                    f"{json.dumps(d.replayed)} replayed\n"
                )
    return 0 if all(not d for _, d in checked) else 1


def _odds(args: argparse.Namespace, out: TextIO) -> int:
    from dicebound.odds import check_odds, fraction_text

    ruleset = read_ruleset(args.ruleset)
    character = read_character(ruleset, args.character)
    after = _after(args.after) if args.after is not None else None
    odds = check_odds(ruleset, character, args.tag, layers=args.layer, after=after)
    if args.json:
        json.dump(odds.to_json(), out, indent=2)
        out.write("\n")
    else:
        out.write(f"{odds.title}\n")
        for o in odds.outcomes:
            out.write(
                f"  {o.label:<20} {float(o.probability):8.2%}  ({fraction_text(o.probability)})\n"
            )
        out.write(f"  {'Chance of success':<20} {float(odds.success):8.2%}\n")
    return 0


def _fight(args: argparse.Namespace, out: TextIO) -> int:
    from dicebound.edge.fight_command import show_fight
    from dicebound.fight import fight_view

    ruleset = read_ruleset(args.ruleset)
    party = [read_character(ruleset, c) for c in args.character]
    view = fight_view(ruleset, _read_fight(args.fight), party)
    show_fight(view, out, as_json=args.json)
    return 0


def _roll(args: argparse.Namespace, out: TextIO) -> int:
    from dicebound.throw import roll_json

    ruleset = read_ruleset(args.ruleset)
    body = roll_json(ruleset, args.dice, seed=args.seed if args.seed is not None else fresh_seed())
    if args.json:
        json.dump(body, out, indent=2, ensure_ascii=False)
        out.write("\n")
    else:
        out.write(f"{body['text']}\nSeed {body['seed']} (the same seed replays this throw)\n")
    return 0


def _gm(args: argparse.Namespace, out: TextIO) -> int:
    from dicebound.engine import ladder_in_force
    from dicebound.lesson import gm_lesson

    ruleset = read_ruleset(args.ruleset)
    ladder_in_force(ruleset, args.layer)  # an unknown layer is named before the character
    party = [read_character(ruleset, c) for c in args.character]
    character = party[0] if party else None
    text = gm_lesson(ruleset, layers=args.layer, character=character, party=party, skill=args.skill)
    out.write(text + "\n")
    return 0


def _schema(args: argparse.Namespace, out: TextIO) -> int:
    if args.output == "check":
        from dicebound.check_schema import check_json_schema

        schema = check_json_schema()
    else:
        from dicebound.compiler.schema import ruleset_json_schema

        schema = ruleset_json_schema()
    out.write(json.dumps(schema, indent=2, ensure_ascii=False) + "\n")
    return 0


def _report(args: argparse.Namespace, out: TextIO) -> int:
    from pathlib import Path

    from dicebound.render.html import report_html
    from dicebound.report import build_report, report_text

    ruleset = read_ruleset(args.ruleset)
    character = read_character(ruleset, args.character)
    report = build_report(ruleset, character, layers=args.layer)
    out.write(report_text(report) + "\n")
    if args.html is not None:
        try:
            Path(args.html).write_text(report_html(report), encoding="utf-8")
        except OSError as exc:
            raise UsageError(f'cannot write the page to "{args.html}": {exc.strerror}.') from exc
    return 0


def _rulesets(args: argparse.Namespace, out: TextIO) -> int:
    for ruleset_id in packaged_rulesets():
        out.write(f"{ruleset_id}\n")
    return 0


def _serve(args: argparse.Namespace, out: TextIO) -> int:
    from dicebound.edge.serve import serve

    limits = {
        flag[2:].replace("-", "_"): getattr(args, flag[2:].replace("-", "_"))
        for flag, _, _ in _SERVE_LIMITS
    }
    return serve(
        args.db,
        args.host,
        args.port,
        limits,
        workers=args.workers,
        http=args.http,
        pin=args.pin,
        log_form=args.log_format,
    )


def _mcp(args: argparse.Namespace, out: TextIO) -> int:
    from dicebound.edge.serve import mcp_stdio

    return mcp_stdio(args.db, args.game)


def _db(args: argparse.Namespace, out: TextIO) -> int:
    from dicebound.edge.serve import db_new_game, db_upgrade
    from dicebound.edge.store_commands import RUNNERS

    if args.db_command in RUNNERS:
        return RUNNERS[args.db_command](args, out)
    if args.db_command == "new-game":
        return db_new_game(args, out)
    return db_upgrade(args.db, out)


_RUNNERS: dict[str, Callable[[argparse.Namespace, TextIO], int]] = {
    "validate": _validate,
    "check": _check,
    "odds": _odds,
    "fight": _fight,
    "roll": _roll,
    "gm": _gm,
    "rulesets": _rulesets,
    "serve": _serve,
    "mcp": _mcp,
    "db": _db,
    "verify": _verify,
    "schema": _schema,
    "report": _report,
}
"""What runs each command (the parser names the same commands, in ``--help``'s order)."""


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the command line; returns the exit code."""
    out = out or sys.stdout
    given = list(sys.argv[1:] if argv is None else argv)
    only = given[0] if given and given[0] in _RUNNERS else None
    args = _parser(only).parse_args(given)
    try:
        return _RUNNERS[args.command](args, out)
    except (RulesetInvalid, CharacterInvalid) as exc:
        sys.stderr.write(f"dicebound: {exc}\n")
        return 1
    except UsageError as exc:
        sys.stderr.write(f"dicebound: {exc}\n")
        return 2
    except DiceboundError as exc:
        sys.stderr.write(f"dicebound: {exc}\n")
        return 1
    except BrokenPipeError:  # the reader went away (`| head`): nothing more to say
        sys.stderr.close()
        return 0
