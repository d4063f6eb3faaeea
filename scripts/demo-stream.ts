/**
 * A realistic Claude Agent SDK message stream, generated (not recorded): what `query()` yields
 * for a small coding task with `--replay-user-messages` — init, the replayed prompt, assistant
 * frames one content block each (thinking, text, tool_use sharing a `message.id`), tool results,
 * a subagent (Task) turn, progress and rate-limit frames, a frame from a newer CLI that the SDK
 * does not declare, and the final result.
 */
import { randomUUID } from "node:crypto"

const model = "claude-sonnet-4-5-20250929"

export const generateStream = (prompt: string): Array<Record<string, unknown>> => {
  const session_id = randomUUID()
  const base = () => ({ uuid: randomUUID(), session_id })
  const assistant = (id: string, block: Record<string, unknown>, parent: string | null = null) => ({
    type: "assistant",
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [block],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 48, cache_read_input_tokens: 20012, cache_creation_input_tokens: 0 }
    },
    parent_tool_use_id: parent,
    ...base()
  })
  const toolResult = (toolUseId: string, content: unknown, parent: string | null = null, isError = false) => ({
    type: "user",
    message: {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: toolUseId, content, ...(isError ? { is_error: true } : {}) }]
    },
    parent_tool_use_id: parent,
    tool_use_result: { stdout: typeof content === "string" ? content : "", stderr: "", interrupted: false },
    ...base()
  })
  const readId = `toolu_${randomUUID().slice(0, 8)}`
  const taskId = `toolu_${randomUUID().slice(0, 8)}`
  const grepId = `toolu_${randomUUID().slice(0, 8)}`
  const testId = `toolu_${randomUUID().slice(0, 8)}`
  return [
    {
      type: "system",
      subtype: "init",
      cwd: "/srv/app",
      tools: ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write"],
      mcp_servers: [],
      model,
      permissionMode: "acceptEdits",
      slash_commands: ["compact", "review"],
      apiKeySource: "ANTHROPIC_API_KEY",
      claude_code_version: "2.1.330",
      output_style: "default",
      skills: [],
      plugins: [],
      ...base()
    },
    {
      type: "user",
      message: { role: "user", content: [{ type: "text", text: prompt }] },
      parent_tool_use_id: null,
      isReplay: true,
      ...base()
    },
    assistant("msg_01", {
      type: "thinking",
      thinking: "The failing test is in foo.test.ts; read it first.",
      signature: "EqQBCkYIBxgCKkD"
    }),
    assistant("msg_01", { type: "text", text: "Let me look at the failing test." }),
    assistant("msg_01", {
      type: "tool_use",
      id: readId,
      name: "Read",
      input: { file_path: "/srv/app/test/foo.test.ts" }
    }),
    {
      type: "tool_progress",
      tool_use_id: readId,
      tool_name: "Read",
      parent_tool_use_id: null,
      elapsed_time_seconds: 0.2,
      ...base()
    },
    toolResult(readId, "1\timport { add } from \"../src/foo\"\n2\ttest(\"adds\", () => expect(add(2, 2)).toBe(4))\n"),
    assistant("msg_02", {
      type: "tool_use",
      id: taskId,
      name: "Task",
      input: {
        description: "Find add()",
        prompt: "Where is add() defined and what does it return?",
        subagent_type: "Explore"
      }
    }),
    {
      type: "system",
      subtype: "task_started",
      task_id: "task-1",
      tool_use_id: taskId,
      description: "Find add()",
      task_type: "local_agent",
      ...base()
    },
    {
      type: "user",
      message: { role: "user", content: [{ type: "text", text: "Where is add() defined and what does it return?" }] },
      parent_tool_use_id: taskId,
      ...base()
    },
    assistant("msg_s1", { type: "tool_use", id: grepId, name: "Grep", input: { pattern: "export const add" } }, taskId),
    toolResult(grepId, [{ type: "text", text: "src/foo.ts:3:export const add = (a, b) => a - b" }], taskId),
    assistant(
      "msg_s2",
      { type: "text", text: "add() is in src/foo.ts line 3; it subtracts instead of adding." },
      taskId
    ),
    toolResult(taskId, [{ type: "text", text: "add() is in src/foo.ts line 3; it subtracts instead of adding." }]),
    {
      type: "rate_limit_event",
      rate_limit_info: {
        status: "allowed_warning",
        resetsAt: 1767225600,
        rateLimitType: "five_hour",
        utilization: 0.91
      },
      ...base()
    },
    assistant("msg_03", { type: "tool_use", id: testId, name: "Bash", input: "{\"command\":\"pnpm test foo\"}" }),
    toolResult(testId, "FAIL test/foo.test.ts\n  expected 4, received 0", null, true),
    assistant("msg_04", { type: "text", text: "Fixed: add() now returns a + b, and the test passes." }),
    // A frame from a newer CLI than this SDK version declares: decodes as Unknown, never fails.
    { type: "system", subtype: "context_checkpoint", checkpoint_id: "ckpt-7", tokens_saved: 18000, ...base() },
    {
      type: "system",
      subtype: "post_turn_summary",
      summarizes_uuid: randomUUID(),
      status_category: "done",
      status_detail: "fixed add()",
      needs_action: false,
      ...base()
    },
    {
      type: "result",
      subtype: "success",
      is_error: false,
      duration_ms: 18234,
      duration_api_ms: 15890,
      num_turns: 4,
      result: "Fixed: add() now returns a + b, and the test passes.",
      stop_reason: "end_turn",
      total_cost_usd: 0.0412,
      usage: { input_tokens: 84, output_tokens: 412, cache_read_input_tokens: 80048, cache_creation_input_tokens: 0 },
      modelUsage: {},
      permission_denials: [],
      ...base()
    }
  ]
}
