/**
 * Messages say what is so (issue 32, point 4): a torn last line is incomplete (and read once
 * complete), not malformed; a FIFO `.meta.json` is named in a warning; a symbolic link loop is a
 * `symlink loop`, not an internal name; `import --help` says "config directory"; `acx hook --help`
 * prints help, not a hook's answer; every count agrees with its noun. In process, but for the
 * hook's help, which is the bin's routing.
 */
import { plural } from "@acx/convert/Plural"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { heldInHub } from "../src/commands/run/hub.js"
import { importWarnings } from "../src/commands/run/import.js"
import { describeTeamSync } from "../src/commands/run/memoryTeam.js"
import { summary } from "../src/internal/syncSummary.js"
import { acx, parseJson, removeDir, tempDir } from "./utils/acx.js"
import { mkfifo, userEntry } from "./utils/hostileDir.js"
import { acxInProcess } from "./utils/inProcess.js"

let root = ""
beforeAll(() => {
  root = tempDir("messages")
})
afterAll(() => removeDir(root))

const SESSION = "22222222-0000-4000-8000-000000000000"

const configDir = (name: string) => {
  const dir = path.join(root, name, "claude")
  const project = path.join(dir, "projects", "-tmp-messages")
  fs.mkdirSync(project, { recursive: true })
  return { dir, project, env: { CLAUDE_CONFIG_DIR: dir, ACX_HOME: path.join(root, name, "home") } }
}

describe("a torn last line", () => {
  it("is said to be incomplete, not malformed, and is imported once complete", async () => {
    const { env, project } = configDir("torn")
    const file = path.join(project, `${SESSION}.jsonl`)
    const last = JSON.stringify(userEntry(SESSION, 1, "the line being written"))
    const first = JSON.stringify(userEntry(SESSION, 0, "a whole line")) + "\n"
    fs.writeFileSync(file, first + last.slice(0, 20))
    const db = `sqlite:${path.join(root, "torn", "s.db")}`
    const before = await acxInProcess(["import", "--to", db], { env })
    expect(before.code, before.stderr).toBe(0)
    expect(before.stdout).toMatch(/^imported 1 session, 0 subagent transcripts, 1 new entry into /)
    expect(before.stderrLines).toEqual([
      `acx: warning: -tmp-messages/${SESSION}.jsonl: its last line (at byte ${first.length}) is incomplete, ` +
      "still being written: it will be read once complete"
    ])
    fs.appendFileSync(file, last.slice(20) + "\n")
    const after = await acxInProcess(["import", "--to", db, "--json"], { env })
    expect(after.stderr).toBe("")
    expect(parseJson<{ entries: number }>(after).entries).toBe(1)
  })
})

describe("paths a listing skips are named in words", () => {
  it("a FIFO .meta.json is named; a symbolic link loop is a symlink loop", async () => {
    const { env, project } = configDir("skips")
    fs.writeFileSync(path.join(project, `${SESSION}.jsonl`), JSON.stringify(userEntry(SESSION, 0, "main")) + "\n")
    const agents = path.join(project, SESSION, "subagents")
    fs.mkdirSync(agents, { recursive: true })
    fs.writeFileSync(path.join(agents, "agent-a.jsonl"), JSON.stringify(userEntry(SESSION, 1, "agent")) + "\n")
    mkfifo(path.join(agents, "agent-a.meta.json"))
    fs.symlinkSync("agent-loop.jsonl", path.join(agents, "agent-loop.jsonl"))
    for (const args of [["import", "--to", `sqlite:${path.join(root, "skips", "s.db")}`], ["show", SESSION]]) {
      const result = await acxInProcess(args, { env })
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderrLines, args[0]).toContain(
        `acx: warning: skipped ${path.join(agents, "agent-a.meta.json")}: not a regular file (FIFO)`
      )
      expect(result.stderrLines, args[0]).toContain(
        `acx: warning: skipped ${path.join(agents, "agent-loop.jsonl")}: cannot be read: symlink loop`
      )
      expect(result.stderr, args[0]).not.toMatch(/BadResource|FileSystem\./)
    }
  })
})

describe("help", () => {
  it("import --help says a Claude Code config directory", async () => {
    const help = await acxInProcess(["import", "--help"])
    expect(help.stdout).toContain("Import every session of a Claude Code config directory into SQLite or Postgres")
    expect(help.stdout).not.toContain("ImportOptions")
  })

  it("acx hook --help prints the hook's help, not a hook's answer", async () => {
    for (const flag of ["--help", "-h"]) {
      const help = await acx(["hook", flag])
      expect(help.code).toBe(0)
      expect(help.stdout).toMatch(/^Usage: acx hook <SessionStart\|UserPromptSubmit\|/)
      expect(help.stdout).not.toContain("\"continue\"")
      expect(help.stderr).toBe("")
    }
  })
})

describe("counts agree with their nouns", () => {
  it("plural: one for 1, the plural for 0 and many", () => {
    expect(plural(0, "subagent transcript")).toBe("0 subagent transcripts")
    expect(plural(1, "session")).toBe("1 session")
    expect(plural(2, "entry", "entries")).toBe("2 entries")
    expect(plural(1, "new entry", "new entries")).toBe("1 new entry")
  })

  it("the messages that counted wrong", () => {
    expect(heldInHub(1)).toBe("1 session of it is in the hub today")
    expect(heldInHub(3)).toBe("3 sessions of it are in the hub today")
    expect(describeTeamSync({ pushed: 1, forgotten: 0, pulled: 2, projects: 1, kept: 0, withheld: 0 })).toBe(
      "shared 1 entry, pushed 0 forgotten states, pulled 2 (1 shared project)"
    )
    const result = {
      sessions: 1,
      entries: 1,
      subagents: 0,
      skippedLines: 0,
      filesRead: 1,
      filesUnchanged: 0,
      bytesRead: 10,
      warnings: [],
      secretsMasked: 0
    }
    expect(summary(result, "sqlite:x.db", 0.1)).toBe(
      "synced 1 session, 0 subagent transcripts, 1 new entry into sqlite:x.db in 0.1s (1 file read, 10 B; 0 unchanged)"
    )
    expect(summary({ ...result, secretsMasked: 1 }, "sqlite:x.db", 0.1)).toBe(
      "synced 1 session, 0 subagent transcripts, 1 new entry into sqlite:x.db in 0.1s (1 file read, 10 B; 0 unchanged; 1 secret masked)"
    )
    expect(importWarnings([{ file: "f", malformedLines: 1, invalidUtf8Lines: 1, firstOffset: 0 }])).toEqual([
      "acx: warning: 1 malformed line skipped (not entries) in f (1, first at byte 0)",
      "acx: warning: 1 line not valid UTF-8, stored with U+FFFD in place of the bad bytes, in f (1)"
    ])
  })
})
