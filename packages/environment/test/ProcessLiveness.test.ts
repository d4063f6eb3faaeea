/**
 * `ProcessLiveness`: the `/proc/<pid>/stat` parser (the command may hold spaces and parentheses),
 * and the verdict on real processes: a running one, one that exited, a zombie kept by a parent
 * that never waits for it, a live process whose recorded start time is not its own (a reused
 * pid), and this process.
 */
import * as ProcessLiveness from "@acx/environment/ProcessLiveness"
import * as FastCheck from "effect/FastCheck"
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { afterEach, describe, expect, it } from "vitest"

const linux = fs.existsSync("/proc/self/stat")

/** A stat line as the kernel writes it, with `comm` in parentheses and `start` as field 22. */
const statLine = (pid: number, comm: string, state: string, start: number) => {
  const after = [state, "1", String(pid), String(pid), "0", "-1", "4194560", "106", "0", "0", "0", "0", "0", "0", "0"]
  // fields 3..19 are 17, then 20 (threads), 21 (itrealvalue), 22 (starttime), then more
  while (after.length < 17) after.push("0")
  after.push("1", "0", String(start), "12345678", "300")
  return `${pid} (${comm}) ${after.join(" ")}\n`
}

describe("parseStat", () => {
  it("reads the state and the start time after the last ')', whatever the command holds", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.integer({ min: 1, max: 4_194_304 }),
        // any printable command, with spaces and parentheses, up to the kernel's 15 bytes and more
        FastCheck.string({ maxLength: 40 }).filter((comm) => !comm.includes("\n")),
        FastCheck.constantFrom("R", "S", "D", "Z", "T", "t", "X", "I"),
        FastCheck.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        (pid, comm, state, start) => {
          expect(ProcessLiveness.parseStat(statLine(pid, comm, state, start))).toEqual({
            state,
            ppid: 1,
            startTime: start
          })
        }
      )
    )
  })

  it("a command that looks like the fields that follow it does not shift them", () => {
    const comm = ") Z 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 99 ("
    expect(ProcessLiveness.parseStat(statLine(42, comm, "S", 777))).toEqual({ state: "S", ppid: 1, startTime: 777 })
  })

  it("text that is not a stat line is undefined", () => {
    for (const text of ["", "42", "42 (sh", "42 sh) S 1", "42 (sh) S 1 2 3", "42 (sh) ? " + "0 ".repeat(30)]) {
      expect(ProcessLiveness.parseStat(text), text).toBeUndefined()
    }
    expect(ProcessLiveness.parseStat(statLine(1, "init", "S", 1).replace(" 1 12345678", " x 12345678")))
      .toBeUndefined()
  })

  it.skipIf(!linux)("parses this process's own stat", () => {
    const own = ProcessLiveness.parseStat(fs.readFileSync("/proc/self/stat", "latin1"))
    expect(own?.state).toBe("R")
    expect(own?.startTime).toBe(ProcessLiveness.startTime(process.pid))
    expect(own?.ppid).toBe(process.ppid)
    expect(ProcessLiveness.parentOf(process.pid)).toBe(process.ppid)
  })
})

const started: Array<number> = []
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL")
    } catch {
      // gone
    }
  }
})

/** A `sleep` in a process group of its own (killed with the group after the test). */
const sleeper = () => {
  const child = spawn("sleep", ["600"], { detached: true, stdio: "ignore" })
  started.push(child.pid!)
  return child
}

const stateOf = (pid: number) => ProcessLiveness.parseStat(fs.readFileSync(`/proc/${pid}/stat`, "latin1"))?.state

const waitUntil = async (check: () => boolean) => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5))
}

describe("check", () => {
  it("a running process is alive, with its start time recorded or without", () => {
    const child = sleeper()
    const start = ProcessLiveness.startTime(child.pid!)
    expect(ProcessLiveness.check(child.pid!)).toEqual({ _tag: "Alive" })
    expect(ProcessLiveness.check(child.pid!, start)).toEqual({ _tag: "Alive" })
    if (linux) expect(start).toBeGreaterThan(0)
  })

  it("a process that exited and was reaped has exited", () => {
    const done = spawnSync("true")
    expect(ProcessLiveness.check(done.pid!)).toEqual({ _tag: "Dead", reason: "Exited" })
    expect(ProcessLiveness.check(0)._tag).toBe("Dead")
    expect(ProcessLiveness.check(-1)._tag).toBe("Dead")
  })

  it.skipIf(!linux)("a zombie (killed, its parent never waits) is dead, although kill(pid, 0) reaches it", async () => {
    // the shell starts the child, prints its pid, then becomes a `sleep` that never waits for it
    const parent = spawn("sh", ["-c", "sleep 600 & echo $!; exec sleep 600"], {
      detached: true,
      stdio: ["ignore", "pipe", "ignore"]
    })
    started.push(parent.pid!)
    const pid = Number(await new Promise<string>((resolve) => parent.stdout!.once("data", (d) => resolve(String(d)))))
    // until the shell has become the sleep, it could still reap the child
    await waitUntil(() => fs.readFileSync(`/proc/${parent.pid}/comm`, "utf8").trim() === "sleep")
    const start = ProcessLiveness.startTime(pid)
    expect(ProcessLiveness.check(pid, start)).toEqual({ _tag: "Alive" })
    process.kill(pid, "SIGKILL")
    await waitUntil(() => stateOf(pid) === "Z")
    // what the old check saw
    expect(() => process.kill(pid, 0)).not.toThrow()
    expect(ProcessLiveness.check(pid, start)).toEqual({ _tag: "Dead", reason: "Zombie" })
    expect(ProcessLiveness.check(pid)).toEqual({ _tag: "Dead", reason: "Zombie" })
  })

  it.skipIf(!linux)("a live process recorded with another start time has a reused pid", () => {
    const child = sleeper()
    const start = ProcessLiveness.startTime(child.pid!)!
    expect(ProcessLiveness.check(child.pid!, start + 1)).toEqual({ _tag: "Dead", reason: "Reused" })
    expect(ProcessLiveness.check(child.pid!, start - 1)).toEqual({ _tag: "Dead", reason: "Reused" })
    // a record without a start time (an old one) is judged by the state alone
    expect(ProcessLiveness.check(child.pid!, null)).toEqual({ _tag: "Alive" })
  })

  it("this process is alive, unless its pid was recorded with another start time", () => {
    expect(ProcessLiveness.check(process.pid)).toEqual({ _tag: "Alive" })
    const own = ProcessLiveness.startTime(process.pid)
    expect(ProcessLiveness.check(process.pid, own)).toEqual({ _tag: "Alive" })
    if (own !== undefined) {
      expect(ProcessLiveness.check(process.pid, own + 1)).toEqual({ _tag: "Dead", reason: "Reused" })
    }
  })

  it("describes a dead reason in words", () => {
    expect(["Exited", "Zombie", "Reused"].map((r) => ProcessLiveness.describeDead(r as ProcessLiveness.DeadReason)))
      .toEqual(["exited", "zombie", "pid reused"])
  })
})
