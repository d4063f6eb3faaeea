/**
 * The team memory's sync between the local database and the team's Postgres, run by the worker
 * (never by a hook: the hook path stays local and offline) and by `acx memory sync`:
 *
 * 1. **Push** one's own observations and summaries of shared projects (a working directory whose
 *    git remote names it) after the push watermark: each gets a uid once, is cleaned (`<private>`
 *    parts removed, secrets redacted, again, whatever the row holds), has every run of its
 *    session's prompts and tool inputs withheld (whoever wrote it: `internal/teamWithhold.ts`)
 *    and is inserted by uid, so a push repeated after a kill inserts nothing twice; the
 *    watermark moves after the insert. The local observer's observations of the prompts and
 *    commands (`LocalObservations.isVerbatim`) stay on this machine.
 * 2. **Push the outbox**: the forgotten state of a shared entry changed here (a forget, a restore,
 *    a delete) becomes the team's.
 * 3. **Pull** every shared project's entries changed since its watermark (teammates' new ones,
 *    and forgotten states), written with the new watermark in one local transaction: a
 *    teammate's entry is stored under the project's identity with its author and machine, where
 *    the SessionStart hook reads it.
 *
 * The connection string's password is never part of a message: failures name the server, and
 * say whether a later sync catches up (`TeamUnreachable`) or an admin's `acx hub init` must run
 * first (`TeamSetUp`).
 *
 * @since 0.4.0
 */
import { plural } from "@acx/convert/Plural"
import * as DatabaseSpec from "@acx/environment/DatabaseSpec"
import * as DriverImport from "@acx/environment/DriverImport"
import * as PgDriverUrl from "@acx/session-store/PgDriverUrl"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Pg from "pg"
import * as Local from "./internal/teamLocal.js"
import * as Remote from "./internal/teamPostgres.js"
import { shapeOf, shapes, type Wire } from "./internal/teamShapes.js"
import type * as Withhold from "./internal/teamWithhold.js"
import { MemoryError } from "./MemoryError.js"
import { DEFAULT_SCHEMA, type TeamSettings } from "./TeamConfig.js"

/**
 * @since 0.4.0
 * @category models
 */
export interface SyncOptions {
  readonly settings: TeamSettings
  /** A working directory's project identity (`ProjectIdentity.format`: its git remote, else the path). */
  readonly identify: (path: string) => string | undefined
  /** Entries per statement (default 200). */
  readonly batchSize?: number | undefined
  /** How long a connection may take (default 5 s). */
  readonly connectTimeoutMs?: number | undefined
  /** Called after each pushed batch (tests stop a sync between batches). */
  readonly onBatch?: (() => void) | undefined
  /**
   * Who runs it, kept with its outcome for `acx memory status`: `manual` (`acx memory sync`,
   * `install --team`) or `worker` (the default).
   */
  readonly by?: "manual" | "worker" | undefined
}

/**
 * What one sync did.
 *
 * @since 0.4.0
 * @category models
 */
export interface SyncReport {
  /** Own entries newly stored in the team's database. */
  readonly pushed: number
  /**
   * Own entries of shared projects kept on this machine: the local observer's observations of
   * the prompts and commands as typed (`LocalObservations.isVerbatim`).
   */
  readonly kept: number
  /** Runs of a prompt or tool input withheld from what was pushed (`[withheld]`). */
  readonly withheld: number
  /** Forgotten states pushed. */
  readonly forgotten: number
  /** Team entries read (new ones and changed states). */
  readonly pulled: number
  /** Shared projects (working directories with a git remote). */
  readonly projects: number
}

/**
 * What a sync did, in one line (`acx memory sync`, `install --team`, `memory status`).
 *
 * @since 0.4.0
 * @category models
 */
export const describeReport = (report: SyncReport): string =>
  `shared ${plural(report.pushed, "entry", "entries")}${
    report.kept + report.withheld > 0
      ? ` (${report.kept} made of prompts or commands kept here, ${plural(report.withheld, "quoted run")} withheld)`
      : ""
  }, pushed ${plural(report.forgotten, "forgotten state")}, pulled ${report.pulled} (${
    plural(report.projects, "shared project")
  })`

/**
 * Where the watermarks of a team database are kept: its server, database and schema (never the
 * user or password), so moving to another team database starts afresh.
 *
 * @since 0.4.0
 * @category models
 */
