/**
 * Text stored under older redaction rules is redacted again, once: rows an older acx wrote with a
 * secret its rules did not know (inserted as it would have left them), redacted when an Effect
 * program opens the file (`MemoryDatabase`), the full-text index following, nothing changed in
 * text already redacted, and a current file left alone (one read).
 */
import * as Redact from "@acx/convert/Redact"
import * as SqlClient from "@effect/sql/SqlClient"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as HookRunner from "../src/HookRunner.js"
import * as ReRedact from "../src/internal/reRedact.js"
import * as Sqlite from "../src/internal/sqlite.js"
import * as MemoryDatabase from "../src/MemoryDatabase.js"

const KEY = "sk-ant-api03-" + "Qw7Er5Ty".repeat(5)
const GITHUB = "ghp_" + "A1b2C3d4E5".repeat(4)

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

const makeFile = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-reredact-"))
  dirs.push(dir)
  return path.join(dir, "memory.db")
}

// rows as an acx whose rules missed these secrets left them
const seedOld = (file: string, prompts: number) => {
  const db = Sqlite.open(file)
  try {
    const prompt = db.prepare(
      "INSERT INTO memory_prompts (session_id, project, prompt_number, text, created_at) VALUES ('s1', '/p', ?, ?, 0)"
    )
    for (let i = 0; i < prompts; i++) prompt.run(i + 1, `prompt ${i} with ${KEY}`)
    db.prepare(
      `INSERT INTO memory_observations (session_id, project, type, title, narrative, facts, source, created_at)
       VALUES ('s1', '/p', 'discovery', 'token found', ?, ?, 'local', 0)`
    ).run(`the CI uses ${GITHUB}`, JSON.stringify([`push with ${GITHUB}`, "plain fact"]))
    db.prepare(
      `INSERT INTO memory_events (session_id, project, kind, idempotency_key, payload, created_at)
       VALUES ('s1', '/p', 'tool', 'k1', ?, 0)`
    ).run(JSON.stringify({ tool_input: { command: `curl -H "x-api-key: ${KEY}"` }, password: "hunter2" }))
    db.prepare("INSERT INTO memory_meta (key, value) VALUES ('redaction_rules', 'older-rules')").run()
  } finally {
    db.close()
  }
}

const everything = (file: string): string => {
  const db = Sqlite.open(file)
  try {
    return JSON.stringify([
      db.prepare("SELECT * FROM memory_prompts").all(),
      db.prepare("SELECT * FROM memory_observations").all(),
      db.prepare("SELECT * FROM memory_events").all()
    ])
  } finally {
    db.close()
  }
}

describe("redacting stored text again when the rules change", () => {
  it.effect("opening the file redacts every older row, in batches, the index following; then never again", () =>
    Effect.gen(function*() {
      const file = makeFile()
      seedOld(file, ReRedact.BATCH * 2 + 7)
      yield* Effect.scoped(
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const hits = yield* sql<
            { n: number }
          >`SELECT count(*) AS n FROM memory_prompts_fts WHERE memory_prompts_fts MATCH 'Qw7Er5TyQw7Er5Ty*'`
          expect(hits[0]!.n).toBe(0)
          const redacted = yield* sql<
            { n: number }
          >`SELECT count(*) AS n FROM memory_prompts_fts WHERE memory_prompts_fts MATCH 'REDACTED'`
          expect(redacted[0]!.n).toBe(ReRedact.BATCH * 2 + 7)
        }).pipe(Effect.provide(MemoryDatabase.layer(file)))
      )
      const stored = everything(file)
      for (const secret of [KEY, GITHUB, "hunter2"]) expect(stored.includes(secret), secret).toBe(false)
      expect(stored).toContain("plain fact")
      expect(stored).toContain("[REDACTED:anthropic-key]")

      const db = Sqlite.open(file)
      try {
        expect(db.prepare("SELECT value FROM memory_meta WHERE key = 'redaction_rules'").get()).toEqual({
          value: Redact.RULES_FINGERPRINT
        })
        // current: one read, nothing done
        expect(ReRedact.reRedact(db)).toBeUndefined()
      } finally {
        db.close()
      }
    }))

  it("changes nothing in text the hook already redacted with today's rules", () => {
    const file = makeFile()
    const home = path.dirname(file)
    const input = {
      session_id: "s-now",
      transcript_path: "/tmp/t.jsonl",
      cwd: "/p",
      hook_event_name: "UserPromptSubmit",
      prompt: `deploy with ${KEY} and db_password: hunter22 <private>home address</private>`
    }
    HookRunner.runHook("UserPromptSubmit", JSON.stringify(input), { home, env: {} })
    const db = Sqlite.open(path.join(home, "memory.db"))
    try {
      const before = everything(path.join(home, "memory.db"))
      expect(ReRedact.reRedact(db, "a-newer-fingerprint")).toMatchObject({ changed: 0 })
      expect(everything(path.join(home, "memory.db"))).toBe(before)
    } finally {
      db.close()
    }
  })

  it("is total over stored values that are not what their column should hold", () => {
    const file = makeFile()
    const db = Sqlite.open(file)
    try {
      db.prepare(
        `INSERT INTO memory_observations (session_id, project, type, title, narrative, facts, source, created_at)
         VALUES ('s', '/p', 't', 'x', 'y', ?, 'local', 0)`
      ).run(`not json ${GITHUB}`)
      expect(ReRedact.reRedact(db, "other")).toEqual({ rows: 1, changed: 1 })
      expect(JSON.stringify(db.prepare("SELECT facts FROM memory_observations").all())).not.toContain(GITHUB)
    } finally {
      db.close()
    }
  })
})
