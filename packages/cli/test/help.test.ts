import * as StatsReport from "@acx/convert/StatsReport"
import * as MemoryConfig from "@acx/memory/MemoryConfig"
import * as AcontextDefaults from "@acx/storage/AcontextDefaults"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import type { CommandSpec } from "../src/CommandSpec.js"
import { UsageFailure } from "../src/CommandSpec.js"
import { acx } from "../src/CommandTable.js"
import { parseCommandLine, type Request } from "../src/internal/commandLine.js"
import { useColor } from "../src/internal/help.js"
import { ACONTEXT_BASE_URL, CONTEXT_TOKENS, groupings } from "../src/table/options.js"

/** What `args` asks for, or the one line of its usage error. */
const parse = (args: ReadonlyArray<string>): Request | string => {
  try {
    return parseCommandLine(acx, args, process.cwd())
  } catch (error) {
    if (error instanceof UsageFailure) return error.message
    throw error
  }
}

const find = (path: ReadonlyArray<string>): CommandSpec => {
  let command = acx
  for (const name of path) command = command.subcommands!.find((child) => child.name === name)!
  return command
}

describe("useColor", () => {
  it.each([
    [{}, true, true],
    [{}, false, false],
    [{ NO_COLOR: "1" }, true, false],
    [{ NO_COLOR: "" }, true, true],
    [{ TERM: "dumb" }, true, false],
    [{ FORCE_COLOR: "1" }, false, true],
    [{ FORCE_COLOR: "1", NO_COLOR: "1" }, false, true],
    [{ FORCE_COLOR: "0" }, true, false],
    [{ FORCE_COLOR: "false" }, true, false]
  ] as ReadonlyArray<readonly [Record<string, string>, boolean, boolean]>)("%j, tty %s: %s", (env, tty, expected) => {
    expect(useColor(env, tty)).toBe(expected)
  })
})

describe("the command table", () => {
  it("has every command, nested ones included, with options, choices and defaults", () => {
    expect(acx.name).toBe("acx")
    expect(acx.subcommands!.map((child) => child.name)).toEqual(
      expect.arrayContaining(["sessions", "show", "search", "import", "memory"])
    )
    const search = parse(["memory", "search", "--limit", "3", "q"])
    expect(search).toMatchObject({ _tag: "Run", options: { limit: 3, query: "q", json: false, project: undefined } })
    expect((search as Extract<Request, { _tag: "Run" }>).path.map((command) => command.name))
      .toEqual(["acx", "memory", "search"])
    expect(parse(["memory", "search", "q"])).toMatchObject({ options: { limit: 20 } })
    const format = find(["show"]).options!.find((option) => option.name === "format")!
    expect(format).toMatchObject({ alias: "f", choices: ["markdown", "anthropic", "jsonl"], default: "markdown" })
    // optional options and flags have no default
    expect(parse(["show", "abcd"])).toMatchObject({
      options: { id: "abcd", format: "markdown", project: undefined, noThinking: false }
    })
  })

  it("holds the values other packages define, as they define them", () => {
    expect([...groupings]).toEqual([...StatsReport.groupings, "block"])
    expect(CONTEXT_TOKENS).toBe(MemoryConfig.defaults.contextTokens)
    expect(ACONTEXT_BASE_URL).toBe(AcontextDefaults.DEFAULT_BASE_URL)
  })

  it("every command is described, and every option and argument", () => {
    const visit = (command: CommandSpec): void => {
      expect(command.description, command.name).toMatch(/[a-z]{3}/i)
      for (const option of command.options ?? []) expect(option.description, option.name).toMatch(/[a-z]{3}/i)
      for (const argument of command.arguments ?? []) {
        expect(argument.description, argument.name).toMatch(/[a-z]{3}/i)
      }
      expect(command.load !== undefined || (command.subcommands ?? []).length > 0, command.name).toBe(true)
      for (const child of command.subcommands ?? []) visit(child)
    }
    visit(acx)
  })
})

describe("usage errors", () => {
  it("are one printable line for any command line", () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 6 }), fc.constantFrom([], ["show"], ["memory"], ["import"]), (
        words,
        command
      ) => {
        const result = parse([...command, ...words])
        if (typeof result !== "string") return
        expect(result).not.toMatch(/\n/)
        expect(result.trim()).not.toBe("")
      })
    )
  })

  it("name the option a bad value was given to, in any of its spellings", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z]{1,8}$/).filter((value) => !["markdown", "anthropic", "jsonl"].includes(value)),
        fc.constantFrom("-f", "--format"),
        fc.boolean(),
        (value, name, inline) => {
          const args = inline && name === "--format"
            ? ["show", `${name}=${value}`, "abcd"]
            : ["show", name, value, "abcd"]
          expect(parse(args)).toBe(`--format: '${value}' is not one of markdown, anthropic, jsonl`)
        }
      )
    )
  })

  it("say an, not a, before a vowel", () => {
    expect(parse(["import", "--to", "x.db", "--batch-size", "x"])).toBe("--batch-size: 'x' is not an integer")
    expect(parse(["hub", "status", "--lag-hours", "x"])).toBe("--lag-hours: 'x' is not a float")
  })

  it("say what is missing, unknown or repeated", () => {
    expect(parse(["hub", "grant"])).toBe("missing required option --project (see acx hub grant --help)")
    expect(parse(["hub", "user"])).toBe("missing argument <ACTION> (see acx hub user --help)")
    expect(parse(["hub", "user", "bogus", "name"])).toBe("<ACTION>: 'bogus' is not one of add, remove, rotate")
    expect(parse(["sessions", "--json=yes"])).toBe("--json: 'yes' is not true or false")
    expect(parse(["sessions", "--json=true"])).toMatchObject({ options: { json: true } })
    expect(parse(["sessions", "-p", "x", "--project", "y"])).toBe("--project given more than once")
    expect(parse(["memory", "--bogus"])).toBe("unknown option --bogus for acx memory (see acx memory --help)")
    expect(parse(["sync", "frob"])).toBe("unknown command 'frob' for acx sync (commands: install, uninstall)")
  })

  it("help and version come before the command runs, unknown options before help", () => {
    expect(parse([])).toMatchObject({ _tag: "Help" })
    expect(parse(["--version"])).toEqual({ _tag: "Version" })
    expect(parse(["import", "--help"])).toMatchObject({ _tag: "Help" })
    expect(parse(["import", "-h"])).toMatchObject({ _tag: "Help" })
    expect(parse(["memory"])).toMatchObject({ _tag: "Help" })
    expect(parse(["sessions", "--help", "--bogus"])).toBe(
      "unknown option --bogus for acx sessions (see acx sessions --help)"
    )
  })

  it("hook's words go to the hook as they are: a hook never fails Claude Code on its command line", () => {
    expect(parse(["hook", "PostToolUse", "--whatever"])).toMatchObject({
      _tag: "Run",
      raw: ["PostToolUse", "--whatever"]
    })
  })
})
