/**
 * `acx search` through the BUILT binary over stores `acx sync` filled from the real Claude Code
 * fixtures (plus one planted session with secrets): a rare word (`beads`, in session 258c7280's
 * tool results), a phrase, an exclusion, the filters (project, role, since, limit), the
 * `--json` document (decoded with its Schema), ranking, secrets never shown (several shapes, some
 * cut by the snippet's window), the index advanced by the read itself, bad targets (nothing
 * created, no password shown), no store at all (one hint line), and rejected queries. The same
 * searches over Postgres give the same hits.
 *
 * Each promise goes through the BUILT binary once (the default store, plain text, a usage error,
 * no store, a bad target, a refused query); the many searches that check what is found run `run`
 * of `src/Cli.ts` in this process (`acxInProcess`), a process start each saved.
 */
import * as Fixtures from "@acx/fixtures"
import * as SessionSearch from "@acx/session-store/SessionSearch"
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import * as Schema from "effect/Schema"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, parseJson, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"
import { makeSecrets, plantSession, secretFragments } from "./utils/plantedSecrets.js"
import { closedPort, dropSchema, showsPassword } from "./utils/postgres.js"
import { removeTreeWhenIdle } from "./utils/processes.js"

const PG_URL = process.env["ACX_PG_URL"]
const BEADS_SESSION = "258c7280-ae70-4798-800f-63464d01a85d"
const PLANTED_PROJECT = "planted-secrets"
// the planted session's entries are timed from here (a day after the fixtures)
const PLANTED_START = Date.parse("2026-03-10T12:00:00Z")

const decode = Schema.decodeUnknownSync(SessionSearch.SearchResult)

const ok = (result: AcxResult) => {
  expect(result.code, `exit code (stderr: ${result.stderr})`).toBe(0)
  expect(result.stderr, "stderr").toBe("")
  return result
}

const expectOneLine = (result: AcxResult, code: number, text: string) => {
  expect(result.code, result.stderr).toBe(code)
  expect(result.stdout).toBe("")
  expect(result.stderrLines).toHaveLength(1)
  expect(result.stderrLines[0]).toMatch(/^acx: /)
  expect(result.stderrLines[0]).toContain(text)
}

// The first tool_result block of a transcript that holds a word: its entry uuid and text.
const firstToolResult = (file: string, word: string) => {
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue
    const entry = JSON.parse(line) as { uuid?: string; message?: { content?: unknown } }
    const content = entry.message?.content
    if (!Array.isArray(content)) continue
    for (const block of content as Array<{ type?: string; content?: unknown }>) {
      const text = JSON.stringify(block.content ?? "")
      if (block.type === "tool_result" && text.toLowerCase().includes(word)) return { uuid: entry.uuid!, text }
    }
  }
  throw new Error(`no tool result with ${word} in ${file}`)
}

