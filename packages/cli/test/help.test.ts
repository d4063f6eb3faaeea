import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Option from "effect/Option"
import { acx as acxCommand } from "../src/Cli.js"
import { commandPath, commandTree, findOption } from "../src/internal/commandTree.js"
import { useColor } from "../src/internal/help.js"
import { describeUsageError } from "../src/internal/usageError.js"

const tree = commandTree(acxCommand.descriptor)

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

describe("commandTree", () => {
  it("reads every command, nested ones included, with options, choices and defaults", () => {
    expect(tree.name).toBe("acx")
    expect(tree.children.map((child) => child.name)).toEqual(
      expect.arrayContaining(["sessions", "show", "search", "import", "memory"])
    )
    const path = commandPath(tree, ["memory", "search", "--limit", "3", "q"])
    expect(path.map((node) => node.name)).toEqual(["acx", "memory", "search"])
    expect(Option.getOrUndefined(findOption(path[2]!, "--limit")!.defaultValue)).toBe("20")
    const show = commandPath(tree, ["show"])[1]!
    const format = findOption(show, "-f")!
    expect(format.names).toEqual(["--format", "-f"])
    expect(format.choices).toEqual(["markdown", "anthropic", "jsonl"])
    expect(Option.getOrUndefined(format.defaultValue)).toBe("markdown")
    // optional options and flags have no default to show
    expect(Option.isNone(findOption(show, "--project")!.defaultValue)).toBe(true)
    expect(Option.isNone(findOption(show, "--no-thinking")!.defaultValue)).toBe(true)
  })
})

describe("describeUsageError", () => {
  it("is one printable line for any message and command line", () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string(), { maxLength: 6 }), (message, args) => {
        const line = describeUsageError(message, args, tree)
        expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
        expect(line.trim()).not.toBe("")
      })
    )
  })

  it("names the option a bad value was given to, in any of its spellings", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z]{1,8}$/),
        fc.constantFrom("-f", "--format"),
        fc.boolean(),
        (value, name, inline) => {
          const args = inline ? ["show", `${name}=${value}`, "abcd"] : ["show", name, value, "abcd"]
          expect(describeUsageError("Expected one of the following cases: markdown, anthropic, jsonl", args, tree))
            .toBe(
              `--format: '${value}' is not one of markdown, anthropic, jsonl`
            )
        }
      )
    )
  })

  it("says an, not a, before a vowel", () => {
    expect(describeUsageError("'x' is not a integer", ["import", "--batch-size", "x"], tree)).toBe(
      "--batch-size: 'x' is not an integer"
    )
    expect(describeUsageError("'x' is not a date", ["import", "--since", "x"], tree)).toBe("--since: 'x' is not a date")
  })
})
