/**
 * The transcript `acx show` prints: a session (by id or prefix), one of its subagents
 * (`--agent <id or prefix>`), or a subagent named on its own (`acx show a881341`, the ids the
 * Markdown footer lists) when no session has that id.
 */
import type * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as Effect from "effect/Effect"
import * as CliError from "../CliError.js"
import { findSession } from "./source.js"

/** A session's transcript, or one of its subagents' (`agent`). */
export interface FoundTranscript {
  readonly session: ClaudeProjects.SessionFile
  readonly agent: ClaudeProjects.SubagentInfo | undefined
}

// What Claude Code names agents (`a881341`, `acompact-fffbd0`): letters, digits, `-` and `_`
// only, so an id never names a path.
const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{3,63}$/
// A whole session id names no subagent.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

// The one agent whose id is `id`, else the one it is a prefix of.
const pick = <A extends { readonly agentId: string }>(candidates: ReadonlyArray<A>, id: string): Array<A> => {
  const exact = candidates.filter((candidate) => candidate.agentId === id)
  return exact.length > 0 ? exact : candidates.filter((candidate) => candidate.agentId.startsWith(id))
}

const agentIdOk = (id: string): Effect.Effect<void, CliError.CliError> =>
  AGENT_ID.test(id)
    ? Effect.void
    : CliError.invalidArgument(`not a subagent id: ${JSON.stringify(id)} (letters, digits, - and _, 4 or more)`)

// A subagent of `session` by id or prefix.
const agentOf = (projects: ClaudeProjects.ClaudeProjects, session: ClaudeProjects.SessionFile, id: string) =>
  Effect.gen(function*() {
    yield* agentIdOk(id)
    const agents = yield* projects.listSubagents(session.projectKey, session.sessionId)
    const matches = pick(agents, id)
    if (matches.length === 1) return matches[0]!
    const known = agents.length === 0
      ? "it has none"
      : `its subagents: ${agents.map((agent) => agent.agentId).slice(0, 10).join(", ")}`
    if (matches.length === 0) {
      return yield* CliError.notFound(`no subagent ${id} in session ${session.sessionId} (${known})`)
    }
    return yield* CliError.ambiguous(`${id} matches ${matches.length} subagents of ${session.sessionId} (${known})`)
  })

// The one subagent of any session (of `projectKey`, or all) whose id is `id` or starts with it.
const anySubagent = (projects: ClaudeProjects.ClaudeProjects, id: string, projectKey: string | undefined) =>
  Effect.gen(function*() {
    const sessions = yield* projects.listSessionFiles(projectKey)
    const all = (yield* Effect.forEach(
      sessions,
      (session) =>
        Effect.map(
          projects.listSubagents(session.projectKey, session.sessionId),
          (agents) => agents.map((agent) => ({ agentId: agent.agentId, agent, session }))
        ),
      { concurrency: 16 }
    )).flat()
    return pick(all, id)
  })

/**
 * The transcript `id` (and `agent`) name. With `agent`, the session `id` must exist and have that
 * subagent. Without, a session is looked for first; when none has that id (or `id` cannot be a
 * session id) and `id` is not a whole UUID, the subagents of every session are.
 */
export const findTranscript = (
  projects: ClaudeProjects.ClaudeProjects,
  id: string,
  projectKey: string | undefined,
  agent: string | undefined
): Effect.Effect<FoundTranscript, CliError.CliError | ClaudeProjects.ClaudeProjectsError> =>
  Effect.gen(function*() {
    if (agent !== undefined) {
      const session = yield* findSession(projects, id, projectKey)
      return { session, agent: yield* agentOf(projects, session, agent) }
    }
    const asSession = yield* Effect.either(findSession(projects, id, projectKey))
    if (asSession._tag === "Right") return { session: asSession.right, agent: undefined }
    const error = asSession.left
    const lookForAgent = error._tag === "CliError" &&
      (error.reason === "NotFound" || error.reason === "InvalidArgument")
    if (!lookForAgent || !AGENT_ID.test(id) || UUID.test(id)) return yield* Effect.fail(error)
    const matches = yield* anySubagent(projects, id, projectKey)
    if (matches.length === 1) return { session: matches[0]!.session, agent: matches[0]!.agent }
    if (matches.length === 0) {
      const where = projectKey === undefined ? projects.projectsDir : `project ${projectKey}`
      return yield* CliError.notFound(`no session or subagent ${id} in ${where}`)
    }
    const names = matches.slice(0, 5).map((match) => `${match.session.sessionId}/${match.agentId}`).join(", ")
    return yield* CliError.ambiguous(
      `${id} matches ${matches.length} subagents (${names}); pass the session and --agent`
    )
  })
