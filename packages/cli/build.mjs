// Bundles the CLI, the workspace packages it uses (TypeScript sources) and its pure-JS
// dependencies into dist/acx.mjs, so a run loads one file instead of hundreds of ESM modules
// (startup is most of a short command's time). Native modules, packages with optional native
// parts, and the Claude Agent SDK (large, used for one function) load from node_modules.
import * as esbuild from "esbuild"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))

const external = [
  "better-sqlite3",
  "pg",
  "pg-native",
  "@anthropic-ai/claude-agent-sdk",
  "msgpackr-extract",
  "bufferutil",
  "utf-8-validate"
]

await esbuild.build({
  entryPoints: [path.join(here, "src/bin.ts")],
  outfile: path.join(here, "dist/acx.mjs"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  logLevel: "warning",
  external,
  // bundled CommonJS dependencies call require() for Node built-ins
  banner: {
    js: "import { createRequire as __acxCreateRequire } from \"node:module\"\n" +
      "const require = __acxCreateRequire(import.meta.url)"
  }
})
