/**
 * Every listing says where a session comes from (docs/cli.md, `acx sessions`): `project` (the
 * normalised git remote of its working directory, else the directory) and `machine`, in one row
 * shape, from a config directory (this machine), a SQLite store and a Postgres store (the origins
 * `acx sync` recorded), in process and by the binary alike; the table
 * adds a MACHINE column, and names projects across machines, when the sessions come from more
 * than one machine.
 */
import * as OriginNames from "@acx/session-store/OriginNames"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { acx, type AcxResult, parseJson, tempDir } from "./utils/acx.js"
import { acxInProcess } from "./utils/inProcess.js"
import { dropSchema } from "./utils/postgres.js"

const PG_URL = process.env["ACX_PG_URL"]!
const TIMEOUT = 240_000

const ok = (result: AcxResult) => {
  expect(result.code, `exit code (stderr: ${result.stderr})`).toBe(0)
  return result
}

interface Row {
  readonly sessionId: string
  readonly projectKey: string
  readonly project?: string
  readonly machine?: string
}

/** A config dir with a session in each of `cwds` (one project directory per cwd). */
const configDirWith = (dir: string, cwds: ReadonlyArray<string>, day: number) => {
  const ids: Array<string> = []
  cwds.forEach((cwd, i) => {
    const sessionId = randomUUID()
    ids.push(sessionId)
    const projectDir = path.join(dir, "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"))
    fs.mkdirSync(projectDir, { recursive: true })
    const at = new Date(Date.UTC(2026, 10, day, 10, i)).toISOString()
    const entry = {
      type: "user",
      uuid: randomUUID(),
      sessionId,
      cwd,
      timestamp: at,
      message: { role: "user", content: `work in ${cwd}` }
    }
    fs.writeFileSync(path.join(projectDir, `${sessionId}.jsonl`), JSON.stringify(entry) + "\n")
  })
  return ids
}

describe("a listing says where each session comes from", () => {
  let root = ""
  let repo = ""
  let plain = ""
  let laptop1 = ""
  let laptop2 = ""
  const schema = `acx_origin_${process.pid}`

  beforeAll(() => {
    root = tempDir("sessions-origin")
    // a clone whose remote is spelled the ssh way, and a directory in no repository
    repo = path.join(root, "src", "api")
    fs.mkdirSync(path.join(repo, ".git"), { recursive: true })
    fs.writeFileSync(
      path.join(repo, ".git", "config"),
      "[remote \"origin\"]\n\turl = git@github.com:acme/api.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
    )
    plain = path.join(root, "scratch")
    fs.mkdirSync(plain, { recursive: true })
    laptop1 = path.join(root, "laptop1")
    laptop2 = path.join(root, "laptop2")
    configDirWith(laptop1, [repo, plain], 1)
    configDirWith(laptop2, [repo], 2)
  })
  afterAll(async () => {
    await dropSchema(PG_URL, schema)
    fs.rmSync(root, { recursive: true, force: true })
  })

  it("a config directory: this machine, each project from its cwd; the built binary prints the same", {
    timeout: TIMEOUT
  }, async () => {
    const args = ["sessions", "--json", "--config-dir", laptop1]
    const full = ok(await acxInProcess(args))
    const rows = parseJson<Array<Row>>(full)
    const machine = OriginNames.machineName(os.hostname())
    expect(rows.map((row) => [row.project, row.machine]).sort()).toEqual([
      [plain, machine],
      ["github.com/acme/api", machine]
    ].sort())
    // spawned: the first run fills the listing cache, the second reads it; both print the same
    expect(ok(await acx(args)).stdout).toBe(full.stdout)
    const warm = ok(await acx(args))
    expect(warm.stderr).toBe("")
    expect(warm.stdout).toBe(full.stdout)
    const table = ok(await acx(["sessions", "--config-dir", laptop1]))
    expect(table.stdout).toBe(ok(await acxInProcess(["sessions", "--config-dir", laptop1])).stdout)
    // one machine: the table as it always was
    expect(table.stdout).not.toMatch(/MACHINE/)
  })

  it("a SQLite store of two machines: their origins, a MACHINE column; fast and full paths agree", {
    timeout: TIMEOUT
  }, async () => {
    const spec = `sqlite:${path.join(root, "hub.db")}`
    ok(await acxInProcess(["sync", "--to", spec, "--config-dir", laptop1, "--machine", "laptop1"]))
    ok(await acxInProcess(["sync", "--to", spec, "--config-dir", laptop2, "--machine", "laptop2"]))
    const full = ok(await acxInProcess(["sessions", "--from", spec, "--json"]))
    const rows = parseJson<Array<Row>>(full)
    expect(rows.map((row) => [row.machine, row.project])).toEqual([
      ["laptop2", "github.com/acme/api"],
      ["laptop1", plain],
      ["laptop1", "github.com/acme/api"]
    ])
    // the binary prints the same (its store reads are a bundle of their own)
    expect(ok(await acx(["sessions", "--from", spec, "--json"])).stdout).toBe(full.stdout)
    const table = ok(await acxInProcess(["sessions", "--from", spec]))
    const [header, ...lines] = table.stdout.trimEnd().split("\n")
    expect(header).toMatch(/^SESSION\s+MACHINE\s+PROJECT\s+LAST ACTIVE/)
    expect(lines[0]).toMatch(/laptop2\s+github\.com\/acme\/api/)
    expect(lines[1]).toMatch(/ laptop1 /)
  })

  it("a Postgres store of two machines: the same rows and table", { timeout: TIMEOUT }, async () => {
    const url = new URL(PG_URL)
    url.searchParams.set("schema", schema)
    ok(await acxInProcess(["sync", "--to", url.href, "--config-dir", laptop1, "--machine", "laptop1"]))
    ok(await acxInProcess(["sync", "--to", url.href, "--config-dir", laptop2, "--machine", "laptop2"]))
    const rows = parseJson<Array<Row>>(ok(await acxInProcess(["sessions", "--from", url.href, "--json"])))
    expect(rows.map((row) => [row.machine, row.project])).toEqual([
      ["laptop2", "github.com/acme/api"],
      ["laptop1", plain],
      ["laptop1", "github.com/acme/api"]
    ])
    const table = ok(await acxInProcess(["sessions", "--from", url.href])).stdout
    expect(table.split("\n")[0]).toMatch(/^SESSION\s+MACHINE\s+PROJECT\s+LAST ACTIVE/)
  })
})
