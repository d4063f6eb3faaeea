/**
 * The entry of the hook bundle (`dist/hook.mjs`): `acx hook <Event>` runs this and nothing else
 * of acx — no CLI framework, no Effect — because Claude Code waits for it on every tool call.
 *
 * @since 0.1.0
 */
import { main } from "@acx/memory/HookMain"

process.exitCode = await main(process.argv)
