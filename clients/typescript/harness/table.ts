/** A game to test with: made by the admin, with the packaged characters of its ruleset
 * put by its game master. */

import { DiceboundClient } from "../src/index.js";
import type { DiceboundServer } from "./server.js";

export interface Table {
  readonly admin: DiceboundClient;
  readonly gm: DiceboundClient;
  readonly game: string;
  readonly gmToken: string;
}

/** Advanced Resolution by default: Maud Harrowgate and Sneeky Peet, whose step-pool
 * checks leave a raise open to answer after the roll. */
export async function makeTable(
  server: DiceboundServer,
  ruleset = "advanced-resolution",
): Promise<Table> {
  const admin = new DiceboundClient({ baseUrl: server.url, token: server.adminToken });
  const made = await admin.createGame({ name: `client test ${ruleset}`, ruleset });
  const gm = admin.withToken(made.token);
  for (const character of await admin.packagedCharacters(ruleset)) {
    await gm.putCharacter(made.id, character.name, character.file);
  }
  return { admin, gm, game: made.id, gmToken: made.token };
}

/** The value of a character's pool, as the party view reads it. */
export async function poolValue(
  client: DiceboundClient,
  game: string,
  character: string,
  pool: string,
): Promise<number> {
  const member = (await client.party(game)).find((m) => m.name === character);
  const found = member?.state.pools.find((p) => p.key === pool);
  if (found === undefined) throw new Error(`${character} has no pool ${pool}`);
  return found.value;
}

/** A Lockpick check whose forced faces (all ones) make a Botch with a raise on offer. */
export const BOTCH = {
  text: 'Peet works the lock. [skill_check: skill="Lockpick" difficulty="Uncommon" quality="agility" tool="1" who="Sneeky Peet"]',
  faces: [1, 1, 1],
};

/** A text that pays one point of Sneeky Peet's Mind. */
export const SPEND_MIND = {
  text: 'Peet keeps his nerve. [sheet: who="Sneeky Peet" op="spend" pool="mind" amount="1"]',
};
