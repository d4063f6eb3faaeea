/**
 * `acx stats` and `acx sessions` over a config directory: one plain path (`commands/stats.ts`,
 * `commands/sessions.ts`), in process, on a config directory built from the real fixtures.
 * A warm `stats` prints the report it kept only while nothing it read changed (an appended line:
 * what a cold run in a fresh `$ACX_HOME` prints); a kept report never hides a warning (a link
 * added beside the transcripts is warned about on the warm run too); a tree with a link is listed
 * with its warning and every other session, not handed to another path.
 */
import * as Fixtures from "@acx/fixtures"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"

let root = ""
let built: Fixtures.BuiltConfigDir
let homes = 0
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-configdir-reads-"))
  built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
})
afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

const freshHome = () => path.join(root, `home-${homes++}`)
const acx = (args: ReadonlyArray<string>, home: string) =>
  acxInProcess([...args, "--config-dir", built.configDir], { env: { ACX_HOME: home } })

/** A transcript of another session, linked into the first project (left out: a warning). */
const addLink = () => {
  const session = built.sessions[0]!
  const outside = path.join(root, "outside.jsonl")
  fs.copyFileSync(session.file, outside)
  const link = path.join(path.dirname(session.file), "99999999-0000-4000-8000-000000000001.jsonl")
  fs.symlinkSync(outside, link)
  return link
}

describe("acx stats over a config directory", () => {
  it("prints a kept report only while nothing it read changed", { timeout: TEST_TIMEOUT_MS }, async () => {
    const home = freshHome()
    for (const args of [["stats"], ["stats", "--json", "--by", "day"]]) {
      const cold = await acx(args, home)
      expect(cold.code, cold.stderr).toBe(0)
      expect(cold.stderr).toBe("")
      const warm = await acx(args, home)
      const kept = await acx(args, home)
      expect(kept.stdout).toBe(warm.stdout)
      expect(fs.readdirSync(path.join(home, "cache")).some((name) => name.startsWith("stats-summary-"))).toBe(true)
    }
    fs.appendFileSync(built.sessions[0]!.file, fs.readFileSync(built.sessions[0]!.file, "utf8").split("\n")[0] + "\n")
    const after = await acx(["stats"], home)
    const reference = await acx(["stats"], freshHome())
    expect(after.stdout).toBe(reference.stdout)
  })

  it("never hides a warning behind a kept report", { timeout: TEST_TIMEOUT_MS }, async () => {
    const home = freshHome()
    await acx(["stats"], home)
    const kept = await acx(["stats"], home)
    expect(kept.stderr).toBe("")
    const link = addLink()
    const warm = await acx(["stats"], home)
    expect(warm.code, warm.stderr).toBe(0)
    expect(warm.stderr).toContain(`acx: warning: skipped ${link}`)
    expect(warm.stderr).toContain("(--follow-symlinks reads it)")
    expect(warm.stdout).toBe(kept.stdout)
  })
})

