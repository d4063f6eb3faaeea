/**
 * A FIFO in the config directory never stops a driver from loading (issue 32, point 2). Node 20's
 * `realpathSync` reads the type of a cached path component from the stat buffer the last `stat`
 * filled: after a `stat` of a FIFO it stopped resolving links, and the next driver import (SQLite
 * through `bindings`, Postgres through `pg-types`) failed with `Cannot find module`. Spawned: the
 * failure is a fresh process's module loading, which a test process that has loaded both drivers
 * cannot show. Each layout puts the FIFO where a listing meets it: first, last, alone, as a
 * subagent transcript, as a subagent's `.meta.json`.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { userEntry } from "./utils/hostileDir.js"
import { dropSchema } from "./utils/postgres.js"

const PG_URL = process.env["ACX_PG_URL"]
const FIRST = "00000000-0000-4000-8000-000000000000"
const MIDDLE = "77777777-0000-4000-8000-000000000000"
const LAST = "ffffffff-0000-4000-8000-000000000000"

type Layout = "first" | "last" | "alone" | "subagent" | "meta"
const LAYOUTS: ReadonlyArray<Layout> = ["first", "last", "alone", "subagent", "meta"]

let root = ""
beforeAll(() => {
  root = tempDir("fifo-driver")
})
afterAll(() => removeDir(root))

const transcript = (file: string, sessionId: string) =>
  fs.writeFileSync(file, JSON.stringify(userEntry(sessionId, 0, `prompt of ${sessionId}`)) + "\n")

/** A config directory with one FIFO named like a transcript (or a sidecar) where `layout` says. */
const configDir = (layout: Layout) => {
  const dir = path.join(root, layout, "claude")
  const project = path.join(dir, "projects", "-tmp-fifo")
  fs.mkdirSync(project, { recursive: true })
  const fifo = (file: string) => execFileSync("mkfifo", [file])
  if (layout === "first") fifo(path.join(project, `${FIRST}.jsonl`))
  if (layout === "last") fifo(path.join(project, `${LAST}.jsonl`))
  if (layout === "alone") {
    fifo(path.join(project, `${MIDDLE}.jsonl`))
    return { dir, sessions: 0 }
  }
  transcript(path.join(project, `${MIDDLE}.jsonl`), MIDDLE)
  if (layout === "subagent" || layout === "meta") {
    const agents = path.join(project, MIDDLE, "subagents")
    fs.mkdirSync(agents, { recursive: true })
    transcript(path.join(agents, "agent-a.jsonl"), MIDDLE)
    fifo(path.join(agents, layout === "subagent" ? "agent-z.jsonl" : "agent-a.meta.json"))
  }
  return { dir, sessions: 1 }
}

const loaded = (result: AcxResult, what: string) => {
  expect(result.stderr, what).not.toMatch(/Cannot find module|internal error/)
  expect(result.code, `${what}: ${result.stderr}`).toBe(0)
  return result
}

describe("a FIFO in the config directory: every driver still loads", () => {
  for (const layout of LAYOUTS) {
    it(`FIFO ${layout}: import (SQLite${PG_URL === undefined ? "" : ", Postgres"}), sync, sessions, stats`, {
      timeout: TEST_TIMEOUT_MS * 2
    }, async () => {
      const { dir, sessions } = configDir(layout)
      const home = path.join(root, layout, "home")
      // vitest's NODE_PATH names pnpm's hoisted modules, where a driver's dependencies are found
      // however the driver was resolved: a user's shell has none
      const env = { CLAUDE_CONFIG_DIR: dir, ACX_HOME: home, NODE_PATH: undefined }
      if (PG_URL !== undefined) {
        const schema = `fifo_${layout}_${process.pid}`
        try {
          const to = `${PG_URL}${PG_URL.includes("?") ? "&" : "?"}schema=${schema}`
          loaded(await acx(["import", "--to", to], { env }), "import into Postgres")
        } finally {
          await dropSchema(PG_URL, schema)
        }
      }
      const imported = loaded(
        await acx(["import", "--to", `sqlite:${path.join(root, layout, "s.db")}`, "--json"], { env }),
        "import into SQLite"
      )
      expect(JSON.parse(imported.stdout)).toMatchObject({ sessions })
      loaded(await acx(["sync"], { env }), "sync")
      // over a config directory, one path (no Effect): the same in every layout
      const listed = loaded(await acx(["sessions", "--json"], { env }), "sessions")
      expect(JSON.parse(listed.stdout)).toHaveLength(sessions)
      loaded(await acx(["stats", "--json"], { env }), "stats")
    })
  }
})