export const target = (settings: TeamSettings): string => {
  const url = new URL(Redacted.value(settings.url))
  return `${url.hostname}:${url.port === "" ? "5432" : url.port}${url.pathname}#${settings.schema}`
}

const NETWORK: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ECONNRESET: "connection reset"
}

const TeamDisplay = (settings: TeamSettings): string => {
  const url = new URL(Redacted.value(settings.url))
  return `at ${url.hostname}:${url.port === "" ? "5432" : url.port}`
}

const codeOf = (cause: unknown): unknown =>
  typeof cause === "object" && cause !== null ? (cause as { code?: unknown }).code : undefined

/** Whether a failure is the network's (the server was not reached): the next sync catches up. */
const unreachable = (cause: unknown): boolean => {
  const code = codeOf(cause)
  return (typeof code === "string" && code in NETWORK) ||
    /timeout|terminated unexpectedly|Connection terminated/i.test(
      cause instanceof Error ? cause.message : String(cause)
    )
}

// SQLSTATEs of a team memory that is not set up for this role: insufficient_privilege,
// undefined_table, invalid_schema_name
const NOT_SET_UP = new Set(["42501", "42P01", "3F000"])

/** `text` with the URL's password masked, even where a driver echoed it. */
const masked = (settings: TeamSettings, text: string): string => {
  const password = new URL(Redacted.value(settings.url)).password
  const hidden = DatabaseSpec.hideCredentials(text)
  return password === ""
    ? hidden
    : hidden.split(decodeURIComponent(password)).join("***").split(password).join("***")
}

/**
 * A failure as one line naming the server and the reason, the password masked even where a
 * driver echoed it.
 *
 * @since 0.4.0
 * @category errors
 */
export const describeFailure = (settings: TeamSettings, cause: unknown): string => {
  const code = codeOf(cause)
  const message = cause instanceof Error ? cause.message : String(cause)
  const reason = typeof code === "string" && code in NETWORK
    ? NETWORK[code]!
    : /timeout/i.test(message)
    ? "connection timed out"
    : message.split("\n")[0]!
  return `the team's Postgres ${TeamDisplay(settings)}: ${masked(settings, reason)}`
}

/**
 * The command an admin runs to set the team memory up on the server `settings` names: `acx hub
 * init` on its database (with `--team` when the schema is not the default one).
 */
const setUpCommand = (settings: TeamSettings): string => {
  const url = new URL(Redacted.value(settings.url))
  const team = settings.schema === DEFAULT_SCHEMA ? "" : ` --team ${settings.schema}`
  return `acx hub init postgres://ADMIN@${url.hostname}:${url.port === "" ? "5432" : url.port}${url.pathname}${team}`
}

/** What a role that may not use the team memory's tables is told: what is wrong, which command fixes it. */
const notSetUp = (settings: TeamSettings, cause: unknown): string => {
  const user = decodeURIComponent(new URL(Redacted.value(settings.url)).username) || "this role"
  const where = `schema ${settings.schema} ${TeamDisplay(settings)}`
  const detail = masked(settings, (cause instanceof Error ? cause.message : String(cause)).split("\n")[0]!)
  const missing = cause instanceof MissingTables || codeOf(cause) === "42P01" || codeOf(cause) === "3F000"
  // a policy refused a row: a project this member has no grant for, not a set-up to redo
  if (/row-level security/.test(detail)) {
    return `${user} may not share entries of a project it has no grant for, in ${where} (${detail}): an admin grants the project (acx hub grant --project ID --role ${user}) or removes its grants`
  }
  return missing
    ? `the team memory's tables are not in ${where}${
      cause instanceof MissingTables ? `, and ${user} may not create them (${detail})` : ` (${detail})`
    }: an admin sets them up with ${setUpCommand(settings)}`
    : `${user} may not use the team memory's tables in ${where} (${detail}): an admin runs ${
      setUpCommand(settings)
    }, which grants the hub's sync members what the team memory needs; the URL must be a sync member's (acx hub user add NAME --role sync)`
}

/** The tables were missing and this connection may not create them. */
class MissingTables extends Error {}

