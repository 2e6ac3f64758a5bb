/**
 * `npm run generate [-- URL]`: writes src/openapi.ts from a running dicebound's
 * /openapi.json, the server at URL or, without one, a `dicebound serve` started for it
 * (see harness/server.ts for the Python it runs).
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { DiceboundServer, PACKAGE_ROOT } from "../harness/server.js";
import { fetchDocument, GENERATED_FILE, typesOf } from "./types.js";

const given = process.argv[2];
const server = given === undefined ? await DiceboundServer.start() : undefined;
try {
  const source = await typesOf(await fetchDocument(given ?? server?.url ?? ""));
  writeFileSync(join(PACKAGE_ROOT, GENERATED_FILE), source);
  console.log(`wrote ${GENERATED_FILE} (${source.length} characters)`);
} finally {
  await server?.close();
}
