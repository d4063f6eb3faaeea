import { createClaudeProjectsSessionStore } from "@acx/claude-code/ClaudeProjectsSessionStore"
import * as Fixtures from "@acx/fixtures"
import { bundleWorker } from "@acx/fixtures/workerBundle"
import { expectInterleavedAppends, runAppendWorkers } from "@acx/testing/SessionStoreConcurrency"
import { runSessionStoreConformance } from "@acx/testing/SessionStoreConformance"
import { getSessionMessages, importSessionToStore } from "@anthropic-ai/claude-agent-sdk"
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-claude-projects-store-"))
afterAll(() => fs.rmSync(tempDir, { recursive: true, force: true }))
const configDir = path.join(tempDir, "conformance")

runSessionStoreConformance("ClaudeProjectsSessionStore", () => createClaudeProjectsSessionStore({ configDir }), {
  sharedStorage: () => createClaudeProjectsSessionStore({ configDir })
})

describe("ClaudeProjectsSessionStore files", () => {
  it("writes Claude Code JSONL: one JSON object per line", async () => {
    const dir = path.join(tempDir, "jsonl")
    const store = createClaudeProjectsSessionStore({ configDir: dir })
    const sessionId = randomUUID()
    const key = { projectKey: "-tmp-project", sessionId }
    const entries = [
      { type: "user", uuid: randomUUID(), sessionId, message: { role: "user", content: "line\nbreak\u2028" } },
      { type: "assistant", uuid: randomUUID(), sessionId, message: { role: "assistant", content: [] } }
    ]
    await store.append(key, entries)
    await store.append(key, entries)
    await store.append({ ...key, subpath: "subagents/agent-a1" }, [{ type: "agent_metadata", agentType: "x" }])
    const text = fs.readFileSync(path.join(dir, "projects", "-tmp-project", `${sessionId}.jsonl`), "utf8")
    expect(text.endsWith("\n")).toBe(true)
    const lines = text.split("\n").slice(0, -1)
    expect(lines.map((line) => JSON.parse(line))).toEqual(entries)
    expect(fs.existsSync(path.join(dir, "projects", "-tmp-project", sessionId, "subagents", "agent-a1.jsonl"))).toBe(
      true
    )
    expect(await store.listSubkeys(key)).toEqual(["subagents/agent-a1"])
    await store.close()
  })

  it("never waits on a FIFO in place of a transcript or a sidecar: a typed error, at once", async () => {
    const dir = path.join(tempDir, "fifo")
    const store = createClaudeProjectsSessionStore({ configDir: dir })
    const sessionId = randomUUID()
    const key = { projectKey: "-tmp-project", sessionId }
    const projectDir = path.join(dir, "projects", "-tmp-project")
    fs.mkdirSync(projectDir, { recursive: true })
    execFileSync("mkfifo", [path.join(projectDir, `${sessionId}.jsonl`)])
    execFileSync("mkfifo", [path.join(projectDir, `${sessionId}.acx.json`)])
    const outcome = (promise: Promise<unknown>) => promise.then(() => "done", (error: unknown) => String(error))
    expect(await outcome(store.load(key))).toMatch(/^SessionStoreError: .*cannot read .*\.jsonl/)
    expect(await outcome(store.append(key, [{ type: "user", uuid: randomUUID() }]))).toMatch(
      /^SessionStoreError: .*cannot read .*\.(jsonl|acx\.json)/
    )
    await store.close()
  }, 10_000)
})

describe("ClaudeProjectsSessionStore (several processes)", () => {
  it("4 processes appending to one session take turns: every entry once, in order, summary exact", async () => {
    const dir = path.join(tempDir, "processes")
    const run = { workers: 4, batches: 15, batchSize: 10 }
    // plain Node on a bundle of the worker and the workspace sources it imports (through tsx's
    // hooks each start cost seconds of CPU)
    const worker = await bundleWorker(new URL("./workers/claudeProjectsAppendWorker.ts", import.meta.url))
    try {
      await runAppendWorkers(worker.file, dir, run, { execArgv: [] })
    } finally {
      worker.remove()
    }
    const store = createClaudeProjectsSessionStore({ configDir: dir })
    await expectInterleavedAppends(
      store,
      { projectKey: "concurrency", sessionId: "0b5c3f4e-2a47-4c1e-9d3b-6f1a2e8c7d90" },
      run
    )
    expect(fs.existsSync(path.join(dir, "projects", ".acx-lock"))).toBe(false)
    await store.close()
  }, 60_000)

  it("breaks the lock of a holder that died, and times out on a live one", async () => {
    const dir = path.join(tempDir, "stale-lock")
    const lockFile = path.join(dir, "projects", ".acx-lock")
    fs.mkdirSync(path.dirname(lockFile), { recursive: true })
    const key = { projectKey: "p", sessionId: randomUUID() }
    // a pid that cannot be alive on this host
    fs.writeFileSync(lockFile, `2147483646:${os.hostname()}:dead`)
    const store = createClaudeProjectsSessionStore({ configDir: dir, lockTimeout: "2 seconds" })
    await store.append(key, [{ type: "user", uuid: randomUUID() }])
    expect(await store.load(key)).toHaveLength(1)
    expect(fs.existsSync(lockFile)).toBe(false)

    // held by this very process under another token (alive): the append waits, then fails typed
    fs.writeFileSync(lockFile, `${process.pid}:${os.hostname()}:someone-else`)
    const blocked = createClaudeProjectsSessionStore({ configDir: dir, lockTimeout: "200 millis" })
    await expect(blocked.append(key, [{ type: "user", uuid: randomUUID() }])).rejects.toMatchObject({
      _tag: "SessionStoreError",
      reason: "Storage",
      operation: "lock"
    })
    expect(await store.load(key)).toHaveLength(1)
    expect(fs.readFileSync(lockFile, "utf8")).toContain("someone-else")
    fs.rmSync(lockFile)
    await Promise.all([store.close(), blocked.close()])
  })
})

const fixture = Fixtures.transcriptFiles()[0]

describe(
  "SDK over the store",
  () => {
    it("getSessionMessages reads a session imported with importSessionToStore", async () => {
      const file = fixture!
      const source = path.join(tempDir, "source")
      const sessionId = randomUUID()
      fs.mkdirSync(path.join(source, "projects", "-tmp-src"), { recursive: true })
      fs.copyFileSync(file, path.join(source, "projects", "-tmp-src", `${sessionId}.jsonl`))
      const store = createClaudeProjectsSessionStore({ configDir: path.join(tempDir, "mirror") })
      const previous = process.env["CLAUDE_CONFIG_DIR"]
      process.env["CLAUDE_CONFIG_DIR"] = source
      try {
        await importSessionToStore(sessionId, store, { dir: "/tmp/src" })
        const fromStore = await getSessionMessages(sessionId, { dir: "/tmp/src", sessionStore: store })
        const fromDisk = await getSessionMessages(sessionId, { dir: "/tmp/src" })
        expect(fromStore.length).toBeGreaterThan(0)
        expect(fromStore).toEqual(fromDisk)
      } finally {
        if (previous === undefined) delete process.env["CLAUDE_CONFIG_DIR"]
        else process.env["CLAUDE_CONFIG_DIR"] = previous
        await store.close()
      }
    })
  }
)
