#!/usr/bin/env node
// The acx executable: the bundle built by `pnpm --filter @acx/cli build` (root: `pnpm acx …`).
import { existsSync } from "node:fs"

// `acx hook <Event>` (Claude Code runs it on every tool call) loads only the hook bundle;
// `acx memory mcp` starts from an entry that answers Claude Code's first request before the rest loads
const [command, subcommand, ...rest] = process.argv.slice(2)
const entry = command === "hook"
  ? "../dist/hook.mjs"
  : command === "memory" && subcommand === "mcp" && rest.length === 0
  ? "../dist/acx-mcp.mjs"
  : "../dist/acx.mjs"
const bundle = new URL(entry, import.meta.url)
if (!existsSync(bundle)) {
  process.stderr.write("acx: not built yet: run `pnpm --filter @acx/cli build` (or `pnpm acx …` from the repo root)\n")
  process.exit(1)
}
await import(bundle.href)
