/**
 * The page's server started in this process on a config directory built from the fixtures, or
 * on a store (SQLite, or the run's Postgres in a schema of its own) filled from it by the import
 * `acx sync` runs, and requests to it with the token's cookie (or without, or with other headers).
 */
import { importClaudeDir } from "@acx/claude-code/ClaudeImport"
import * as ProjectOrigin from "@acx/claude-code/ProjectOrigin"
import type * as SessionItem from "@acx/convert/SessionItem"
import * as Fixtures from "@acx/fixtures"
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import type * as StoreCatalog from "@acx/session-store/StoreCatalog"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import type * as SessionView from "../../src/SessionView.js"
import * as UiServer from "../../src/UiServer.js"

/** A session payload (NDJSON) read whole, as lines. */
export const readAll = async (response: Response): Promise<Array<SessionView.SessionLine>> =>
  (await response.text()).split("\n").filter((line) => line !== "").map((line) =>
    JSON.parse(line) as SessionView.SessionLine
  )

/** The items of a payload's lines, each as last sent. */
export const itemsOf = (lines: ReadonlyArray<SessionView.SessionLine>): Array<SessionItem.Item> => {
  const view = new Map<string, SessionItem.Item>()
  for (const line of lines) if (line.type === "items") { for (const item of line.items) view.set(item.key, item) }
  return [...view.values()]
}

/** A started server and what it serves. */
export interface TestServer {
  readonly server: UiServer.UiServer
  readonly origin: string
  readonly configDir: string
  readonly acxHome: string
  readonly built: Fixtures.BuiltConfigDir
  /** The store shown (with `store`), else none. */
  readonly store: (SessionStore.SessionStore & StoreCatalog.WithCatalog) | undefined
  /** A request with the token cookie (override headers with `init.headers`). */
  readonly request: (pathAndQuery: string, init?: RequestInit) => Promise<Response>
  readonly close: () => Promise<void>
}

/** Where a store-backed server keeps its transcripts. */
export type StoreKind = "sqlite" | "postgres"

/** The run's Postgres (`ACX_PG_URL`, set by the root setup), if any. */
export const PG_URL = process.env["ACX_PG_URL"]

const PG_SCHEMAS: Array<string> = []

/**
 * A store of `kind` in the scope, holding every session (and subagent) of `configDir` as
 * `acx sync --no-mask` imports them; a Postgres store in a schema of its own, dropped by {@link dropSchemas}.
 */
export const fillStore = (kind: StoreKind, root: string, configDir: string) =>
  Effect.gen(function*() {
    const schema = `acx_ui_test_${randomUUID().replace(/-/g, "").slice(0, 12)}`
    if (kind === "postgres") PG_SCHEMAS.push(schema)
    const file = path.join(root, "sessions.db")
    const store = kind === "sqlite"
      ? yield* SqliteSessionStore.make({ filename: file })
      : yield* PostgresSessionStore.make({ url: Redacted.make(PG_URL ?? ""), schema })
    // this machine's origins recorded, as `acx sync` records them (the list's `project` and
    // `machine`); stored as written (`--no-mask`): the page over a store is compared with the
    // page over the files, byte for byte, and masking on the way in is `cli.sync.mask`'s to test
    yield* importClaudeDir({ from: { configDir }, to: store, origin: ProjectOrigin.localOrigin(), mask: false }).pipe(
      Effect.provide(NodeContext.layer)
    )
    return {
      store,
      location: kind === "sqlite" ? `sqlite:${file}` : `postgres://test/${schema}`,
      file: kind === "sqlite" ? file : undefined
    }
  })

/** Drops the Postgres schemas the tests made. */
export const dropSchemas = async (): Promise<void> => {
  if (PG_URL === undefined || PG_SCHEMAS.length === 0) return
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  try {
    for (const schema of PG_SCHEMAS.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  } finally {
    await client.end()
  }
}

/**
 * The server started in this process on a config directory as it is (nothing built into it),
 * as `acx ui --config-dir` serves it: its URL (the one `acx ui` prints, token included), its
 * origin and token, and stop. For a test about the page, where the process adds nothing.
 */
export const serveConfigDir = async (configDir: string, acxHome: string) => {
  const scope = Effect.runSync(Scope.make())
  const server = await Effect.runPromise(Scope.extend(UiServer.make({ configDir, acxHome, port: 0 }), scope))
  return {
    url: server.url,
    origin: `http://127.0.0.1:${server.port}`,
    token: server.token,
    stop: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/**
 * Starts the server on a fresh copy of the fixtures (or on `configDir`) with a fresh ACX_HOME;
 * with `store`, on a store filled from that copy instead.
 */
export const startServer = async (
  options: { readonly configDir?: string; readonly acxHome?: string; readonly store?: StoreKind } = {}
): Promise<TestServer> => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-ui-test-"))
  const built = Fixtures.buildClaudeConfigDir(options.configDir ?? path.join(root, "claude"))
  const acxHome = options.acxHome ?? path.join(root, "acx-home")
  const scope = Effect.runSync(Scope.make())
  const opened = options.store === undefined
    ? undefined
    : await Effect.runPromise(Scope.extend(fillStore(options.store, root, built.configDir), scope))
  const server = await Effect.runPromise(
    Scope.extend(
      UiServer.make({
        ...(opened === undefined ? { configDir: built.configDir } : { store: opened }),
        acxHome,
        port: 0
      }),
      scope
    )
  )
  const origin = `http://127.0.0.1:${server.port}`
  return {
    server,
    origin,
    configDir: built.configDir,
    acxHome,
    built,
    store: opened?.store,
    request: (pathAndQuery, init = {}) =>
      fetch(`${origin}${pathAndQuery}`, {
        ...init,
        redirect: "manual",
        headers: { cookie: `acx_ui_token=${server.token}`, ...(init.headers as Record<string, string> | undefined) }
      }),
    close: async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      fs.rmSync(root, { recursive: true, force: true })
    }
  }
}