/**
 * A failure talking to the team's database as one `MemoryError`, never with the password:
 * `TeamUnreachable` when the server was not reached (the next sync catches up), `TeamSetUp` when
 * the team memory's tables are missing or this role may not use them (the description names the
 * command that fixes it), `Team` for anything else.
 *
 * @since 0.4.0
 * @category errors
 */
export const teamFailure = (settings: TeamSettings, cause: unknown): MemoryError =>
  cause instanceof MemoryError
    ? cause
    : unreachable(cause)
    ? new MemoryError({ reason: "TeamUnreachable", description: describeFailure(settings, cause) })
    : cause instanceof MissingTables || NOT_SET_UP.has(String(codeOf(cause)))
    ? new MemoryError({ reason: "TeamSetUp", description: notSetUp(settings, cause) })
    : new MemoryError({ reason: "Team", description: describeFailure(settings, cause) })

const teamError = (settings: TeamSettings) => (cause: unknown) => teamFailure(settings, cause)

const localError = (cause: SqlError | MemoryError) =>
  cause instanceof MemoryError
    ? cause
    : new MemoryError({ reason: "Database", description: `the team sync: ${cause.message.split("\n")[0]}` })

/**
 * The team's tables there (created when missing and this role may) and usable by this role: a
 * role that may not create what is missing (a hub's member) is told the admin's command.
 */
const ready = async (client: Pg.Client, schema: string): Promise<void> => {
  try {
    await Remote.ensureSchema(client, schema)
  } catch (error) {
    throw codeOf(error) === "42501" ? new MissingTables((error as Error).message) : error
  }
  await Remote.checkAccess(client, schema)
}

/**
 * A connection to the team's database with its schema in place (unless `ensureSchema` is false:
 * `TeamHub.setUp` creates it inside its own transaction); ended when the scope closes.
 *
 * @since 0.4.0
 * @category connections
 */
export const connect = (settings: TeamSettings, connectTimeoutMs = 5_000, ensureSchema = true) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const { default: pg } = await DriverImport.load(() => import("pg"))
        const client = new pg.Client({
          connectionString: PgDriverUrl.driverUrl(Redacted.value(settings.url)),
          connectionTimeoutMillis: connectTimeoutMs,
          statement_timeout: 60_000,
          application_name: "acx memory"
        })
        // an error after the connection was made (the server went away) must not crash the process
        client.on("error", () => undefined)
        try {
          await client.connect()
          if (ensureSchema) await ready(client, settings.schema)
        } catch (error) {
          await client.end().catch(() => undefined)
          throw error
        }
        return client
      },
      catch: teamError(settings)
    }),
    (client) => Effect.promise(() => client.end().catch(() => undefined))
  )

const remote = <A>(settings: TeamSettings, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: teamError(settings) })

/** Sessions' verbatim indexes kept while a push runs (rows come mostly session by session). */
const VERBATIM_CACHE = 4

const verbatimCache = () => {
  const cache = new Map<string, Withhold.Verbatim>()
  return (sessionId: string) =>
    Effect.gen(function*() {
      const known = cache.get(sessionId)
      if (known !== undefined) return known
      const verbatim = yield* Local.verbatimOf(sessionId)
      if (cache.size >= VERBATIM_CACHE) cache.delete(cache.keys().next().value!)
      cache.set(sessionId, verbatim)
      return verbatim
    })
}

const pushOwn = (options: SyncOptions, client: Pg.Client, shared: ReadonlyMap<string, string>) =>
  Effect.gen(function*() {
    const { settings } = options
    const where = target(settings)
    const batchSize = options.batchSize ?? 200
    const verbatimOf = verbatimCache()
    const counts = { pushed: 0, kept: 0, withheld: 0 }
    for (const shape of shapes) {
      while (true) {
        const after = yield* Local.readMark(`pushed.${shape.kind}`, where)
        const rows = yield* Local.ownAfter(shape, after, batchSize)
        if (rows.length === 0) break
        // an entry forgotten before it was shared is never shared; a project without a remote neither
        const ofShared = rows.filter((row) => row.forgotten_at === null && shared.has(row.project))
        const sharable = ofShared.filter((row) => !Local.staysLocal(shape, row))
        counts.kept += ofShared.length - sharable.length
        const uids = yield* Local.giveUids(shape, sharable.map((row) => row.id))
        const wire: Array<Wire> = []
        for (const row of sharable) {
          const sent = Local.toWire(shape, row, {
            uid: uids.get(row.id)!,
            identity: shared.get(row.project)!,
            user: settings.user,
            machine: settings.machine,
            verbatim: yield* verbatimOf(String(row["session_id"]))
          })
          wire.push(sent.wire)
          counts.withheld += sent.runs
        }
        counts.pushed += yield* remote(settings, () => Remote.insert(client, settings.schema, shape, wire))
        yield* Local.advanceMark(`pushed.${shape.kind}`, where, rows.at(-1)!.id)
        options.onBatch?.()
      }
    }
    return counts
  })

