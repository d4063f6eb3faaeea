/**
 * What docs/cli.md and `--help` say about the commands matches the command table: its command
 * reference is the one generated from the table (`pnpm --filter @acx/cli reference`), and its
 * opening usage names every command the CLI has, every subcommand of a group, and only options the
 * command (or one of its subcommands) takes. `acx demo --help` says what the demo runs.
 */
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import type { CommandSpec } from "../src/CommandSpec.js"
import { acx } from "../src/CommandTable.js"
import { BEGIN, commandReference, END } from "../src/internal/reference.js"
import { TEST_TIMEOUT_MS } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"

const cliMd = fs.readFileSync(fileURLToPath(new URL("../../../docs/cli.md", import.meta.url)), "utf8")

/** The lines of docs/cli.md's first code block that run a command (not the `--help` line). */
const usageLines = (): Array<string> => {
  const block = /```\n([\s\S]*?)```/.exec(cliMd)
  expect(block, "docs/cli.md has an opening usage block").not.toBeNull()
  return block![1]!.split("\n").filter((line) => line.startsWith("acx ") && !line.startsWith("acx --help"))
}

/** Every option name of a command and of its subcommands. */
const optionNames = (node: CommandSpec): Set<string> =>
  new Set([
    ...(node.options ?? []).flatMap((option) => [
      `--${option.name}`,
      ...(option.alias === undefined ? [] : [`-${option.alias}`])
    ]),
    ...(node.subcommands ?? []).flatMap((child) => [...optionNames(child)])
  ])

describe("docs/cli.md's command reference", () => {
  it("is the one generated from the command table", () => {
    const begin = cliMd.indexOf(BEGIN)
    const end = cliMd.indexOf(END)
    expect(begin, "docs/cli.md has the generated reference's markers").toBeGreaterThan(0)
    // on a difference: `pnpm --filter @acx/cli reference` writes it again
    expect(cliMd.slice(begin, end + END.length)).toBe(commandReference(acx))
  })

  it("documents every command and option of the table", () => {
    const visit = (command: CommandSpec, words: ReadonlyArray<string>): void => {
      if (words.length > 1) expect(cliMd).toContain(`#### \`${words.join(" ")}\``)
      for (const option of command.options ?? []) expect(cliMd).toContain(`\`--${option.name}\``)
      for (const child of command.subcommands ?? []) visit(child, [...words, child.name])
    }
    visit(acx, ["acx"])
  })
})

describe("docs/cli.md's opening usage", () => {
  const tree = acx.subcommands!
  const lines = usageLines()
  const documented = lines.map((line) => line.split(" ")[1]!)

  it("names every command of the CLI once", () => {
    const commands = tree.map((child) => child.name)
    expect(commands.length).toBeGreaterThanOrEqual(15)
    expect([...documented].sort()).toEqual([...commands].sort())
  })

  it("names every subcommand of a group", () => {
    for (const node of tree.filter((child) => (child.subcommands ?? []).length > 0)) {
      const line = lines[documented.indexOf(node.name)]!
      const words = new Set(line.split(/[^a-z]+/))
      for (const child of node.subcommands!) {
        expect(words.has(child.name), `acx ${node.name} ${child.name} in: ${line}`).toBe(true)
      }
    }
  })

  it("shows only options the command takes", () => {
    for (const node of tree) {
      const line = lines[documented.indexOf(node.name)]!
      const known = optionNames(node)
      for (const [option] of line.matchAll(/--[a-z][a-z-]*/g)) {
        expect(known.has(option), `${option} is no option of acx ${node.name}`).toBe(true)
      }
    }
  })
})

describe("acx demo --help", () => {
  it(
    "says that the demo runs the real Claude Code, and when it generates a session",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const help = await acxInProcess(["demo", "--help"])
      expect(help.code, help.stderr).toBe(0)
      const text = help.stdout.replace(/\s+/g, " ")
      expect(text).toContain("real Claude Code")
      expect(text).toContain("--generated")
      expect(text).not.toContain("Generate a realistic session")
    }
  )
})
