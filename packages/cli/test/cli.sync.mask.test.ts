/**
 * Secrets are masked on the way into a store (docs/sync.md, "Secrets"): a transcript with a key
 * of every shape the masker knows (`Redact`, the page's mask), a password in a `.env` output, a
 * `postgres://user:pass@` URL, a `Bearer` token and an AWS secret key — in prompts, assistant
 * text, tool inputs and results, a title and a subagent's metadata — synced and imported into
 * SQLite and into the run's Postgres: no column of any table holds any of them, and the summary
 * counts them. With `--no-mask` they are stored as written. Masked entries stay exactly once: a
 * second sync stores nothing, and a store whose ledger is gone reads every file again and adds
 * nothing (the masked entries compare equal to what is stored). A line that writes a key twice
 * stores neither the dropped value nor the line (`EntryText`: it is encoded again).
 */
import Database from "better-sqlite3"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type AcxResult, parseJson, tempDir } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"
import { makeSecrets, plantSession, secretFragments, toolTurn } from "./utils/plantedSecrets.js"
import { dropSchema } from "./utils/postgres.js"

const PG_URL = process.env["ACX_PG_URL"]!
const TIMEOUT = 240_000

const ok = (result: AcxResult) => {
  expect(result.code, `exit code (stderr: ${result.stderr})`).toBe(0)
  return result
}

/** Random letters and digits, all three kinds (so they look like keys). */
const random = (length: number): string => {
  let out = "aZ0"
  while (out.length < length) {
    out += "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"[Math.floor(Math.random() * 57)]
  }
  return out
}

/** Secrets of the shapes `plantedSecrets` has not, each with the part that must not be stored. */
const moreSecrets = () => {
  const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJ${random(24)}.${random(30)}`
  const secrets = {
    openai: `sk-proj-${random(40)}`,
    githubPat: `github_pat_${random(60)}`,
    slack: `xoxb-${random(12)}-${random(24)}`,
    google: `AIza${random(35)}`,
    jwt,
    bearer: random(40),
    basic: Buffer.from(`admin:${random(16)}`).toString("base64"),
    urlPassword: random(20),
    envPassword: random(24),
    keyValue: random(22),
    titleKey: `sk-ant-api03-${random(40)}`,
    metaKey: `ghp_${random(36)}`,
    hiddenKey: `sk-ant-api03-${random(40)}`
  }
  return {
    secrets,
    fragments: [
      secrets.openai.slice(8),
      secrets.githubPat.slice(11),
      secrets.slack.slice(5),
      secrets.google.slice(4),
      jwt.split(".")[1]!,
      jwt.split(".")[2]!,
      secrets.bearer,
      secrets.basic,
      secrets.urlPassword,
      secrets.envPassword,
      secrets.keyValue,
      secrets.titleKey.slice(13),
      secrets.metaKey.slice(4)
    ],
    // in a line that writes its key twice: the value JSON.parse dropped, stored by no sync
    hidden: secrets.hiddenKey.slice(13)
  }
}

type More = ReturnType<typeof moreSecrets>["secrets"]

/** A second session holding the other shapes, a custom title with a key, and a subagent with metadata. */
const plantMore = (configDir: string, projectKey: string, secrets: More) => {
  const sessionId = randomUUID()
  const dir = path.join(configDir, "projects", projectKey)
  const at = (i: number) => new Date(Date.UTC(2026, 10, 2, 10, 0, i)).toISOString()
  const base = (i: number) => ({ uuid: randomUUID(), sessionId, timestamp: at(i), cwd: "/planted" })
  const entries = [
    ...toolTurn(sessionId, Date.UTC(2026, 10, 2, 10), {
      prompt: `use ${secrets.openai} and ${secrets.githubPat}, slack ${secrets.slack}, maps ${secrets.google}`,
      reply: `the session token is ${secrets.jwt}`,
      command: `curl -H "Authorization: Bearer ${secrets.bearer}" -H "Authorization: Basic ${secrets.basic}" ` +
        `&& psql postgres://app:${secrets.urlPassword}@db.internal/app`,
      output: `DB_PASSWORD=${secrets.envPassword}\nconfig: password=${secrets.keyValue}\n`
    }),
    // no uuid: kept once by the ledger, and by the stored copy's equality when the ledger is gone
    { type: "custom-title", customTitle: `deploy with ${secrets.titleKey}`, sessionId }
  ]
  fs.mkdirSync(path.join(dir, sessionId, "subagents"), { recursive: true })
  // a key written twice: JSON.parse keeps the second value, the first (a key) is in the line only
  const twice = `{"type":"user","uuid":"${randomUUID()}","sessionId":"${sessionId}","timestamp":"${at(9)}",` +
    `"message":{"role":"user","content":"use ${secrets.hiddenKey}","content":"nothing to see"}}`
  fs.writeFileSync(
    path.join(dir, `${sessionId}.jsonl`),
    [...entries.map((e) => JSON.stringify(e)), twice].join("\n") + "\n"
  )
  const agent = path.join(dir, sessionId, "subagents", "agent-a1b2c3")
  fs.writeFileSync(
    `${agent}.jsonl`,
    JSON.stringify({
      ...base(3),
      isSidechain: true,
      agentId: "a1b2c3",
      type: "user",
      message: { role: "user", content: `check ${secrets.metaKey}` }
    }) + "\n"
  )
  fs.writeFileSync(
    `${agent}.meta.json`,
    JSON.stringify({ agentType: "general", description: `token ${secrets.metaKey}` })
  )
}

