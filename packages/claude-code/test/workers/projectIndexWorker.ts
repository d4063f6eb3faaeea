/**
 * A worker process for the project index race test: over `<root>/config`, it adds a main
 * transcript and a subagent transcript of its own to every project, prints `ready`, and when a
 * line arrives on stdin walks the whole tree through the index in `<root>/cache` and writes it
 * back, `rounds` times. The index's clock is moved on a minute, so that the listings of a tree
 * written a moment ago are kept (the race is on the files, not on the racy window).
 *
 * Usage: `node --conditions=@acx/source --import tsx projectIndexWorker.ts <root> <worker> <rounds>`
 */
import { waitForGo } from "@acx/testing/SessionStoreConcurrency"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ConfigTree from "../../src/ConfigTree.js"
import * as PlainListing from "../../src/PlainListing.js"
import * as ProjectIndex from "../../src/ProjectIndex.js"

const [root, worker, roundsText] = process.argv.slice(2)
if (root === undefined || worker === undefined) throw new Error("usage: projectIndexWorker <root> <worker> <rounds>")
const configDir = path.join(root, "config")
const projectsDir = path.join(configDir, "projects")
const hex = Number(worker).toString(16).padStart(12, "0")

for (const projectKey of fs.readdirSync(projectsDir)) {
  const sessionId = `00000000-0000-4000-8000-${hex}`
  fs.writeFileSync(path.join(projectsDir, projectKey, `${sessionId}.jsonl`), "{}\n")
  const subagents = path.join(projectsDir, projectKey, sessionId, "subagents")
  fs.mkdirSync(subagents, { recursive: true })
  fs.writeFileSync(path.join(subagents, `agent-w${worker}.jsonl`), "{}\n")
}

const go = waitForGo()
process.stdout.write("ready\n")
await go
for (let round = 0; round < Number(roundsText ?? "5"); round++) {
  const walk: ConfigTree.Walk = {
    ...ConfigTree.walkOf(configDir),
    index: ProjectIndex.open(path.join(root, "cache"), projectsDir, { now: () => Date.now() + 60_000 })
  }
  PlainListing.walkedTranscripts(walk, undefined)
  // every project written back, by each worker, in the same moment
  for (const projectKey of walk.index!.projects.keys()) walk.index!.dirty.add(projectKey)
  ConfigTree.saveIndex(walk)
}
