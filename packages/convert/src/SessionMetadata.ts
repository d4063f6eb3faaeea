/**
 * A session's listing metadata folded out of its transcript entries: title (`custom-title`,
 * else `ai-title`, else `summary`; the last of each wins), first user prompt, last prompt
 * (`last-prompt`, else the last user prompt), the first `cwd` and `gitBranch`, and the first
 * and last `timestamp`. Prompts read as a listing shows them (`SessionTitle.displayPrompt`:
 * slash commands as `/name args`, command output is not a prompt, a subagent's prompt is not the
 * user's). The first prompt is the first the user wrote: a session that starts with `/clear` is
 * named by what came after it (a command without arguments, or a `!` shell command, only when the
 * session holds nothing else; `/review src` is a prompt).
 *
 * The fold works on any run of entries in file order, and its state is plain data: a reader
 * may fold the head of a file, skip its middle, then fold its tail (or resume a saved state
 * with the lines appended since), and gets what a full read gives whenever the lines that
 * decide each field are among those folded. Pure and total.
 *
 * @since 0.1.0
 */
import { get, isObj } from "./internal/json.js"
import * as Redact from "./Redact.js"
import { commandLine, displayPrompt } from "./SessionTitle.js"

/**
 * What a listing shows of a session.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionMetadata {
  /** `custom-title`, else `ai-title`, else `summary` (the last of each kind). */
  readonly title?: string
  readonly firstPrompt?: string
  /** The last `last-prompt` entry, else the last user prompt. */
  readonly lastPrompt?: string
  readonly cwd?: string
  readonly gitBranch?: string
  /** The first entry's `timestamp` (ISO 8601, as written). */
  readonly startTime?: string
  /** The last entry's `timestamp`. */
  readonly lastTime?: string
}

/**
 * The fold's state: the candidates of every field, plain JSON (a cache can keep it).
 *
 * @since 0.1.0
 * @category models
 */
export interface MetadataState {
  readonly customTitle?: string
  readonly aiTitle?: string
  readonly summary?: string
  readonly firstPrompt?: string
  /** The first command without arguments or `!` command, the first prompt of a session without any other. */
  readonly firstCommand?: string
  readonly lastPromptEntry?: string
  readonly lastUserPrompt?: string
  readonly cwd?: string
  readonly gitBranch?: string
  readonly startTime?: string
  readonly lastTime?: string
}

/**
 * The state before any entry.
 *
 * @since 0.1.0
 * @category folding
 */
export const initialState: MetadataState = {}

type Mutable = { -readonly [K in keyof MetadataState]?: string | undefined }

const str = (value: unknown): string | undefined => typeof value === "string" && value.length > 0 ? value : undefined

/**
 * The prompt a user entry holds as a listing shows it; `undefined` for meta entries, compact
 * summaries, tool results, command output and empty text.
 *
 * @since 0.1.0
 * @category folding
 */
export const promptOf = (entry: unknown): string | undefined => {
  const text = promptText(entry)
  return text === undefined ? undefined : displayPrompt(text)
}

// A command that says nothing of what the session is about: a `!` shell command, or a slash
// command without arguments (`/clear`, `/compact`); `/review src` is what the user asked for.
const isCommandOnly = (text: string): boolean => {
  const command = commandLine(text)
  return command !== undefined && (command.startsWith("!") || !command.includes(" "))
}

// The text of a user entry's prompt as written (tags and all); a subagent's prompt (an inline
// sidechain entry) is not the user's.
const promptText = (entry: unknown): string | undefined => {
  if (
    !isObj(entry) || entry["type"] !== "user" || entry["isMeta"] === true || entry["isCompactSummary"] === true ||
    entry["isSidechain"] === true
  ) {
    return undefined
  }
  const content = get(entry["message"], "content")
  if (typeof content === "string") return content
  if (Array.isArray(content)) {
    for (const block of content) {
      const type = get(block, "type")
      if (type === "tool_result") return undefined
      const text = get(block, "text")
      if (type === "text" && typeof text === "string") return text
    }
  }
  return undefined
}

