/**
 * Opens the agent's database (argv: the FIFO, the database spec) right after a `stat` of a FIFO;
 * prints `opened` on success. Run by `AgentDatabase.fifoDriver.test.ts` in a fresh process.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import { openDatabase } from "../../src/internal/database.js"

const [fifo, database] = process.argv.slice(2) as [string, string]
fs.lstatSync(fifo)
await Effect.runPromise(Effect.scoped(openDatabase(database)))
process.stdout.write("opened\n")
