/**
 * The entry of the hook bundle (`dist/hook.cjs`, CommonJS): the command `acx memory install`
 * writes runs this file directly, and `acx hook <Event>` hands over to it before loading anything
 * else. Nothing else of acx loads — no CLI framework, no Effect — because Claude Code waits for it
 * on every tool call. It exits as soon as its output is written: a stdin read still pending (a
 * writer that never closed the pipe) must not keep the process alive.
 *
 * @since 0.1.0
 */
import { main } from "@acx/memory/HookMain"
import { fileURLToPath } from "node:url"

// the worker starts as `acx memory worker`: the bin beside this bundle, whichever way the hook was
// started (`node dist/hook.cjs <Event>` names no bin)
const acxBin = fileURLToPath(new URL("../bin/acx.mjs", import.meta.url))

// main never rejects by design; were it to, the hook still exits 0 (it never fails Claude Code)
void main(process.argv, undefined, acxBin).catch(() => 0).then((code) => process.exit(code))
