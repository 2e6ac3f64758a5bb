/**
 * `DiceboundClient`: dicebound's HTTP API in camelCase methods with typed answers.
 *
 * Every call goes through openapi-fetch, typed by the `paths` generated from the
 * service's /openapi.json (`src/openapi.ts`); this layer adds what the document cannot
 * say: the token, retries after 429 and 503, an `Idempotency-Key` for each check,
 * the records' pages and the event stream as async iterators, and one error class.
 */

import createClient, { type Client } from "openapi-fetch";

import { DiceboundError, errorFromAnswer, errorFromFailure } from "./errors.js";
import { gameEvents, type EventsOptions, type GameEvent } from "./events.js";
import type { components, paths } from "./openapi.js";
import { DEFAULT_RETRY, retryingFetch, type Fetch, type RetryInfo } from "./retry.js";

/** Every schema of the service's OpenAPI document, by its name there. */
export type Schemas = components["schemas"];

export type Health = Schemas["HealthOut"];
export type RulesetEntry = Schemas["RulesetEntry"];
export type RulesetStored = Schemas["RulesetStored"];
export type PackagedCharacter = Schemas["PackagedCharacter"];
export type GameIn = Schemas["GameIn"];
export type GameMade = Schemas["GameMade"];
export type GameEntry = Schemas["GameEntry"];
export type Game = Schemas["GameOut"];
export type Character = Schemas["CharacterOut"];
export type CharacterStored = Schemas["CharacterStored"];
export type LivePatch = Schemas["LivePatch"];
export type Live = Schemas["LiveOut"];
export type Party = Schemas["PartyOut"];
export type PartyMember = Schemas["PartyMember"];
export type CheckIn = Schemas["CheckIn"];
export type CheckOut = Schemas["CheckOut"];
export type CheckRecord = Schemas["RecordOut"];
export type SheetRecord = Schemas["SheetRecordOut"];
export type FightRecord = Schemas["FightRecordOut"];
/** A record: a check's (`kind: "check"`), a sheet command's (`kind: "sheet"`) or a fight step's (`kind: "fight"`). */
export type AnyRecord = CheckRecord | SheetRecord | FightRecord;
export type RecordPage = Schemas["RecordPage"];
export type AfterIn = Schemas["AfterIn"];
export type AfterOut = Schemas["AfterOut"];
export type Verified = Schemas["VerifyOut"];
export type Card = Schemas["CardOut"];
export type OddsIn = Schemas["OddsIn"];
export type Odds = Schemas["OddsOut"];
export type RollIn = Schemas["RollIn"];
export type Roll = Schemas["RollOut"];
export type Report = Schemas["ReportOut"];
export type FightIn = Schemas["FightIn"];
export type Fight = Schemas["FightOut"];
export type FightMenu = Schemas["FightMenuOut"];
export type FightStep = Schemas["FightStepDone"];

/** A character file (docs/design/format.md "Characters"): JSON the service judges. */
export type CharacterFile = Record<string, unknown>;
/** A ruleset file (docs/design/format.md): JSON the service judges. */
export type RulesetFile = Record<string, unknown>;

export interface ClientOptions {
  /** The service's address, such as `http://127.0.0.1:8000`. */
  readonly baseUrl: string;
  /** The admin's, a game master's or a player's token; none for the open routes. */
  readonly token?: string;
  /** Retries after the first attempt on 429, 503 or no answer (default 3; 0: none). */
  readonly retries?: number;
  /** The longest `Retry-After` waited out, in seconds (default 30). */
  readonly maxRetryWaitSeconds?: number;
  /** Told before each retry: what failed and how long the client waits. */
  readonly onRetry?: (info: RetryInfo) => void;
  /** The `fetch` to send requests with (default: the global one). */
  readonly fetch?: Fetch;
}

/** Options every call takes. */
export interface CallOptions {
  /** Aborts the request (and any wait before a retry). */
  readonly signal?: AbortSignal;
}

export interface CheckOptions extends CallOptions {
  /** The request's `Idempotency-Key`; by default one is made for this call and sent
   * again on its retries. Pass your own (see `newIdempotencyKey`) to send the same
   * check again later, from another process even: the service answers what it
   * answered the first time and pays nothing twice. */
  readonly idempotencyKey?: string;
}

