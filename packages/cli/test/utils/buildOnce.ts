import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

/**
 * Bundles the CLI before the end-to-end tests spawn it, so they always run the current sources.
 * Both the `cli` and the `ui` vitest projects name this setup (the `ui.*` tests start `acx ui`);
 * vitest runs the projects' setups one after the other in one process, so the first bundles it
 * and says so to the second.
 */
export default function setup(): void {
  // CI built it in the step before (and packs it beside the tests: it must not be rewritten now)
  if (process.env["ACX_CLI_PREBUILT"] === "1") return
  execFileSync(process.execPath, [fileURLToPath(new URL("../../build.mjs", import.meta.url))], { stdio: "inherit" })
  process.env["ACX_CLI_PREBUILT"] = "1"
}
