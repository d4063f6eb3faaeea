/**
 * The SDK's `SessionStore` view of a stand-in session: its project key for a working directory,
 * the stored transcript, and the step asserting a resume materialised it. Re-exported by
 * `StandInCli`.
 *
 * @since 0.1.0
 */
import { realpathSync } from "node:fs"
import * as path from "node:path"
import type { StandInFrame, StandInStep } from "./StandInScenario.js"

// -------------------------------------------------------------------------------------------------
// project keys and transcripts
// -------------------------------------------------------------------------------------------------

// The same encoding as `@acx/convert`'s `ProjectDir.encodeProjectDir`, kept here on purpose: at
// run time this package depends on `@acx/schema` only (docs/design.md, "Packages"), so a test's
// expectation of the SDK's key does not come from the code under test. This copy also resolves
// the real path and NFC-normalises first, as the SDK does with `options.cwd`.
const MAX_PROJECT_KEY = 200

const hashPath = (text: string): string => {
  let hash = 0
  for (let index = 0; index < text.length; index++) hash = ((hash << 5) - hash + text.charCodeAt(index)) | 0
  return Math.abs(hash).toString(36)
}

/**
 * The SDK's `SessionStore` project key for a working directory (the default `projectKey` of a
 * `query()` with that `options.cwd`): the real path with every non-alphanumeric character
 * replaced by `-`, names over 200 characters truncated and suffixed with a hash.
 *
 * @since 0.1.0
 * @category utils
 */
export const projectKeyFor = (cwd: string): string => {
  let resolved = path.resolve(cwd)
  try {
    resolved = realpathSync(resolved)
  } catch {
    // a path that does not exist keeps its resolved form, as in the SDK
  }
  resolved = resolved.normalize("NFC")
  const key = resolved.replace(/[^a-zA-Z0-9]/g, "-")
  return key.length <= MAX_PROJECT_KEY ? key : `${key.slice(0, MAX_PROJECT_KEY)}-${hashPath(resolved)}`
}

/**
 * Transcript entries as a `SessionStore` holds them: the main transcript, and each subpath's
 * entries (for a subagent, `subagents/agent-<id>`, ending with its `agent_metadata` entry).
 *
 * @since 0.1.0
 * @category models
 */
export interface StoredTranscript {
  readonly main: ReadonlyArray<StandInFrame>
  readonly subagents: { readonly [subpath: string]: ReadonlyArray<StandInFrame> }
}

/**
 * The `expectResumeTranscript` step asserting that a resume materialised `stored` the way the
 * SDK does: the main entries as `<sid>.jsonl`; each subpath's entries minus `agent_metadata` as
 * `<sid>/<subpath>.jsonl`; the last `agent_metadata` entry (without `type`) as
 * `<sid>/<subpath>.meta.json`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const expectResumeStep = (stored: StoredTranscript): StandInStep => {
  const subagents: Record<string, ReadonlyArray<StandInFrame>> = {}
  const agentMetadata: Record<string, StandInFrame> = {}
  for (const [subpath, entries] of Object.entries(stored.subagents)) {
    subagents[subpath] = entries.filter((entry) => entry.type !== "agent_metadata")
    const meta = entries.filter((entry) => entry.type === "agent_metadata").at(-1)
    if (meta !== undefined) {
      const { type: _type, ...rest } = meta
      agentMetadata[subpath] = rest
    }
  }
  return { expectResumeTranscript: stored.main, subagents, agentMetadata }
}