export interface RecordsOptions extends CallOptions {
  /** Start below this record id (newest first). */
  readonly before?: number;
  /** Records per page (1 to 100; default 20). */
  readonly limit?: number;
}

/** A fresh `Idempotency-Key`: a random UUID. */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

interface Answered<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly response: Response;
}

/** Where an error's sentence names the request: method and path template. */
type Where = readonly [method: string, path: string];

export class DiceboundClient {
  /** The openapi-fetch client underneath, typed by `paths`, with the same token and
   * retries: for a route this class has no method for. */
  readonly raw: Client<paths>;
  readonly baseUrl: string;
  private readonly token: string | undefined;
  private readonly options: ClientOptions;
  private readonly send: Fetch;

  constructor(options: ClientOptions) {
    this.options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.token = options.token;
    const fetchOne: Fetch = options.fetch ?? ((request) => globalThis.fetch(request));
    this.send = retryingFetch(fetchOne, {
      ...DEFAULT_RETRY,
      ...(options.retries === undefined ? {} : { retries: options.retries }),
      ...(options.maxRetryWaitSeconds === undefined
        ? {}
        : { maxWaitSeconds: options.maxRetryWaitSeconds }),
      onRetry: options.onRetry,
    });
    this.raw = createClient<paths>({
      baseUrl: this.baseUrl,
      fetch: this.send,
      headers: this.token === undefined ? {} : { Authorization: `Bearer ${this.token}` },
    });
  }

  /** The same client with another token (a player's seat, a rotated game token). */
  withToken(token: string): DiceboundClient {
    return new DiceboundClient({ ...this.options, token });
  }

  private get tokens(): readonly string[] {
    return this.token === undefined ? [] : [this.token];
  }

  /** The answer's data, or the refusal thrown as a `DiceboundError`. */
  private async call<T>(where: Where, sent: () => Promise<Answered<T>>): Promise<{ data: T; response: Response }> {
    let answer: Answered<T>;
    try {
      answer = await sent();
    } catch (failure) {
      if (failure instanceof DOMException && failure.name === "AbortError") throw failure;
      throw errorFromFailure(failure, where[0], `${this.baseUrl}${where[1]}`, this.tokens);
    }
    if (!answer.response.ok) {
      throw errorFromAnswer(answer.response, answer.error, where[0], this.tokens, where[1]);
    }
    return { data: answer.data as T, response: answer.response };
  }

  private async data<T>(where: Where, sent: () => Promise<Answered<T>>): Promise<T> {
    return (await this.call(where, sent)).data;
  }

  // The service

  /** `GET /health`: the service and its store answer. */
  health(options: CallOptions = {}): Promise<Health> {
    return this.data(["GET", "/health"], () => this.raw.GET("/health", { ...options }));
  }

  // Rulesets (no token needed to read)

  /** `GET /rulesets`: the packaged rulesets and those uploaded. */
  listRulesets(options: CallOptions = {}): Promise<RulesetEntry[]> {
    return this.data(["GET", "/rulesets"], () => this.raw.GET("/rulesets", { ...options }));
  }

  /** `GET /rulesets/{id}`: the ruleset file as uploaded, the newest version unless
   * `version` is given. */
  async getRuleset(
    id: string,
    query: { version?: number } = {},
    options: CallOptions = {},
  ): Promise<RulesetFile> {
    const file = await this.data(["GET", "/rulesets/{ruleset_id}"], () =>
      this.raw.GET("/rulesets/{ruleset_id}", {
        params: { path: { ruleset_id: id }, query },
        ...options,
      }),
    );
    return file as RulesetFile;
  }

  /** `POST /rulesets` (admin): stores a ruleset version; `made` is false when the same
   * content was stored already. */
  async uploadRuleset(
    file: RulesetFile,
    options: CallOptions = {},
  ): Promise<RulesetStored & { made: boolean }> {
    const { data, response } = await this.call(["POST", "/rulesets"], () =>
      this.raw.POST("/rulesets", { body: file, ...options }),
    );
    return { ...data, made: response.status === 201 };
  }

