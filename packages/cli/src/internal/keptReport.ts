/**
 * Reports kept under a digest of what they were made from, under `$ACX_HOME/cache` (owner-only),
 * one file per place and request: a JSON header on the first line (this format's version, the
 * place, the request, the digest), then the report's bytes as printed. A report is printed again
 * only while the digest is the same; a file that cannot be read, or of another version, place,
 * request or digest, is no report; one that cannot be written is left (the run's answer stands).
 *
 * - `acx stats --from postgres://…` ({@link read}, {@link write}, {@link printKept}): kept with the
 *   digest of the session list each was made from (`StoreCatalogSql.listDigest`), so a new
 *   process can print one again after a single statement instead of listing 4 000 sessions and
 *   restoring their folds (docs/design.md, "A hub's statistics from a new process"). Kept per
 *   store and per login (who asks is part of the key), per request (`--by`, `--json`), for one
 *   build of acx, one pricing table and one time zone. It is printed again only when the list the
 *   connected role sees now has the same digest: exactly the sessions the report was made from,
 *   each with the same `mtime` and entry count, so a grant, a revoke, an append, a delete or
 *   retention never lets a kept report answer.
 * - `acx stats` over a config directory ({@link keptOutput}, {@link keepOutput}): kept under
 *   `TranscriptFolds.stateDigest` (every transcript's size and mtime, the statistics cache's, the
 *   prices, the time zone) after a run that folded nothing, so any transcript appended to,
 *   touched, added, removed or renamed, or the statistics cache rewritten, changes it.
 *
 * Without Effect: {@link printKept}, the first step of `acx stats --from postgres://…`
 * (`commands/stats.ts`), prints one before Effect loads; `commands/run/stats.ts` keeps them.
 */
import * as StatsPricing from "@acx/claude-code/StatsPricing"
import * as StoreStatsCache from "@acx/claude-code/StoreStatsCache"
import * as Pricing from "@acx/convert/Pricing"
import * as StatsReport from "@acx/convert/StatsReport"
import * as AcxHome from "@acx/environment/AcxHome"
import * as BuildId from "@acx/environment/BuildId"
import * as PostgresSpec from "@acx/environment/PostgresSpec"
import * as PgDriverUrl from "@acx/session-store/PgDriverUrl"
import * as StoreCatalogSql from "@acx/session-store/StoreCatalogSql"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import type { CommandIo } from "../CommandIo.js"
import type { StatsOptions } from "../commands/args/stats.js"
import { acxPaths } from "./ioPaths.js"

/** The build that renders reports now (`BuildId.BUILD`: a kept report was rendered by one build's code). */
export const BUILD: string = BuildId.BUILD

const VERSION = 1

/** A `--from postgres://…` spec the fast path can connect to: its URL, schema and identity. */
export interface PostgresStore {
  /** The connection URL without `schema` (as `DatabaseSpec` gives the store). */
  readonly url: string
  readonly schema: string
  /** The store and the login, without the password: what the kept reports are filed under. */
  readonly identity: string
  /** The store for messages (`PostgresSpec.display`: no password, the schema when one is named). */
  readonly display: string
}

// The OS user's name; none (a uid without a passwd entry) is a name too.
const osUser = (): string => {
  try {
    return os.userInfo().username
  } catch {
    return ""
  }
}

// A URL's user as the driver reads it; a broken %-escape is kept as typed (never an exception).
const decoded = (text: string): string => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/**
 * The Postgres store `spec` names, or `undefined` for anything `DatabaseSpec` reads otherwise or
 * refuses (then `run/stats.ts` opens it and says so): the one grammar (`PostgresSpec`, which
 * `DatabaseSpec` parses with), and a schema name a store accepts.
 */
export const postgresStore = (spec: string, env: NodeJS.ProcessEnv = process.env): PostgresStore | undefined => {
  const parsed = PostgresSpec.isPostgres(spec) ? PostgresSpec.parse(spec) : undefined
  const schema = parsed?._tag === "Parsed" ? parsed.schema ?? PostgresSpec.DEFAULT_SCHEMA : undefined
  if (parsed?._tag !== "Parsed" || schema === undefined || !PostgresSpec.isSchemaName(schema)) return undefined
  const href = parsed.href
  const url = new URL(href)
  // who logs in, as the driver decides it: the URL's user, else PGUSER, else USER (USERNAME)
  const login = decoded(url.username) || url.searchParams.get("user") || env["PGUSER"] ||
    env[process.platform === "win32" ? "USERNAME" : "USER"] || osUser()
  url.password = ""
  for (const name of [...new Set(url.searchParams.keys())]) if (/password/i.test(name)) url.searchParams.delete(name)
  const place = ["PGHOST", "PGPORT", "PGDATABASE", "PGSERVICE"].map((name) => env[name] ?? "")
  return {
    url: href,
    schema,
    identity: JSON.stringify([url.href, schema, login, ...place]),
    display: PostgresSpec.display(href, parsed.schema)
  }
}

