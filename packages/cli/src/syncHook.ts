/**
 * The entry of the sync hook's bundle (`dist/sync-hook.cjs`, CommonJS): what `acx sync install`
 * writes runs this file directly. It loads no CLI framework and no Effect, starts the sync
 * detached and exits (`internal/syncHookMain.ts`).
 *
 * @since 0.3.0
 */
import { fileURLToPath } from "node:url"
import { main } from "./internal/syncHookMain.js"

// the sync runs as the acx bin beside this bundle
const acxBin = fileURLToPath(new URL("../bin/acx.mjs", import.meta.url))

// main never rejects by design; were it to, the hook still exits 0 (it never fails Claude Code)
void main(process.argv, acxBin).catch(() => 0).then((code) => process.exit(code))
