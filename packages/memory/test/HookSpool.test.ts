/**
 * The spool (a hook input that met a locked database): redacted and stripped of `<private>`
 * parts before any byte is written, owner-only, and recorded by the worker's side with the event
 * identity the hook gave it (a second delivery of the same input is not stored twice). A spool
 * file an older acx wrote (the raw input, no key) is still recorded, redacted on the way in.
 */
import Database from "better-sqlite3"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as HookCapture from "../src/HookCapture.js"
import * as HookRunner from "../src/HookRunner.js"
import * as SpoolIngest from "../src/internal/spoolIngest.js"
import * as Sqlite from "../src/internal/sqlite.js"
import * as MemoryConfig from "../src/MemoryConfig.js"

const homes: Array<string> = []
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true })
})

const makeHome = () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "acx-memory-spool-"))
  homes.push(home)
  return home
}

const project = "/work/projects/shop"
const KEY = "sk-ant-api03-" + "Zx9Yw8Vu".repeat(5)
const input = (prompt: string) => ({
  session_id: "s-spool",
  transcript_path: "/tmp/t.jsonl",
  cwd: project,
  hook_event_name: "UserPromptSubmit",
  prompt
})

/** Runs the prompt hook while another connection holds the write lock: it spools. */
const spoolWhileLocked = (home: string, raw: string) => {
  const holder = Sqlite.open(MemoryConfig.paths(home).database)
  holder.exec("BEGIN IMMEDIATE")
  try {
    return HookRunner.runHook("UserPromptSubmit", raw, { home, env: {}, busyTimeoutMs: 20 })
  } finally {
    holder.exec("ROLLBACK")
    holder.close()
  }
}

const spoolFiles = (home: string) => {
  const dir = MemoryConfig.paths(home).spool
  return fs.readdirSync(dir).map((name) => path.join(dir, name))
}

// the worker's own ingest
const ingest = (home: string): number => SpoolIngest.ingest(MemoryConfig.paths(home), MemoryConfig.load(home).config)

const prompts = (home: string) => {
  const db = new Database(MemoryConfig.paths(home).database, { readonly: true })
  try {
    return (db.prepare("SELECT text FROM memory_prompts").all() as Array<{ text: string }>).map((row) => row.text)
  } finally {
    db.close()
  }
}

describe("the spool", () => {
  it("holds the input redacted and stripped, owner-only, before any byte is written", () => {
    const home = makeHome()
    const raw = JSON.stringify(
      input(`ship it with key%3D${KEY} <private>my address is 1 Main St</private> db_password: hunter22`)
    )
    const outcome = spoolWhileLocked(home, raw)
    expect(outcome).toMatchObject({ spooled: true, recorded: false })
    const [file, ...others] = spoolFiles(home)
    expect(others).toEqual([])
    const bytes = fs.readFileSync(file!)
    for (const secret of [KEY, "1 Main St", "hunter22", "<private>"]) {
      expect(bytes.includes(Buffer.from(secret)), secret).toBe(false)
    }
    expect(fs.statSync(file!).mode & 0o777).toBe(0o600)
    expect(fs.statSync(path.dirname(file!)).mode & 0o777).toBe(0o700)
    // nothing else was left beside it (no temporary file)
    expect(fs.readdirSync(path.dirname(file!))).toEqual([path.basename(file!)])

    expect(ingest(home)).toBe(1)
    expect(prompts(home)).toEqual(["ship it with key%3D[REDACTED:anthropic-key]  db_password: [REDACTED:credential]"])
  })

  it("the worker removes what a hook killed mid-write left, once it is a minute old, and nothing else", () => {
    const home = makeHome()
    const raw = JSON.stringify(input(`left behind ${KEY}`))
    expect(spoolWhileLocked(home, raw).spooled).toBe(true)
    const dir = MemoryConfig.paths(home).spool
    const [spooled] = fs.readdirSync(dir)
    // what `writePrivateFile` writes before its rename: one stale (its writer gone), one fresh
    const stale = path.join(dir, `.${spooled}.4242.1.tmp`)
    const fresh = path.join(dir, `.${spooled}.4243.1.tmp`)
    const other = path.join(dir, ".notes.tmp")
    for (const file of [stale, fresh, other]) fs.writeFileSync(file, raw)
    const old = new Date(Date.now() - 5 * 60_000)
    fs.utimesSync(stale, old, old)
    fs.utimesSync(other, old, old)
    expect(ingest(home)).toBe(1)
    expect(fs.readdirSync(dir).sort()).toEqual([".notes.tmp", path.basename(fresh)].sort())
    expect(prompts(home)).toEqual(["left behind [REDACTED:anthropic-key]"])
  })

  it("keeps the event's identity: the same input delivered again once the lock is gone is stored once", () => {
    const home = makeHome()
    const raw = JSON.stringify(input(`remember ${KEY}`))
    expect(spoolWhileLocked(home, raw).spooled).toBe(true)
    expect(ingest(home)).toBe(1)
    expect(HookRunner.runHook("UserPromptSubmit", raw, { home, env: {} }).recorded).toBe(false)
    expect(prompts(home)).toEqual(["remember [REDACTED:anthropic-key]"])
  })

  it("records a spool file an older acx wrote (raw input, no key), redacted on the way in", () => {
    const home = makeHome()
    Sqlite.open(MemoryConfig.paths(home).database).close()
    const dir = MemoryConfig.paths(home).spool
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, "1700000000000-1-abcd.json"),
      JSON.stringify({ event: "UserPromptSubmit", raw: JSON.stringify(input(`old <private>x</private>${KEY}`)) })
    )
    expect(ingest(home)).toBe(1)
    expect(prompts(home)).toEqual(["old [REDACTED:anthropic-key]"])
  })

  it("spoolable: redacts every string but the fields naming the event, and capture reads it the same", () => {
    const config = MemoryConfig.defaults
    const original = {
      ...input(`a <private>b</private> ${KEY}`),
      session_id: "password=kept-as-is",
      extra: { token: "abc", nested: [`Bearer ${"q".repeat(30)}`] }
    }
    const kept = HookCapture.spoolable(original)
    expect(kept["session_id"]).toBe("password=kept-as-is")
    expect(JSON.stringify(kept)).not.toContain(KEY)
    expect(JSON.stringify(kept)).not.toContain("q".repeat(30))
    expect(kept["extra"]).toEqual({ token: "[REDACTED:credential]", nested: ["Bearer [REDACTED:bearer-token]"] })
    const raw = JSON.stringify(original)
    const direct = HookCapture.capture("UserPromptSubmit", original, raw, config)
    const viaSpool = HookCapture.capture("UserPromptSubmit", kept, raw, config)
    expect(viaSpool).toEqual(direct)
  })
})

describe("the memory database", () => {
  it("is 0600 with its -wal and -shm, as the hook opens it, and an old 0644 one is tightened", () => {
    const home = makeHome()
    const file = MemoryConfig.paths(home).database
    const db = Sqlite.open(file)
    try {
      db.prepare("INSERT INTO memory_sessions (id, project, started_at, last_event_at) VALUES ('s', ?, 1, 1)")
        .run(project)
      for (const name of [file, `${file}-wal`, `${file}-shm`]) expect(fs.statSync(name).mode & 0o777, name).toBe(0o600)
      for (const name of [file, `${file}-wal`, `${file}-shm`]) fs.chmodSync(name, 0o644)
      Sqlite.open(file).close()
      for (const name of [file, `${file}-wal`, `${file}-shm`]) expect(fs.statSync(name).mode & 0o777, name).toBe(0o600)
    } finally {
      db.close()
    }
  })
})
