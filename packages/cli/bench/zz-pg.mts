import { startEmbeddedPostgres } from "@acx/fixtures/postgres"
import { spawnSync } from "node:child_process"
const pg = await startEmbeddedPostgres()
try {
  for (const spec of process.argv.slice(2)) {
    const [tree, label, prof] = spec.split(",")
    const schema = `ab_${label}_${process.pid}`
    const args = [...(prof ? ["--cpu-prof", `--cpu-prof-dir=/tmp/syncspeed-tmp/pgprof-${label}`] : []), `${tree}/packages/cli/bin/acx.mjs`, "sync", "--to", `${pg.url}?schema=${schema}`]
    const load = (await import("node:os")).loadavg()[0]!.toFixed(1)
    const r = spawnSync("/usr/bin/time", ["-f", "TIME %e s %U user %S sys %M KB", "nice", "-n", "19", process.execPath, ...args], {
      env: { ...process.env, NODE_OPTIONS: "", CLAUDE_CONFIG_DIR: process.env.CFG ?? "/tmp/syncspeed-tmp/cfg300", ACX_HOME: `/tmp/syncspeed-tmp/pghome-${label}-${process.pid}`, HOME: `/tmp/syncspeed-tmp/pghome-${label}-${process.pid}` }, encoding: "utf8"
    })
    console.log(label, `load=${load}`, (r.stderr.match(/TIME.*/) ?? [r.stderr])[0], (r.stdout.match(/in [\d.]+s/) ?? [r.stdout])[0])
  }
} finally { await pg.stop() }