  /** `GET /rulesets/{id}/characters`: the characters packaged with a ruleset. */
  packagedCharacters(id: string, options: CallOptions = {}): Promise<PackagedCharacter[]> {
    return this.data(["GET", "/rulesets/{ruleset_id}/characters"], () =>
      this.raw.GET("/rulesets/{ruleset_id}/characters", {
        params: { path: { ruleset_id: id } },
        ...options,
      }),
    );
  }

  // Games

  /** `GET /games`: the games this token may see, each with whose seat it holds. */
  listGames(options: CallOptions = {}): Promise<GameEntry[]> {
    return this.data(["GET", "/games"], () => this.raw.GET("/games", { ...options }));
  }

  /** `POST /games` (admin): a game pinned to a ruleset version; its token is in the
   * answer, and only there. */
  createGame(game: GameIn, options: CallOptions = {}): Promise<GameMade> {
    return this.data(["POST", "/games"], () => this.raw.POST("/games", { body: game, ...options }));
  }

  /** `GET /games/{game}`: the game, its ruleset version, layers and characters. */
  getGame(game: string, options: CallOptions = {}): Promise<Game> {
    return this.data(["GET", "/games/{game}"], () =>
      this.raw.GET("/games/{game}", { params: { path: { game } }, ...options }),
    );
  }

  /** `DELETE /games/{game}` (admin): the game and everything it holds. */
  async deleteGame(game: string, options: CallOptions = {}): Promise<void> {
    await this.call(["DELETE", "/games/{game}"], () =>
      this.raw.DELETE("/games/{game}", { params: { path: { game } }, ...options }),
    );
  }

  /** `POST /games/{game}/token`: a new game-master token; the old one stops at once.
   * Use it with `withToken`. */
  async rotateToken(game: string, options: CallOptions = {}): Promise<string> {
    const { token } = await this.data(["POST", "/games/{game}/token"], () =>
      this.raw.POST("/games/{game}/token", { params: { path: { game } }, ...options }),
    );
    return token;
  }

  /** `GET /games/{game}/gm`: what `dicebound gm` prints, for the model's prompt; with
   * `character`, that character's chance at every step. */
  async gm(
    game: string,
    query: { character?: string; skill?: string } = {},
    options: CallOptions = {},
  ): Promise<string> {
    const { text } = await this.data(["GET", "/games/{game}/gm"], () =>
      this.raw.GET("/games/{game}/gm", { params: { path: { game }, query }, ...options }),
    );
    return text;
  }

  /** `GET /games/{game}/party`: every character's live state, as stored and as numbers. */
  async party(game: string, options: CallOptions = {}): Promise<PartyMember[]> {
    const { characters } = await this.data(["GET", "/games/{game}/party"], () =>
      this.raw.GET("/games/{game}/party", { params: { path: { game } }, ...options }),
    );
    return characters;
  }

  /** `GET /games/{game}/report`: every check of a character at every ladder step. */
  report(game: string, query: { character?: string } = {}, options: CallOptions = {}): Promise<Report> {
    return this.data(["GET", "/games/{game}/report"], () =>
      this.raw.GET("/games/{game}/report", { params: { path: { game }, query }, ...options }),
    );
  }

  // Characters

  /** `PUT /games/{game}/characters/{name}`: puts a character file; `made` says whether
   * it is new (201) or replaced one (200). */
  async putCharacter(
    game: string,
    name: string,
    file: CharacterFile,
    options: CallOptions = {},
  ): Promise<CharacterStored & { made: boolean }> {
    const { data, response } = await this.call(["PUT", "/games/{game}/characters/{name}"], () =>
      this.raw.PUT("/games/{game}/characters/{name}", {
        params: { path: { game, name } },
        body: file,
        ...options,
      }),
    );
    return { ...data, made: response.status === 201 };
  }

  /** `GET /games/{game}/characters/{name}`: the sheet, the live state and the revision
   * a patch must name. */
  getCharacter(game: string, name: string, options: CallOptions = {}): Promise<Character> {
    return this.data(["GET", "/games/{game}/characters/{name}"], () =>
      this.raw.GET("/games/{game}/characters/{name}", {
        params: { path: { game, name } },
        ...options,
      }),
    );
  }

