/**
 * A hub for the `acx hub` tests: roles are cluster-wide and the run's Postgres role may not create
 * them (CI's `acx` has no CREATEROLE), so each test file starts its own embedded Postgres, as
 * superuser, runs `acx hub init` on it and fills it through real `acx sync` runs, each as the sync
 * member of its machine.
 */
import * as Fixtures from "@acx/fixtures"
import { type EmbeddedPostgres, startEmbeddedPostgres } from "@acx/fixtures/postgres"
import * as PostgresHub from "@acx/session-store/PostgresHub"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "vitest"
import { acx, type AcxResult } from "./acx.js"

interface PgClient {
  connect(): Promise<void>
  query(sql: string, params?: ReadonlyArray<unknown>): Promise<{ rows: Array<Record<string, unknown>> }>
  end(): Promise<void>
}

/** The rows of one statement run as the role `url` names. */
export const query = async (
  url: string,
  sql: string,
  params: ReadonlyArray<unknown> = []
): Promise<Array<Record<string, any>>> => {
  // pg is a dependency of @acx/cli, but its types are not installed here
  const pg = (await import("pg" as string)) as { default: { Client: new(options: object) => PgClient } }
  const client = new pg.default.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(sql, params)).rows
  } finally {
    await client.end()
  }
}

/** The SQLSTATE a statement fails with as the role `url` names (`undefined`: it succeeded). */
export const refusal = async (url: string, sql: string): Promise<string | undefined> => {
  try {
    await query(url, sql)
    return undefined
  } catch (error) {
    return (error as { code?: string }).code ?? String(error)
  }
}

/** `url` with another user and password. */
export const asRole = (url: string, user: string, password: string): string => {
  const changed = new URL(url)
  changed.username = user
  changed.password = password
  return changed.href
}

/** The URL `acx hub user add` printed: its only stdout line. */
export const printedUrl = (result: AcxResult): string => {
  expect(result.code, result.stderr).toBe(0)
  const lines = result.stdout.split("\n").filter((line) => line !== "")
  expect(lines).toHaveLength(1)
  return lines[0]!
}

/**
 * A config directory of one session: the fixture transcript `fixture` (relative to the fixtures'
 * `claude-code-jsonl`) under a fresh session id, so that two machines' sessions never share one.
 */
export const oneSessionConfigDir = (dir: string, fixture: string, projectKey: string): string => {
  const sessionId = randomUUID()
  const source = path.join(Fixtures.fixturesDir, "claude-code-jsonl", fixture)
  const text = fs.readFileSync(source, "utf8")
  const original = JSON.parse(text.split("\n")[0]!).sessionId as string
  const projects = path.join(dir, "projects", projectKey)
  fs.mkdirSync(projects, { recursive: true })
  fs.writeFileSync(path.join(projects, `${sessionId}.jsonl`), text.split(original).join(sessionId))
  return dir
}

/** The group roles of the hub `url` names (its database, its `?schema=`, else `public`). */
export const groupsOf = (url: string): PostgresHub.GroupRoles => {
  const parsed = new URL(url)
  return PostgresHub.groupRoles(
    decodeURIComponent(parsed.pathname.slice(1)),
    parsed.searchParams.get("schema") ?? "public"
  )
}

/** A running hub: the server, its admin URL, and the syncs that filled it. */
export interface RunningHub {
  readonly server: EmbeddedPostgres
  readonly admin: string
  /** The group roles of the hub in schema `public` of the server's database. */
  readonly groups: PostgresHub.GroupRoles
  /** `hub user add NAME --role ROLE`'s URL. */
  readonly addUser: (name: string, role: "sync" | "viewer") => Promise<string>
  /** `acx sync --to url --config-dir dir --machine machine`, as that sync member. */
  readonly sync: (url: string, dir: string, machine: string) => Promise<AcxResult>
  readonly stop: () => Promise<void>
}

/** Starts a server and runs `acx hub init` on it. */
export const startHub = async (home: string): Promise<RunningHub> => {
  const server = await startEmbeddedPostgres()
  const admin = server.url
  const init = await acx(["hub", "init", admin], { env: { ACX_HOME: home } })
  expect(init.code, init.stderr).toBe(0)
  return {
    server,
    admin,
    groups: groupsOf(admin),
    addUser: async (name, role) => printedUrl(await acx(["hub", "user", "add", name, "--role", role, "--hub", admin])),
    sync: (url, dir, machine) =>
      acx(["sync", "--to", url, "--config-dir", dir, "--machine", machine], {
        env: { ACX_HOME: path.join(home, machine) }
      }),
    stop: () => server.stop()
  }
}
