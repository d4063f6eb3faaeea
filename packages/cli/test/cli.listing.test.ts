/**
 * The listing rows of issue 13 through the BUILT `acx` binary: a directory named like a
 * transcript is skipped with a warning naming it (sessions, stats, import); a missing config
 * directory or project fails with exit 1 before any target is opened; symbolic links that
 * resolve outside the config directory are skipped unless `--follow-symlinks`; slash commands
 * read as `/clear`; a fork is titled after the title `sessions` shows; malformed-line warnings
 * name their files; `sessions` caches under `$ACX_HOME/cache` and never writes into the config
 * directory. Every config directory is generated in a temp dir.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, listTree, parseJson, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"

const PROJECT = "-home-dev-app"
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`
const S = {
  clear: "aaaaaaaa-0000-4000-8000-000000000001",
  plain: "aaaaaaaa-0000-4000-8000-000000000002",
  dir: "aaaaaaaa-0000-4000-8000-000000000003",
  link: "aaaaaaaa-0000-4000-8000-000000000004",
  outside: "aaaaaaaa-0000-4000-8000-000000000005"
} as const

const line = (value: unknown) => `${JSON.stringify(value)}\n`
const user = (sessionId: string, n: number, content: string) =>
  line({
    type: "user",
    uuid: uuid(n),
    parentUuid: n === 1 ? null : uuid(n - 1),
    sessionId,
    cwd: "/home/dev/app",
    gitBranch: "main",
    timestamp: `2026-01-01T00:00:${String(n).padStart(2, "0")}Z`,
    message: { role: "user", content }
  })
const assistant = (sessionId: string, n: number, text: string) =>
  line({
    type: "assistant",
    uuid: uuid(n),
    parentUuid: uuid(n - 1),
    sessionId,
    timestamp: `2026-01-01T00:00:${String(n).padStart(2, "0")}Z`,
    message: {
      id: `msg_${n}`,
      role: "assistant",
      model: "claude-test",
      content: [{ type: "text", text }],
      usage: { input_tokens: 1, output_tokens: 2 }
    }
  })

const CLEAR =
  "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>"

let root = ""
let configDir = ""
let acxHome = ""
let outsideDir = ""

const env = () => ({ ACX_HOME: acxHome })
const run = (args: ReadonlyArray<string>) => acx(args, { env: env() })
const projectDir = () => path.join(configDir, "projects", PROJECT)

const expectOk = (result: AcxResult) => expect(result.code, result.stderr.slice(0, 500)).toBe(0)

describe("acx listing rows", () => {
  beforeAll(() => {
    root = tempDir("listing")
    configDir = path.join(root, "claude")
    acxHome = path.join(root, "acx-home")
    outsideDir = path.join(root, "outside")
    fs.mkdirSync(projectDir(), { recursive: true })
    fs.mkdirSync(outsideDir, { recursive: true })
    fs.writeFileSync(
      path.join(projectDir(), `${S.clear}.jsonl`),
      user(S.clear, 1, CLEAR) + assistant(S.clear, 2, "cleared")
    )
    fs.writeFileSync(
      path.join(projectDir(), `${S.plain}.jsonl`),
      user(S.plain, 1, "fix the login bug") + assistant(S.plain, 2, "done")
    )
    fs.mkdirSync(path.join(projectDir(), `${S.dir}.jsonl`))
    // a transcript outside the config directory, linked in as a file and as a whole project
    const outsideFile = path.join(outsideDir, `${S.link}.jsonl`)
    fs.writeFileSync(outsideFile, user(S.link, 1, "secret outside") + assistant(S.link, 2, "ok"))
    fs.symlinkSync(outsideFile, path.join(projectDir(), `${S.link}.jsonl`))
    const outsideProject = path.join(outsideDir, "project")
    fs.mkdirSync(outsideProject)
    fs.writeFileSync(path.join(outsideProject, `${S.outside}.jsonl`), user(S.outside, 1, "linked project"))
    fs.symlinkSync(outsideProject, path.join(configDir, "projects", "-linked"))
  })

  afterAll(() => removeDir(root))

  const skippedDir = () =>
    `acx: warning: skipped ${path.join(projectDir(), `${S.dir}.jsonl`)}: a directory, not a transcript`
  const skippedLink = (name: string) =>
    new RegExp(
      `^acx: warning: skipped ${
        name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      }: a symbolic link to .* \\(--follow-symlinks reads it\\)$`
    )

  it(
    "sessions: a directory named <uuid>.jsonl and outside links are skipped, each named once; titles show /clear",
    async () => {
      const result = await run(["sessions", "--config-dir", configDir, "--json"])
      expectOk(result)
      const list = parseJson<Array<{ sessionId: string; firstPrompt?: string; startTime?: string }>>(result)
      expect(list.map((s) => s.sessionId).sort()).toEqual([S.clear, S.plain])
      expect(list.find((s) => s.sessionId === S.clear)!.firstPrompt).toBe("/clear")
      expect(list.find((s) => s.sessionId === S.plain)!.startTime).toBe("2026-01-01T00:00:01Z")
      expect(result.stderrLines).toHaveLength(3)
      expect(result.stderrLines).toContain(skippedDir())
      expect(result.stderrLines.some((l) => skippedLink(path.join(projectDir(), `${S.link}.jsonl`)).test(l))).toBe(true)
      expect(result.stderrLines.some((l) => skippedLink(path.join(configDir, "projects", "-linked")).test(l))).toBe(
        true
      )
      expect(result.stderr).not.toContain("secret outside")

      const table = await run(["sessions", "--config-dir", configDir])
      expectOk(table)
      expect(table.stdout).toContain("/clear")
      expect(table.stdout).not.toContain("<command-name>")
    },
    TEST_TIMEOUT_MS
  )

  it("sessions caches under $ACX_HOME/cache and writes nothing into the config directory", async () => {
    const before = listTree(configDir)
    const first = await run(["sessions", "--config-dir", configDir, "--json"])
    const second = await run(["sessions", "--config-dir", configDir, "--json"])
    expectOk(second)
    expect(parseJson(second)).toEqual(parseJson(first))
    expect(listTree(configDir)).toEqual(before)
    // the project index and the rows kept per project
    const cache = fs.readdirSync(path.join(acxHome, "cache"))
    expect(cache.some((name) => /^index-[0-9a-f]{16}$/.test(name))).toBe(true)
    const listing = cache.find((name) => /^listing-[0-9a-f]{16}$/.test(name))
    expect(listing).toBeDefined()
    expect(fs.readdirSync(path.join(acxHome, "cache", listing!)).some((name) => name.endsWith(".rows.json")))
      .toBe(true)
  }, TEST_TIMEOUT_MS)

  it("--follow-symlinks reads the linked transcript and project", async () => {
    const result = await run(["sessions", "--config-dir", configDir, "--json", "--follow-symlinks"])
    expectOk(result)
    expect(parseJson<Array<{ sessionId: string }>>(result).map((s) => s.sessionId).sort()).toEqual(
      [S.clear, S.plain, S.link, S.outside].sort()
    )
    expect(result.stderrLines).toEqual([skippedDir()])
    const show = await run(["show", S.link, "--config-dir", configDir, "--follow-symlinks"])
    expectOk(show)
    expect(show.stdout).toContain("secret outside")
    const refused = await run(["show", S.link, "--config-dir", configDir])
    expect(refused.code).toBe(1)
    expect(refused.stderrLines.at(-1)).toMatch(/^acx: no session aaaaaaaa-0000-4000-8000-000000000004/)
  }, TEST_TIMEOUT_MS)

  it("stats and import skip the directory (and the links) with a warning naming it, and succeed", async () => {
    const stats = await run(["stats", "--config-dir", configDir, "--json"])
    expectOk(stats)
    expect(parseJson<{ rows: Array<unknown> }>(stats).rows).toHaveLength(2)
    expect(stats.stderrLines).toContain(skippedDir())
    const db = path.join(root, "import.sqlite")
    const imported = await run(["import", "--from", configDir, "--to", `sqlite:${db}`, "--json"])
    expectOk(imported)
    expect(parseJson<{ sessions: number }>(imported).sessions).toBe(2)
    expect(imported.stderrLines).toContain(skippedDir())
    expect(imported.stderr).not.toContain("I/O error")
  }, TEST_TIMEOUT_MS)

  it("a missing config directory or project: exit 1 naming it, and import creates no database", async () => {
    const missing = path.join(root, "nonexistent")
    for (const args of [["sessions", "--config-dir", missing], ["stats", "--config-dir", missing]]) {
      const result = await run(args)
      expect(result.code, args.join(" ")).toBe(1)
      expect(result.stderrLines).toEqual([`acx: Claude Code config directory not found: ${missing}`])
    }
    const db = path.join(root, "never.sqlite")
    const imported = await run(["import", "--from", missing, "--to", `sqlite:${db}`])
    expect(imported.code).toBe(1)
    expect(imported.stderrLines).toEqual([`acx: Claude Code config directory not found: ${missing}`])
    expect(fs.existsSync(db)).toBe(false)

    for (const args of [["sessions"], ["stats"], ["import", "--to", `sqlite:${db}`]]) {
      const dirArgs = args[0] === "import" ? ["--from", configDir] : ["--config-dir", configDir]
      const result = await run([...args, ...dirArgs, "-p", "/typo"])
      expect(result.code, args.join(" ")).toBe(1)
      expect(result.stderrLines).toHaveLength(1)
      expect(result.stderrLines[0]).toMatch(/^acx: no sessions for project \/typo \(no directory \/.*\/-typo\)$/)
    }
    expect(fs.existsSync(db)).toBe(false)
  }, TEST_TIMEOUT_MS)

  it("fork: the title is the one sessions shows, plus (fork)", async () => {
    const forked = await run(["fork", S.plain, "--config-dir", configDir, "--json"])
    expectOk(forked)
    const { sessionId } = parseJson<{ sessionId: string }>(forked)
    const list = parseJson<Array<{ sessionId: string; title?: string; firstPrompt?: string }>>(
      await run(["sessions", "--config-dir", configDir, "--json"])
    )
    const original = list.find((s) => s.sessionId === S.plain)!
    expect(original.title ?? original.firstPrompt).toBe("fix the login bug")
    expect(list.find((s) => s.sessionId === sessionId)!.title).toBe("fix the login bug (fork)")
    const clear = parseJson<{ sessionId: string }>(await run(["fork", S.clear, "--config-dir", configDir, "--json"]))
    const again = parseJson<Array<{ sessionId: string; title?: string }>>(
      await run(["sessions", "--config-dir", configDir, "--json"])
    )
    expect(again.find((s) => s.sessionId === clear.sessionId)!.title).toBe("/clear (fork)")
  }, TEST_TIMEOUT_MS)

  it(
    "malformed-line warnings name the files: stats lists the first five and how many more; show names its file",
    async () => {
      const dir = path.join(root, "malformed")
      const project = path.join(dir, "projects", PROJECT)
      fs.mkdirSync(project, { recursive: true })
      const files: Array<string> = []
      for (let i = 1; i <= 7; i++) {
        const sid = `bbbbbbbb-0000-4000-8000-00000000000${i}`
        const file = path.join(project, `${sid}.jsonl`)
        fs.writeFileSync(file, user(sid, 1, `prompt ${i}`) + "{not json\n".repeat(i))
        files.push(file)
      }
      const stats = await run(["stats", "--config-dir", dir])
      expectOk(stats)
      expect(stats.stderrLines).toHaveLength(1)
      const warning = stats.stderrLines[0]!
      expect(warning).toMatch(/^acx: warning: 28 malformed lines? skipped in 7 files?: /)
      expect(warning).toMatch(/ and 2 more$/)
      for (const [i, file] of files.slice(0, 5).entries()) {
        const first = fs.readFileSync(file).indexOf("{not json")
        expect(warning).toContain(`${file} (${i + 1}, first at byte ${first})`)
      }
      expect(warning).not.toContain(files[6]!)

      const show = await run(["show", "bbbbbbbb-0000-4000-8000-000000000003", "--config-dir", dir])
      expectOk(show)
      expect(show.stderrLines).toHaveLength(1)
      expect(show.stderrLines[0]).toMatch(
        new RegExp(
          `^acx: warning: 3 malformed lines? skipped in ${
            files[2]!.replace(/[.]/g, "\\.")
          } \\(first: line 2 at byte \\d+: `
        )
      )
    },
    TEST_TIMEOUT_MS
  )

  it("show: lines that are not UTF-8 are shown with U+FFFD and named in one warning", async () => {
    const dir = path.join(root, "latin1")
    const project = path.join(dir, "projects", PROJECT)
    fs.mkdirSync(project, { recursive: true })
    const sid = "cccccccc-0000-4000-8000-000000000001"
    const file = path.join(project, `${sid}.jsonl`)
    // "café" in Latin-1 (one byte 0xE9) on line 2, valid UTF-8 on lines 1 and 3
    const [head, tail] = user(sid, 2, "caf@@").split("@@")
    fs.writeFileSync(
      file,
      Buffer.concat([
        Buffer.from(user(sid, 1, "first")),
        Buffer.from(head!),
        Buffer.from([0xe9]),
        Buffer.from(tail!),
        Buffer.from(assistant(sid, 3, "naïve"))
      ])
    )
    const show = await run(["show", sid, "--config-dir", dir, "--format", "jsonl"])
    expectOk(show)
    expect(show.stderrLines).toEqual([
      `acx: warning: 1 line not valid UTF-8 in ${file}, shown with U+FFFD in place of the bad bytes (first: line 2)`
    ])
    const shown = show.stdout.trim().split("\n").map((l) => JSON.parse(l) as { message: { content: unknown } })
    expect(shown).toHaveLength(3)
    expect(shown[1]!.message.content).toBe("caf\uFFFD")
    expect(JSON.stringify(shown[2]!.message.content)).toContain("naïve")
  }, TEST_TIMEOUT_MS)

  it("sessions masks a secret typed into a prompt, cold and warm, table and --json", async () => {
    const dir = path.join(root, "typed-secret")
    const project = path.join(dir, "projects", PROJECT)
    fs.mkdirSync(project, { recursive: true })
    const sid = "dddddddd-0000-4000-8000-000000000001"
    const key = "sk-ant-api03-" + "B".repeat(40)
    fs.writeFileSync(
      path.join(project, `${sid}.jsonl`),
      user(sid, 1, `deploy it, my key is ${key}`) + assistant(sid, 2, "ok") +
        user(sid, 3, `GITHUB_TOKEN=ghp_${"c".repeat(36)}`)
    )
    // the first run reads the transcript, the second its cached metadata
    for (const round of ["cold", "warm"]) {
      const env = { ACX_HOME: path.join(dir, "home") }
      for (const args of [["sessions"], ["sessions", "--json"]]) {
        const result = await acx([...args, "--config-dir", dir], { env })
        expectOk(result)
        expect(result.stdout, `${args.join(" ")} ${round}`).not.toContain(key)
        expect(result.stdout).not.toContain("ghp_")
        expect(result.stdout).toContain("[REDACTED:anthropic-key]")
      }
    }
  }, TEST_TIMEOUT_MS)
})
