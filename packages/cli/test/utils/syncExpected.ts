/**
 * What a store synced from a config directory must hold: every transcript's key with the entries
 * stored under it (its parseable lines; a subagent's followed by its `.meta.json` as an
 * `agent_metadata` entry), as `acx import` / `acx sync` store them: secrets masked
 * (`Redact.maskEntry`, unless `mask` is false, as `--no-mask` stores them).
 */
import * as Redact from "@acx/convert/Redact"
import * as fs from "node:fs"
import * as path from "node:path"
import { parseableLines } from "./acx.js"

/** A transcript's store key. */
export interface ExpectedKey {
  readonly projectKey: string
  readonly sessionId: string
  readonly subpath?: string
}

/** Every transcript of the dir with the key it is stored under and what the store must hold. */
export const expectedEntries = (configDir: string, mask = true) => {
  const stored = (entries: Array<unknown>) => mask ? entries.map((entry) => Redact.maskEntry(entry).value) : entries
  const projects = path.join(configDir, "projects")
  const out: Array<{ key: ExpectedKey; entries: Array<unknown> }> = []
  for (const projectKey of fs.readdirSync(projects)) {
    if (!fs.statSync(path.join(projects, projectKey)).isDirectory()) continue
    for (const name of fs.readdirSync(path.join(projects, projectKey))) {
      if (!name.endsWith(".jsonl")) continue
      const sessionId = name.slice(0, -".jsonl".length)
      out.push({
        key: { projectKey, sessionId },
        entries: stored(parseableLines(path.join(projects, projectKey, name)))
      })
      const agents = path.join(projects, projectKey, sessionId, "subagents")
      if (!fs.existsSync(agents)) continue
      for (const agent of fs.readdirSync(agents).filter((file) => file.endsWith(".jsonl"))) {
        const base = agent.slice(0, -".jsonl".length)
        const meta = JSON.parse(fs.readFileSync(path.join(agents, `${base}.meta.json`), "utf8"))
        out.push({
          key: { projectKey, sessionId, subpath: `subagents/${base}` },
          entries: stored([...parseableLines(path.join(agents, agent)), { ...meta, type: "agent_metadata" }])
        })
      }
    }
  }
  return out
}

/** A key as one string: `projectKey/sessionId[/subpath]`. */
export const keyString = (key: ExpectedKey): string =>
  `${key.projectKey}/${key.sessionId}${key.subpath === undefined || key.subpath === "" ? "" : `/${key.subpath}`}`
