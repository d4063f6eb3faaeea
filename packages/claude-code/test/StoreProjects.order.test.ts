/**
 * `StoreProjects.subagentsOf`: a session's subagent subpaths in the order a config directory
 * lists their files (what `acx show`'s footer and the statistics' folds follow), checked against
 * the real listing of a directory holding the same subagents, ids chosen where a plain sort of
 * the subpaths and a sort of the file names disagree (`ab` / `ab-c`: `.` sorts after `-`), nested
 * directories included; subpaths that name no subagent are left out.
 */
import { ClaudeProjects, layerNode } from "@acx/claude-code/ClaudeProjects"
import * as StoreProjects from "@acx/claude-code/StoreProjects"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-store-projects-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const PROJECT = "-p"
const SESSION = "11111111-2222-4333-8444-555555555555"

describe("StoreProjects.subagentsOf", () => {
  it("orders subagents as the config directory lists their files", async () => {
    const subpaths = [
      "subagents/agent-ab-c",
      "subagents/agent-ab",
      "subagents/agent-ab_d",
      "subagents/x/agent-nested",
      "subagents/agent-z",
      "subagents/agent-x",
      "subagents/agent-A1"
    ]
    const dir = path.join(root, "projects", PROJECT, SESSION)
    for (const subpath of subpaths) {
      fs.mkdirSync(path.dirname(path.join(dir, subpath)), { recursive: true })
      fs.writeFileSync(path.join(dir, `${subpath}.jsonl`), "")
    }
    const listed = await Effect.runPromise(
      Effect.flatMap(ClaudeProjects, (projects) => projects.listSubagents(PROJECT, SESSION)).pipe(
        Effect.provide(layerNode({ configDir: root }))
      )
    )
    const fromStore = StoreProjects.subagentsOf([...subpaths, "notes/other", "subagents"].reverse())
    expect(fromStore.map((agent) => agent.agentId)).toEqual(listed.map((agent) => agent.agentId))
    expect(fromStore.map((agent) => agent.subpath)).toEqual(
      listed.map((agent) => path.relative(dir, agent.file).slice(0, -".jsonl".length))
    )
    // the case a plain sort of the subpaths gets wrong
    expect(fromStore.map((agent) => agent.agentId).indexOf("ab-c")).toBeLessThan(
      fromStore.map((agent) => agent.agentId).indexOf("ab")
    )
  })
})