const localDay = (ms: number) => {
  const d = new Date(ms)
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`
}

// Where a hit is (a snippet depends on the query: its window is around the first match).
const hitKey = (hit: SessionSearch.Hit) => JSON.stringify([hit.sessionId, hit.subpath, hit.uuid, hit.role])

describe("acx search", () => {
  let root = ""
  let home = ""
  let db = ""
  let built: Fixtures.BuiltConfigDir
  const secrets = makeSecrets()
  let planted: ReturnType<typeof plantSession>

  // in process; `spawned`: through the binary
  const search = async (args: ReadonlyArray<string>, from = db, spawned = false) =>
    decode(
      parseJson(
        ok(
          await (spawned ? acx : acxInProcess)(
            ["search", ...args, "--json", ...(from === "" ? [] : ["--from", from])],
            {
              env: { ACX_HOME: home }
            }
          )
        )
      )
    )

  beforeAll(async () => {
    root = tempDir("search")
    home = path.join(root, "home")
    built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
    planted = plantSession(built.configDir, PLANTED_PROJECT, secrets, PLANTED_START)
    // the default store, as `acx sync` with no --to fills it
    ok(await acx(["sync", "--config-dir", built.configDir], { env: { ACX_HOME: home } }))
    db = path.join(home, "sessions.db")
    // a copy as synced, before any read derived its index (for the test of what is appended)
    for (const name of fs.readdirSync(home).filter((name) => name.startsWith("sessions.db"))) {
      fs.copyFileSync(path.join(home, name), path.join(root, name.replace("sessions.db", "appended.db")))
    }
  }, TEST_TIMEOUT_MS)
  afterAll(() => removeTreeWhenIdle(root), 70_000)

  it("finds a rare word: beads, in the first of session 258c7280's tool results that holds it", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const session = built.sessions.find((s) => s.sessionId === BEADS_SESSION)!
    const first = firstToolResult(session.file, "beads")
    // the default store, no --from, through the binary
    const result = await search(["beads", "--limit", "100"], "", true)
    expect(result.target).toBe(`sqlite:${db}`)
    expect(result.query).toBe("beads")
    expect(result.hits.length).toBeGreaterThan(0)
    expect(result.hits.every((hit) => /\*\*beads\*\*/i.test(hit.snippet))).toBe(true)
    const hit = result.hits.find((h) => h.uuid === first.uuid && h.role === "tool")
    expect(hit, JSON.stringify(result.hits.map((h) => h.uuid))).toMatchObject({
      sessionId: BEADS_SESSION,
      projectKey: session.projectKey,
      subpath: ""
    })
    expect(hit!.time).toBe(new Date(hit!.timeMs!).toISOString())
    // ranked: best first
    const scores = result.hits.map((h) => h.score)
    expect([...scores].sort((a, b) => b - a)).toEqual(scores)
  })

  it("prints hits on a plain line each: session, project, time, role, turn, the match marked, how to open one", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const result = ok(await acx(["search", "beads", "--limit", "3"], { env: { ACX_HOME: home } }))
    const lines = result.stdout.trimEnd().split("\n")
    expect(lines).toHaveLength(3 * 2 + 2)
    expect(lines[0]).toMatch(
      /^258c7280 {2}marot-spotter {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}(tool|assistant|user) {2}turn [0-9a-f-]{36}$/
    )
    expect(lines[1]).toMatch(/^ {4}.*\*\*beads\*\*/i)
    expect(lines.at(-1)).toMatch(
      /^3 hits? in sqlite:.*sessions\.db\. Open one: acx show 258c7280, or in acx ui at #\/session\/258c7280-[0-9a-f-]+\?turn=[0-9a-f-]{36}$/
    )
    expect(result.stdout).not.toContain("\u001b")
    // bold on a terminal (FORCE_COLOR stands in for one), never `**`
    const bold = ok(
      await acxInProcess(["search", "beads", "--limit", "3"], {
        env: { ACX_HOME: home, NO_COLOR: undefined, FORCE_COLOR: "1" }
      })
    )
    expect(bold.stdout).toMatch(/\u001b\[1mbeads\u001b\[22m/i)
    expect(bold.stdout).not.toContain("**beads**")
  })

  it("a phrase: the words in that order; an exclusion leaves out what holds the word", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const word = await search(["Exported", "--limit", "500"])
    const phrase = await search(["\"Exported 111 issues\"", "--limit", "500"])
    expect(phrase.hits.length).toBeGreaterThan(0)
    expect(phrase.hits.length).toBeLessThan(word.hits.length)
    for (const hit of phrase.hits) expect(hit.snippet).toMatch(/\*\*Exported\*\* \*\*111\*\* \*\*issues\*\*/i)
    const wordKeys = new Set(word.hits.map(hitKey))
    expect(phrase.hits.every((hit) => wordKeys.has(hitKey(hit)))).toBe(true)

    const all = await search(["beads", "--limit", "500"])
    const both = await search(["beads jsonl", "--limit", "500"])
    const without = await search(["beads -jsonl", "--limit", "500"])
    expect(both.hits.length).toBeGreaterThan(0)
    expect(without.hits.length).toBeGreaterThan(0)
    // every field with beads either holds jsonl or not
    expect(both.hits.length + without.hits.length).toBe(all.hits.length)
    // a snippet is part of its field: none of those left holds the word
    for (const hit of without.hits) expect(hit.snippet.toLowerCase()).not.toContain("jsonl")
  })

  it("filters: project (name or path), role, since (local day), limit", { timeout: TEST_TIMEOUT_MS }, async () => {
    const all = await search(["beads", "--limit", "500"])
    const project = await search(["beads", "--project", "marot-spotter", "--limit", "500"])
    expect(project.hits.length).toBe(all.hits.length)
    expect((await search(["beads", "--project", "tomjnsn-agentlogs"])).hits).toEqual([])
    const elsewhere = await acxInProcess(["search", "beads", "--project", path.join(root, "nowhere"), "--from", db])
    expect(ok(elsewhere).stdout.trim()).toBe(
      `no match for "beads" in project ${path.join(root, "nowhere")} in sqlite:${db}`
    )

    for (const role of ["user", "assistant", "tool"] as const) {
      const hits = (await search(["beads", "--role", role, "--limit", "500"])).hits
      expect(hits.length, role).toBeGreaterThan(0)
      expect(hits.every((hit) => hit.role === role)).toBe(true)
    }

    const times = all.hits.map((hit) => hit.timeMs!)
    const sinceFirst = await search(["beads", "--since", localDay(Math.min(...times)), "--limit", "500"])
    expect(sinceFirst.hits.length).toBe(all.hits.length)
    const dayAfter = localDay(Math.max(...times) + 86_400_000)
    expect((await search(["beads", "--since", dayAfter.replaceAll("-", "")])).hits).toEqual([])
    // the planted session is a day later than every fixture: since its day, only its texts
    const quokka = await search(["quokka", "--since", localDay(PLANTED_START)])
    expect(quokka.hits.map((hit) => hit.sessionId)).toEqual([planted.sessionId, planted.sessionId])
    expectOneLine(
      await acx(["search", "beads", "--since", "last week", "--from", db]),
      2,
      "--since: \"last week\" is not a date"
    )

    expect((await search(["beads", "--limit", "3"])).hits).toHaveLength(3)
    expectOneLine(
      await acxInProcess(["search", "beads", "--limit", "0", "--from", db]),
      2,
      "--limit: expected 1 to 500, got 0"
    )
  })

  it(
    "ranks a short text full of the word above a long one that mentions it once",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const { hits } = await search(["quokka"])
      expect(hits).toHaveLength(2)
      expect(hits[0]!.snippet).toBe("**quokka** **quokka** **quokka**")
      expect(hits[0]!.uuid).toBe(planted.entries[3]!.uuid)
      expect(hits[1]!.uuid).toBe(planted.entries[4]!.uuid)
      expect(hits[1]!.snippet).toMatch(/^….* \*\*quokka\*\* .*…$/)
    }
  )

  it("never shows a secret: masked in every snippet, also where the window would cut one", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const fragments = secretFragments(secrets)
    const json = await search(["zebrafinch", "--limit", "50"])
    // the prompt, the reply, the tool input and the tool result
    expect(new Set(json.hits.map((hit) => hit.role))).toEqual(new Set(["user", "assistant", "tool"]))
    expect(json.hits.length).toBeGreaterThanOrEqual(4)
    const shown = JSON.stringify(json)
    for (const fragment of fragments) expect(shown).not.toContain(fragment)
    for (const kind of ["anthropic-key", "aws-access-key", "credential"]) expect(shown).toContain(`[REDACTED:${kind}]`)
    // the key's own words: masked on the way into the store (acx sync), so not even indexed
    const byKeyWord = await search([secrets.anthropic.split("-")[5]!])
    expect(byKeyWord.hits).toEqual([])
    // (the query is echoed as typed: the hits are what must not show it)
    for (const fragment of fragments) expect(JSON.stringify(byKeyWord.hits)).not.toContain(fragment)
    // the private key: the match is after it, so the window starts inside it
    const pem = await search(["\"after the key\""])
    expect(pem.hits).toHaveLength(1)
    // (the mask's marker is text like any other: its words are marked when they match)
    expect(pem.hits[0]!.snippet).toContain("[REDACTED:private-**key**]")
    for (const fragment of fragments) expect(pem.hits[0]!.snippet).not.toContain(fragment)
    // plain text too, and a transcript's terminal escape is not passed to the terminal
    const text = ok(await acxInProcess(["search", "zebrafinch", "--limit", "50", "--from", db]))
    for (const fragment of fragments) expect(text.stdout).not.toContain(fragment)
    expect(text.stdout).not.toContain("\u001b")
    expect(text.stdout).toContain("?[31mred **zebrafinch**?[0m")
  })

  it(
    "sees what was appended since the last read: the read derives it first",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      // the store as `acx sync` left it (copied in beforeAll)
      const file = path.join(root, "appended.db")
      expect((await search(["platypus"], file)).hits).toEqual([])
      // appended as the SDK's own mirroring appends: no import, no refresh of the index
      const store = createSqliteSessionStore({ filename: file })
      const uuid = randomUUID()
      try {
        await store.append({ projectKey: "appended", sessionId: planted.sessionId }, [{
          type: "user",
          uuid,
          sessionId: planted.sessionId,
          timestamp: new Date().toISOString(),
          message: { role: "user", content: "a platypus appeared" }
        }])
      } finally {
        await store.close()
      }
      const { hits } = await search(["platypus"], file)
      expect(hits.map((hit) => [hit.projectKey, hit.uuid, hit.snippet])).toEqual([
        ["appended", uuid, "a **platypus** appeared"]
      ])
    }
  )

  describe("no store, a bad target: one line, nothing created", () => {
    it("no store at all: how to get one, exit 1, nothing created", { timeout: TEST_TIMEOUT_MS }, async () => {
      const empty = path.join(root, "home-empty")
      const result = await acx(["search", "beads"], { env: { ACX_HOME: empty, CLAUDE_CONFIG_DIR: built.configDir } })
      expectOneLine(result, 1, `no session store at ${path.join(empty, "sessions.db")}: run \`acx sync\``)
      expect(result.stderr).toContain("`acx sync install` keeps it current")
      expect(fs.existsSync(empty)).toBe(false)
    })

    it("a SQLite file that does not exist, or that is no database", { timeout: TEST_TIMEOUT_MS }, async () => {
      const missing = path.join(root, "missing", "s.db")
      expectOneLine(
        await acx(["search", "beads", "--from", missing]),
        1,
        `--from: no store at ${missing}: it does not exist`
      )
      expect(fs.existsSync(path.dirname(missing))).toBe(false)
      const here = path.join(root, "missing-here.db")
      expectOneLine(await acxInProcess(["search", "beads", "--from", `sqlite:${here}`]), 1, "does not exist")
      expect(fs.existsSync(here)).toBe(false)
      const text = path.join(root, "notes.db")
      fs.writeFileSync(text, "not a database\n")
      expectOneLine(
        await acxInProcess(["search", "beads", "--from", text]),
        1,
        `--from: ${text} is not a SQLite database`
      )
      expect(fs.readFileSync(text, "utf8")).toBe("not a database\n")
    })

    it("an unreachable Postgres: host and reason, never the password", { timeout: TEST_TIMEOUT_MS }, async () => {
      const port = await closedPort()
      const result = await acx(["search", "beads", "--from", `postgres://acx:s3cret-Pw@127.0.0.1:${port}/acx`])
      expectOneLine(result, 1, `cannot connect to Postgres at 127.0.0.1:${port}`)
      expect(result.stderr).not.toContain("s3cret-Pw")
    })

    it("a spec that names no database: a usage error, the password hidden", { timeout: TEST_TIMEOUT_MS }, async () => {
      const result = await acxInProcess(["search", "beads", "--from", "postgress://acx:s3cret-Pw@host/db"])
      expectOneLine(result, 2, "--from: expected sqlite:FILE")
      expect(result.stderr).not.toContain("s3cret-Pw")
    })
  })

  it("a query that cannot be searched is one line naming the problem; odd ones are just words", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const refused: ReadonlyArray<readonly [string, string]> = [
      ["\"", "it has no word to search for"],
      ["-", "it has no word to search for"],
      ["*", "it has no word to search for"],
      [":", "it has no word to search for"],
      ["-beads", "it only excludes words"],
      ["a ".repeat(5000), "it has 5000 terms, at most 32 are searched"]
    ]
    for (const [index, [query, problem]] of refused.entries()) {
      // the first through the binary
      const result = await (index === 0 ? acx : acxInProcess)(["search", "--from", db, "--", query])
      expectOneLine(result, 1, problem)
      expect(result.stderrLines[0]).toMatch(/^acx: cannot search for ".{0,70}": /)
    }
    // engine syntax is never syntax: each is a word or nothing
    const found: Record<string, number> = {}
    for (
      const query of ["NEAR(beads", "beads*", "body:beads", "\"beads", "beads OR quokka", "ünïcödé", "x".repeat(10_000)]
    ) {
      const result = await acxInProcess(["search", "--json", "--from", db, "--", query])
      expect(result.code, `${query.slice(0, 20)}: ${result.stderr}`).toBe(0)
      found[query.slice(0, 20)] = decode(parseJson(result)).hits.length
    }
    // `*` and an unclosed quote are punctuation; NEAR, body and OR are words every hit must hold
    const beads = (await search(["beads"])).hits.length
    expect(beads).toBeGreaterThan(0)
    expect(found).toMatchObject({
      "beads*": beads,
      "\"beads": beads,
      "NEAR(beads": 0,
      "body:beads": 0,
      "beads OR quokka": 0
    })
  })

  it.skipIf(PG_URL === undefined)("over Postgres: the same hits as SQLite, masked the same", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const schema = `acx_search_test_${process.pid}_${randomUUID().slice(0, 8)}`
    const url = new URL(PG_URL!)
    url.searchParams.set("schema", schema)
    try {
      ok(await acx(["sync", "--to", url.href, "--config-dir", built.configDir]))
      const pg = await search(["beads", "--limit", "500"], url.href)
      const sqlite = await search(["beads", "--limit", "500"])
      expect(showsPassword(pg.target, url.href)).toBe(false)
      const uuids = (result: SessionSearch.SearchResult) => result.hits.map((hit) => `${hit.uuid} ${hit.role}`).sort()
      expect(uuids(pg)).toEqual(uuids(sqlite))
      const phrase = await search(["\"Exported 111 issues\"", "--project", "marot-spotter", "--role", "tool"], url.href)
      expect(phrase.hits.length).toBeGreaterThan(0)
      const secretsShown = JSON.stringify(await search(["zebrafinch", "--limit", "50"], url.href))
      for (const fragment of secretFragments(secrets)) expect(secretsShown).not.toContain(fragment)
      expect(secretsShown).toContain("[REDACTED:private-key]")
    } finally {
      await dropSchema(PG_URL!, schema)
    }
  })
})
