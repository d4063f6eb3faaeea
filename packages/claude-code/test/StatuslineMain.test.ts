import { parseStatuslineArgs } from "@acx/claude-code/StatuslineMain"
import { describe, expect, it } from "@effect/vitest"

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
