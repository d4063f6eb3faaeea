/**
 * What `acx memory demo` does (its options: `../memoryDemo.ts`).
 *
 * @since 0.1.0
 */
import { plural } from "@acx/convert/Plural"
import * as ClaudeBinary from "@acx/environment/ClaudeBinary"
import * as HookRunner from "@acx/memory/HookRunner"
import * as MemoryConfig from "@acx/memory/MemoryConfig"
import * as MemoryRepo from "@acx/memory/MemoryRepo"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { binOf, CurrentIo, resolvePath } from "../../internal/currentIo.js"
import * as format from "../../internal/format.js"
import { PROMPTS, runMemoryDemo } from "../../internal/memoryDemo.js"
import type { DemoOptions } from "../args/memory.js"

const indent = (text: string) => text.split("\n").map((line) => (line === "" ? "" : `   ${line}`)).join("\n")

const section = (n: number, title: string) => Console.log(`\n${n}. ${title}\n`)

const report = (acxHome: string, project: string) =>
  Effect.gen(function*() {
    const repo = yield* MemoryRepo.MemoryRepo
    const events = yield* repo.events({ order: "oldest" })
    yield* section(2, "What acx's hooks captured (one transaction per hook, private parts and secrets removed)")
    yield* Console.log(indent(format.table(
      [{ title: "EVENT", align: "right" }, { title: "KIND" }, { title: "TOOL" }, { title: "STATE" }],
      events.map((event) => [String(event.id), event.kind, event.toolName ?? "", event.state])
    )))
    const observations = yield* repo.observations({ order: "oldest", includeForgotten: true })
    const summaries = yield* repo.summaries({ order: "oldest", includeForgotten: true })
    const days = yield* repo.spendByDay
    const spend = {
      calls: days.reduce((sum, day) => sum + day.calls, 0),
      tokens: days.reduce((sum, day) => sum + day.inputTokens + day.outputTokens, 0),
      cost: days.reduce((sum, day) => sum + day.costUsd, 0)
    }
    yield* section(3, "What the observer kept")
    for (const observation of observations) {
      yield* Console.log(`   O${observation.id} [${observation.type}] ${observation.title} (${observation.source})`)
    }
    for (const summary of summaries) {
      yield* Console.log(
        `   S${summary.id} [session summary] ${summary.request} — done: ${summary.completed}${
          summary.nextSteps === "" ? "" : ` — next: ${summary.nextSteps}`
        } (${summary.source})`
      )
    }
    yield* Console.log(
      `\n   ${plural(spend.calls, "observer model call")}, ${format.count(spend.tokens)} tokens, $${
        spend.cost.toFixed(4)
      }`
    )
    yield* section(4, "What the next session in the project starts with (acx memory context)")
    yield* Console.log(indent(HookRunner.contextFor(acxHome, project)))
    const results = yield* repo.search("cart total", { project })
    yield* section(5, "acx memory search \"cart total\"")
    for (const result of results) {
      yield* Console.log(`   ${result.id.padEnd(5)} ${result.type.padEnd(9)} ${format.clip(result.title, 80)}`)
    }
  })

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = ({ dir }: DemoOptions) =>
  Effect.scoped(Effect.gen(function*() {
    const io = yield* CurrentIo
    const root = dir === undefined
      ? fs.mkdtempSync(path.join(os.tmpdir(), "acx-memory-demo-"))
      : resolvePath(io, dir)
    if (dir === undefined) {
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(root, { recursive: true, force: true })))
    }
    fs.mkdirSync(root, { recursive: true })
    const found = ClaudeBinary.findSync()
    const binary = found instanceof ClaudeBinary.ClaudeBinaryError
      ? { reason: found.message.split("\n")[0]! }
      : { path: found.path }
    yield* section(1, `A Claude Code session with acx's hooks installed: "${PROMPTS[0]}"`)
    yield* Console.log(
      "path" in binary
        ? `   the real Claude Code CLI (${binary.path}) runs offline against a local model double;\n   its hooks run \`acx hook …\`, and the worker they start asks the stand-in observer (the double, scripted XML)`
        : `   no Claude Code CLI here (${binary.reason}):\n   the session's hook inputs go through \`acx hook\`'s function, and the worker records without a model`
    )
    const world = yield* runMemoryDemo({ root, binary, bin: binOf(io) })
    yield* report(world.acxHome, world.project).pipe(
      Effect.provide(MemoryRepo.layerFile(MemoryConfig.paths(world.acxHome).database))
    )
    if (world.mode._tag === "Real") {
      yield* Console.log(
        `\n   a second real session ("${PROMPTS[1]}"): its first request ${
          world.injected ? "carried this memory" : "did NOT carry the memory"
        }`
      )
    }
    yield* Console.log(dir === undefined ? "" : `\nkept in ${root}`)
    if (world.mode._tag === "Real" && !world.injected) {
      return yield* Effect.fail(new Error("the second session did not start with the memory"))
    }
  }))
