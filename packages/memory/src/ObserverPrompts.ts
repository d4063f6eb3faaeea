/**
 * The observer's prompts: kept as files next to this module (`prompts/init.md`, `observe.md`,
 * `summarise.md`, `reminder.md`) so they are read and changed as text, and filled here with a
 * session's project, date and queued events. Filling is pure; {@link load} reads the files.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"

/**
 * The prompt texts, with `{{name}}` placeholders.
 *
 * @since 0.1.0
 * @category models
 */
export interface Templates {
  readonly init: string
  readonly observe: string
  readonly summarise: string
  readonly reminder: string
}

/**
 * Reads the prompt files shipped with the package (`dir`: another directory with the same four
 * files).
 *
 * @since 0.1.0
 * @category loading
 */
export const load = (dir: URL = new URL("./prompts/", import.meta.url)): Templates => {
  const read = (name: string) => fs.readFileSync(new URL(`${name}.md`, dir), "utf8").trimEnd()
  return { init: read("init"), observe: read("observe"), summarise: read("summarise"), reminder: read("reminder") }
}

/**
 * `{{name}}` replaced by its value; an unknown name is left as it is.
 *
 * @since 0.1.0
 * @category filling
 */
export const fill = (template: string, values: { readonly [name: string]: string | number }): string =>
  template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => name in values ? String(values[name]) : whole)

/**
 * A queued event as the observer sees it.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromptEvent {
  readonly id: number
  readonly kind: "prompt" | "tool" | "tool_failure" | "summarise"
  readonly toolName: string | null
  /** The stored JSON payload. */
  readonly payload: string
  readonly createdAt: number
}

const parsePayload = (payload: string): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(payload)
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {}
  } catch {
    return {}
  }
}

const show = (value: unknown): string => typeof value === "string" ? value : JSON.stringify(value) ?? "null"

const time = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 19).replace("T", " ")

/**
 * One event's text: a heading line (`--- event 12 · 2026-11-24 10:01:02 · Bash`), then the
 * prompt, or the tool's input and output (or error).
 *
 * @since 0.1.0
 * @category filling
 */
export const renderEvent = (event: PromptEvent): string => {
  const payload = parsePayload(event.payload)
  const heading = (what: string) => `--- event ${event.id} · ${time(event.createdAt)} · ${what}`
  switch (event.kind) {
    case "prompt":
      return `${heading("the user asked")}\n${show(payload["prompt"] ?? "")}`
    case "tool":
      return `${heading(`tool ${event.toolName ?? "?"}`)}\ninput: ${show(payload["tool_input"])}\noutput: ${
        show(payload["tool_response"])
      }`
    case "tool_failure":
      return `${
        heading(`tool ${event.toolName ?? "?"} FAILED${payload["is_interrupt"] === true ? " (interrupted)" : ""}`)
      }\ninput: ${show(payload["tool_input"])}\nerror: ${show(payload["error"])}`
    case "summarise":
      return heading("checkpoint")
  }
}

/**
 * The session facts the first prompt states.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionFacts {
  readonly project: string
  readonly sessionId: string
  /** Epoch ms; its UTC date is stated. */
  readonly now: number
}

/**
 * The prompt for a batch of events; the first prompt of an observer conversation starts with
 * the instructions (`init.md`), so instructions and the first batch cost one model call.
 *
 * @since 0.1.0
 * @category filling
 */
export const observe = (
  templates: Templates,
  events: ReadonlyArray<PromptEvent>,
  options: { readonly first: boolean; readonly session: SessionFacts }
): string => {
  const body = fill(templates.observe, {
    first: events[0]?.id ?? 0,
    last: events.at(-1)?.id ?? 0,
    count: events.length,
    events: events.map(renderEvent).join("\n\n")
  })
  return options.first ? `${init(templates, options.session)}\n\n${body}` : body
}

/**
 * The instructions, filled.
 *
 * @since 0.1.0
 * @category filling
 */
export const init = (templates: Templates, session: SessionFacts): string =>
  fill(templates.init, {
    project: session.project,
    sessionId: session.sessionId,
    date: new Date(session.now).toISOString().slice(0, 10)
  })

/**
 * The summary prompt (`trigger`: what asked for it, e.g. `Stop` or `SessionEnd`), naming the
 * observations recorded so far (a conversation started afresh has not seen the earlier batches);
 * the first prompt of a conversation carries the instructions too.
 *
 * @since 0.1.0
 * @category filling
 */
export const summarise = (
  templates: Templates,
  options: {
    readonly trigger: string
    readonly first: boolean
    readonly session: SessionFacts
    /** The observations recorded in the session so far. */
    readonly recorded?: ReadonlyArray<{ readonly type: string; readonly title: string }> | undefined
  }
): string => {
  const recorded = options.recorded ?? []
  const body = fill(templates.summarise, {
    trigger: options.trigger,
    recorded: recorded.length === 0
      ? "(none yet)"
      : recorded.map((observation) => `- [${observation.type}] ${observation.title}`).join("\n")
  })
  return options.first ? `${init(templates, options.session)}\n\n${body}` : body
}
