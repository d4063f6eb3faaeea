/**
 * A config directory with a secret planted in every field the web page or an export shows — the
 * title, the first prompt, the cwd (and so the project's name and key), the git branch, a text, a
 * tool's input and result, a subagent's description, type and transcript — and raw HTTP requests
 * to a running `acx ui` (any method, Host, cookie or Origin; an event stream read until enough
 * came).
 */
import * as Fixtures from "@acx/fixtures"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"

/** A secret the mask recognises, named after the field it is planted in (`sk-ant-api03-…`). */
export const secret = (field: string): string => `sk-ant-api03-${field.toUpperCase()}${"0".repeat(32)}`

/** Every field a secret is planted in. */
export const PLANTED_FIELDS = [
  "title",
  "prompt",
  "cwd",
  "branch",
  "text",
  "tool",
  "result",
  "desc",
  "agenttype",
  "subtext"
] as const

/** The planted session. */
export interface PlantedSession {
  readonly configDir: string
  readonly projectKey: string
  readonly sessionId: string
  readonly agentId: string
  readonly file: string
}

/** The fixture config directory plus one session carrying a secret in each of {@link PLANTED_FIELDS}. */
export const plantSecrets = (root: string): PlantedSession => {
  const built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
  const cwd = `/home/dev/${secret("cwd")}`
  const projectKey = cwd.replace(/[^A-Za-z0-9]/g, "-")
  const sessionId = "5ec7e75e-0000-4000-8000-000000000001"
  const agentId = "a5ec7e7"
  const dir = path.join(built.configDir, "projects", projectKey)
  fs.mkdirSync(path.join(dir, sessionId, "subagents"), { recursive: true })
  const common = { sessionId, cwd, gitBranch: `feature/${secret("branch")}`, version: "2.1.0", userType: "external" }
  const entries = [
    {
      ...common,
      type: "user",
      uuid: "5ec7e75e-0000-4000-8000-0000000000a1",
      parentUuid: null,
      timestamp: "2026-01-02T10:00:00.000Z",
      message: { role: "user", content: `deploy with ${secret("prompt")}` }
    },
    {
      ...common,
      type: "assistant",
      uuid: "5ec7e75e-0000-4000-8000-0000000000a2",
      parentUuid: "5ec7e75e-0000-4000-8000-0000000000a1",
      timestamp: "2026-01-02T10:00:01.000Z",
      requestId: "req_1",
      message: {
        id: "msg_1",
        role: "assistant",
        model: "claude-sonnet-4-5",
        type: "message",
        content: [
          { type: "text", text: `the key is ${secret("text")}` },
          { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: `echo ${secret("tool")}` } }
        ],
        stop_reason: "tool_use",
        usage: { input_tokens: 10, output_tokens: 20, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
      }
    },
    {
      ...common,
      type: "user",
      uuid: "5ec7e75e-0000-4000-8000-0000000000a3",
      parentUuid: "5ec7e75e-0000-4000-8000-0000000000a2",
      timestamp: "2026-01-02T10:00:02.000Z",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_1", content: `printed ${secret("result")}` }]
      }
    },
    { type: "custom-title", customTitle: `release ${secret("title")}`, sessionId }
  ]
  const file = path.join(dir, `${sessionId}.jsonl`)
  fs.writeFileSync(file, entries.map((entry) => JSON.stringify(entry)).join("\n") + "\n")
  const agentFile = path.join(dir, sessionId, "subagents", `agent-${agentId}.jsonl`)
  fs.writeFileSync(
    agentFile,
    JSON.stringify({
      ...common,
      type: "user",
      isSidechain: true,
      agentId,
      uuid: "5ec7e75e-0000-4000-8000-0000000000b1",
      parentUuid: null,
      timestamp: "2026-01-02T10:00:03.000Z",
      message: { role: "user", content: `look for ${secret("subtext")}` }
    }) + "\n"
  )
  fs.writeFileSync(
    agentFile.slice(0, -".jsonl".length) + ".meta.json",
    JSON.stringify({ agentType: `Explore-${secret("agenttype")}`, description: `find ${secret("desc")}` })
  )
  return { configDir: built.configDir, projectKey, sessionId, agentId, file }
}

/** A response read whole (or, for an event stream, until `until` said enough). */
export interface RawResponse {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

/** Options of {@link request}. */
export interface RequestOptions {
  readonly method?: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
  /** Stop reading (and close the connection) once the body so far satisfies this. */
  readonly until?: (body: string) => boolean
}

/** One request to `127.0.0.1:port`; the body is read to its end, or until `options.until`. */
export const request = (port: number, pathAndQuery: string, options: RequestOptions = {}): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: "127.0.0.1",
        port,
        path: pathAndQuery,
        method: options.method ?? "GET",
        headers: options.headers,
        agent: false
      },
      (response) => {
        let body = ""
        const done = () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body })
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => {
          body += chunk
          if (options.until?.(body) === true) {
            done()
            response.destroy()
          }
        })
        response.on("end", done)
        response.on("error", reject)
      }
    )
    outgoing.on("error", reject)
    outgoing.end(options.body)
  })
