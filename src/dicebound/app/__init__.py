"""The application: what the service does, once per request, in one transaction.

No HTTP, no MCP and no SQL here. Each use case takes an open ``Session`` (one
transaction, opened by the caller through ``Store.write()`` or ``Store.read()``) and
the caller's ``Access``, reads and locks what it needs through the repository
(``dicebound.store.repo``), calls the pure core with values, and writes the outcome
back. A failure anywhere raises a ``Refusal`` (``app.errors``) before the caller
commits, so nothing is half written: no pool paid without its record, no record
without its payment. Each edge words a refusal in its own transport.

- ``errors``: the refusals, in words only (no status codes).
- ``access``: tokens, the admin token, the seat a token holds in a game, and the one
  table of what each seat may do (``RIGHTS``).
- ``limits``: every cap and its sentence; ``seeds``: the one rule for a seed.
- ``loaded``: stored rulesets compiled and characters loaded, once per process.
- ``rulesets``: storing and checking ruleset files; symbol dice by name.
- ``games``: games, their party and what the Game Master reads.
- ``characters``: character files and their live state.
- ``checks``: resolving a text's tags, paying and recording; idempotency.
- ``records``: the history, answers after the roll, cards and replays.
- ``events``: a game's events, written with each change and read for its streams.
- ``plain``: typed results as JSON values, for the edges and the events alike.
- ``seats``: players' seats, made, replaced and revoked.
- ``version``: the version that answers.

Choices where the service's contract is silent are in ``docs/service.md``; the layers,
transactions and locks in ``docs/design/store-and-service.md``.
"""
