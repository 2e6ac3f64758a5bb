/**
 * Every method of DiceboundClient against a real `dicebound serve`, on an embedded
 * SQLite store and on PostgreSQL where one answers (one server per store, shared by
 * the tests of that store).
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { inspect } from "node:util";

import { DiceboundClient, DiceboundError, newIdempotencyKey, type CheckRecord } from "../src/index.js";
import { DiceboundServer, postgresAnswers, type StoreKind } from "../harness/server.js";
import { BOTCH, SPEND_MIND, makeTable, poolValue, type Table } from "../harness/table.js";

/** Runs `act`, which must throw a DiceboundError, and returns it. */
async function refusal(act: () => Promise<unknown>): Promise<DiceboundError> {
  try {
    await act();
  } catch (error) {
    assert.ok(error instanceof DiceboundError, `not a DiceboundError: ${String(error)}`);
    return error;
  }
  assert.fail("no error was thrown");
}

const STORES: readonly { store: StoreKind; skip: string | false }[] = [
  { store: "sqlite", skip: false },
  {
    store: "postgresql",
    skip: postgresAnswers() ? false : "no PostgreSQL answers on 127.0.0.1:5432",
  },
];

for (const { store, skip } of STORES) {
  describe(`the client on ${store}`, { skip }, () => {
    let server: DiceboundServer;
    let table: Table;

    before(async () => {
      server = await DiceboundServer.start({ store });
      table = await makeTable(server);
    });
    after(async () => {
      await server?.close();
    });

    test("health and the rulesets, without a token", async () => {
      const open = new DiceboundClient({ baseUrl: server.url });
      const health = await open.health();
      assert.equal(health.ok, true);
      assert.equal(health.store, store);
      const rulesets = await open.listRulesets();
      assert.ok(rulesets.some((r) => r.id === "advanced-resolution" && r.packaged));
      const file = await open.getRuleset("advanced-resolution", { version: 1 });
      assert.equal(file["id"], "advanced-resolution");
      const characters = await open.packagedCharacters("advanced-resolution");
      assert.deepEqual(
        characters.map((c) => c.name),
        ["Maud Harrowgate", "Sneeky Peet"],
      );
    });

    test("uploadRuleset: made once, the same content again is not new, a game's token is refused", async () => {
      const file = await table.admin.getRuleset("lasers-feelings");
      const copy = { ...file, id: `client-copy-${store}` };
      const first = await table.admin.uploadRuleset(copy);
      assert.deepEqual(first, { id: `client-copy-${store}`, version: first.version, made: true });
      assert.equal((await table.admin.uploadRuleset(copy)).made, false);
      const refused = await refusal(() => table.gm.uploadRuleset(copy));
      assert.equal(refused.status, 403);
    });

    test("games: made, listed, read, deleted", async () => {
      const made = await table.admin.createGame({ name: "to delete", ruleset: "pbta-2d6" });
      assert.match(made.token, /^dbg_/);
      const listed = await table.admin.listGames();
      assert.ok(listed.some((g) => g.id === made.id));
      const own = await table.admin.withToken(made.token).listGames();
      assert.deepEqual(
        own.map((g) => [g.id, g.seat.kind]),
        [[made.id, "game-master"]],
      );
      const read = await table.admin.getGame(made.id);
      assert.equal(read.name, "to delete");
      assert.deepEqual(read.characters, []);
      await table.admin.deleteGame(made.id);
      const gone = await refusal(() => table.admin.getGame(made.id));
      assert.equal(gone.status, 404);
    });

    test("characters: put (new, then replaced), read, patched with the revision, the party", async () => {
      const [maud] = await table.admin.packagedCharacters("advanced-resolution");
      assert.ok(maud !== undefined);
      const again = await table.gm.putCharacter(table.game, maud.name, maud.file);
      assert.equal(again.made, false);
      assert.equal(again.name, "Maud Harrowgate");
      const read = await table.gm.getCharacter(table.game, maud.name);
      assert.equal(read.revision, again.revision);
      const patched = await table.gm.patchLive(
        table.game,
        maud.name,
        { pools: { mind: 7 } },
        read.revision,
      );
      assert.equal(patched.revision, read.revision + 1);
      assert.equal(await poolValue(table.gm, table.game, maud.name, "mind"), 7);
      const stale = await refusal(() =>
        table.gm.patchLive(table.game, maud.name, { pools: { mind: 6 } }, read.revision),
      );
      assert.equal(stale.status, 412);
      const party = await table.gm.party(table.game);
      assert.deepEqual(
        party.map((m) => m.name),
        ["Maud Harrowgate", "Sneeky Peet"],
      );
    });

    test("a character refused field by field carries its problems", async () => {
      const refused = await refusal(() =>
        table.gm.putCharacter(table.game, "Nobody", { name: "Nobody", build: {} }),
      );
      assert.equal(refused.status, 422);
      assert.equal(refused.title, "Unprocessable request");
      assert.ok(refused.problems.length > 0);
      assert.ok(refused.problems.every((p) => p.path !== "" && p.code !== "" && p.message !== ""));
      assert.match(refused.message, /^PUT \/games\/[^ ]+\/characters\/Nobody: 422 /);
    });

    test("gm, report, odds and roll", async () => {
      const lesson = await table.gm.gm(table.game);
      assert.match(lesson, /skill_check/);
      const own = await table.gm.gm(table.game, { character: "Sneeky Peet" });
      assert.notEqual(own, lesson);
      const report = await table.gm.report(table.game, { character: "Sneeky Peet" });
      assert.ok(Array.isArray(report.steps) && report.steps.length > 0);
      const odds = await table.gm.odds(table.game, {
        tag: 'skill="Lockpick" difficulty="Uncommon"',
        who: "Sneeky Peet",
      });
      assert.ok(odds.outcomes.length > 0);
      const open = new DiceboundClient({ baseUrl: server.url });
      const rolled = await open.roll({ ruleset: "genesys", dice: "2 ability 1 difficulty", seed: 7 });
      assert.equal(rolled.seed, "7");
      assert.deepEqual(await open.roll({ ruleset: "genesys", dice: "2 ability 1 difficulty", seed: 7 }), rolled);
    });

    test("resolveChecks, answerAfter (a raise, then the Sacrifice's choice), verify, the card", async () => {
      const answer = await table.gm.resolveChecks(table.game, BOTCH);
      const [result] = answer.results;
      assert.ok(result !== undefined);
      assert.equal(result.outcome, "Botch");
      assert.deepEqual(answer.errors, []);
      assert.deepEqual(answer.sheet, []);
      const luck = await poolValue(table.gm, table.game, "Sneeky Peet", "luck");
      const raised = await table.gm.answerAfter(table.game, result.id, { pool: "luck", points: 5 });
      assert.equal(raised.choice, "open");
      assert.equal(raised.paid.length, 1);
      const chosen = await table.gm.answerAfter(table.game, result.id, { choose: "succeed" });
      assert.equal(chosen.choice, "succeed");
      assert.equal(await poolValue(table.gm, table.game, "Sneeky Peet", "luck"), luck - 5);
      const twice = await refusal(() => table.gm.answerAfter(table.game, result.id, { choose: "fail" }));
      assert.equal(twice.status, 409);
      assert.deepEqual(await table.gm.verify(table.game, result.id), { verified: true, differences: [] });
      const card = await table.gm.card(table.game, result.id);
      assert.equal(card.shape, "step");
      assert.ok(card.plain?.some(([term]) => term === "Dice"));
      const record = (await table.gm.getRecord(table.game, result.id)) as CheckRecord;
      assert.equal(record.kind, "check");
      assert.equal(record.choice, "succeed");
    });

    test("records: one page, and every record page after page", async () => {
      const { game, gm } = await makeTable(server);
      const ids: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const answer = await gm.resolveChecks(game, { ...BOTCH });
        ids.push(...answer.results.map((r) => r.id));
      }
      const page = await gm.recordPage(game, { limit: 2 });
      assert.deepEqual(
        page.records.map((r) => r.id),
        ids.slice(-2).reverse(),
      );
      assert.equal(page.next, ids.at(-2));
      const all: number[] = [];
      for await (const record of gm.records(game, { limit: 2 })) all.push(record.id);
      assert.deepEqual(all, [...ids].reverse());
      const older: number[] = [];
      for await (const record of gm.records(game, { before: ids[2] ?? 0, limit: 100 })) older.push(record.id);
      assert.deepEqual(older, ids.slice(0, 2).reverse());
    });

    test("a check's Idempotency-Key: the same key answers the same and pays once; another body is refused", async () => {
      const key = newIdempotencyKey();
      const mind = await poolValue(table.gm, table.game, "Sneeky Peet", "mind");
      const first = await table.gm.resolveChecks(table.game, SPEND_MIND, { idempotencyKey: key });
      const again = await table.gm.resolveChecks(table.game, SPEND_MIND, { idempotencyKey: key });
      assert.deepEqual(again, first);
      assert.equal(await poolValue(table.gm, table.game, "Sneeky Peet", "mind"), mind - 1);
      const other = await refusal(() =>
        table.gm.resolveChecks(table.game, { text: `${SPEND_MIND.text} Again.` }, { idempotencyKey: key }),
      );
      assert.equal(other.status, 422);
    });

    test("a check whose answer was lost is sent again with its key, and pays once", async () => {
      const keys: (string | null)[] = [];
      let lost = 0;
      const losing = new DiceboundClient({
        baseUrl: server.url,
        token: table.gmToken,
        fetch: async (request) => {
          const answer = await fetch(request);
          if (request.url.endsWith("/checks")) {
            keys.push(request.headers.get("idempotency-key"));
            if (lost === 0) {
              // the service committed and answered; the answer never reaches the caller
              lost += 1;
              await answer.arrayBuffer();
              throw new TypeError("fetch failed", { cause: new Error("socket hang up") });
            }
          }
          return answer;
        },
      });
      const mind = await poolValue(table.gm, table.game, "Sneeky Peet", "mind");
      const before = (await table.gm.recordPage(table.game, { limit: 1 })).records[0]?.id ?? 0;
      const answer = await losing.resolveChecks(table.game, SPEND_MIND);
      assert.equal(keys.length, 2);
      assert.ok(keys[0] !== null && keys[0] === keys[1]);
      assert.equal(answer.sheet?.[0]?.ok, true);
      assert.equal(await poolValue(table.gm, table.game, "Sneeky Peet", "mind"), mind - 1);
      const made = (await table.gm.recordPage(table.game, { limit: 10 })).records.filter((r) => r.id > before);
      assert.equal(made.length, 1);
    });

    test("seats: a player's token reads its game, may not resolve checks, stops when revoked", async () => {
      const token = await table.gm.makeSeat(table.game, "Sneeky Peet");
      assert.match(token, /^dbp_/);
      const player = table.gm.withToken(token);
      assert.equal((await player.getGame(table.game)).id, table.game);
      const [entry] = await player.listGames();
      assert.deepEqual(entry?.seat, { kind: "player", character: "Sneeky Peet" });
      const forbidden = await refusal(() => player.resolveChecks(table.game, SPEND_MIND));
      assert.equal(forbidden.status, 403);
      assert.match(forbidden.detail, /player's seat/);
      await table.gm.revokeSeat(table.game, "Sneeky Peet");
      const gone = await refusal(() => player.getGame(table.game));
      assert.equal(gone.status, 404);
      const none = await refusal(() => table.gm.revokeSeat(table.game, "Sneeky Peet"));
      assert.equal(none.status, 404);
    });

    test("rotateToken: the new token works, the old one stops at once", async () => {
      const { game, gm, gmToken } = await makeTable(server, "pbta-2d6");
      const fresh = gm.withToken(await gm.rotateToken(game));
      assert.equal((await fresh.getGame(game)).id, game);
      const old = await refusal(() => gm.getGame(game));
      assert.equal(old.status, 404);
      assert.ok(!old.message.includes(gmToken));
    });

    test("no token appears in an error, whatever it holds", async () => {
      const secret = "dbg_thisIsNotARealTokenButLooksLikeOne0123456789";
      const stranger = new DiceboundClient({ baseUrl: server.url, token: secret, retries: 0 });
      const errors = [
        await refusal(() => stranger.getGame(table.game)),
        await refusal(() => stranger.listGames()),
        await refusal(() => stranger.resolveChecks(table.game, SPEND_MIND)),
        await refusal(() =>
          new DiceboundClient({ baseUrl: "http://127.0.0.1:9", token: secret, retries: 0 }).getGame("x"),
        ),
      ];
      assert.deepEqual(
        errors.map((e) => e.status),
        [404, 401, 404, 0],
      );
      for (const error of errors) {
        for (const text of [error.message, error.stack ?? "", inspect(error, { depth: 9 }), JSON.stringify(error)]) {
          assert.ok(!text.includes(secret), `the token is in: ${text}`);
          assert.ok(!text.includes(table.gmToken));
        }
      }
      const unanswered = errors[3];
      assert.equal(unanswered?.title, "No answer");
      assert.equal(unanswered?.isRetryable, true);
    });
  });
}
