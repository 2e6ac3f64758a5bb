/**
 * Fights through the client against a real `dicebound serve` on SQLite, on the packaged
 * fifth edition ruleset (its combat block and bestiary): getFight, fightOptions and
 * fightStep with forced faces, the step's Idempotency-Key, and a player's seat that may
 * act only for its own character on its own turn.
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { DiceboundError, newIdempotencyKey } from "../src/index.js";
import { DiceboundServer } from "../harness/server.js";
import { makeTable, type Table } from "../harness/table.js";

const BRAM = "Bram Ironhand";
const MIRA = "Mira Quickfoot";

describe("fights through the client", () => {
  let server: DiceboundServer;
  let table: Table;

  before(async () => {
    server = await DiceboundServer.start({ store: "sqlite" });
    table = await makeTable(server, "dnd5e-srd");
  });
  after(async () => {
    await server?.close();
  });

  test("getFight before any fight: nothing, revision 0", async () => {
    const { game, gm } = await makeTable(server, "dnd5e-srd");
    const none = await gm.getFight(game);
    assert.equal(none.fight, null);
    assert.equal(none.revision, 0);
    assert.equal(none.current, null);
  });

  test("a start, the menu with exact odds, a step sent twice with one key, the turn passed on", async () => {
    const started = await table.gm.fightStep(table.game, { op: "start", enemies: "Goblin", faces: [20, 10, 5] });
    assert.equal(started.ok, true);
    assert.match(started.tag, /now="initiative: Bram Ironhand \(20\)\+0=20, Mira Quickfoot \(10\)\+3=13, Goblin \(5\)\+2=7; round 1; turn: Bram Ironhand"/);

    const view = await table.gm.getFight(table.game);
    assert.equal(view.current?.who, BRAM);
    assert.deepEqual(view.fight?.["order"], ["bram-ironhand", "mira-quickfoot", "goblin"]);
    const attack = view.current?.options.find((o) => o["kind"] === "attack");
    assert.ok(attack !== undefined, "Bram has an attack on his menu");
    const odds = attack["odds"] as Record<string, { hit: string }>;
    assert.match(Object.values(odds)[0]?.hit ?? "", /^\d+\/\d+$/);

    const menu = await table.gm.fightOptions(table.game, MIRA);
    assert.equal(menu.who, MIRA);
    assert.deepEqual(menu.options, []); // not her turn

    const key = newIdempotencyKey();
    const ended = await table.gm.fightStep(table.game, { op: "end-turn", who: BRAM }, { idempotencyKey: key });
    const again = await table.gm.fightStep(table.game, { op: "end-turn", who: BRAM }, { idempotencyKey: key });
    assert.equal(ended.ok, true);
    assert.deepEqual(again, ended);
    const after = await table.gm.getFight(table.game);
    assert.equal(after.current?.who, MIRA);
    assert.equal(after.revision, view.revision + 1);
  });

  test("a player's seat acts for its own character on its own turn, and is refused otherwise", async () => {
    const { game, gm } = await makeTable(server, "dnd5e-srd");
    await gm.fightStep(game, { op: "start", enemies: "Goblin", faces: [20, 10, 5] });
    const mira = gm.withToken(await gm.makeSeat(game, MIRA));
    let refused: unknown;
    try {
      await mira.fightStep(game, { op: "end-turn", who: BRAM });
    } catch (error) {
      refused = error;
    }
    assert.ok(refused instanceof DiceboundError);
    assert.equal(refused.status, 403);
    await gm.fightStep(game, { op: "end-turn", who: BRAM });
    const own = await mira.fightStep(game, { op: "end-turn", who: MIRA });
    assert.equal(own.ok, true);
    assert.equal((await mira.getFight(game)).current?.who, "Goblin");
  });
});
