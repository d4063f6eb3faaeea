#!/usr/bin/env node
// The acx executable: the bundle built by `pnpm --filter @acx/cli build` (root: `pnpm acx …`).
// Built-ins come from process.getBuiltinModule: an `import` of node:fs would build its ES module
// namespace, which loads fs/promises, readline and the streams (`acx hook` runs on every tool call).
const fs = process.getBuiltinModule("node:fs")
const { createRequire } = process.getBuiltinModule("node:module")

// `acx hook <Event>` loads only the hook bundle (CommonJS); `acx memory mcp [--from TARGET]` starts
// from an entry that answers Claude Code's first request before the rest loads
const [command, subcommand, ...rest] = process.argv.slice(2)
const entry = command === "hook"
  ? "../dist/hook.cjs"
  : command === "memory" && subcommand === "mcp" && (rest.length === 0 || (rest.length === 2 && rest[0] === "--from"))
  ? "../dist/acx-mcp.mjs"
  : "../dist/acx.mjs"
const bundle = new URL(entry, import.meta.url)
if (!fs.existsSync(bundle)) {
  process.stderr.write("acx: not built yet: run `pnpm --filter @acx/cli build` (or `pnpm acx …` from the repo root)\n")
  process.exit(1)
}
if (command === "hook") createRequire(import.meta.url)(bundle.pathname)
else await import(bundle.href)
