// Bundles the CLI, the workspace packages it uses (TypeScript sources) and its pure-JS
// dependencies, the Claude Agent SDK's JavaScript included, into dist/, so a run loads a few
// files instead of hundreds of ESM modules and an install pulls no SDK package (whose platform
// binary alone is ~360 MB: acx runs no Claude Code here, it only folds session summaries with the
// SDK's function). The CLI bundle is split at every `import()`: dist/acx.mjs holds the command
// tree (what parsing and --help need) and each command's handler loads its own chunks
// (dist/chunk-*.mjs, beside it) when it runs, so a command pays only for what it uses. Native
// modules and packages with optional native parts load from node_modules.
//
// The build is atomic for whoever runs the CLI meanwhile (a test suite while `pnpm acx …` rebuilds,
// two builds at once): it writes into a private staging directory and then renames each file
// into dist/, the entry files (acx.mjs, hook.cjs, the stats worker) last. dist/ is never removed
// or half-written: a reader sees the old entry or the new one, and the chunks either imports are
// already there. Chunk names change with their contents, so the previous build's chunks stay
// beside the new ones for a while (a process started on it can still load its lazy chunks), and
// are deleted by a later build.
//
// `--if-stale` (what `pnpm acx …` runs) builds only when a file the last build read changed since
// (buildStamp.mjs): the manifest records every input esbuild reported, with its mtime.
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { MANIFEST, staleReason, stampInputs } from "./buildStamp.mjs"

const here = path.dirname(fileURLToPath(import.meta.url))
// ACX_CLI_OUT: another directory of this package to build into (the build's own test, which must
// not rewrite the dist/ that other tests run meanwhile); staging stays on its file system
const dist = process.env["ACX_CLI_OUT"] ? path.resolve(process.env["ACX_CLI_OUT"]) : path.join(here, "dist")
const startedAt = Date.now()

/** What a reader opens first: renamed into dist/ after everything they import. */
const ENTRIES = new Set([
  "acx.mjs",
  "hook.cjs",
  "sync-hook.cjs",
  "store-reads.cjs",
  "statusline.cjs",
  "config-reads.cjs",
  "acx-stats-worker.mjs",
  "acx-ui-worker.mjs"
])
if (process.argv.includes("--if-stale") && staleReason(dist, here, ENTRIES) === undefined) process.exit(0)

/** How long a file of an earlier build stays in dist/ (for processes started on it). */
const STALE_AFTER_MS = 10 * 60_000

// a staging directory of this build only, on dist's file system (renames must not cross one);
// one left by a killed build is cleared by a later build
const stages = path.join(here, "build")
fs.mkdirSync(stages, { recursive: true })
for (const name of fs.readdirSync(stages)) {
  const old = path.join(stages, name)
  if (name.startsWith("bundle-") && fs.statSync(old).mtimeMs < Date.now() - STALE_AFTER_MS) {
    fs.rmSync(old, { recursive: true, force: true })
  }
}
const stage = fs.mkdtempSync(path.join(stages, "bundle-"))

const external = [
  "better-sqlite3",
  "pg",
  "pg-native",
  "msgpackr-extract",
  "bufferutil",
  "utf-8-validate"
]

