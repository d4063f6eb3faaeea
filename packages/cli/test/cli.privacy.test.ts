/**
 * Secrets and `<private>` text never touch the disk, and everything acx writes under `ACX_HOME`
 * is owner-only — end to end, with the spawned `acx` under umask 022 and 002:
 *
 * - four prompts arrive at once while another process holds `BEGIN IMMEDIATE` on memory.db past
 *   the hook's busy timeout: four spool files hold them redacted, `<private>`-stripped, mode 0600;
 * - tool calls, a failure and a Stop carry secrets in every shape of issue 21; the hooks record
 *   them, the worker they start ingests the spool and distils the session, `acx memory backup`
 *   copies the database, `acx sessions` and `acx stats` fill their caches from a transcript whose
 *   first prompt holds a key;
 * - then every file under `ACX_HOME` (db, its -wal/-shm while they exist, backups, spool, caches,
 *   the worker log) is read as raw bytes: no planted secret, in its raw, URL-encoded or
 *   JSON-escaped form, and no private text; every directory is 0700 and every file 0600.
 *
 * The two umasks run at once: each has its own directory, and most of a run is waiting (the
 * hook's busy timeout, the worker going idle).
 */
import Database from "better-sqlite3"
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { BIN, TEST_TIMEOUT_MS } from "./utils/acx.js"
import { removeTreeWhenIdle } from "./utils/memory.js"

