/**
 * Waiting for an agent's Claude Code process to exit (`internal/agentProcess.ts` `awaitExit`) by
 * `ProcessLiveness`'s rule: a zombie has exited (no grace period waited, no signal sent), and a
 * pid that another process has since is neither waited for nor killed.
 */
import * as ProcessLiveness from "@acx/environment/ProcessLiveness"
import * as UnreapedProcess from "@acx/testing/UnreapedProcess"
import * as Effect from "effect/Effect"
import * as TestContext from "effect/TestContext"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { describe, expect, it, onTestFinished } from "vitest"
import { awaitExit } from "../src/internal/agentProcess.js"

// under the test clock the grace period never ends: awaitExit returns only when the process is
// judged gone, never by waiting it out
const underTestClock = (effect: Effect.Effect<void>) =>
  Effect.runPromise(Effect.provide(effect, TestContext.TestContext))

describe.skipIf(!fs.existsSync("/proc/self/stat"))("awaitExit", () => {
  it("a zombie (its parent never waits for it) has exited", async () => {
    const zombie = await UnreapedProcess.start("sleep", ["600"])
    onTestFinished(zombie.stop)
    const pid = zombie.pid
    const start = ProcessLiveness.startTime(pid)
    await zombie.kill()
    expect(() => process.kill(pid, 0)).not.toThrow()
    await underTestClock(awaitExit(pid, start))
  })

  it("a pid another process has now is not waited for, nor killed", async () => {
    const sleeper = spawn("sleep", ["600"], { detached: true, stdio: "ignore" })
    onTestFinished(() => void sleeper.kill("SIGKILL"))
    const start = ProcessLiveness.startTime(sleeper.pid!)!
    await underTestClock(awaitExit(sleeper.pid!, start + 1))
    expect(ProcessLiveness.check(sleeper.pid!, start)).toEqual({ _tag: "Alive" })
  })
})