/** Every row of every table of a SQLite file, as text (blobs as their bytes, FTS shadow tables included). */
const sqliteDump = (file: string): string => {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>
    return tables.map(({ name }) =>
      (db.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>).map((row) =>
        Object.values(row).map((value) => Buffer.isBuffer(value) ? value.toString("latin1") : String(value)).join("\t")
      ).join("\n")
    ).join("\n")
  } finally {
    db.close()
  }
}

interface PgClient {
  connect(): Promise<void>
  query(sql: string): Promise<{ rows: Array<Record<string, unknown>> }>
  end(): Promise<void>
}

/** Every row of every table of a Postgres schema, each as its text (`t::text`: every column). */
const postgresDump = async (schema: string): Promise<string> => {
  const pg = (await import("pg" as string)) as { default: { Client: new(options: object) => PgClient } }
  const client = new pg.default.Client({ connectionString: PG_URL })
  await client.connect()
  try {
    const tables = await client.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema}' AND table_type = 'BASE TABLE'`
    )
    const parts: Array<string> = []
    for (const { table_name } of tables.rows) {
      const rows = await client.query(`SELECT t::text AS row FROM "${schema}"."${String(table_name)}" t`)
      parts.push(...rows.rows.map((row) => String(row["row"])))
    }
    return parts.join("\n")
  } finally {
    await client.end()
  }
}

describe("secrets are masked on the way into a store", () => {
  let root = ""
  let configDir = ""
  let fragments: Array<string> = []
  let hidden = ""
  const schemas: Array<string> = []

  beforeAll(() => {
    root = tempDir("sync-mask")
    configDir = path.join(root, "claude")
    const planted = makeSecrets()
    plantSession(configDir, "-planted", planted, Date.UTC(2026, 10, 1, 10))
    const more = moreSecrets()
    plantMore(configDir, "-planted", more.secrets)
    fragments = [...secretFragments(planted), ...more.fragments]
    hidden = more.hidden
    // what the test looks for is really in the transcripts
    const written = fs.readdirSync(path.join(configDir, "projects", "-planted"), { recursive: true })
      .map((name) => path.join(configDir, "projects", "-planted", String(name)))
      .filter((file) => fs.statSync(file).isFile())
      .map((file) => fs.readFileSync(file, "utf8"))
      .join("\n")
    for (const fragment of [...fragments, hidden]) expect(written, fragment).toContain(fragment)
  })
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(PG_URL, schema)
    fs.rmSync(root, { recursive: true, force: true })
  })

  const pgSpec = (name: string) => {
    const schema = `acx_mask_${process.pid}_${name}`
    schemas.push(schema)
    const url = new URL(PG_URL)
    url.searchParams.set("schema", schema)
    return { schema, spec: url.href }
  }

  const leaked = (dump: string) => fragments.filter((fragment) => dump.includes(fragment))

  const targets = [
    ["SQLite", (name: string) => {
      const file = path.join(root, `${name}.db`)
      return { spec: `sqlite:${file}`, dump: async () => sqliteDump(file), file }
    }],
    ["Postgres", (name: string) => {
      const { schema, spec } = pgSpec(name)
      return { spec, dump: () => postgresDump(schema), file: undefined }
    }]
  ] as const

  it.each(targets)("%s: acx sync stores none of them, counts them, and stays exactly once", {
    timeout: TIMEOUT
  }, async (_, make) => {
    const target = make("sync")
    const first = ok(await acxInProcess(["sync", "--to", target.spec, "--config-dir", configDir, "--json"]))
    const summary = parseJson<{ entries: number; secretsMasked: number }>(first)
    // one or more per planted secret (a PEM block is one, its lines many fragments)
    expect(summary.secretsMasked).toBeGreaterThanOrEqual(17)
    expect(leaked(await target.dump())).toEqual([])
    const stored = await target.dump()
    expect(stored).not.toContain(hidden)
    expect(stored).toContain("[REDACTED:anthropic-key]")

    // the text summary says so
    const again = ok(await acxInProcess(["sync", "--to", target.spec, "--config-dir", configDir]))
    expect(again.stdout).toMatch(/ 0 new entries /)
    expect(again.stdout).not.toMatch(/masked/)
    // every file read again from its start (no ledger): the masked entries are already stored
    if (target.file !== undefined) {
      const db = new Database(target.file)
      db.prepare("DELETE FROM acx_session_import_ledger").run()
      db.close()
      const reread = parseJson<{ entries: number; filesRead: number }>(
        ok(await acxInProcess(["sync", "--to", target.spec, "--config-dir", configDir, "--json"]))
      )
      expect(reread.filesRead).toBeGreaterThan(0)
      expect(leaked(await target.dump())).toEqual([])
      const entries = (file: string) => {
        const opened = new Database(file, { readonly: true })
        try {
          return (opened.prepare("SELECT count(*) AS n FROM acx_session_entries").get() as { n: number }).n
        } finally {
          opened.close()
        }
      }
      expect(entries(target.file)).toBe(summary.entries)
    }
  })

  it.each(targets)("%s: acx import masks too; --no-mask stores them as written", {
    timeout: TIMEOUT
  }, async (_, make) => {
    const masked = make("import")
    const imported = ok(await acxInProcess(["import", "--from", configDir, "--to", masked.spec]))
    expect(imported.stdout).toMatch(/; \d+ secrets? masked\)/)
    expect(leaked(await masked.dump())).toEqual([])

    const raw = make("raw")
    const kept = parseJson<{ secretsMasked: number }>(
      ok(await acxInProcess(["sync", "--no-mask", "--to", raw.spec, "--config-dir", configDir, "--json"]))
    )
    expect(kept.secretsMasked).toBe(0)
    expect(leaked(await raw.dump())).toEqual(fragments)
  })
})
