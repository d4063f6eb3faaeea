/**
 * Options mean what they say on every command (issue 32, point 6): an option a command does not
 * have is a usage error (exit 2, one line, `did you mean` when close) wherever it stands, never
 * words of a variadic argument (`acx search hello --config-dir X` searched for `hello
 * --config-dir X`; `acx search -foo --from URL` dropped `--from`); a known option after an
 * argument is honoured; `--` ends the options. In process: parsing needs no process of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CommandSpec, UsageFailure } from "../src/CommandSpec.js"
import { acx } from "../src/CommandTable.js"
import { parseCommandLine } from "../src/internal/commandLine.js"
import { parseJson, removeDir, tempDir, TEST_TIMEOUT_MS } from "./utils/acx.js"
import type { HostileDir } from "./utils/hostileDir.js"
import { importedPlainStore } from "./utils/imported.js"
import { acxInProcess } from "./utils/inProcess.js"

// every command a person runs (not `hook`, whose words go to the hook as they are)
const paths = (node: CommandSpec, above: ReadonlyArray<string> = []): Array<ReadonlyArray<string>> =>
  (node.subcommands ?? []).filter((child) => child.passthrough !== true)
    .flatMap((child) => [[...above, child.name], ...paths(child, [...above, child.name])])

/** The unknown option `args` has, as its usage error names it, else `undefined`. */
const unknownOption = (args: ReadonlyArray<string>): string | undefined => {
  try {
    parseCommandLine(acx, args, process.cwd())
    return undefined
  } catch (error) {
    if (!(error instanceof UsageFailure)) throw error
    return /^unknown option '?([^' ]+)/.exec(error.message)?.[1]
  }
}

let root = ""
let dir: HostileDir
let db = ""
let env: Record<string, string> = {}
beforeAll(async () => {
  root = tempDir("options")
  ;({ db, dir, env } = await importedPlainStore(root))
}, TEST_TIMEOUT_MS)
afterAll(() => removeDir(root))

describe("unknownOption", () => {
  it.each<[ReadonlyArray<string>, string | undefined]>([
    [["search", "hello", "--config-dir", "X"], "--config-dir"],
    [["search", "-foo", "--from", "x.db"], "-foo"],
    [["search", "hello", "--from", "x.db"], undefined],
    [["search", "--", "-foo"], undefined],
    [["search", "hello", "--", "--from"], undefined],
    [["search", "hello", "--limit=3", "--json"], undefined],
    [["search", "hello", "-n", "-3"], undefined],
    [["sessions", "--project", "-tmp-app"], undefined],
    [["sessions", "-p", "-tmp-app", "--bogus"], "--bogus"],
    [["memory", "search", "q", "--limit", "2"], undefined],
    [["stats", "--help"], undefined],
    [["--version"], undefined],
    // no command: the error lists the commands
    [["--bogus"], "--bogus"]
  ])("%j → %s", (args, expected) => {
    expect(unknownOption(args)).toBe(expected)
  })
})

describe("every command: an unknown option is a usage error, before or after an argument", () => {
  const commands = paths(acx)
  it(`${commands.length} commands: ${commands.map((p) => p.join(" ")).join(", ")}`, {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    expect(commands.length).toBeGreaterThan(15)
    for (const command of commands) {
      const where = `acx ${command.join(" ")}`
      for (const args of [[...command, "--no-such-option"], [...command, "word", "--no-such-option", "x"]]) {
        const result = await acxInProcess(args, { env })
        expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(2)
        expect(result.stdout, args.join(" ")).toBe("")
        expect(result.stderrLines, args.join(" ")).toEqual([
          `acx: unknown option --no-such-option for ${where} (see ${where} --help)`
        ])
      }
    }
  })

  it("a near miss says which option was meant", async () => {
    const result = await acxInProcess(["search", "hello", "--form", "x.db"], { env })
    expect(result.code).toBe(2)
    expect(result.stderrLines).toEqual(["acx: unknown option --form for acx search (did you mean --from?)"])
  })
})

describe("acx search: options after the query are options; -- ends them", () => {
  it("--from after the query is honoured; -foo before --from is an unknown option", async () => {
    const found = await acxInProcess(["search", "prompt", "--from", `sqlite:${db}`, "--json"], { env })
    expect(found.code, found.stderr).toBe(0)
    expect(parseJson<{ query: string; target: string; hits: Array<unknown> }>(found)).toMatchObject({
      query: "prompt",
      target: `sqlite:${db}`
    })
    expect(parseJson<{ hits: Array<unknown> }>(found).hits.length).toBeGreaterThan(0)
    const dropped = await acxInProcess(["search", "-foo", "--from", `sqlite:${db}`], { env })
    expect(dropped.code).toBe(2)
    expect(dropped.stderrLines).toEqual(["acx: unknown option -foo for acx search (see acx search --help)"])
    const words = await acxInProcess(["search", "hello", "--config-dir", "X"], { env })
    expect(words.code).toBe(2)
    expect(words.stderrLines).toEqual(["acx: unknown option --config-dir for acx search (see acx search --help)"])
  })

  it("after --, a word that starts with - is the query's", async () => {
    const all = await acxInProcess(["search", "--from", `sqlite:${db}`, "--json", "--", "prompt"], { env })
    const total = parseJson<{ hits: Array<unknown> }>(all).hits.length
    expect(total).toBeGreaterThan(1)
    // `-first` leaves out the session's first prompt
    const left = await acxInProcess(["search", "--from", `sqlite:${db}`, "--json", "--", "prompt", "-first"], { env })
    expect(left.code, left.stderr).toBe(0)
    expect(parseJson<{ query: string; hits: Array<unknown> }>(left)).toMatchObject({ query: "prompt -first" })
    expect(parseJson<{ hits: Array<unknown> }>(left).hits).toHaveLength(total - 1)
  })
})

describe("acx show and sessions: options after the argument, values that start with -", () => {
  it("show ID --config-dir D --format jsonl reads D as jsonl", async () => {
    const session = dir.sessions[0]!
    const shown = await acxInProcess(
      ["show", session.sessionId, "--config-dir", dir.configDir, "--format", "jsonl"],
      { env: { ACX_HOME: env["ACX_HOME"]! } }
    )
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout.trim().split("\n").map((line) => JSON.parse(line))).toEqual(session.entries)
  })

  it("sessions --project -tmp-… takes the project key that starts with -", async () => {
    const listed = await acxInProcess(["sessions", "--project", dir.projectKey, "--json"], { env })
    expect(listed.code, listed.stderr).toBe(0)
    expect(parseJson<Array<{ sessionId: string }>>(listed).map((s) => s.sessionId)).toEqual([
      dir.sessions[0]!.sessionId
    ])
  })
})