/** What a report is kept for: the command's options and everything else its text depends on. */
export interface ReportKey {
  readonly by: string
  readonly json: boolean
  readonly pricing: string
}

/** A file as it was: the statistics cache a kept report's counts speak of. */
export interface FileState {
  readonly file: string
  readonly size: number
  readonly mtimeMs: number
}

/**
 * A kept report: the digest of the list it was made from (and of the origins, for a grouping by
 * project, machine or user), the statistics cache then.
 */
export interface Kept {
  readonly digest: string
  readonly origins?: string | undefined
  readonly statsCache: FileState
}

// The kept file: this header as JSON on the first line, then the report's bytes as printed.
interface Header extends Kept {
  readonly version: number
  readonly identity: string
  readonly request: string
}

/** `file`'s size and modification time now, or `undefined` when it is not a readable file. */
export const fileState = (file: string): FileState | undefined => {
  try {
    const stat = fs.statSync(file)
    return stat.isFile() ? { file, size: stat.size, mtimeMs: stat.mtimeMs } : undefined
  } catch {
    return undefined
  }
}

// The report's counts ("every transcript from the cache") are the full path's only while its
// statistics cache is the file that was there when the report was kept.
const sameFile = (state: FileState | undefined): boolean => {
  if (typeof state?.file !== "string") return false
  const now = fileState(state.file)
  return now !== undefined && now.size === state.size && now.mtimeMs === state.mtimeMs
}

// Everything the text depends on besides the list: the build, the request, prices, time zone.
const requestOf = (key: ReportKey) => JSON.stringify([BUILD, key.by, key.json, key.pricing, StoreStatsCache.zone()])

/** The file of `store`'s kept report for `key` under `cacheDir` (one per login, grouping and form). */
export const fileOf = (cacheDir: string, store: PostgresStore, key: ReportKey): string =>
  path.join(
    cacheDir,
    `store-report-${
      createHash("sha256").update(JSON.stringify([store.identity, key.by, key.json])).digest("hex").slice(0, 24)
    }.txt`
  )

// A kept file's header (`undefined`: none, or not JSON) and the report's bytes after it.
const readKept = (file: string): { readonly header: Partial<Header>; readonly output: Uint8Array } | undefined => {
  try {
    const bytes = fs.readFileSync(file)
    const end = bytes.indexOf(10)
    if (end < 0) return undefined
    return {
      header: JSON.parse(bytes.subarray(0, end).toString("utf8")) as Partial<Header>,
      output: bytes.subarray(end + 1)
    }
  } catch {
    return undefined
  }
}

// Keeps `output` (as printed, without the final newline) under `header`; best effort.
const writeKept = (file: string, header: object, output: string): void => {
  try {
    AcxHome.writePrivateFile(file, `${JSON.stringify({ version: VERSION, ...header })}\n${output}\n`)
  } catch {
    // not kept: the next run computes it again
  }
}

/**
 * The kept report for `key` (its bytes as printed, with the final newline) and what it was kept
 * under, if any (and its statistics cache is as it was then).
 */
export const read = (
  store: PostgresStore,
  key: ReportKey,
  cacheDir: string = AcxHome.paths().cache
): { readonly kept: Kept; readonly output: Uint8Array } | undefined => {
  const kept = readKept(fileOf(cacheDir, store, key))
  const header = kept?.header
  const fits = header?.version === VERSION && header.identity === store.identity &&
    header.request === requestOf(key) && typeof header.digest === "string" && sameFile(header.statsCache)
  return fits ? { kept: header as Header, output: kept!.output } : undefined
}

/**
 * Keeps `output` (as printed, without the final newline), made from the session list whose digest
 * is `kept.digest`, for `key`. Best effort: a report not kept is computed again, never an error.
 */
export const write = (
  store: PostgresStore,
  key: ReportKey,
  kept: Kept,
  output: string,
  cacheDir: string = AcxHome.paths().cache
): void =>
  writeKept(fileOf(cacheDir, store, key), {
    identity: store.identity,
    request: requestOf(key),
    digest: kept.digest,
    ...(kept.origins === undefined ? {} : { origins: kept.origins }),
    statsCache: kept.statsCache
  }, output)

/** The file of the report kept for `request` over the `projects` directory `projectsDir`. */
export const summaryFileOf = (cacheDir: string, projectsDir: string, request: string): string =>
  path.join(
    cacheDir,
    `stats-summary-${
      createHash("sha256").update(JSON.stringify([projectsDir, request])).digest("hex").slice(0, 24)
    }.txt`
  )