// This build's identity: a report an earlier build rendered and kept (src/internal/keptReport.ts)
// is not printed by this one, whose output may differ.
const buildId = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`

/** Every file this build reads (esbuild's metafile inputs, the files copied, these scripts). */
const inputs = new Set([fileURLToPath(import.meta.url), path.join(here, "buildStamp.mjs")])

/** esbuild's build, its inputs recorded for the stamp. */
const bundle = async (options) => {
  const result = await esbuild.build({ ...options, metafile: true })
  for (const input of Object.keys(result.metafile.inputs)) inputs.add(path.resolve(input))
  return result
}

const common = {
  bundle: true,
  define: { ACX_BUILD_ID: JSON.stringify(buildId) },
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

// `acx hook …` runs on every tool call of Claude Code: bundles of their own, without the CLI
// framework or Effect (the bin hands over to them before loading anything else; the command
// `acx memory install` writes runs them directly). CommonJS: Node's ES module loader, and the
// namespace objects it builds for `node:fs` (whose `promises` getter loads fs/promises, readline
// and the streams), were a fifth of a hook's start-up. Two files: the hook's code as
// `hook-main-<hash>.cjs` (named by its content), and `hook.cjs`, which runs it compiled with V8's
// code cache for exactly that file (src/hookLoader.ts).
const hookCommon = {
  ...common,
  format: "cjs",
  // V8 compiles what it loads: a smaller file compiles faster (names kept for stack traces)
  minifyWhitespace: true,
  minifySyntax: true,
  // the code finds files (better-sqlite3's addon) from its own URL (`node:url` is loaded anyway)
  banner: { js: "\"use strict\";\nconst __acxModuleUrl = require(\"node:url\").pathToFileURL(__filename).href" },
  define: { ...common.define, "import.meta.url": "__acxModuleUrl" }
}

const hookBundles = async () => {
  const built = await bundle({
    ...hookCommon,
    // better-sqlite3's JavaScript bundled too (its native addon still loads from node_modules, by
    // path): its ten modules, loaded one by one, were a tenth of a hook's time
    external: [...external.filter((name) => name !== "better-sqlite3"), "bindings"],
    entryPoints: { "hook-main": path.join(here, "src/hook.ts") },
    entryNames: "[name]-[hash]",
    outdir: stage,
    outExtension: { ".js": ".cjs" },
    metafile: true
  })
  const main = Object.keys(built.metafile.outputs).find((file) => file.endsWith(".cjs"))
  unwrapBuiltins(main)
  await bundle({
    ...common,
    format: "cjs",
    banner: undefined,
    define: { ACX_HOOK_MAIN: JSON.stringify(path.basename(main)) },
    entryPoints: [path.join(here, "src/hookLoader.ts")],
    outfile: path.join(stage, "hook.cjs")
  })
  unwrapBuiltins(path.join(stage, "hook.cjs"))
}

// `acx sync install`'s hook (Stop, SessionEnd, PreCompact): reads stdin, starts `acx sync`
// detached and exits. Built like the memory hook (CommonJS, no Effect), in one file: it runs a
// few times per session, not on every tool call, so it needs no code cache.
const syncHookBundle = async () => {
  await bundle({
    ...hookCommon,
    entryPoints: [path.join(here, "src/syncHook.ts")],
    outfile: path.join(stage, "sync-hook.cjs")
  })
  unwrapBuiltins(path.join(stage, "sync-hook.cjs"))
}

// `acx sessions --from sqlite:…` and `acx stats --from …` (src/internal/storeReads.ts, the one
// path, no Effect): built like the sync hook (CommonJS, one file), with better-sqlite3's
// JavaScript bundled as the memory hook has it; in the split ES build its modules would share
// chunks with Effect code.
const sqliteReadsBundle = async (source, outName) => {
  await bundle({
    ...hookCommon,
    external: [...external.filter((name) => name !== "better-sqlite3"), "bindings"],
    entryPoints: [path.join(here, source)],
    outfile: path.join(stage, outName)
  })
  unwrapBuiltins(path.join(stage, outName))
}

// `acx statusline` (src/statusline.ts): what Claude Code runs several times a second to draw its
// status line. Built like the sync hook (CommonJS, no Effect, one file): it reads stdin, a small
// cached summary and prints one line; the refresh of the summary runs in the full CLI, detached.
const statuslineBundle = async () => {
  await bundle({
    ...hookCommon,
    entryPoints: [path.join(here, "src/statusline.ts")],
    outfile: path.join(stage, "statusline.cjs")
  })
  unwrapBuiltins(path.join(stage, "statusline.cjs"))
}

// `acx sessions` and `acx stats` over a config directory (src/internal/configDirReads.ts, the one
// path, no Effect: test/plainReads.imports.test.ts): a CommonJS bundle of its own, as the hooks
// are. From the split ES build it loads no Effect either, but as some 35 chunks, and Node's ES
// module loader takes longer over them than over one file (docs/benchmarks.md).
const configReadsBundle = async () => {
  await bundle({
    ...hookCommon,
    entryPoints: [path.join(here, "src/internal/configDirReads.ts")],
    outfile: path.join(stage, "config-reads.cjs")
  })
  unwrapBuiltins(path.join(stage, "config-reads.cjs"))
}

// A CommonJS bundle's Node built-ins as the modules themselves: esbuild wraps each
// `import * as fs` in `__toESM(require("node:fs"), 1)`, a copy of every property per import
// (about 0.7 ms of a hook's start), and the hook's code only reads named members of them, which
// the module itself has. Padded to the same length, so every column (and the source map) stays.
const unwrapBuiltins = (file) =>
  fs.writeFileSync(
    file,
    fs.readFileSync(file, "utf8").replace(
      /__toESM\(require\("(node:[a-z_/]+)"\),\s*1\)/g,
      (call, name) => `require("${name}")`.padEnd(call.length, " ")
    )
  )

// The command table's entry, `acx.mjs` (src/bin.ts: the table, the parser, the help; no Effect),
// is one file that imports nothing before it runs: every module it shares with a command is
// copied into it rather than split into a chunk of its own (each ES module loaded is start-up
// time, and `acx hook` and `acx statusline` pass through it). The commands' modules
// (src/commands/*.ts) are the entries of the split build, `command-<name>-<hash>.mjs`, which
// acx.mjs imports by name when the command runs; chunks sit beside them, not in a folder: code
// that finds files next to itself (`./acx-stats-worker.mjs`, `./prompts/`) finds them from any chunk.
const commandsBundle = async () => {
  const commands = fs.readdirSync(path.join(here, "src/commands")).filter((name) => name.endsWith(".ts"))
  const built = await bundle({
    ...common,
    entryPoints: Object.fromEntries(
      commands.map((name) => [`command-${path.basename(name, ".ts")}`, path.join(here, "src/commands", name)])
    ),
    entryNames: "[name]-[hash]",
    outdir: stage,
    outExtension: { ".js": ".mjs" },
    splitting: true
  })
  // each command's module → its output file
  const outputs = new Map()
  for (const [file, output] of Object.entries(built.metafile.outputs)) {
    if (output.entryPoint !== undefined) outputs.set(path.resolve(output.entryPoint), path.basename(file))
  }
  await bundle({
    ...common,
    entryPoints: { acx: path.join(here, "src/bin.ts") },
    outdir: stage,
    outExtension: { ".js": ".mjs" },
    // no bundled CommonJS here, which the banner's `require` is for: one module import less
    banner: {},
    plugins: [{
      name: "command-modules",
      setup: (build) =>
        // the table's `import("../commands/x.js")` (src/table/*.ts), not a dependency's own `./commands/`
        build.onResolve({ filter: /^\.\.?\/commands\/[A-Za-z]+\.js$/ }, (args) => {
          if (!args.importer.startsWith(path.join(here, "src") + path.sep)) return undefined
          const source = path.resolve(args.resolveDir, args.path.replace(/\.js$/, ".ts"))
          const output = outputs.get(source)
          if (output === undefined) return { errors: [{ text: `no command module built for ${args.path}` }] }
          return { path: `./${output}`, external: true }
        })
    }]
  })
}

await Promise.all([
  commandsBundle(),
  hookBundles(),
  syncHookBundle(),
  sqliteReadsBundle("src/internal/storeReads.ts", "store-reads.cjs"),
  statuslineBundle(),
  configReadsBundle(),
  // `acx stats` folds transcripts in worker threads: their script is a bundle of its own beside
  // acx.mjs (TranscriptStats looks for `./acx-stats-worker.mjs` next to the code that starts them,
  // a chunk beside acx.mjs)
  bundle({
    ...common,
    entryPoints: [path.join(here, "../claude-code/src/internal/transcriptStatsWorker.ts")],
    outfile: path.join(stage, "acx-stats-worker.mjs")
  }),
  // `acx ui` lists a config directory and folds its usage in worker threads, off the server's event loop
  // (the ui's offThread.ts looks for `./acx-ui-worker.mjs` next to its chunk)
  bundle({
    ...common,
    entryPoints: [path.join(here, "../ui/src/internal/uiWorker.ts")],
    outfile: path.join(stage, "acx-ui-worker.mjs")
  })
])

// the web page's browser assets, served from beside the bundle (acx ui)
const uiBuild = path.join(here, "../ui/build.mjs")
inputs.add(uiBuild)
const { buildWeb } = await import(uiBuild)
await buildWeb(path.join(stage, "assets"), inputs)

// the memory observer's prompts are files, read next to the module that fills them (a chunk)
const prompts = path.join(here, "../memory/src/prompts")
fs.mkdirSync(path.join(stage, "prompts"), { recursive: true })
// the directory too: a prompt added changes its mtime
inputs.add(prompts)
for (const name of fs.readdirSync(prompts)) {
  inputs.add(path.join(prompts, name))
  fs.copyFileSync(path.join(prompts, name), path.join(stage, "prompts", name))
}

/** The files under a directory, as paths relative to it. */
const filesOf = (dir) =>
  fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))

const built = filesOf(stage)
fs.mkdirSync(dist, { recursive: true })
// The files of the build this one replaces (its manifest): kept whatever their age, since a
// process that opened that build's entry just before the switch loads its chunks afterwards
// (`import()` is lazy). Age alone was not enough: a build older than STALE_AFTER_MS had its
// chunks removed under a reader that had just opened its acx.mjs.
let previous = new Set()
try {
  previous = new Set(JSON.parse(fs.readFileSync(path.join(dist, MANIFEST), "utf8")).files)
} catch {
  // the first build with a manifest, or a damaged one: age decides alone, as before
}
for (const file of [...built.filter((file) => !ENTRIES.has(file)), ...built.filter((file) => ENTRIES.has(file))]) {
  fs.mkdirSync(path.dirname(path.join(dist, file)), { recursive: true })
  fs.renameSync(path.join(stage, file), path.join(dist, file))
}
fs.rmSync(stage, { recursive: true, force: true })
const manifestTemporary = path.join(dist, `.${MANIFEST}.${process.pid}.tmp`)
// the inputs' mtimes are read now, after esbuild read them: an edit meanwhile is newer than
// startedAt, which makes the next `--if-stale` build again
fs.writeFileSync(manifestTemporary, JSON.stringify({ files: built, startedAt, inputs: stampInputs(here, inputs) }))
fs.renameSync(manifestTemporary, path.join(dist, MANIFEST))

// an earlier build's files this one does not have, once no process is likely to still need them:
// older than STALE_AFTER_MS and not of the build this one replaced
const current = new Set(built)
for (const file of filesOf(dist)) {
  if (current.has(file) || previous.has(file) || file === MANIFEST || file.startsWith(`.${MANIFEST}.`)) continue
  try {
    if (fs.statSync(path.join(dist, file)).mtimeMs < Date.now() - STALE_AFTER_MS) fs.rmSync(path.join(dist, file))
  } catch {
    // another build removed it first
  }
}