  /** `PATCH /games/{game}/characters/{name}/live`: changes the live state, if it is
   * still at `revision` (else a 412 `DiceboundError`: read it again). */
  patchLive(
    game: string,
    name: string,
    patch: LivePatch,
    revision: number,
    options: CallOptions = {},
  ): Promise<Live> {
    return this.data(["PATCH", "/games/{game}/characters/{name}/live"], () =>
      this.raw.PATCH("/games/{game}/characters/{name}/live", {
        params: { path: { game, name }, header: { "if-match": String(revision) } },
        body: patch,
        ...options,
      }),
    );
  }

  // Checks and records

  /**
   * `POST /games/{game}/checks`: resolves a text's `[skill_check:]` tags and
   * `[sheet:]` commands in order, in one transaction. An `Idempotency-Key` is sent
   * (made here unless given), and the same one on every retry, so a check is thrown
   * and paid once however often it is sent.
   */
  resolveChecks(game: string, check: CheckIn, options: CheckOptions = {}): Promise<CheckOut> {
    const { idempotencyKey = newIdempotencyKey(), ...rest } = options;
    return this.data(["POST", "/games/{game}/checks"], () =>
      this.raw.POST("/games/{game}/checks", {
        params: { path: { game }, header: { "idempotency-key": idempotencyKey } },
        body: check,
        ...rest,
      }),
    );
  }

  /** `GET /games/{game}/records`: one page, newest first; `next` is the `before` of
   * the following page (null on the last). */
  recordPage(game: string, query: RecordsOptions = {}): Promise<RecordPage> {
    const { signal, ...page } = query;
    return this.data(["GET", "/games/{game}/records"], () =>
      this.raw.GET("/games/{game}/records", {
        params: { path: { game }, query: page },
        ...(signal === undefined ? {} : { signal }),
      }),
    );
  }

  /** Every record of the game, newest first, page after page:
   * `for await (const record of client.records(game)) ...`. */
  async *records(game: string, query: RecordsOptions = {}): AsyncGenerator<AnyRecord, void, undefined> {
    let before = query.before;
    for (;;) {
      const page = await this.recordPage(game, {
        ...query,
        ...(before === undefined ? {} : { before }),
      });
      yield* page.records;
      if (page.next === null || page.records.length === 0) return;
      before = page.next;
    }
  }

  /** `GET /games/{game}/records/{id}`: a check's record or a sheet command's. */
  getRecord(game: string, id: number, options: CallOptions = {}): Promise<AnyRecord> {
    return this.data(["GET", "/games/{game}/records/{record_id}"], () =>
      this.raw.GET("/games/{game}/records/{record_id}", {
        params: { path: { game, record_id: id } },
        ...options,
      }),
    );
  }

  /** `POST /games/{game}/records/{id}/after`: the player's answer to an offer (a raise:
   * `{pool, points}`; a Sacrifice: `{choose}`), accepted once; the record as it now
   * reads and what was `paid`. */
  answerAfter(game: string, id: number, answer: AfterIn, options: CallOptions = {}): Promise<AfterOut> {
    return this.data(["POST", "/games/{game}/records/{record_id}/after"], () =>
      this.raw.POST("/games/{game}/records/{record_id}/after", {
        params: { path: { game, record_id: id } },
        body: answer,
        ...options,
      }),
    );
  }

  /** `GET /games/{game}/records/{id}/verify`: replays the record; `verified` and the
   * `differences` found. */
  verify(game: string, id: number, options: CallOptions = {}): Promise<Verified> {
    return this.data(["GET", "/games/{game}/records/{record_id}/verify"], () =>
      this.raw.GET("/games/{game}/records/{record_id}/verify", {
        params: { path: { game, record_id: id } },
        ...options,
      }),
    );
  }

  /** `GET /games/{game}/records/{id}/card`: the dice card, with its lines in a
   * player's words (`plain`) for a check. */
  card(game: string, id: number, options: CallOptions = {}): Promise<Card> {
    return this.data(["GET", "/games/{game}/records/{record_id}/card"], () =>
      this.raw.GET("/games/{game}/records/{record_id}/card", {
        params: { path: { game, record_id: id } },
        ...options,
      }),
    );
  }

