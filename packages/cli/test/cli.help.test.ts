/**
 * `--help` and bad command lines: help is plain text in a pipe (colour only on a terminal or with
 * FORCE_COLOR), every option and argument of every command has a description of its own (not
 * a library's "A user-defined piece of text."), defaults and required options are shown, and
 * every kind of parse error is one `acx:` line naming the option.
 *
 * Through the BUILT binary once per promise (a help page into a pipe, FORCE_COLOR into a pipe, a
 * parse error and an unknown command: exit 2, one line, nothing on stdout); the many pages and
 * command lines run `run` of `src/Cli.ts` (what the binary runs) in this process, a process start
 * each saved (`acxInProcess`).
 */
import { describe, expect, it } from "vitest"
import { acx, type AcxResult, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"

const ESC = "\u001b"

const ok = (result: AcxResult) => {
  expect(result.stderr, "stderr").toBe("")
  expect(result.code, `exit code (stderr: ${result.stderr})`).toBe(0)
  return result
}

/** The entries of a help section (`OPTIONS`, `ARGUMENTS`, `COMMANDS`): label line, then the indented text. */
const section = (help: string, title: string): Array<{ label: string; text: string }> => {
  const lines = help.split("\n")
  const start = lines.indexOf(title)
  if (start < 0) return []
  const entries: Array<{ label: string; text: string }> = []
  for (const line of lines.slice(start + 1)) {
    if (/^[A-Z]+$/.test(line)) break
    if (line.trim() === "") continue
    if (line.startsWith("  ")) {
      const last = entries[entries.length - 1]
      if (last !== undefined) last.text = `${last.text} ${line.trim()}`.trim()
    } else entries.push({ label: line, text: "" })
  }
  return entries
}

// What a CLI library writes on its own for a value type or an optional setting (@effect/cli did)
const BOILERPLATE = [
  "A user-defined piece of text",
  "An integer.",
  "A true or false value.",
  "A floating point number.",
  "One of the following:",
  "This setting is optional",
  "This argument is optional"
]

describe.concurrent("acx --help", () => {
  it("is plain text into a pipe, also without NO_COLOR", { timeout: TEST_TIMEOUT_MS }, async () => {
    const env = { NO_COLOR: undefined, FORCE_COLOR: undefined, TERM: "xterm" }
    const piped = ok(await acx(["--help"], { env }))
    for (
      const result of [
        piped,
        ok(await acxInProcess(["import", "--help"], { env })),
        ok(await acxInProcess(["memory"], { env }))
      ]
    ) {
      expect(result.stdout).toContain("USAGE")
      expect(result.stdout).not.toContain(ESC)
    }
  })

  it("FORCE_COLOR colours it even into a pipe; FORCE_COLOR=0 does not", { timeout: TEST_TIMEOUT_MS }, async () => {
    const forced = ok(await acx(["show", "--help"], { env: { NO_COLOR: undefined, FORCE_COLOR: "1" } }))
    expect(forced.stdout).toContain(`${ESC}[`)
    const off = ok(await acxInProcess(["show", "--help"], { env: { NO_COLOR: undefined, FORCE_COLOR: "0" } }))
    expect(off.stdout).not.toContain(ESC)
    expect(off.stdout.replace(/\s+/g, " ")).toBe(forced.stdout.replace(/\u001b\[[0-9;]*m/g, "").replace(/\s+/g, " "))
  })

  it("every option and argument of every command has its own description", {
    timeout: TEST_TIMEOUT_MS
  }, async () => {
    const root = ok(await acxInProcess(["--help"])).stdout
    const paths = section(root, "COMMANDS").map(({ label }) => {
      const words: Array<string> = []
      for (const word of label.split(" ")) {
        if (!/^[a-z]+$/.test(word)) break
        words.push(word)
      }
      return words
    })
    // the top-level commands and memory's, as the root help lists them
    expect(paths.map((path) => path.join(" "))).toEqual(
      expect.arrayContaining(["sessions", "show", "stats", "search", "import", "push", "fork", "demo", "memory search"])
    )
    for (const { label, text } of section(root, "COMMANDS")) expect(text, label).not.toBe("")
    const pages: Array<readonly [ReadonlyArray<string>, string]> = []
    for (const path of paths) pages.push([path, ok(await acxInProcess([...path, "--help"])).stdout])
    let described = 0
    for (const [path, help] of pages) {
      for (const phrase of BOILERPLATE) expect(help, `acx ${path.join(" ")} --help`).not.toContain(phrase)
      expect(help).toContain(`$ acx ${path.join(" ")}`)
      for (const { label, text } of [...section(help, "OPTIONS"), ...section(help, "ARGUMENTS")]) {
        expect(text, `acx ${path.join(" ")}: ${label} has no description`).toMatch(/[a-z]{3}/i)
        described++
      }
    }
    expect(described).toBeGreaterThan(40)
  })

  it.each([
    [["import"], "--batch-size integer", "Entries per append (default: 500)"],
    [["import"], "--to text", "(required)"],
    [["show"], "(-f, --format markdown | anthropic | jsonl)", "(default: markdown)"],
    [["memory", "search"], "--limit integer", "(default: 20)"],
    [["memory", "timeline"], "--window integer", "(default: 5)"],
    [["memory", "install"], "--scope user | project", "(default: user)"]
  ])("acx %s --help: %s says %s", { timeout: TEST_TIMEOUT_MS }, async (path, label, expected) => {
    const entries = section(ok(await acxInProcess([...path, "--help"])).stdout, "OPTIONS")
    const entry = entries.find((candidate) => candidate.label === label)
    expect(entry, JSON.stringify(entries)).toBeDefined()
    expect(entry!.text).toContain(expected)
  })

  it("optional options are not marked required, flags show no default", { timeout: TEST_TIMEOUT_MS }, async () => {
    const entries = section(ok(await acxInProcess(["import", "--help"])).stdout, "OPTIONS")
    expect(entries.filter((entry) => entry.text.includes("(required)")).map((entry) => entry.label)).toEqual([
      "--to text"
    ])
    expect(entries.find((entry) => entry.label === "--json")?.text).toBe("Print JSON for scripts")
  })
})

describe("a bad command line is one acx: line, exit 2, nothing on stdout", () => {
  const oneLine = (result: AcxResult, expected: string | RegExp) => {
    expect(result.code, result.stderr).toBe(2)
    expect(result.stdout).toBe("")
    expect(result.stderrLines).toHaveLength(1)
    expect(result.stderr.endsWith("\n")).toBe(true)
    if (typeof expected === "string") expect(result.stderrLines[0]).toBe(expected)
    else expect(result.stderrLines[0]).toMatch(expected)
  }

  // through the binary: an invalid value and an unknown command
  it.each([
    [["import", "--to", "sqlite:x.db", "--batch-size=abc"], "acx: --batch-size: 'abc' is not an integer"],
    [["memory", "frobnicate"], /^acx: unknown command 'frobnicate' for acx memory \(commands: status, search, .*\)$/]
  ] as ReadonlyArray<readonly [ReadonlyArray<string>, string | RegExp]>)(
    "the binary: acx %j",
    { timeout: TEST_TIMEOUT_MS },
    async (args, expected) => oneLine(await acx(args), expected)
  )

  it.each([
    // an invalid value: the option is named, whichever spelling was used
    [["import", "--to", "sqlite:x.db", "--batch-size", "abc"], "acx: --batch-size: 'abc' is not an integer"],
    [["import", "--to", "sqlite:x.db", "--batch-size=abc"], "acx: --batch-size: 'abc' is not an integer"],
    [["memory", "search", "q", "--limit", "1.5"], "acx: --limit: '1.5' is not an integer"],
    [["show", "--format", "xml", "abcd"], "acx: --format: 'xml' is not one of markdown, anthropic, jsonl"],
    [["show", "-f", "xml", "abcd"], "acx: --format: 'xml' is not one of markdown, anthropic, jsonl"],
    [["memory", "install", "--scope", "world"], "acx: --scope: 'world' is not one of user, project"],
    [["chat", "--cwd", "/nonexistent-acx-dir"], "acx: --cwd: '/nonexistent-acx-dir' does not exist"],
    // missing things
    [["import"], "acx: missing required option --to (see acx import --help)"],
    [["import", "--to"], "acx: --to: missing value (see acx import --help)"],
    [["import", "--to", "sqlite:x.db", "--batch-size"], "acx: --batch-size: missing value (see acx import --help)"],
    [["show"], "acx: missing argument <id> (see acx show --help)"],
    // unknown or repeated things
    [["sessions", "--bogus"], "acx: unknown option --bogus for acx sessions (see acx sessions --help)"],
    [["sessions", "--jsn"], "acx: unknown option --jsn for acx sessions (did you mean --json?)"],
    [["sessions", "--json", "--json"], "acx: --json given more than once"],
    [["import", "--to", "a", "--to", "b"], "acx: --to given more than once"],
    [["sessions", "extra"], "acx: unexpected argument 'extra' (see acx sessions --help)"],
    [["show", "abcd", "efgh"], "acx: unexpected argument 'efgh' (see acx show --help)"],
    [
      ["frobnicate"],
      "acx: unknown command 'frobnicate' for acx (commands: sessions, show, stats, search, import, sync, hub, push, fork, chat, memory, statusline, ui, demo)"
    ],
    [["memory", "frobnicate"], /^acx: unknown command 'frobnicate' for acx memory \(commands: status, search, .*\)$/],
    [["--bogus"], /^acx: unknown option '--bogus' for acx \(commands: sessions, show, .*\)$/]
  ] as ReadonlyArray<readonly [ReadonlyArray<string>, string | RegExp]>)(
    "acx %j",
    { timeout: TEST_TIMEOUT_MS },
    async (args, expected) => oneLine(await acxInProcess(args), expected)
  )
})