/** The report kept in `file` for `request` under `digest` (as printed, without the final newline). */
export const keptOutput = (file: string, digest: string, request: string): string | undefined => {
  const kept = readKept(file)
  const fits = kept?.header.version === VERSION && kept.header.request === request && kept.header.digest === digest
  return fits ? Buffer.from(kept!.output).toString("utf8").replace(/\n$/, "") : undefined
}

/** Keeps `output` (as printed, without the final newline) in `file` for `request` under `digest`. */
export const keepOutput = (file: string, digest: string, request: string, output: string): void =>
  writeKept(file, { request, digest }, output)

// `pg`'s client, loaded only for a Postgres store (a SQLite store's reads never pay for it).
export interface PgClient {
  connect(): Promise<void>
  query(text: string): Promise<{ readonly rows: ReadonlyArray<{ readonly [column: string]: unknown }> }>
  query(
    config: { readonly text: string; readonly values: ReadonlyArray<unknown>; readonly rowMode: "array" }
  ): Promise<{ readonly rows: ReadonlyArray<ReadonlyArray<unknown>> }>
  end(): Promise<void>
  on(event: "error", listener: (error: unknown) => void): void
}

/**
 * What `use` does over a connection to `store` as the paths without Effect connect (`pg` loaded
 * only now; a server that does not answer within 3 s fails it, before the store itself tries and
 * says why); the connection is ended whatever `use` does.
 */
export const withClient = async <A>(store: PostgresStore, use: (client: PgClient) => Promise<A>): Promise<A> => {
  const { Client } = createRequire(import.meta.url)("pg") as { Client: new(config: object) => PgClient }
  const client = new Client({
    connectionString: PgDriverUrl.driverUrl(store.url),
    application_name: "acx",
    connectionTimeoutMillis: 3_000
  })
  client.on("error", () => undefined)
  try {
    await client.connect()
    return await use(client)
  } finally {
    await client.end().catch(() => undefined)
  }
}

// The digests the statement gives for `schema` as the connecting role sees it (row-level security
// applies), if the store is one this acx reads as is (nothing to migrate, nothing to derive).
const digestsNow = async (client: PgClient, schema: string, origins: boolean) => {
  const { rows: [row] } = await client.query(StoreCatalogSql.postgresListDigest(schema, { origins }))
  const ready = Number(row?.["version"]) === StoreCatalogSql.POSTGRES_SCHEMA_VERSION && Number(row?.["behind"]) === 0
  return ready ? { digest: row?.["digest"], origins: row?.["origins"] } : undefined
}

// The kept report `options` may print now (its bytes, the final newline included), or `undefined`.
const currentReport = async (options: StatsOptions, io: CommandIo): Promise<Uint8Array | undefined> => {
  const store = options.from === undefined ? undefined : postgresStore(options.from, io.env)
  const wholeStore = options.project === undefined && options.since === undefined && options.until === undefined
  if (store === undefined || !wholeStore || options.by === "block" || options.live) return undefined
  const paths = acxPaths(io)
  // prices the report would load too (a refused pricing file is `run/stats.ts`' to say)
  const pricing = StatsPricing.load(paths.pricing)
  if (pricing._tag !== "Table") return undefined
  const kept = read(
    store,
    { by: options.by, json: options.json, pricing: Pricing.fingerprint(pricing.table) },
    paths.cache
  )
  if (kept === undefined) return undefined
  // a server that does not answer costs this before `run/stats.ts` tries (and says why) itself
  return withClient(store, async (client) => {
    const origins = StatsReport.byOrigin(options.by as StatsReport.GroupBy)
    const now = await digestsNow(client, store.schema, origins)
    const same = now !== undefined && now.digest === kept.kept.digest && (!origins || now.origins === kept.kept.origins)
    return same ? kept.output : undefined
  })
}

/**
 * The first step of `acx stats --from postgres://…`: prints the report kept for `options` when
 * one statement (`StoreCatalogSql.postgresListDigest`, as the connecting role sees the store) says
 * the session list (and the origins, for `--by project|machine|user`) is the one it was made
 * from and the store needs no migration or derivation; `false` when nothing was printed (no kept
 * report, another list, a server that does not answer: `run/stats.ts` connects and says why).
 *
 * @since 0.6.0
 * @category reading
 */
export const printKept = async (options: StatsOptions, io: CommandIo): Promise<boolean> => {
  const output = await currentReport(options, io).catch(() => undefined)
  if (output === undefined) return false
  await io.stdout(Buffer.from(output).toString("utf8"))
  return true
}