const pushOutbox = (options: SyncOptions, client: Pg.Client) =>
  Effect.gen(function*() {
    const { settings } = options
    const by = `${settings.user}@${settings.machine}`
    let count = 0
    while (true) {
      const changes = yield* Local.outbox(options.batchSize ?? 200)
      if (changes.length === 0) return count
      for (const change of changes) {
        const shape = shapeOf(change.kind)
        if (shape === undefined) continue
        yield* remote(
          settings,
          () =>
            Remote.setForgotten(client, settings.schema, shape, {
              uid: change.uid,
              forgottenAt: change.forgottenAt,
              by
            })
        )
      }
      yield* Local.outboxPushed(shapeOf, changes)
      count += changes.length
    }
  })

const pull = (options: SyncOptions, client: Pg.Client, identities: ReadonlySet<string>) =>
  Effect.gen(function*() {
    const { settings } = options
    const where = target(settings)
    const batchSize = options.batchSize ?? 200
    let pulled = 0
    for (const identity of identities) {
      for (const shape of shapes) {
        while (true) {
          const after = (yield* Local.pullMark(where, identity, shape.kind)) ?? Remote.START
          const rows = yield* remote(
            settings,
            () =>
              Remote.changedSince(client, settings.schema, shape, identity, after, batchSize, {
                author: settings.user,
                machine: settings.machine
              })
          )
          if (rows.length === 0) break
          yield* Local.applyPulled(shape, where, identity, rows.map((row) => row.wire), rows.at(-1)!.mark)
          pulled += rows.length
          if (rows.length < batchSize) break
        }
      }
    }
    return pulled
  })

/**
 * One sync: push one's own entries, push the outbox, pull the team's. `Team` when the team's
 * database cannot be reached (nothing local is lost: the next sync goes on from the watermarks),
 * `Database` for the local one.
 *
 * @since 0.4.0
 * @category syncing
 */
export const syncOnce = (options: SyncOptions): Effect.Effect<SyncReport, MemoryError, SqlClient.SqlClient> =>
  Effect.scoped(Effect.gen(function*() {
    const shared = yield* Local.mapProjects(options.identify)
    const client = yield* connect(options.settings, options.connectTimeoutMs)
    const { kept, pushed, withheld } = yield* pushOwn(options, client, shared)
    const forgotten = yield* pushOutbox(options, client)
    const identities = new Set(shared.values())
    const pulled = yield* pull(options, client, identities)
    return { pushed, kept, withheld, forgotten, pulled, projects: identities.size }
  })).pipe(
    Effect.mapError((cause) => localError(cause)),
    Effect.tapBoth({
      onFailure: (error) => recordLast(options.by ?? "worker", { at: Date.now(), error: error.description }),
      onSuccess: (report) =>
        Effect.andThen(
          recordLast(options.by ?? "worker", { at: Date.now(), ...report }),
          // the team's database answered: an older failure no longer holds
          Effect.andThen(note("team.syncedAt", String(Date.now())), note("team.lastError", ""))
        )
    }),
    Effect.withSpan("TeamSync.syncOnce")
  )

/**
 * The last sync of one kind as `acx memory status` shows it: when, and what it did or why it
 * failed.
 *
 * @since 0.4.0
 * @category models
 */
export type LastSync =
  | ({ readonly at: number } & SyncReport)
  | { readonly at: number; readonly error: string }

const lastKey = (by: "manual" | "worker") => `team.last.${by}`

const recordLast = (by: "manual" | "worker", last: LastSync) => note(lastKey(by), JSON.stringify(last))

/**
 * After a sync, how long until a hook starts a worker again only to sync (`team.syncDueAt`).
 *
 * @since 0.4.0
 * @category constants
 */
