/**
 * What an import (or a sync) of the fixtures' config dir must have stored, read back through a
 * store's Promise API: shared by the `acx import` and `acx sync` tests.
 */
import * as Redact from "@acx/convert/Redact"
import type * as Fixtures from "@acx/fixtures"
import type { SdkSessionStore } from "@acx/session-store/SessionStore"
import * as path from "node:path"
import { expect } from "vitest"
import { parseableLines } from "./acx.js"
import { buildHostileDir } from "./hostileDir.js"
import { acxInProcess } from "./inProcess.js"

/**
 * What an import of `built` must have stored: each main transcript's parseable lines, each
 * subagent's parseable lines followed by its `agent_metadata` entry (the meta.json), in file order.
 */
// as stored: secrets masked (the default of `acx import` and `acx sync`)
const masked = (entries: ReadonlyArray<unknown>) => entries.map((entry) => Redact.maskEntry(entry).value)

export const expectImported = async (store: SdkSessionStore, built: Fixtures.BuiltConfigDir) => {
  for (const session of built.sessions) {
    const key = { projectKey: session.projectKey, sessionId: session.sessionId }
    expect(await store.load(key), session.source).toEqual(masked(parseableLines(session.file)))
    const subkeys = (await store.listSubkeys(key)).sort()
    expect(subkeys).toEqual(session.subagents.map((agent) => `subagents/agent-${agent.agentId}`).sort())
    for (const agent of session.subagents) {
      const loaded = await store.load({ ...key, subpath: `subagents/agent-${agent.agentId}` })
      expect(loaded, agent.source).toEqual(
        masked([...parseableLines(agent.file), { ...agent.meta, type: "agent_metadata" }])
      )
    }
  }
}

export const expectedCounts = (built: Fixtures.BuiltConfigDir) => ({
  sessions: built.sessions.length,
  subagents: built.sessions.reduce((n, s) => n + s.subagents.length, 0),
  entries: built.sessions.reduce(
    (n, s) =>
      n + parseableLines(s.file).length +
      s.subagents.reduce((m, agent) => m + parseableLines(agent.file).length + 1, 0),
    0
  )
})

/** {@link expectImported} on a store opened for it, closed afterwards whatever the outcome. */
export const expectImportedThenClose = async (
  store: SdkSessionStore & { readonly close: () => Promise<void> },
  built: Fixtures.BuiltConfigDir
) => {
  try {
    await expectImported(store, built)
  } finally {
    await store.close()
  }
}

/**
 * A config directory under `root` with one plain session (and a subagent), imported in process
 * into `root/store.sqlite`: what a test of a store's readers starts from.
 */
export const importedPlainStore = async (root: string) => {
  const dir = buildHostileDir(root, {
    sessions: [[]],
    depth: 0,
    torn: false,
    fifoMain: false,
    fifoSubagent: false,
    linkLoop: false,
    danglingLink: false,
    directoryTranscript: false
  })
  const db = path.join(root, "store.sqlite")
  const env = { CLAUDE_CONFIG_DIR: dir.configDir, ACX_HOME: path.join(root, "home") }
  const imported = await acxInProcess(["import", "--to", `sqlite:${db}`], { env })
  expect(imported.code, imported.stderr).toBe(0)
  return { dir, db, env }
}
