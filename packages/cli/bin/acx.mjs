#!/usr/bin/env node
// The acx executable: the bundle built by `pnpm --filter @acx/cli build` (root: `pnpm acx …`).
// Built-ins come from process.getBuiltinModule: an `import` of node:fs would build its ES module
// namespace, which loads fs/promises, readline and the streams (`acx hook` runs on every tool call).
const fs = process.getBuiltinModule("node:fs")
const { createRequire } = process.getBuiltinModule("node:module")

// `pnpm acx …` runs the root script in the repository root; relative paths on the command line
// (`--to sqlite:./x.db`, `--dir out`) mean the directory pnpm was called from
const callerDir = process.env.INIT_CWD
if (process.env.npm_lifecycle_event === "acx" && callerDir !== undefined && callerDir !== "") {
  process.chdir(callerDir)
}

// `acx hook <Event>` loads only the hook bundle (CommonJS); `acx memory mcp [--from TARGET]` starts
// from an entry that answers Claude Code's first request before the rest loads
const [command, subcommand, ...rest] = process.argv.slice(2)
// `acx statusline [options]` (not its install, uninstall, refresh or help): the statusline's own
// bundle, which Claude Code may run several times a second
const statusline = command === "statusline" &&
  !["install", "uninstall", "refresh", "--help", "-h", "--wizard"].includes(subcommand)
const entry = command === "hook"
  ? "../dist/hook.cjs"
  : statusline
  ? "../dist/statusline.cjs"
  : command === "memory" && subcommand === "mcp" && (rest.length === 0 || (rest.length === 2 && rest[0] === "--from"))
  ? "../dist/acx-mcp.mjs"
  : "../dist/acx.mjs"
const bundle = new URL(entry, import.meta.url)
if (!fs.existsSync(bundle)) {
  process.stderr.write("acx: not built yet: run `pnpm --filter @acx/cli build` (or `pnpm acx …` from the repo root)\n")
  process.exit(1)
}
// `acx sessions --from …` and `acx stats --from …` first ask the fast read path (src/fastRead.ts:
// no CLI framework, no Effect), which answers only when it is sure to print what the full path
// prints; else, or with ACX_NO_FAST=1, the full CLI runs. Without `--from` they read the config
// directory: `dist/fast-dir.cjs` (src/fastDir.ts) asks the same way.
// `acx sync` asks `dist/fast-sync.cjs` (src/fastSync.ts), which answers only when the directory is
// unchanged since the last sync and no sync is running, into a SQLite file: a sync into Postgres
// (an argument that is a postgres:// URL) does not load it only to be handed back.
const toPostgres = process.argv.some((arg) => /^(--to=)?postgres(ql)?:\/\//i.test(arg))
const fastEntry = process.env.ACX_NO_FAST === "1"
  ? undefined
  : command === "sessions" || command === "stats"
  ? (process.argv.includes("--from") ? "../dist/fast-read.cjs" : "../dist/fast-dir.cjs")
  : command === "sync" && !toPostgres
  ? "../dist/fast-sync.cjs"
  : undefined
const fast = fastEntry === undefined ? undefined : new URL(fastEntry, import.meta.url)
const answered = fast !== undefined && fs.existsSync(fast) &&
  await createRequire(import.meta.url)(fast.pathname).main(process.argv)
if (answered) {
  // done: the output is written
} else if (command === "hook" || statusline) createRequire(import.meta.url)(bundle.pathname)
else await import(bundle.href)