export const SYNC_DUE_AFTER_MS = 60_000

/**
 * The `memory_meta` key holding when the next sync is due (epoch ms): a hook that finds it past
 * starts the worker even with no event queued, so teammates' entries arrive between sessions.
 *
 * @since 0.4.0
 * @category constants
 */
export const SYNC_DUE_KEY = "team.syncDueAt"

const note = (key: string, value: string) => Local.setMeta(key, value).pipe(Effect.ignore)

/**
 * Marks a sync due now (after `acx memory install --team`): the next hook starts the worker.
 *
 * @since 0.4.0
 * @category syncing
 */
export const markDue: Effect.Effect<void, never, SqlClient.SqlClient> = note(SYNC_DUE_KEY, "0")

/**
 * Syncs until interrupted: every `intervalMs` (default 10 s) while the team's database answers;
 * after a failure, again after 5 s, 10 s, 20 s … up to 5 minutes. A failure is logged once (not
 * on every retry) and kept for `acx memory status` (`team.lastError`).
 *
 * @since 0.4.0
 * @category syncing
 */
export const loop = (
  options: SyncOptions & { readonly intervalMs?: number | undefined; readonly log: (line: string) => void }
): Effect.Effect<never, never, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    let failures = 0
    let lastError = ""
    while (true) {
      const result = yield* Effect.either(syncOnce(options))
      const now = Date.now()
      if (result._tag === "Right") {
        const { forgotten, pulled, pushed } = result.right
        if (lastError !== "" || pushed + forgotten + pulled > 0) {
          options.log(`team sync: ${pushed} shared, ${forgotten} forgotten states pushed, ${pulled} pulled`)
        }
        failures = 0
        lastError = ""
        yield* note(SYNC_DUE_KEY, String(now + SYNC_DUE_AFTER_MS))
        yield* Effect.sleep(options.intervalMs ?? 10_000)
        continue
      }
      failures++
      const wait = Math.min(5_000 * 2 ** Math.min(failures - 1, 10), 300_000)
      if (result.left.description !== lastError) {
        options.log(`team sync failed (memory goes on locally; retrying): ${result.left.description}`)
      }
      lastError = result.left.description
      yield* note("team.lastError", lastError)
      yield* note(SYNC_DUE_KEY, String(now + wait))
      yield* Effect.sleep(wait)
    }
  })

/**
 * Clears the due sync (the team memory was removed): hooks stop starting a worker for it.
 *
 * @since 0.4.0
 * @category syncing
 */
export const clearDue: Effect.Effect<void, never, SqlClient.SqlClient> = Local.deleteMeta(SYNC_DUE_KEY).pipe(
  Effect.ignore
)

/**
 * The team memory as `acx memory status` shows it.
 *
 * @since 0.4.0
 * @category models
 */
export interface TeamState {
  /** The last sync that reached the team's database (epoch ms), if any. */
  readonly syncedAt: number | null
  /** Why the last sync failed (`null`: it did not). */
  readonly lastError: string | null
  /** One's own entries shared. */
  readonly shared: number
  /** Teammates' entries pulled. */
  readonly fromTeammates: number
  /** Forgotten states waiting to be pushed. */
  readonly waiting: number
  /** The last `acx memory sync` (or `install --team`): when, and what it did or why it failed. */
  readonly lastManual: LastSync | null
  /** The worker's last sync. */
  readonly lastWorker: LastSync | null
}

/**
 * The team memory's state in the local database.
 *
 * @since 0.4.0
 * @category syncing
 */
export const state: Effect.Effect<TeamState, MemoryError, SqlClient.SqlClient> = Effect.gen(function*() {
  const counts = yield* Local.state
  const last = (by: "manual" | "worker") =>
    Effect.map(Local.getMeta(lastKey(by)), (value): LastSync | null => {
      try {
        const parsed: unknown = value === undefined ? null : JSON.parse(value)
        return typeof parsed === "object" && parsed !== null && typeof (parsed as LastSync).at === "number"
          ? parsed as LastSync
          : null
      } catch {
        return null
      }
    })
  return { ...counts, lastManual: yield* last("manual"), lastWorker: yield* last("worker") }
}).pipe(Effect.mapError(localError))
