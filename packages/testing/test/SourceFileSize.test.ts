/**
 * No source file under `packages/<name>/src/**` over 600 lines: a module that long holds more
 * than one concern, or one closure that should be named steps (`internal/` modules). Declarative
 * schema modules are allowed (a union of sixty entry kinds is long and still one concern), and
 * files being split while this test was written sit on a list that only shrinks.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const packages = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

const MAX_LINES = 600

// Declarative schema: definitions and their doc comments, nothing to split into steps.
const schemaFiles: ReadonlyArray<string> = [
  "schema/src/SdkMessage.ts",
  "schema/src/Transcript.ts",
  "schema/src/ContentBlock.ts"
]

// Files other work is splitting now; the list only shrinks (a file that fits leaves it).
const beingSplit: ReadonlyArray<string> = []

const sourceFiles = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return /\.(m?ts|tsx)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : []
  })

/** A file's lines, as an editor numbers them: a last line without a newline counts too. */
const lineCount = (text: string): number => text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0)

const sizes = fs
  .readdirSync(packages)
  .map((name) => path.join(packages, name, "src"))
  .filter((dir) => fs.existsSync(dir))
  .flatMap(sourceFiles)
  .map((file) => ({ file: path.relative(packages, file), lines: lineCount(fs.readFileSync(file, "utf8")) }))

const tooLong = sizes.filter(({ lines }) => lines > MAX_LINES).map(({ file }) => file).sort()

describe("source file size", () => {
  it("counts lines as an editor numbers them", () => {
    expect(lineCount("")).toBe(0)
    expect(lineCount("a\n")).toBe(1)
    expect(lineCount("a\nb")).toBe(2)
    expect(lineCount("a\n\nb\n")).toBe(3)
  })

  it(`no source file over ${MAX_LINES} lines but declarative schema and the files being split`, () => {
    expect(sizes.length).toBeGreaterThan(50)
    expect(tooLong.filter((file) => !schemaFiles.includes(file) && !beingSplit.includes(file))).toEqual([])
  })

  it("every listed file exists, and a split file that fits leaves its list", () => {
    const known = new Set(sizes.map(({ file }) => file))
    expect([...schemaFiles, ...beingSplit].filter((file) => !known.has(file))).toEqual([])
    expect(beingSplit.filter((file) => !tooLong.includes(file))).toEqual([])
  })
})
