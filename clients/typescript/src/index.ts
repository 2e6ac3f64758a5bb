/**
 * dicebound-client: a typed client for dicebound's HTTP API.
 *
 * ```ts
 * import { DiceboundClient } from "dicebound-client";
 * const client = new DiceboundClient({ baseUrl: "http://127.0.0.1:8000", token });
 * const answer = await client.resolveChecks(game, { text });
 * for await (const event of client.events(game)) console.log(event.event, event.id);
 * ```
 */

export {
  DiceboundClient,
  newIdempotencyKey,
  type AfterIn,
  type AfterOut,
  type AnyRecord,
  type CallOptions,
  type Card,
  type Character,
  type CharacterFile,
  type CharacterStored,
  type CheckIn,
  type CheckOptions,
  type CheckOut,
  type CheckRecord,
  type Fight,
  type FightIn,
  type FightMenu,
  type FightRecord,
  type FightStep,
  type ClientOptions,
  type Game,
  type GameEntry,
  type GameIn,
  type GameMade,
  type Health,
  type Live,
  type LivePatch,
  type Odds,
  type OddsIn,
  type PackagedCharacter,
  type Party,
  type PartyMember,
  type RecordPage,
  type RecordsOptions,
  type Report,
  type Roll,
  type RollIn,
  type RulesetEntry,
  type RulesetFile,
  type RulesetStored,
  type Schemas,
  type SheetRecord,
  type Verified,
} from "./client.js";
export { DiceboundError, type Problem, type ProblemDocument } from "./errors.js";
export {
  parseEventStream,
  type AnswerEvent,
  type CharacterEvent,
  type EventsOptions,
  type GameEvent,
  type RawEvent,
  type ReconnectInfo,
  type RecordEvent,
  type ReloadEvent,
  type SeatEvent,
} from "./events.js";
export type { components, operations, paths } from "./openapi.js";
export type { RetryInfo } from "./retry.js";
