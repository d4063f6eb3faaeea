/**
 * `pnpm --filter @acx/cli reference`: writes the command reference of docs/cli.md from the command
 * table (`src/internal/reference.ts`).
 */
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { acx } from "../src/CommandTable.js"
import { commandReference, withReference } from "../src/internal/reference.js"

const file = fileURLToPath(new URL("../../../docs/cli.md", import.meta.url))
const updated = withReference(fs.readFileSync(file, "utf8"), commandReference(acx))
if (updated === undefined) {
  process.stderr.write(`docs: ${file} has no generated reference markers\n`)
  process.exit(1)
}
fs.writeFileSync(file, updated)
process.stdout.write(`docs: wrote the command reference of ${file}\n`)
