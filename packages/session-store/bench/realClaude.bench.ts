/**
 * `pnpm bench`: what mirroring into a SessionStore costs a real Claude Code run. The real CLI,
 * offline against the model double, runs the same turn (a prompt, a Bash call, a tool result, a
 * final answer) through the SDK's `query()` without a store — the baseline, measured in the same
 * run — and with each acx store (Memory, SQLite, and Postgres when ACX_PG_URL is set). Rounds
 * alternate between the variants so machine noise hits them alike; the ratio is the median turn
 * wall time with the store over the median without.
 */
import {
  createMemorySessionStore,
  createPostgresSessionStore,
  createSqliteSessionStore
} from "@acx/session-store/promise"
import { detectClaude, ModelDouble, realClaude, startModelDouble } from "@acx/testing"
import { query, type SessionStore } from "@anthropic-ai/claude-agent-sdk"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const ROUNDS = 7

const detected = await detectClaude()
if (!detected.available) {
  console.log(`real Claude Code mirroring: skipped (${detected.reason})`)
  process.exit(0)
}

const model = await startModelDouble({
  script: [
    {
      when: (request) => !ModelDouble.lastMessageHasToolResult(request) && !ModelDouble.isSideCall(request),
      reply: { content: [{ type: "tool_use", name: "Bash", input: { command: "ls -la" } }] },
      times: Infinity
    },
    { when: ModelDouble.lastMessageHasToolResult, reply: { content: "Listed." }, times: Infinity }
  ]
})
const claude = await realClaude({ baseUrl: model.url })
const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-bench-real-"))
const cwd = fs.realpathSync(fs.mkdtempSync(path.join(root, "project-")))

type Variant = {
  readonly name: string
  readonly open: () => (SessionStore & { close?: () => Promise<void> }) | undefined
}
const variants: Array<Variant> = [
  { name: "no store (baseline)", open: () => undefined },
  { name: "MemorySessionStore", open: () => createMemorySessionStore() },
  {
    name: "SqliteSessionStore",
    open: () => createSqliteSessionStore({ filename: path.join(root, `${randomUUID()}.db`) })
  }
]
const pgUrl = process.env["ACX_PG_URL"]
if (pgUrl !== undefined && pgUrl !== "") {
  variants.push({
    name: "PostgresSessionStore",
    open: () =>
      createPostgresSessionStore({ url: pgUrl, schema: `bench_${randomUUID().replaceAll("-", "").slice(0, 10)}` })
  })
}

/** One turn in a fresh HOME; the store (if any) opened before and closed after, untimed. */
const turn = async (variant: Variant): Promise<number> => {
  const home = fs.mkdtempSync(path.join(root, "home-"))
  const sessionStore = variant.open()
  if (sessionStore !== undefined) await sessionStore.listSessions?.("warm-up") // open + migrate, untimed
  const started = performance.now()
  for await (
    const message of query({
      prompt: "List the files",
      options: {
        ...claude.queryOptions(home),
        cwd,
        allowedTools: ["Bash"],
        model: "claude-sonnet-4-5",
        ...(sessionStore === undefined ? {} : { sessionStore })
      }
    })
  ) {
    if (message.type === "result" && message.subtype !== "success") throw new Error(`turn failed: ${message.subtype}`)
  }
  const elapsed = performance.now() - started
  await sessionStore?.close?.()
  return elapsed
}

const times = new Map<string, Array<number>>(variants.map((variant) => [variant.name, []]))
await turn(variants[0]!) // warm the binary into the page cache
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of variants) times.get(variant.name)!.push(await turn(variant))
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const baseline = median(times.get(variants[0]!.name)!)
console.log(`real Claude Code turn (prompt, Bash, tool result, answer), median of ${ROUNDS} rounds:`)
for (const variant of variants) {
  const ms = median(times.get(variant.name)!)
  console.log(`  ${variant.name.padEnd(22)} ${ms.toFixed(0).padStart(6)} ms  ${(ms / baseline).toFixed(2)}×`)
}
await model.close()
fs.rmSync(root, { recursive: true, force: true })
