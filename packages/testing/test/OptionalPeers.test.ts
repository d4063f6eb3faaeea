/**
 * `@acx/testing` (its main entry) compiles without its optional peers: its declarations, emitted
 * here as `tsc` emits them (in memory), reach no module that names vitest, the Claude Agent SDK
 * or another optional peer — by `import`, `import type`, `export … from` or an `import("x")`
 * type. (A peer loaded with `import()` when a kit runs never reaches a declaration.) The vitest
 * suites are `@acx/testing/vitest`. The packed package is compiled with `skipLibCheck: false` and
 * no vitest by the pack check (scripts/pack-check.sh).
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const testing = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const manifest = JSON.parse(fs.readFileSync(path.join(testing, "package.json"), "utf8")) as {
  readonly peerDependenciesMeta: Record<string, { readonly optional?: boolean }>
}
const optional = Object.entries(manifest.peerDependenciesMeta)
  .filter(([, meta]) => meta.optional === true)
  .map(([name]) => name)

/** The specifiers of a source's static imports and exports, and of `import("x")` types. */
const staticSpecifiers = (source: string): Array<string> => {
  const file = ts.createSourceFile("x.ts", source, ts.ScriptTarget.Latest, true)
  const found: Array<string> = []
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) found.push(node.moduleSpecifier.text)
    if (
      ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)
    ) found.push(node.argument.literal.text)
    ts.forEachChild(node, visit)
  }
  visit(file)
  return found
}

/** The declaration files `tsc` emits for the package's sources, by path under `src/` (`index.d.ts`). */
const emitDeclarations = (): Map<string, string> => {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(testing, "tsconfig.src.json"), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
    }
  })!
  const outDir = path.join(testing, "declarations-in-memory")
  const program = ts.createProgram(config.fileNames, {
    ...config.options,
    outDir,
    declaration: true,
    emitDeclarationOnly: true,
    declarationMap: false,
    composite: false,
    incremental: false
  })
  const emitted = new Map<string, string>()
  program.emit(undefined, (file, text) => {
    if (file.endsWith(".d.ts")) emitted.set(path.relative(outDir, file), text)
  })
  return emitted
}

/** Every optional peer the declarations reach from `entry`, with the declaration that names it. */
const reachedPeers = (declarations: ReadonlyMap<string, string>, entry: string): Array<string> => {
  const seen = new Set<string>()
  const found: Array<string> = []
  const walk = (file: string): void => {
    if (seen.has(file)) return
    seen.add(file)
    const text = declarations.get(file)
    if (text === undefined) return void found.push(`${file} was not emitted`)
    for (const specifier of staticSpecifiers(text)) {
      const peer = optional.find((name) => specifier === name || specifier.startsWith(`${name}/`))
      if (peer !== undefined) found.push(`${file} imports ${specifier}`)
      else if (specifier.startsWith(".")) {
        walk(path.join(path.dirname(file), specifier.replace(/\.js$/, ".d.ts")))
      }
    }
  }
  walk(entry)
  return found
}

describe("@acx/testing without its optional peers", () => {
  it("the walk sees static, type-only, re-exported and import-type imports, not dynamic ones", () => {
    expect(
      staticSpecifiers([
        `import type * as V from "vitest"`,
        `export { x } from "./X.js"`,
        `type S = import("@anthropic-ai/claude-agent-sdk").Options`,
        `const load = () => import("pg")`
      ].join("\n"))
    ).toEqual(["vitest", "./X.js", "@anthropic-ai/claude-agent-sdk"])
  })

  it("the main entry's declarations reach none of them; @acx/testing/vitest's name vitest", () => {
    expect(optional).toEqual(expect.arrayContaining(["vitest", "@anthropic-ai/claude-agent-sdk"]))
    const declarations = emitDeclarations()
    expect(reachedPeers(declarations, "index.d.ts")).toEqual([])
    // the walk finds what is there
    expect(reachedPeers(declarations, "vitest.d.ts")).toEqual(
      expect.arrayContaining([expect.stringMatching(/imports vitest$/)])
    )
  }, 300_000)

  it("the vitest suites are @acx/testing/vitest", async () => {
    const suites = await import("@acx/testing/vitest")
    expect(typeof suites.runSessionStoreConformance).toBe("function")
    expect(typeof suites.runSessionStoreRealClaudeSuite).toBe("function")
    expect(typeof suites.SessionStoreConcurrency.runAppendWorkers).toBe("function")
    const main: Record<string, unknown> = await import("@acx/testing")
    expect(main["runSessionStoreConformance"]).toBeUndefined()
  })
})