describe("acx sessions over a config directory", () => {
  it("--limit N (-n N) prints the N last active sessions, as the full list orders them", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const home = freshHome()
    const all = await acx(["sessions", "--json"], home)
    expect(all.code, all.stderr).toBe(0)
    const rows = JSON.parse(all.stdout) as Array<{ sessionId: string }>
    expect(rows.length).toBeGreaterThan(2)
    const limited = await acx(["sessions", "--json", "--limit", "2"], home)
    expect(limited.code, limited.stderr).toBe(0)
    expect(JSON.parse(limited.stdout)).toEqual(rows.slice(0, 2))
    // the table's columns are as wide as the rows shown: the rows are told by their session ids
    const ids = (stdout: string) => stdout.trim().split("\n").map((line) => line.split(" ")[0])
    const table = await acx(["sessions"], home)
    const short = await acx(["sessions", "-n", "1"], home)
    expect(ids(short.stdout)).toEqual(ids(table.stdout).slice(0, 2))
    expect(ids(short.stdout)).toEqual(["SESSION", rows[0]!.sessionId])
    const more = await acx(["sessions", "--json", "-n", String(rows.length + 5)], home)
    expect(JSON.parse(more.stdout)).toEqual(rows)
    const zero = await acx(["sessions", "--limit", "0"], home)
    expect([zero.code, zero.stderr, zero.stdout]).toEqual([2, "acx: --limit: expected 1 or more, got 0\n", ""])
  })

  it(
    "prints the table it kept while nothing listed changed, reading no row",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const home = freshHome()
      const cold = await acx(["sessions"], home)
      expect(cold.code, cold.stderr).toBe(0)
      const cache = path.join(home, "cache")
      // the listing's own files (each project's rows, kept: `listing-*/`) made unreadable: a run
      // that reads rows rebuilds them
      const listingDir = path.join(cache, fs.readdirSync(cache).find((name) => name.startsWith("listing-"))!)
      const rowFiles = fs.readdirSync(listingDir).filter((name) => name.endsWith(".rows.json"))
        .map((name) => path.join(listingDir, name))
      expect(rowFiles.length).toBeGreaterThan(1)
      for (const file of rowFiles) fs.writeFileSync(file, "{not json")
      const warm = await acx(["sessions"], home)
      expect([warm.code, warm.stderr, warm.stdout]).toEqual([0, "", cold.stdout])
      for (const file of rowFiles) expect(fs.readFileSync(file, "utf8")).toBe("{not json")
      // --json is never kept: it reads the rows (and rebuilds their files)
      expect((await acx(["sessions", "--json"], home)).code).toBe(0)
      for (const file of rowFiles) expect(fs.readFileSync(file, "utf8")).not.toBe("{not json")
      // a grown transcript, a new one, a limit: what a fresh home prints
      const session = built.sessions[0]!
      fs.appendFileSync(session.file, fs.readFileSync(session.file, "utf8").split("\n")[0] + "\n")
      const copy = path.join(path.dirname(session.file), "99999999-0000-4000-8000-000000000002.jsonl")
      fs.copyFileSync(session.file, copy)
      for (const args of [["sessions"], ["sessions", "-n", "2"]]) {
        const after = await acx(args, home)
        expect(after.stdout).toBe((await acx(args, freshHome())).stdout)
        expect((await acx(args, home)).stdout).toBe(after.stdout)
      }
      expect((await acx(["sessions"], home)).stdout).toContain("99999999-0000-4000-8000-000000000002")
    }
  )

  it("on a terminal, prints the rows as they come with fixed widths: the same rows, kept apart", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const home = freshHome()
    const terminal = (args: ReadonlyArray<string>) =>
      acxInProcess([...args, "--config-dir", built.configDir], { env: { ACX_HOME: home }, isTTY: true })
    const piped = await acx(["sessions"], home)
    const shown = await terminal(["sessions"])
    expect(shown.code, shown.stderr).toBe(0)
    // the same rows, in the same order; each column starts where the heading's does
    const cells = (stdout: string) => stdout.trim().split("\n").map((line) => line.split(/ {2,}/))
    expect(cells(shown.stdout)).toEqual(cells(piped.stdout))
    const lines = shown.stdout.trim().split("\n")
    const at = lines[0]!.indexOf("LAST ACTIVE")
    expect(at).toBe(36 + 2 + 40 + 2)
    for (const line of lines.slice(1)) expect(line.slice(at, at + 16)).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/)
    // kept apart from the piped table: each warm run prints its own
    expect((await terminal(["sessions"])).stdout).toBe(shown.stdout)
    expect((await acx(["sessions"], home)).stdout).toBe(piped.stdout)
    // after a change, and with a limit
    const session = built.sessions[0]!
    fs.copyFileSync(session.file, path.join(path.dirname(session.file), "99999999-0000-4000-8000-000000000003.jsonl"))
    const after = await terminal(["sessions"])
    expect(cells(after.stdout)).toEqual(cells((await acx(["sessions"], freshHome())).stdout))
    expect(cells((await terminal(["sessions", "-n", "2"])).stdout)).toEqual(cells(after.stdout).slice(0, 3))
    // --json is the whole list, as piped
    expect((await terminal(["sessions", "--json"])).stdout).toBe((await acx(["sessions", "--json"], home)).stdout)
  })

  it("keeps one project index file per project, read by sessions, stats and sync alike", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const home = freshHome()
    expect((await acx(["sessions"], home)).code).toBe(0)
    const cache = path.join(home, "cache")
    const indexDirs = fs.readdirSync(cache).filter((name) => /^index-[0-9a-f]{16}$/.test(name))
    expect(indexDirs).toHaveLength(1)
    const projects = new Set(built.sessions.map((session) => path.basename(path.dirname(session.file))))
    const files = fs.readdirSync(path.join(cache, indexDirs[0]!))
    expect(files).toHaveLength(projects.size)
    const kept = files.map((name) =>
      JSON.parse(fs.readFileSync(path.join(cache, indexDirs[0]!, name), "utf8")) as { projectKey: string }
    )
    expect(new Set(kept.map((file) => file.projectKey))).toEqual(projects)
    // stats walks through the same index: it lists the same projects, and prints what a fresh home prints
    const stats = await acx(["stats", "--json"], home)
    expect(stats.stdout).toBe((await acx(["stats", "--json"], freshHome())).stdout)
    expect(fs.readdirSync(cache).filter((name) => name.startsWith("index-"))).toEqual(indexDirs)
  })

  it("lists a tree with a link: the warning once, every other session", { timeout: TEST_TIMEOUT_MS }, async () => {
    const home = freshHome()
    const before = await acx(["sessions", "--json"], home)
    const link = addLink()
    for (const args of [["sessions", "--json"], ["sessions"]]) {
      const result = await acx(args, home)
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toMatch(/^acx: warning: skipped [^\n]+ \(--follow-symlinks reads it\)\n$/)
      expect(result.stderr).toContain(`skipped ${link}: a symbolic link to`)
      if (args.length === 2) expect(result.stdout).toBe(before.stdout)
    }
    const followed = await acx(["sessions", "--json", "--follow-symlinks"], home)
    expect(followed.stderr).toBe("")
    expect((JSON.parse(followed.stdout) as Array<unknown>).length).toBe(
      (JSON.parse(before.stdout) as Array<unknown>).length + 1
    )
  })

  it("says a missing config directory and a missing project in one line", { timeout: TEST_TIMEOUT_MS }, async () => {
    const home = freshHome()
    const missing = await acxInProcess(["sessions", "--config-dir", path.join(root, "nope")], {
      env: { ACX_HOME: home }
    })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe(`acx: Claude Code config directory not found: ${path.join(root, "nope")}\n`)
    const project = await acx(["sessions", "--project", "/srv/none"], home)
    expect(project.code).toBe(1)
    expect(project.stderr).toMatch(/^acx: no sessions for project \/srv\/none \(no directory .*-srv-none\)\n$/)
    const stats = await acx(["stats", "--project", "/srv/none"], home)
    expect(stats.stderr).toBe(project.stderr)
  })
})
