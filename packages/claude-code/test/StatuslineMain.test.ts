import { parseStatuslineArgs } from "@acx/claude-code/StatuslineMain"
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

// The command lines `acx statusline` takes: exactly its four options, each at most once, in any
// order, `--name value` (never `--name=value`), no value that looks like an option.
const accepted: ReadonlyArray<readonly [ReadonlyArray<string>, unknown]> = [
  [[], { format: undefined, plain: false, wrap: undefined, configDir: undefined }],
  [["--plain"], { format: undefined, plain: true, wrap: undefined, configDir: undefined }],
  [
    ["--format", "{model}", "--plain", "--wrap", "echo hi", "--config-dir", "/d"],
    { format: "{model}", plain: true, wrap: "echo hi", configDir: "/d" }
  ],
  [
    ["--config-dir", "~/x", "--wrap", "cmd", "--format", ""],
    { format: "", plain: false, wrap: "cmd", configDir: "~/x" }
  ]
]

const refused: ReadonlyArray<ReadonlyArray<string>> = [
  ["--plain", "--plain"],
  ["--format", "a", "--format", "b"],
  ["--format={model}"],
  ["--plain=1"],
  ["--format", "-x"],
  ["--format", "-"],
  ["--format", "--plain"],
  ["--format"],
  ["--bogus"],
  ["-p"],
  ["extra"],
  ["--"],
  ["--plain", "--", "x"],
  ["--Format", "x"]
]

describe("StatuslineMain.parseStatuslineArgs", () => {
  it("takes its four options once each, in any order", () => {
    for (const [args, expected] of accepted) expect(parseStatuslineArgs(args), args.join(" ")).toEqual(expected)
  })

  it("refuses repeats, --name=value, option-like values, missing values and anything else", () => {
    for (const args of refused) expect(parseStatuslineArgs(args), args.join(" ")).toBeUndefined()
  })
})

// The statusline and Claude Code's settings have one owner: this package. The CLI keeps only the
// bundle's entry (`src/statusline.ts`) and the command's wiring (`commands/**/statusline.ts`).
describe("the statusline's and the settings' room", () => {
  const packages = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
  const sources = (dir: string): Array<string> =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name)
      return entry.isDirectory() ? sources(full) : /\.(m?ts|tsx)$/.test(entry.name) ? [full] : []
    })
  const files = fs.readdirSync(packages)
    .map((name) => path.join(packages, name, "src"))
    .filter((dir) => fs.existsSync(dir))
    .flatMap(sources)
    .map((file) => path.relative(packages, file))

  it("no statusline or settings-merge module outside @acx/claude-code but the CLI's entry and wiring", () => {
    const elsewhere = files.filter((file) =>
      /(^|\/)(statusline[A-Za-z]*|ClaudeSettings[A-Za-z]*|quotaAppend|installFiles|jsonObject)\.ts$/i.test(file) &&
      !file.startsWith("claude-code/src/") &&
      file !== "cli/src/statusline.ts" && !/^cli\/src\/commands\/(args\/|run\/)?statusline\.ts$/.test(file)
    )
    expect(elsewhere).toEqual([])
  })
})
