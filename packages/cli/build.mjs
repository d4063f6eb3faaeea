// Bundles the CLI, the workspace packages it uses (TypeScript sources) and its pure-JS
// dependencies, the Claude Agent SDK's JavaScript included, into dist/, so a run loads a few
// files instead of hundreds of ESM modules and an install pulls no SDK package (whose platform
// binary alone is ~360 MB: acx runs no Claude Code here, it only folds session summaries with the
// SDK's function). The CLI bundle is split at every `import()`: dist/acx.mjs holds the command
// tree (what parsing and --help need) and each command's handler loads its own chunks
// (dist/chunk-*.mjs, beside it) when it runs, so a command pays only for what it uses. Native
// modules and packages with optional native parts load from node_modules.
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const dist = path.join(here, "dist")

// chunk names change with their contents: last build's must not linger
fs.rmSync(dist, { recursive: true, force: true })

const external = [
  "better-sqlite3",
  "pg",
  "pg-native",
  "msgpackr-extract",
  "bufferutil",
  "utf-8-validate"
]

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  logLevel: "warning",
  external,
  // the workspace packages from their TypeScript sources (their `@acx/source` export condition)
  conditions: ["@acx/source"],
  // bundled CommonJS dependencies call require() for Node built-ins
  banner: {
    js: "import { createRequire as __acxCreateRequire } from \"node:module\"\n" +
      "const require = __acxCreateRequire(import.meta.url)"
  }
}

await Promise.all([
  // chunks sit beside acx.mjs, not in a folder: code that finds files next to itself
  // (`./acx-stats-worker.mjs`, `./prompts/`) finds them from any chunk
  esbuild.build({
    ...common,
    entryPoints: { acx: path.join(here, "src/bin.ts") },
    outdir: dist,
    outExtension: { ".js": ".mjs" },
    splitting: true
  }),
  // `acx hook …` runs on every tool call of Claude Code: a bundle of its own, without the CLI
  // framework or Effect (the bin hands it over before loading anything else)
  esbuild.build({
    ...common,
    // better-sqlite3's JavaScript bundled too (its native addon still loads from node_modules, by
    // path): its ten modules, loaded one by one, were a tenth of a hook's time
    external: [...external.filter((name) => name !== "better-sqlite3"), "bindings"],
    entryPoints: [path.join(here, "src/hook.ts")],
    outfile: path.join(dist, "hook.mjs")
  }),
  // `acx stats` folds transcripts in worker threads: their script is a bundle of its own beside
  // acx.mjs (TranscriptStats looks for `./acx-stats-worker.mjs` next to the code that starts them,
  // a chunk beside acx.mjs)
  esbuild.build({
    ...common,
    entryPoints: [path.join(here, "../claude-code/src/internal/transcriptStatsWorker.ts")],
    outfile: path.join(dist, "acx-stats-worker.mjs")
  })
])

// the web page's browser assets, served from beside the bundle (acx ui)
const { buildWeb } = await import(path.join(here, "../ui/build.mjs"))
await buildWeb(path.join(here, "dist/assets"))

// the memory observer's prompts are files, read next to the module that fills them (a chunk)
const prompts = path.join(here, "../memory/src/prompts")
fs.mkdirSync(path.join(dist, "prompts"), { recursive: true })
for (const name of fs.readdirSync(prompts)) {
  fs.copyFileSync(path.join(prompts, name), path.join(dist, "prompts", name))
}
