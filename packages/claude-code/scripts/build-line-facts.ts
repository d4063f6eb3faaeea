/**
 * `pnpm --filter @acx/claude-code build:line-facts`: compiles the line scanner
 * (`assembly/lineFacts.ts`, AssemblyScript) to WebAssembly and writes it, base64, into
 * `src/internal/lineFactsWasm.ts`. The module is committed: the library, the CLI bundle and its
 * stats worker load it as code, with no build step and no file to find at run time. A test
 * (`test/LineFacts.test.ts`) compiles the source again and fails when the committed module is
 * not its build.
 */
import asc from "assemblyscript/asc"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..")

/** Where the compiled module is written. */
export const moduleFile = path.join(root, "src/internal/lineFactsWasm.ts")

/** The WebAssembly binary of `assembly/lineFacts.ts`. */
export const compileLineFacts = async (): Promise<Uint8Array> => {
  let binary: Uint8Array | undefined
  const { error, stderr } = await asc.main(
    [
      path.join(root, "assembly/lineFacts.ts"),
      "-O3",
      "--runtime",
      "stub",
      "--noAssert",
      "--use",
      "abort=",
      "--enable",
      "simd",
      "--outFile",
      "lineFacts.wasm"
    ],
    {
      writeFile: (name: string, contents: Uint8Array | string) => {
        if (name.endsWith(".wasm") && typeof contents !== "string") binary = contents
      }
    }
  )
  if (error) throw new Error(`asc: ${error.message}\n${stderr.toString()}`)
  if (binary === undefined) throw new Error("asc wrote no WebAssembly")
  return binary
}

/** The text of `src/internal/lineFactsWasm.ts` for `binary`. */
export const moduleText = (binary: Uint8Array): string =>
  `/**
 * The line scanner \`assembly/lineFacts.ts\` compiled to WebAssembly (${binary.length} bytes), base64.
 * Written by \`scripts/build-line-facts.ts\` (\`pnpm --filter @acx/claude-code build:line-facts\`);
 * do not edit: a test compiles the source again and compares.
 *
 * @internal
 */
export const LINE_FACTS_WASM =
  "${Buffer.from(binary).toString("base64")}"
`

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(moduleFile, moduleText(await compileLineFacts()))
  console.log(`wrote ${path.relative(process.cwd(), moduleFile)}`)
}
