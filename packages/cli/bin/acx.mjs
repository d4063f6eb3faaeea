#!/usr/bin/env node
// The acx executable: the bundle built by `pnpm --filter @acx/cli build` (root: `pnpm acx …`).
// It reads no argument: the bundle's entry (src/bin.ts) reads the command line against the
// command table and loads only the module of the command named (the hook and the statusline
// from bundles of their own).
// Built-ins come from process.getBuiltinModule: an `import` of node:fs would build its ES module
// namespace, which loads fs/promises, readline and the streams (`acx hook` runs on every tool call).
const fs = process.getBuiltinModule("node:fs")

// `pnpm acx …` runs the root script in the repository root; relative paths on the command line
// (`--to sqlite:./x.db`, `--dir out`) mean the directory pnpm was called from
const callerDir = process.env.INIT_CWD
if (process.env.npm_lifecycle_event === "acx" && callerDir !== undefined && callerDir !== "") {
  process.chdir(callerDir)
}

const bundle = new URL("../dist/acx.mjs", import.meta.url)
if (!fs.existsSync(bundle)) {
  process.stderr.write("acx: not built yet: run `pnpm --filter @acx/cli build` (or `pnpm acx …` from the repo root)\n")
  process.exit(1)
}
await import(bundle.href)
