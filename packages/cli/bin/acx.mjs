#!/usr/bin/env node
// The acx executable: the bundle built by `pnpm --filter @acx/cli build` (root: `pnpm acx …`).
import { existsSync } from "node:fs"

const bundle = new URL("../dist/acx.mjs", import.meta.url)
if (!existsSync(bundle)) {
  process.stderr.write("acx: not built yet: run `pnpm --filter @acx/cli build` (or `pnpm acx …` from the repo root)\n")
  process.exit(1)
}
await import(bundle.href)