/** A random token no file can hold by chance; `extra` adds characters that encode differently. */
const token = (extra = "") => `Pv${randomBytes(12).toString("hex")}${extra}Q`

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the built acx under `umask`, in a shell that sets it first (as a user's shell does). */
const acxUnder = (umask: string, args: ReadonlyArray<string>, env: Record<string, string>, input?: string) =>
  new Promise<Run>((resolve, reject) => {
    const quoted = [process.execPath, BIN, ...args].map((arg) => `'${arg.replace(/'/g, "'\\''")}'`).join(" ")
    const child = spawn("/bin/sh", ["-c", `umask ${umask} && exec ${quoted}`], {
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      timeout: 60_000,
      killSignal: "SIGKILL"
    })
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
    if (input !== undefined) child.stdin!.end(input)
  })

const waitFor = async (what: string, check: () => boolean, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Whether `error` says the file is gone: the worker ingests (deletes) spool files as it goes. */
const gone = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT"

/** Every file and directory under `dir`, with its mode; one removed while walking is left out. */
const walk = (dir: string): Array<{ file: string; directory: boolean; mode: number }> => {
  let entries: Array<fs.Dirent>
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch (error) {
    if (gone(error)) return []
    throw error
  }
  return entries.flatMap((entry) => {
    const file = path.join(entry.parentPath, entry.name)
    let mode: number
    try {
      mode = fs.lstatSync(file).mode & 0o777
    } catch (error) {
      if (gone(error)) return []
      throw error
    }
    return entry.isDirectory() ? [{ file, directory: true, mode }, ...walk(file)] : [{ file, directory: false, mode }]
  })
}

/** A file's bytes; `undefined` when it was removed since the walk found it. */
const bytesOf = (file: string): Buffer | undefined => {
  try {
    return fs.readFileSync(file)
  } catch (error) {
    if (gone(error)) return undefined
    throw error
  }
}

const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8)

/** The forms a secret could take on disk. */
const forms = (secret: string) => [
  secret,
  encodeURIComponent(secret),
  JSON.stringify(secret).slice(1, -1),
  JSON.stringify(JSON.stringify(secret)).slice(1, -1).replace(/^\\"|\\"$/g, "")
]

const expectNoSecretIn = (home: string, secrets: Record<string, string>) => {
  for (const { directory, file } of walk(home)) {
    if (directory) continue
    const bytes = bytesOf(file)
    if (bytes === undefined) continue
    for (const [name, secret] of Object.entries(secrets)) {
      for (const form of forms(secret)) {
        expect(bytes.includes(Buffer.from(form)), `${name} (${form}) in ${path.relative(home, file)}`).toBe(false)
      }
    }
  }
}

const expectOwnerOnly = (home: string) => {
  expect(modeOf(home), "ACX_HOME").toBe("700")
  for (const { directory, file, mode } of walk(home)) {
    expect(mode.toString(8), path.relative(home, file)).toBe(directory ? "700" : "600")
  }
}

const transcriptLine = (sessionId: string, n: number, content: string) =>
  JSON.stringify({
    type: "user",
    uuid: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    parentUuid: null,
    sessionId,
    cwd: "/home/dev/app",
    timestamp: "2026-01-01T00:00:01Z",
    message: { role: "user", content }
  }) + "\n"

describe("privacy", () => {
  it.concurrent.for(["022", "002"])(
    "under umask %s: the spool, the database, backups, caches and logs hold no secret; the home is 0700, its files 0600",
    { timeout: TEST_TIMEOUT_MS },
    async (umask, { expect, onTestFinished }) => {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-cli-privacy-"))
      // the worker the hooks started may outlive the checks: the directory goes once it has exited
      onTestFinished(() => removeTreeWhenIdle(root))
      // an ACX_HOME an older acx made under the umask: acx tightens it
      const home = path.join(root, "acx")
      fs.mkdirSync(home, { mode: 0o755 })
      fs.chmodSync(home, 0o755)
      fs.writeFileSync(
        path.join(home, "config.json"),
        JSON.stringify({ memory: { mode: "local", batchWaitSeconds: 0, workerIdleMinutes: 0.02 } }),
        { mode: 0o600 }
      )
      const project = path.join(root, "shop")
      fs.mkdirSync(project)
      const env = { ACX_HOME: home }

      const secrets = {
        anthropic: `sk-ant-api03-${token()}`,
        aws: token("/K7+MDENG"),
        password: token(),
        basic: token(),
        url: token(),
        netrc: token(),
        pgpass: token(),
        bearer: token(),
        private: token(),
        nested: token(),
        transcript: `sk-ant-api03-${token()}`
      }
      const sessionId = "s-privacy"
      const input = (event: string, extra: Record<string, unknown>) =>
        JSON.stringify({ session_id: sessionId, transcript_path: "", cwd: project, hook_event_name: event, ...extra })
      const hook = async (event: string, extra: Record<string, unknown>) => {
        const run = await acxUnder(umask, ["hook", event], env, input(event, extra))
        expect(run.code, run.stderr).toBe(0)
        return run
      }

      await hook("SessionStart", { source: "startup" })
      const database = path.join(home, "memory.db")
      expect(modeOf(home)).toBe("700")
      expect(modeOf(database)).toBe("600")

      // the attack: memory.db locked past the hook's 3 s busy timeout, a prompt with secrets
      const holder = new Database(database)
      holder.exec("BEGIN IMMEDIATE")
      let spooled: Run
      try {
        for (const sidecar of ["-wal", "-shm"]) {
          if (fs.existsSync(`${database}${sidecar}`)) expect(modeOf(`${database}${sidecar}`), sidecar).toBe("600")
        }
        const prompt = `deploy with key%3D${secrets.anthropic} <private>${secrets.private}</private> and ` +
          `<priv<private>x</private>ate>${secrets.nested}</private> aws_secret_access_key=${secrets.aws}`
        // four hooks at once meet the same lock: four spool files, none clobbering another
        const runs = await Promise.all([1, 2, 3, 4].map((n) => hook("UserPromptSubmit", { prompt: `${n}: ${prompt}` })))
        spooled = runs[0]!
      } finally {
        holder.exec("ROLLBACK")
        holder.close()
      }
      expect(spooled.stderr).toMatch(/locked.*spool/)
      const spool = path.join(home, "memory-spool")
      const files = fs.readdirSync(spool)
      expect(files).toHaveLength(4)
      expect(modeOf(spool)).toBe("700")
      for (const file of files) {
        expect(modeOf(path.join(spool, file))).toBe("600")
        expect(fs.readFileSync(path.join(spool, file), "utf8")).toContain("[REDACTED:anthropic-key]")
      }
      expectNoSecretIn(home, secrets)

      // tool calls, a failure and a Stop in every shape; they start the worker
      await hook("PostToolUse", {
        tool_name: "Bash",
        tool_use_id: "toolu_1",
        tool_input: { command: `curl -H 'Authorization: Basic ${secrets.basic}' postgres://app:${secrets.url}@db/app` },
        tool_response: {
          stdout: `machine api.example.com login me password ${secrets.netrc}\n` +
            `db.example.com:5432:app:alice:${secrets.pgpass}\ndb_password: ${secrets.password}`,
          stderr: "",
          interrupted: false
        }
      })
      await hook("PostToolUseFailure", {
        tool_name: "Bash",
        tool_use_id: "toolu_2",
        tool_input: { command: "env", env: { GITHUB_TOKEN: secrets.password } },
        error: `401 for Bearer ${secrets.bearer}`
      })
      await hook("Stop", {
        last_assistant_message: `Used X_${secrets.anthropic} and api_token = "${secrets.password}"`
      })
      await hook("SessionEnd", { reason: "other" })

      const { isIdle } = await import("@acx/memory/HookRunner")
      await waitFor(
        "the worker to ingest the spool and finish",
        () => fs.readdirSync(spool).length === 0 && isIdle(home)
      )
      const reader = new Database(database, { readonly: true })
      try {
        const prompts = reader.prepare("SELECT text FROM memory_prompts").all() as Array<{ text: string }>
        expect(prompts).toHaveLength(4)
        for (const row of prompts) expect(row.text).toMatch(/^\d: deploy with key%3D\[REDACTED:anthropic-key\]/)
        const events = reader.prepare("SELECT count(*) AS n FROM memory_events").get() as { n: number }
        expect(events.n).toBe(8)
      } finally {
        reader.close()
      }

      const backup = await acxUnder(umask, ["memory", "backup"], env)
      expect(backup.code, backup.stderr).toBe(0)

      // the listing's and the statistics' caches, from a transcript whose first prompt holds a key
      const configDir = path.join(root, "claude")
      const transcripts = path.join(configDir, "projects", "-home-dev-app")
      fs.mkdirSync(transcripts, { recursive: true })
      fs.writeFileSync(
        path.join(transcripts, "11111111-1111-4111-8111-111111111111.jsonl"),
        transcriptLine("11111111-1111-4111-8111-111111111111", 1, `use ${secrets.transcript} please`)
      )
      for (const args of [["sessions", "--config-dir", configDir, "--json"], ["stats", "--config-dir", configDir]]) {
        const run = await acxUnder(umask, args, env)
        expect(run.code, run.stderr).toBe(0)
      }
      expect(fs.readdirSync(path.join(home, "cache")).length).toBeGreaterThan(0)

      expectNoSecretIn(home, secrets)
      expectOwnerOnly(home)
    }
  )
})
