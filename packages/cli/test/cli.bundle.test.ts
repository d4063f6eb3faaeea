/**
 * The shape of the BUILT bundle that keeps every command's start-up short (docs/benchmarks.md,
 * "CLI start-up"): `dist/acx.mjs` and the chunks it imports statically hold the command table and
 * none of Effect, the commands' modules, SQL clients, HTTP client, MCP server, Claude Agent SDK
 * or transcript entry schemas; a reading command's handler loads none of the heavy parts either;
 * and what code finds next to itself (the stats worker script, the observer's prompts) sits in
 * the same directory as every chunk. What each file holds is read from its source map.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const dist = fileURLToPath(new URL("../dist/", import.meta.url))

const text = (file: string) => fs.readFileSync(path.join(dist, file), "utf8")

/** The chunks a file imports before it runs (`import … from "./x.mjs"`, `import "./x.mjs"`). */
const staticImports = (file: string): Array<string> =>
  Array.from(
    text(file).matchAll(/^(?:import|export)\s[^;]*?\sfrom\s*"\.\/([^"]+)"|^import\s*"\.\/([^"]+)"/gms),
    (match) => (match[1] ?? match[2])!
  )

/** The chunks a file imports when asked (`import("./x.mjs")`). */
const dynamicImports = (file: string): Array<string> =>
  Array.from(text(file).matchAll(/\bimport\("\.\/([^"]+)"\)/g), (match) => match[1]!)

const closure = (file: string, seen = new Set<string>()): Set<string> => {
  if (seen.has(file)) return seen
  seen.add(file)
  for (const next of staticImports(file)) closure(next, seen)
  return seen
}

const mapSources = new Map<string, ReadonlyArray<string>>()

/** The source files bundled into the chunks, from their source maps. */
const sourcesOf = (files: Iterable<string>): Array<string> =>
  Array.from(files).flatMap((file) => {
    let sources = mapSources.get(file)
    if (sources === undefined) {
      sources = (JSON.parse(text(`${file}.map`)) as { sources: Array<string> }).sources
      mapSources.set(file, sources)
    }
    return sources
  })

const HEAVY = {
  sdk: /node_modules\/@anthropic-ai\/claude-agent-sdk\//,
  undici: /node_modules\/undici\//,
  sql: /node_modules\/@effect\/sql/,
  mcp: /node_modules\/@effect\/ai\//,
  entrySchemas: /schema\/src\/Transcript\.ts$/
} as const

const heavyIn = (sources: ReadonlyArray<string>) =>
  Object.entries(HEAVY).filter(([, pattern]) => sources.some((source) => pattern.test(source))).map(([name]) => name)

/** Every chunk `file` may load, now or with `import()`. */
const reachable = (file: string, seen = new Set<string>()): Set<string> => {
  if (seen.has(file)) return seen
  seen.add(file)
  for (const next of [...staticImports(file), ...dynamicImports(file)]) reachable(next, seen)
  return seen
}

/** What a command's handler loads beyond `acx.mjs`: the smallest closure of a chunk loaded with `import()` that holds `run/<name>.ts`. */
const handlerSources = (name: string): Array<string> => {
  const closures = [...reachable("acx.mjs")].flatMap(dynamicImports).map((chunk) => sourcesOf(closure(chunk)))
    .filter((sources) => sources.some((source) => source.endsWith(`src/commands/run/${name}.ts`)))
    .sort((a, b) => a.length - b.length)
  expect(closures.length, `a chunk with run/${name}.ts`).toBeGreaterThan(0)
  return closures[0]!
}

describe("the acx bundle", () => {
  it("acx.mjs loads the command table and no Effect, command, driver, HTTP client, MCP server, SDK or entry schema", () => {
    const sources = sourcesOf(closure("acx.mjs"))
    expect(sources.filter((source) => source.endsWith("src/CommandTable.ts"))).toHaveLength(1)
    expect(sources.filter((source) => /node_modules\/(effect|@effect)\//.test(source))).toEqual([])
    expect(sources.filter((source) => source.includes("src/commands/"))).toEqual([])
    expect(heavyIn(sources)).toEqual([])
  })

  it("every command's handler is a chunk of its own, loaded by import()", () => {
    for (const name of ["sessions", "show", "stats", "import", "push", "fork", "chat", "demo", "memory"]) {
      expect(handlerSources(name).some((source) => source.endsWith(`src/commands/run/${name}.ts`))).toBe(true)
    }
  })

  it("sessions, show, stats and fork load no SDK, HTTP client, SQL client or entry schema", () => {
    for (const name of ["sessions", "show", "stats", "fork"]) {
      expect(heavyIn(handlerSources(name)), name).toEqual([])
    }
  })

  it("acx memory status and its siblings load no SDK and no MCP server", () => {
    expect(heavyIn(handlerSources("memory")).filter((name) => name === "sdk" || name === "mcp")).toEqual([])
  })

  it("chunks sit beside acx.mjs, with the stats worker script and the observer's prompts", () => {
    const entries = fs.readdirSync(dist, { withFileTypes: true })
    const nested = entries.filter((entry) => entry.isDirectory())
      .flatMap((dir) => fs.readdirSync(path.join(dist, dir.name)).filter((name) => name.endsWith(".mjs")))
    expect(nested).toEqual([])
    const chunks = entries.filter((entry) => entry.isFile() && /\.[cm]js$/.test(entry.name)).map((entry) => entry.name)
    expect(chunks).toEqual(expect.arrayContaining(["acx.mjs", "hook.cjs", "acx-stats-worker.mjs"]))
    // acx.mjs imports nothing before it runs (one module to load: `acx hook` passes through it);
    // the commands' modules and their chunks load with import()
    expect(closure("acx.mjs").size).toBe(1)
    expect(reachable("acx.mjs").size).toBeGreaterThan(10)
    expect(fs.readdirSync(path.join(dist, "prompts")).filter((name) => name.endsWith(".md")).length)
      .toBeGreaterThan(0)
  })
})
