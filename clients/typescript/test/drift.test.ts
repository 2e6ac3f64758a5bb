/**
 * The client cannot fall behind the API: the types are made again from a running
 * server's /openapi.json and must equal the committed src/openapi.ts. And the example
 * runs against that server as a platform would run it.
 */

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";

import { fetchDocument, GENERATED_FILE, typesOf } from "../scripts/types.js";
import { DiceboundServer, PACKAGE_ROOT } from "../harness/server.js";

describe("against a running server", () => {
  let server: DiceboundServer;

  before(async () => {
    server = await DiceboundServer.start();
  });
  after(async () => {
    await server?.close();
  });

  test("src/openapi.ts is what the server's /openapi.json makes (else: npm run generate)", async () => {
    const made = await typesOf(await fetchDocument(server.url));
    const committed = readFileSync(join(PACKAGE_ROOT, GENERATED_FILE), "utf8");
    if (made === committed) return;
    const want = made.split("\n");
    const have = committed.split("\n");
    const first = want.findIndex((line, i) => line !== have[i]);
    const around = (lines: string[]): string => lines.slice(Math.max(0, first - 3), first + 4).join("\n");
    assert.fail(
      `${GENERATED_FILE} has drifted from the service's /openapi.json at line ${first + 1}; ` +
        `run \`npm run generate\` and commit the result.\n--- the server makes:\n${around(want)}\n--- committed:\n${around(have)}`,
    );
  });

  test("examples/gm-turn.ts plays one Game Master turn", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(PACKAGE_ROOT, "build/examples/gm-turn.js")],
      {
        env: { ...process.env, DICEBOUND_URL: server.url, DICEBOUND_ADMIN_TOKEN: server.adminToken },
        timeout: 30_000,
      },
    );
    assert.match(stdout, /\[skill_check: skill="Stealth" dc="15" rolls="\d+"/);
    assert.match(stdout, /\[sheet: who="Bram Ironhand" op="damage" pool="Hit points" amount="4" result="ok"/);
    assert.match(stdout, /Stealth check — Mira Quickfoot\n {2}Dice {7}1d20: \d+/);
    assert.match(stdout, /Sheet command — Bram Ironhand/);
    assert.match(stdout, /What Bram's player saw, as it happened:\n {2}#\d+ record \d+: Mira Quickfoot rolled/);
    assert.match(stdout, /character Bram Ironhand is at revision 2: Hit points 24\/28/);
    assert.ok(!stdout.includes(server.adminToken));
  });
});
