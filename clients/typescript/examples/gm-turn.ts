/**
 * One Game Master turn, as a platform plays it through dicebound.
 *
 * The model's reply text goes in; its `[skill_check:]` tags and `[sheet:]` commands are
 * resolved in one request (dice thrown, sheets changed, records written); the text as
 * rewritten and each card in a player's words come out; and a second seat, the
 * player's, watches the game's events as they happen.
 *
 *     DICEBOUND_URL=http://127.0.0.1:8000 DICEBOUND_ADMIN_TOKEN=... npm run example
 *
 * With the admin token it makes a game of the packaged Fifth Edition SRD ruleset and
 * puts its two packaged characters; the model's reply may be given as the first
 * argument. In your own project, import from "dicebound-client" instead of
 * "../src/index.js".
 */

import { DiceboundClient, DiceboundError, type Card, type GameEvent } from "../src/index.js";

const baseUrl = process.env["DICEBOUND_URL"] ?? "http://127.0.0.1:8000";
const adminToken = process.env["DICEBOUND_ADMIN_TOKEN"];

/** What the model answered this turn (a platform would have it from its model). */
const reply =
  process.argv[2] ??
  "Mira slips toward the cellar door while the guard dozes. " +
    '[skill_check: skill="Stealth" dc="15" who="Mira Quickfoot"] ' +
    "Behind her, Bram treads on the hound's tail, and it bites. " +
    '[sheet: who="Bram Ironhand" op="damage" pool="Hit points" amount="4"]';

/** A card in a player's words: its `plain` lines, or its lines for a sheet command. */
function cardWords(card: Card): string {
  const lines = card.plain ?? card.lines;
  return [card.title, ...lines.map(([term = "", text = ""]) => `  ${term.padEnd(10)} ${text}`)].join("\n");
}

function describe(event: GameEvent): string {
  switch (event.event) {
    case "record":
      switch (event.data.kind) {
        case "check":
          return `record ${event.data.id}: ${event.data.who} rolled, ${event.data.outcome}`;
        case "sheet":
          return `record ${event.data.id}: sheet command on ${event.data.who}, ${event.data.ok ? `now ${event.data.now}` : `refused (${event.data.reason})`}`;
        default:
          return `record ${event.data.id}: a fight step${event.data.ok ? "" : `, refused (${event.data.reason})`}`;
      }
    case "answer":
      return `answer to record ${event.data.id}: ${event.data.outcome}`;
    case "character":
      return `character ${event.data.name} is at revision ${event.data.revision}: ${event.data.state.pools
        .map((pool) => `${pool.label} ${pool.value}/${pool.max}`)
        .join(", ")}`;
    case "seat":
      return `seat of ${event.data.character} ${event.data.made ? "made" : "revoked"}`;
    case "reload":
      return `reload: ${event.data.reason}`;
  }
}

async function main(): Promise<void> {
  if (adminToken === undefined) {
    throw new Error("set DICEBOUND_ADMIN_TOKEN (and DICEBOUND_URL) to run the example");
  }
  const admin = new DiceboundClient({ baseUrl, token: adminToken });

  // The table: a game, its party, the Game Master's client and a player's.
  const game = await admin.createGame({ name: "A turn at the Gilded Goose", ruleset: "dnd5e-srd" });
  const gm = admin.withToken(game.token);
  for (const character of await admin.packagedCharacters(game.ruleset)) {
    await gm.putCharacter(game.id, character.name, character.file);
  }
  const player = gm.withToken(await gm.makeSeat(game.id, "Bram Ironhand"));
  console.log(`game ${game.id} (${game.ruleset} v${game.version}); Bram's player is watching`);

  // The second seat watches the events, from the moment its stream is open.
  const watching = new AbortController();
  let open: () => void = () => {};
  const opened = new Promise<void>((done) => (open = done));
  const seen: GameEvent[] = [];
  let changed: () => void = () => {};
  const watcher = (async () => {
    for await (const event of player.events(game.id, { signal: watching.signal, onOpen: () => open() })) {
      seen.push(event);
      changed();
    }
  })();
  /** Resolves once `ready()` holds, looking again at each event. */
  const until = (ready: () => boolean): Promise<void> =>
    new Promise((done) => {
      const look = (): void => (ready() ? done() : void (changed = look));
      look();
    });
  await opened;

  // What the model is taught (its system prompt), then its reply resolved.
  const lesson = await gm.gm(game.id);
  console.log(`the Game Master's lesson: ${lesson.split("\n").length} lines for the model's prompt`);
  const answer = await gm.resolveChecks(game.id, { text: reply });
  const ids = [
    ...answer.results.map((result) => result.id),
    ...(answer.sheet ?? []).flatMap((command) => (command.id === null ? [] : [command.id])),
  ].sort((a, b) => a - b);

  console.log("\nThe text, rewritten:\n");
  console.log(answer.text);
  for (const error of answer.errors) console.log(`\nnot resolved: ${error.tag}: ${error.error}`);

  console.log("\nThe cards:\n");
  for (const id of ids) {
    console.log(cardWords(await gm.card(game.id, id)));
    console.log();
  }

  // Wait until the player's stream has shown every record, then stop watching.
  const shown = (id: number): boolean =>
    seen.some((event) => event.event === "record" && event.data.id === id);
  await Promise.race([
    until(() => ids.every(shown)),
    new Promise((_, fail) => setTimeout(() => fail(new Error("the events did not arrive within 10 s")), 10_000).unref()),
  ]);
  watching.abort();
  await watcher;
  console.log("What Bram's player saw, as it happened:");
  for (const event of seen) console.log(`  #${event.id} ${describe(event)}`);

  await admin.deleteGame(game.id);
}

main().catch((error: unknown) => {
  if (error instanceof DiceboundError) {
    console.error(`dicebound refused: ${error.message}`);
    for (const problem of error.problems) console.error(`  ${problem.path}: ${problem.message}`);
  } else {
    console.error(error);
  }
  process.exitCode = 1;
});
