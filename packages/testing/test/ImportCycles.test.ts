/**
 * No import cycle among the sources of the packages (`packages/<name>/src/**`): a walk over the
 * import graph, where every import counts — static, `export … from`, dynamic `import()`, and
 * type-only ones (a type-only cycle is still two modules that cannot be read one without the
 * other). Edges are relative specifiers and `@acx/<package>[/<module>]` specifiers, both resolved
 * to the `.ts` source they name.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const packages = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

const sourceFiles = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return /\.(m?ts|tsx)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : []
  })

/** The source file a specifier names, if it is one of ours (`./X.js` is `./X.ts`). */
const resolve = (from: string, specifier: string): string | undefined => {
  let base: string
  if (specifier.startsWith(".")) {
    base = path.resolve(path.dirname(from), specifier)
  } else {
    const match = /^@acx\/([^/]+)(?:\/(.+))?$/.exec(specifier)
    if (match === null) return undefined
    base = path.join(packages, match[1]!, "src", match[2] ?? "index")
  }
  const stem = base.replace(/\.(m?js|jsx|m?ts|tsx)$/, "")
  return [".ts", ".tsx", ".mts", "/index.ts"].map((ext) => stem + ext).find((file) => fs.existsSync(file))
}

const graph = (files: ReadonlyArray<string>): Map<string, Array<string>> =>
  new Map(
    files.map((file) => {
      const imports = ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true).importedFiles
      const targets = imports.flatMap(({ fileName }) => {
        const target = resolve(file, fileName)
        return target === undefined ? [] : [target]
      })
      return [file, [...new Set(targets)]]
    })
  )

/** One cycle through each strongly connected set of modules (Tarjan), as a path of files. */
const cycles = (edges: Map<string, Array<string>>): Array<Array<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const found: Array<Array<string>> = []
  const visit = (node: string): void => {
    index.set(node, index.size)
    low.set(node, index.get(node)!)
    stack.push(node)
    onStack.add(node)
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!))
      }
    }
    if (low.get(node) !== index.get(node)) return
    const component: Array<string> = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    const selfLoop = (edges.get(node) ?? []).includes(node)
    if (component.length > 1 || selfLoop) found.push(component.sort())
  }
  for (const node of edges.keys()) if (!index.has(node)) visit(node)
  return found
}

const allSources = fs
  .readdirSync(packages)
  .map((name) => path.join(packages, name, "src"))
  .filter((dir) => fs.existsSync(dir))
  .flatMap(sourceFiles)

describe("import cycles", () => {
  it("the walk finds a cycle, type-only and dynamic edges included", () => {
    const a = path.join(packages, "x/src/A.ts")
    const b = path.join(packages, "x/src/B.ts")
    expect(cycles(new Map([[a, [b]], [b, [a]]]))).toEqual([[a, b]])
    expect(cycles(new Map([[a, [b]], [b, []]]))).toEqual([])
  })

  it("reads every kind of import as an edge", () => {
    const source = [
      `import type { A } from "./A.js"`,
      `export type { B } from "./B.js"`,
      `const c = () => import("./C.js")`,
      `import { d } from "node:fs"`
    ].join("\n")
    expect(ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName)).toEqual([
      "./A.js",
      "./B.js",
      "./C.js",
      "node:fs"
    ])
  })

  it("no cycle among packages/*/src", () => {
    expect(allSources.length).toBeGreaterThan(50)
    const found = cycles(graph(allSources)).map((component) => component.map((file) => path.relative(packages, file)))
    expect(found).toEqual([])
  })
})
