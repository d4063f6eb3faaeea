/** A session's subagents as the session page lists them: id, type and description from `meta.json`. */
import type * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import type * as SessionView from "../SessionView.js"

/** The rows of `agents` (a type or description that is not a string is none). */
export const subagentRows = (agents: ReadonlyArray<ClaudeProjects.SubagentInfo>): Array<SessionView.SubagentRow> =>
  agents.map((agent) => ({
    agentId: agent.agentId,
    agentType: typeof agent.meta?.["agentType"] === "string" ? agent.meta["agentType"] : null,
    description: typeof agent.meta?.["description"] === "string" ? agent.meta["description"] : null
  }))