  /** `POST /games/{game}/odds`: the exact chance of every outcome of one tag. */
  odds(game: string, ask: OddsIn, options: CallOptions = {}): Promise<Odds> {
    return this.data(["POST", "/games/{game}/odds"], () =>
      this.raw.POST("/games/{game}/odds", { params: { path: { game } }, body: ask, ...options }),
    );
  }

  /** `POST /roll` (no token needed): dice thrown with a ruleset's dice. */
  roll(ask: RollIn, options: CallOptions = {}): Promise<Roll> {
    return this.data(["POST", "/roll"], () => this.raw.POST("/roll", { body: ask, ...options }));
  }

  // Fights

  /** `GET /games/{game}/fight`: the game's fight (null before its first), its
   * summary, whose turn it is with their options (each with its forecast and exact
   * odds) and the open window. */
  getFight(game: string, options: CallOptions = {}): Promise<Fight> {
    return this.data(["GET", "/games/{game}/fight"], () =>
      this.raw.GET("/games/{game}/fight", { params: { path: { game } }, ...options }),
    );
  }

  /** `GET /games/{game}/fight/options?who=`: one combatant's options now (empty off
   * its turn), each with its forecast and exact odds. */
  fightOptions(game: string, who: string, options: CallOptions = {}): Promise<FightMenu> {
    return this.data(["GET", "/games/{game}/fight/options"], () =>
      this.raw.GET("/games/{game}/fight/options", {
        params: { path: { game }, query: { who } },
        ...options,
      }),
    );
  }

  /**
   * `POST /games/{game}/fight`: one step of the fight (`start`, `act`, `pass`,
   * `end-turn`, `flee`, `end`), recorded, in one transaction; a refused step answers
   * `ok: false` with its reason. An `Idempotency-Key` is sent (made here unless given)
   * and the same one on every retry, so a step is played once however often it is sent.
   */
  fightStep(game: string, step: FightIn, options: CheckOptions = {}): Promise<FightStep> {
    const { idempotencyKey = newIdempotencyKey(), ...rest } = options;
    return this.data(["POST", "/games/{game}/fight"], () =>
      this.raw.POST("/games/{game}/fight", {
        params: { path: { game }, header: { "idempotency-key": idempotencyKey } },
        body: step,
        ...rest,
      }),
    );
  }

  // Seats

  /** `POST /games/{game}/characters/{name}/seat`: that character's player token (a new
   * one replaces the old). Use it with `withToken`. */
  async makeSeat(game: string, name: string, options: CallOptions = {}): Promise<string> {
    const { token } = await this.data(["POST", "/games/{game}/characters/{name}/seat"], () =>
      this.raw.POST("/games/{game}/characters/{name}/seat", {
        params: { path: { game, name } },
        ...options,
      }),
    );
    return token;
  }

  /** `DELETE /games/{game}/characters/{name}/seat`: the player's token stops at once. */
  async revokeSeat(game: string, name: string, options: CallOptions = {}): Promise<void> {
    await this.call(["DELETE", "/games/{game}/characters/{name}/seat"], () =>
      this.raw.DELETE("/games/{game}/characters/{name}/seat", {
        params: { path: { game, name } },
        ...options,
      }),
    );
  }

  // Events

  /**
   * `GET /games/{game}/events` as an async iterator:
   * `for await (const event of client.events(game)) ...`. It reconnects by itself
   * with `Last-Event-ID` (nothing missed, nothing twice), yields `reload` when the
   * service says events were missed, and ends when `signal` aborts or the loop breaks.
   * A stream the service refuses for good (a revoked seat, a deleted game) throws a
   * `DiceboundError`.
   */
  events(game: string, options: EventsOptions = {}): AsyncGenerator<GameEvent, void, undefined> {
    const headers = new Headers();
    if (this.token !== undefined) headers.set("authorization", `Bearer ${this.token}`);
    return gameEvents(
      {
        url: `${this.baseUrl}/games/${encodeURIComponent(game)}/events`,
        fetch: this.options.fetch ?? ((request) => globalThis.fetch(request)),
        headers,
        tokens: this.tokens,
      },
      options,
    );
  }
}

export { DiceboundError };