const step = (state: Mutable, entry: unknown): void => {
  if (!isObj(entry)) return
  switch (entry["type"]) {
    case "custom-title":
      state.customTitle = str(entry["customTitle"]) ?? state.customTitle
      break
    case "ai-title":
      state.aiTitle = str(entry["aiTitle"]) ?? state.aiTitle
      break
    case "summary":
      state.summary = str(entry["summary"]) ?? state.summary
      break
    case "last-prompt":
      state.lastPromptEntry = str(entry["lastPrompt"]) ?? state.lastPromptEntry
      break
    case "user": {
      const text = promptText(entry)
      const prompt = text === undefined ? undefined : displayPrompt(text)
      if (prompt !== undefined) {
        if (isCommandOnly(text!)) state.firstCommand ??= prompt
        else state.firstPrompt ??= prompt
        state.lastUserPrompt = prompt
      }
      break
    }
  }
  state.cwd ??= str(entry["cwd"])
  state.gitBranch ??= str(entry["gitBranch"])
  const timestamp = str(entry["timestamp"])
  if (timestamp !== undefined) {
    state.startTime ??= timestamp
    state.lastTime = timestamp
  }
}

// `undefined` fields are left out, so a state survives a JSON round trip unchanged.
const compact = (record: { readonly [key: string]: string | undefined }): { [key: string]: string } => {
  const out: { [key: string]: string } = {}
  for (const [key, value] of Object.entries(record)) if (value !== undefined) out[key] = value
  return out
}

/**
 * The state after `entries` (in file order) were folded into `state`.
 *
 * @since 0.1.0
 * @category folding
 */
export const foldEntries = (state: MetadataState, entries: Iterable<unknown>): MetadataState => {
  const next: Mutable = { ...state }
  for (const entry of entries) step(next, entry)
  return compact(next)
}

const TEXT_FIELDS = ["customTitle", "aiTitle", "summary", "firstPrompt", "lastPromptEntry", "lastUserPrompt"] as const

/**
 * A state with its text fields (titles, summary, prompts) redacted and `<private>` parts removed
 * (`Redact.text`): what a cache under acx's home may keep. The fold continues on it as on the
 * original (the redactor is idempotent).
 *
 * @since 0.2.0
 * @category folding
 */
export const redacted = (state: MetadataState): MetadataState => {
  const next: Mutable = { ...state }
  for (const field of TEXT_FIELDS) {
    const value = state[field]
    if (value !== undefined) next[field] = Redact.text(value)
  }
  return compact(next)
}

/**
 * The metadata a state stands for.
 *
 * @since 0.1.0
 * @category folding
 */
export const metadataOf = (state: MetadataState): SessionMetadata => {
  // in SessionMetadata's order; a field with no candidate left out (a listing reads thousands)
  const out: { -readonly [K in keyof SessionMetadata]?: string } = {}
  const title = state.customTitle ?? state.aiTitle ?? state.summary
  if (title !== undefined) out.title = title
  const firstPrompt = state.firstPrompt ?? state.firstCommand
  if (firstPrompt !== undefined) out.firstPrompt = firstPrompt
  const lastPrompt = state.lastPromptEntry ?? state.lastUserPrompt
  if (lastPrompt !== undefined) out.lastPrompt = lastPrompt
  if (state.cwd !== undefined) out.cwd = state.cwd
  if (state.gitBranch !== undefined) out.gitBranch = state.gitBranch
  if (state.startTime !== undefined) out.startTime = state.startTime
  if (state.lastTime !== undefined) out.lastTime = state.lastTime
  return out
}

/**
 * The metadata of a whole transcript.
 *
 * @since 0.1.0
 * @category folding
 */
export const sessionMetadata = (entries: Iterable<unknown>): SessionMetadata =>
  metadataOf(foldEntries(initialState, entries))

/**
 * Whether the fields a head read looks for (first prompt, cwd, branch, start time) are all found.
 *
 * @since 0.1.0
 * @category folding
 */
export const headFound = (state: MetadataState): boolean =>
  state.firstPrompt !== undefined && state.cwd !== undefined && state.gitBranch !== undefined &&
  state.startTime !== undefined

/**
 * Whether a state folded from a file's last lines decides the last prompt and the last time.
 *
 * @since 0.1.0
 * @category folding
 */
export const tailFound = (state: MetadataState): boolean =>
  (state.lastPromptEntry !== undefined || state.lastUserPrompt !== undefined) && state.lastTime !== undefined

/**
 * What a listing shows as a session's name: its title, else its first prompt.
 *
 * @since 0.1.0
 * @category folding
 */
export const displayTitle = (metadata: SessionMetadata): string | undefined => metadata.title ?? metadata.firstPrompt
