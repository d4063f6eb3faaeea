/**
 * The config directory's plain reads load no Effect: `acx sessions`/`acx stats` over a config
 * directory (`internal/configDirReads.ts`) and the first step of `acx sync`
 * (`internal/unchangedSync.ts`) start as fast as `node` allows only while nothing they import,
 * however indirectly, is an `effect` or `@effect/*` module. The import graph is esbuild's (as the
 * build bundles it, type-only imports dropped), read from its metafile: for each such module, the
 * chain of imports that reaches it.
 */
import * as esbuild from "esbuild"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const cli = fileURLToPath(new URL("..", import.meta.url))
const packages = path.dirname(cli)

const EFFECT = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?(?:effect|@effect\/[^/]+)\//

/** Every module `entry` loads, with the module that first imports it. */
const importGraph = async (entry: string): Promise<Map<string, string | undefined>> => {
  const built = await esbuild.build({
    entryPoints: [path.join(cli, entry)],
    absWorkingDir: cli,
    bundle: true,
    write: false,
    metafile: true,
    platform: "node",
    format: "esm",
    outfile: path.join(cli, "build", "imports-probe.mjs"),
    // the workspace packages from their TypeScript sources, as build.mjs bundles them
    conditions: ["@acx/source"],
    external: ["better-sqlite3", "pg", "pg-native"],
    logLevel: "silent"
  })
  const importer = new Map<string, string | undefined>()
  const queue = Object.entries(built.metafile.inputs).filter(([file]) =>
    path.resolve(cli, file) === path.join(cli, entry)
  )
    .map(([file]) => file)
  for (const file of queue) importer.set(file, undefined)
  while (queue.length > 0) {
    const file = queue.shift()!
    for (const edge of built.metafile.inputs[file]?.imports ?? []) {
      if (edge.external || importer.has(edge.path)) continue
      importer.set(edge.path, file)
      queue.push(edge.path)
    }
  }
  return importer
}

/** The import chains from the entry to each Effect module it reaches directly from our code. */
const effectChains = (importer: Map<string, string | undefined>): Array<string> =>
  [...importer.keys()]
    .filter((file) => EFFECT.test(file) && !EFFECT.test(importer.get(file) ?? ""))
    .map((file) => {
      const chain: Array<string> = []
      for (let at: string | undefined = file; at !== undefined; at = importer.get(at)) {
        chain.unshift(
          EFFECT.test(at) ? at.replace(/^.*node_modules\//, "") : path.relative(packages, path.resolve(cli, at))
        )
      }
      return chain.join(" -> ")
    })

describe("the config directory's plain reads", () => {
  it("the walk names the chain to an Effect module", async () => {
    // SessionIndex is Effect's wrapper of the same reads: its chain must be found
    const chains = effectChains(await importGraph("../claude-code/src/SessionIndex.ts"))
    expect(chains.length).toBeGreaterThan(0)
    expect(chains.some((chain) => chain.startsWith("claude-code/src/SessionIndex.ts -> "))).toBe(true)
  })

  for (const entry of ["src/internal/configDirReads.ts", "src/internal/unchangedSync.ts"]) {
    it(`${entry} imports no effect module`, async () => {
      const importer = await importGraph(entry)
      expect(importer.size).toBeGreaterThan(10)
      expect(effectChains(importer)).toEqual([])
    })
  }
})
