/**
 * `pnpm bench`: what `ProcessLiveness.check` costs on the hook path, against the check it
 * replaced (`process.kill(pid, 0)`), on a live process of another pid (the common case: a worker
 * runs), and on one that exited. The median of rounds of calls, each round alternating the two.
 */
import * as ProcessLiveness from "@acx/environment/ProcessLiveness"
import { spawn, spawnSync } from "node:child_process"
import * as os from "node:os"

const CALLS = 2_000
const ROUNDS = 31

const signal = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const perCall = (run: () => unknown): number => {
  const start = process.hrtime.bigint()
  for (let i = 0; i < CALLS; i++) run()
  return Number(process.hrtime.bigint() - start) / CALLS / 1000
}

const median = (values: Array<number>) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!

const compare = (name: string, pid: number, start: number | undefined) => {
  const old: Array<number> = []
  const now: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    old.push(perCall(() => signal(pid)))
    now.push(perCall(() => ProcessLiveness.check(pid, start)))
  }
  const [a, b] = [median(old), median(now)]
  console.log(
    `${name.padEnd(22)} kill(pid, 0) ${a.toFixed(2).padStart(6)} µs   ProcessLiveness.check ${
      b.toFixed(2).padStart(6)
    } µs   ${(b / a).toFixed(2)}×`
  )
}

const sleeper = spawn("sleep", ["600"], { stdio: "ignore" })
try {
  console.log(`@acx/environment ProcessLiveness (${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(2)})`)
  compare("a live process", sleeper.pid!, ProcessLiveness.startTime(sleeper.pid!))
  compare("an exited process", spawnSync("true").pid!, undefined)
  compare("this process", process.pid, ProcessLiveness.startTime(process.pid))
} finally {
  sleeper.kill("SIGKILL")
}
