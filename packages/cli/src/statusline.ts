/**
 * The entry of the statusline bundle (`dist/statusline.cjs`, CommonJS): what
 * `acx statusline install` writes runs this file directly, and `acx statusline [options]` hands
 * over to it before loading anything else (`@acx/claude-code/StatuslineMain`). No CLI framework, no
 * Effect: Claude Code runs it several times a second.
 *
 * @since 0.4.0
 */
import { main } from "@acx/claude-code/StatuslineMain"
import { fileURLToPath } from "node:url"

// the refresh runs as the acx bin beside this bundle
const acxBin = fileURLToPath(new URL("../bin/acx.mjs", import.meta.url))

// `node dist/statusline.cjs [options]`, or `acx statusline [options]` handed over by the bin
const args = process.argv[2] === "statusline" ? process.argv.slice(3) : process.argv.slice(2)

// main never rejects by design; were it to, the statusline still exits 0 (Claude Code keeps its line)
void main(args, acxBin).catch(() => 0).then((code) => process.exit(code))
