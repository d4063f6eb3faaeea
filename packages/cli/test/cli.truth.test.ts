/**
 * The spawned `acx` says what went wrong in the user's words, and finds sessions where Claude
 * Code put them:
 * - every failure a user can provoke is ONE `acx:` line, non-zero exit, naming the path or URL
 *   and the problem ("connection refused"), never an internal module, service or operation name
 *   (enumerated from the source: every PascalCase module of `packages/<pkg>/src` and the
 *   operations of the services the CLI calls), and no Node warning;
 * - `--project <absolute path>` honours `CLAUDE_CODE_PROJECT_DIR_NAME` as Claude Code does (only
 *   with `CLAUDE_CONFIG_DIR` set, only a valid name) and a path through a symbolic link, in
 *   sessions, stats, fork, push and import.
 */
import { projectDirName } from "@acx/convert/ProjectDir"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generateDemoSession } from "../src/DemoSession.js"
import { acx, type AcxResult, parseJson, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { internalNames } from "./utils/internalNames.js"

const FORBIDDEN = internalNames()

/** One `acx:` line, non-zero exit, no internal name, no Node warning. */
const expectOneTruthfulLine = (result: AcxResult, pattern: RegExp) => {
  expect(result.code, result.stderr).not.toBe(0)
  expect(result.stderrLines, result.stderr).toEqual([expect.stringMatching(pattern)])
  for (const name of FORBIDDEN) expect(result.stderr, `names ${name}`).not.toContain(name)
  expect(result.stderr).not.toMatch(/Warning|\(\w+\)$|failed \([A-Z]\w+\)/)
}

let root: string
let config: string
let projectDir: string
let session: ReturnType<typeof generateDemoSession>

const writeSession = (dirName: string, cwd: string) => {
  const made = generateDemoSession({ cwd })
  const dir = path.join(config, "projects", dirName)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(
    path.join(dir, `${made.sessionId}.jsonl`),
    made.entries.map((e) => JSON.stringify(e)).join("\n") + "\n"
  )
  return made
}

beforeAll(() => {
  root = tempDir("truth")
  config = path.join(root, "config")
  projectDir = path.join(root, "work", "p")
  fs.mkdirSync(projectDir, { recursive: true })
  // Claude Code run in projectDir with CLAUDE_CONFIG_DIR set and CLAUDE_CODE_PROJECT_DIR_NAME=my_proj
  session = writeSession("my_proj", projectDir)
})
afterAll(() => removeDir(root))

describe("failures in the user's words", () => {
  it("enumerates the internal names from the source", () => {
    expect(FORBIDDEN).toEqual(
      expect.arrayContaining(["ClaudeProjects", "SessionIndex", "SessionStore", "listSessionFiles", "Transport error"])
    )
  })

  it(
    "a project with no sessions (the README's `acx stats --project \"$PWD\"`): the path, not the encoded key",
    async () => {
      const empty = path.join(root, "work", "no-sessions-here")
      fs.mkdirSync(empty, { recursive: true })
      // (`acx sessions` says the same: "is ignored … without CLAUDE_CONFIG_DIR" below)
      const result = await acx(["stats", "--config-dir", config, "--project", empty])
      expectOneTruthfulLine(result, /^acx: no sessions for project \/\S+\/no-sessions-here \(no directory \/\S+\)$/)
      expect(result.stderr).toContain(`for project ${empty} `)
    },
    TEST_TIMEOUT_MS
  )

  // a push to an Acontext that is not listening: the CLAUDE_CODE_PROJECT_DIR_NAME test's push below

  const damagedHome = () => path.join(root, "acx-damaged")
  const cases: ReadonlyArray<readonly [string, () => ReadonlyArray<string>, RegExp, Record<string, string>?]> = [
    [
      "a project key that climbs out",
      () => ["sessions", "--config-dir", config, "--project", "../x"],
      /--project "\.\.\/x" is neither/
    ],
    [
      "a config dir that is not there",
      () => ["sessions", "--config-dir", path.join(root, "nope")],
      /config directory not found: \//
    ],
    ["a session id nowhere", () => ["fork", "abcdef12", "--config-dir", config], /^acx: no session abcdef12 in \//],
    [
      "a fork point that is not in the session",
      () => ["fork", session.sessionId, "--config-dir", config, "--at", "nope"],
      /no main conversation entry "nope" in session/
    ],
    [
      "a SQLite file in a directory that is not there",
      () => ["import", "--from", config, "--to", `sqlite:${path.join(root, "no", "dir", "x.db")}`],
      /cannot open session store \/\S+x\.db/
    ],
    [
      "a Postgres that is not listening",
      () => ["import", "--from", config, "--to", "postgres://u:p@127.0.0.1:1/db"],
      /cannot connect to Postgres at 127\.0\.0\.1:1: connection refused/
    ],
    [
      "a chat store that is not listening",
      () => ["chat", "--store", "postgres://u:p@127.0.0.1:1/db"],
      /cannot connect to Postgres at 127\.0\.0\.1:1: connection refused/
    ],
    [
      "a Claude Code binary that is not there",
      () => ["chat", "--store", `sqlite:${path.join(root, "c.db")}`],
      /Claude Code/,
      { ACX_CLAUDE_PATH: "/nonexistent/claude" }
    ],
    [
      "a config dir that is a file",
      () => [
        "import",
        "--from",
        path.join(config, "projects", "my_proj", `${session.sessionId}.jsonl`),
        "--to",
        `sqlite:${path.join(root, "f.db")}`
      ],
      /^acx: Claude Code config directory is a file, not a directory: \//
    ],
    [
      "a damaged memory database",
      () => {
        fs.mkdirSync(damagedHome(), { recursive: true })
        fs.writeFileSync(path.join(damagedHome(), "memory.db"), "not a database\n")
        return ["memory", "search", "anything"]
      },
      /^acx: \/\S+memory\.db is damaged/,
      { ACX_HOME: "damaged" }
    ],
    [
      "push without an API key",
      () => ["push", session.sessionId, "--config-dir", config],
      /ACONTEXT_API_KEY is not set/
    ],
    [
      "a --since that is no date",
      () => ["stats", "--config-dir", config, "--since", "2026-13-45"],
      /--since: "2026-13-45" is not a date/
    ]
  ]

  for (const [name, args, pattern, env] of cases) {
    it(`bad input: ${name}`, async () => {
      const home = env?.["ACX_HOME"] === "damaged" ? { ...env, ACX_HOME: damagedHome() } : env
      expectOneTruthfulLine(await acx(args(), { input: "hi\n", ...(home === undefined ? {} : { env: home }) }), pattern)
    }, TEST_TIMEOUT_MS)
  }
})

describe("CLAUDE_CODE_PROJECT_DIR_NAME", () => {
  const named = { CLAUDE_CONFIG_DIR: "", CLAUDE_CODE_PROJECT_DIR_NAME: "my_proj" }
  beforeAll(() => {
    named.CLAUDE_CONFIG_DIR = config
  })

  it(
    "sessions, stats, fork, push and import find the session under projects/my_proj for --project <path>",
    async () => {
      const sessions = await acx(["sessions", "--project", "/p", "--json"], { env: named })
      expect(sessions.code, sessions.stderr).toBe(0)
      expect(parseJson<Array<{ sessionId: string }>>(sessions).map((s) => s.sessionId)).toEqual([session.sessionId])

      const stats = await acx(["stats", "--project", projectDir, "--json"], { env: named })
      expect(stats.code, stats.stderr).toBe(0)
      expect(JSON.stringify(parseJson(stats))).toContain(session.sessionId)

      const fork = await acx(["fork", session.sessionId.slice(0, 8), "--project", projectDir, "--json"], { env: named })
      expect(fork.code, fork.stderr).toBe(0)
      expect(parseJson<{ projectKey: string }>(fork).projectKey).toBe("my_proj")

      const db = path.join(root, "named.db")
      const imported = await acx(["import", "--to", `sqlite:${db}`, "--project", projectDir, "--json"], { env: named })
      expect(imported.code, imported.stderr).toBe(0)
      // the session and its fork, both in my_proj
      expect(parseJson<{ sessions: number }>(imported).sessions).toBe(2)

      const push = await acx(
        ["push", session.sessionId, "--project", projectDir, "--base-url", "http://127.0.0.1:1/api/v1"],
        { env: { ...named, ACONTEXT_API_KEY: "sk-test" } }
      )
      // found in my_proj: it got as far as Acontext, which is not listening: connection refused, and where
      expectOneTruthfulLine(push, /^acx: cannot reach Acontext at http:\/\/127\.0\.0\.1:1: connection refused$/)
    },
    TEST_TIMEOUT_MS
  )

  it("is ignored, as Claude Code ignores it, without CLAUDE_CONFIG_DIR or with a name it refuses", async () => {
    const withoutConfig = await acx(["sessions", "--config-dir", config, "--project", projectDir], {
      env: { CLAUDE_CODE_PROJECT_DIR_NAME: "my_proj" }
    })
    expectOneTruthfulLine(withoutConfig, /^acx: no sessions for project \/\S+ \(no directory \/\S+-work-p\)$/)
    // a name Claude Code refuses, through the CLI; which names it refuses is the rule of
    // `isValidProjectDirName`, checked name by name in-process (the CLI asks `projectDirName`)
    const refused = await acx(["sessions", "--project", projectDir], {
      env: { ...named, CLAUDE_CODE_PROJECT_DIR_NAME: "../my_proj" }
    })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`(no directory ${path.join(config, "projects", projectDirName(projectDir, {}))})`)
    for (const bad of ["../my_proj", "NUL", "x".repeat(65)]) {
      expect(projectDirName(projectDir, { ...named, CLAUDE_CODE_PROJECT_DIR_NAME: bad }), bad).toBe(
        projectDirName(projectDir, {})
      )
    }
  }, TEST_TIMEOUT_MS)

  it("a path through a symbolic link (or `.` in it) names the project its target ran in", async () => {
    const real = path.join(root, "real-checkout")
    fs.mkdirSync(real)
    const linked = writeSession(projectDirName(fs.realpathSync(real), {}), real)
    const link = path.join(root, "linked-checkout")
    fs.symlinkSync(real, link)
    for (const [cwd, project] of [[root, link], [link, "."]] as const) {
      const result = await acx(["sessions", "--config-dir", config, "--project", project, "--json"], { cwd })
      expect(result.code, result.stderr).toBe(0)
      expect(parseJson<Array<{ sessionId: string }>>(result).map((s) => s.sessionId)).toEqual([linked.sessionId])
    }
  }, TEST_TIMEOUT_MS)
})
