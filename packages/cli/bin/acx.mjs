#!/usr/bin/env node
// The acx executable: the bundle built by `pnpm --filter @acx/cli build` (root: `pnpm acx …`).
import { existsSync } from "node:fs"

// `acx hook <Event>` (Claude Code runs it on every tool call) loads only the hook bundle
const bundle = new URL(process.argv[2] === "hook" ? "../dist/hook.mjs" : "../dist/acx.mjs", import.meta.url)
if (!existsSync(bundle)) {
  process.stderr.write("acx: not built yet: run `pnpm --filter @acx/cli build` (or `pnpm acx …` from the repo root)\n")
  process.exit(1)
}
await import(bundle.href)
