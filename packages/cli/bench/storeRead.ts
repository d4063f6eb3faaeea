/**
 * What `acx sessions --from SPEC` and `acx stats --from SPEC` do once `--from` is wired, without
 * the command line around it: the store opened as the CLI opens it (`internal/storeSource.ts`),
 * then `SessionListing.rows(StoreProjects.listSessions())` rendered by `sessionsTable` or as JSON,
 * or `SessionStats.reportStats(StoreStats.foldStats(…))` rendered by `statsReport` or
 * `SessionStats.statsJson`. `store.bench.ts` bundles it as the CLI is bundled and times it as a
 * process, so a tree without `--from` can still measure the work the command will do:
 *
 *   node store-read.mjs sessions|stats SPEC [--json]
 */
import * as SessionListing from "@acx/claude-code/SessionListing"
import * as SessionStats from "@acx/claude-code/SessionStats"
import * as StoreProjects from "@acx/claude-code/StoreProjects"
import * as StoreStats from "@acx/claude-code/StoreStats"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { processIo } from "../src/CommandIo.js"
import { sessionsTable } from "../src/commands/run/sessions.js"
import { statsReport } from "../src/commands/run/stats.js"
import { CurrentIo } from "../src/internal/currentIo.js"
import * as format from "../src/internal/format.js"
import { openStore } from "../src/internal/storeSource.js"

const [command, spec, ...flags] = process.argv.slice(2)
const json = flags.includes("--json")

const program = Effect.gen(function*() {
  const { display, store } = yield* openStore(spec!)
  if (command === "sessions") {
    const projects = StoreProjects.make({ store, location: display })
    const list = SessionListing.rows(yield* projects.listSessions())
    return yield* Console.log(json ? format.json(list) : sessionsTable(list))
  }
  const result = SessionStats.reportStats(yield* StoreStats.foldStats({ store, location: display }), "session")
  yield* Console.log(json ? format.json(SessionStats.statsJson(result)) : statsReport(result))
})

Effect.runPromise(Effect.scoped(program).pipe(Effect.provideService(CurrentIo, processIo()))).catch(
  (error: unknown) => {
    process.stderr.write(`store-read: ${String(error)}\n`)
    process.exitCode = 1
  }
)
