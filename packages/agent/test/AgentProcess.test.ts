/**
 * Waiting for an agent's Claude Code process to exit (`internal/agentProcess.ts` `awaitExit`) by
 * `ProcessLiveness`'s rule: another process's zombie has exited (no grace period waited, no signal
 * sent), our own child's only once Node reaped it (its `exit` event, which the SDK waits for, has
 * fired), and a pid that another process has since is neither waited for nor killed.
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

  it("our own child's zombie is waited for until Node reaps it: its exit event has fired", async () => {
    const child = spawn("sleep", ["600"], { stdio: "ignore" })
    onTestFinished(() => void child.kill("SIGKILL"))
    const pid = child.pid!
    const start = ProcessLiveness.startTime(pid)
    child.kill("SIGKILL")
    // a zombie before the event loop turns (no await): only Node's reaping ends it
    const stateOf = () => fs.readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]?.[0]
    while (stateOf() !== "Z") { /* the kernel ends it: a few microseconds */ }
    expect(child.exitCode === null && child.signalCode === null).toBe(true)
    await Effect.runPromise(awaitExit(pid, start))
    expect(child.signalCode).toBe("SIGKILL")
  })

  it("a pid another process has now is not waited for, nor killed", async () => {
    const sleeper = spawn("sleep", ["600"], { detached: true, stdio: "ignore" })
    onTestFinished(() => void sleeper.kill("SIGKILL"))
    const start = ProcessLiveness.startTime(sleeper.pid!)!
    await underTestClock(awaitExit(sleeper.pid!, start + 1))
    expect(ProcessLiveness.check(sleeper.pid!, start)).toEqual({ _tag: "Alive" })
  })
})
