/**
 * Observations and summaries without a model: what can be read straight from the events —
 * the user's prompts, files read and edited (from tool inputs), commands run and whether they
 * failed, errors seen. Used in `mode: "local"`, when the daily budget is spent, and when there
 * are no credentials, so the memory works offline and for free; the model only enriches it.
 *
 * What is made of the prompts and commands as typed stays on this machine: the team push never
 * sends those observations ({@link isVerbatim}) nor a local summary's request ({@link PROMPT_FIELDS}).
 *
 * Pure and total: malformed payloads give fewer facts, never an error.
 *
 * @since 0.1.0
 */
import type { Observation, Summary } from "@acx/convert/ObserverReply"
import { plural } from "@acx/convert/Plural"
import * as path from "node:path"
import type { PromptEvent } from "./ObserverPrompts.js"

const READ_TOOLS = new Set(["Read", "NotebookRead"])
const EDIT_TOOLS = new Set(["Edit", "MultiEdit", "Write", "NotebookEdit"])
const COMMAND_TOOLS = new Set(["Bash", "BashOutput", "PowerShell"])

const object = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {}

const payloadOf = (event: PromptEvent): Record<string, unknown> => {
  try {
    return object(JSON.parse(event.payload))
  } catch {
    return {}
  }
}

const str = (value: unknown): string | undefined => typeof value === "string" && value !== "" ? value : undefined

const firstLine = (text: string, max = 160): string => {
  const line = text.split("\n").map((part) => part.trim()).find((part) => part !== "") ?? ""
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

const shown = (project: string, file: string): string => {
  const relative = path.isAbsolute(file) ? path.relative(project, file) : file
  return relative !== "" && !relative.startsWith("..") ? relative : file
}

const unique = (items: ReadonlyArray<string>): Array<string> => [...new Set(items)]

/**
 * What the events say, gathered.
 *
 * @since 0.1.0
 * @category models
 */
export interface Gathered {
  readonly prompts: ReadonlyArray<string>
  readonly filesRead: ReadonlyArray<string>
  readonly filesEdited: ReadonlyArray<string>
  readonly commands: ReadonlyArray<{ readonly command: string; readonly failed: boolean }>
  readonly errors: ReadonlyArray<string>
}

/**
 * Reads prompts, files, commands and errors out of events (paths shown relative to the project
 * when inside it).
 *
 * @since 0.1.0
 * @category gathering
 */
export const gather = (project: string, events: ReadonlyArray<PromptEvent>): Gathered => {
  const prompts: Array<string> = []
  const filesRead: Array<string> = []
  const filesEdited: Array<string> = []
  const commands: Array<{ command: string; failed: boolean }> = []
  const errors: Array<string> = []
  for (const event of events) {
    const payload = payloadOf(event)
    if (event.kind === "prompt") {
      const prompt = str(payload["prompt"])
      if (prompt !== undefined) prompts.push(prompt)
      continue
    }
    if (event.kind !== "tool" && event.kind !== "tool_failure") continue
    const tool = event.toolName ?? ""
    const input = object(payload["tool_input"])
    const file = str(input["file_path"]) ?? str(input["notebook_path"])
    const failed = event.kind === "tool_failure"
    if (file !== undefined && READ_TOOLS.has(tool) && !failed) filesRead.push(shown(project, file))
    if (file !== undefined && EDIT_TOOLS.has(tool) && !failed) filesEdited.push(shown(project, file))
    const command = str(input["command"])
    if (command !== undefined && COMMAND_TOOLS.has(tool)) commands.push({ command: firstLine(command, 200), failed })
    if (failed) {
      const error = str(payload["error"])
      errors.push(`${tool}${file === undefined ? "" : ` ${shown(project, file)}`}: ${firstLine(error ?? "failed")}`)
    }
  }
  return {
    prompts,
    filesRead: unique(filesRead),
    filesEdited: unique(filesEdited),
    commands,
    errors: unique(errors)
  }
}

const observation = (
  fields: Partial<Observation> & Pick<Observation, "type" | "title" | "narrative">
): Observation => ({
  subtitle: undefined,
  facts: [],
  concepts: [],
  filesRead: [],
  filesModified: [],
  ...fields
})

const listed = (items: ReadonlyArray<string>, max = 5): string =>
  items.length <= max ? items.join(", ") : `${items.slice(0, max).join(", ")} and ${items.length - max} more`

/**
 * The concepts of the observations made of the user's own words, as typed: a prompt, the commands
 * run. They stay on this machine: the team push never sends them (`isVerbatim`).
 *
 * @since 0.4.0
 * @category sharing
 */
export const VERBATIM_CONCEPTS: ReadonlyArray<string> = ["prompt", "command"]

/**
 * Whether an entry is one the local observer made of the user's prompts or commands as typed
 * (its source `local` and a concept of {@link VERBATIM_CONCEPTS}): kept on this machine.
 *
 * @since 0.4.0
 * @category sharing
 */
export const isVerbatim = (entry: { readonly source: string; readonly concepts: ReadonlyArray<string> }): boolean =>
  entry.source === "local" && entry.concepts.some((concept) => VERBATIM_CONCEPTS.includes(concept))

/**
 * The fields of a local summary that hold the prompts as typed (`request`): the team push sends
 * them empty.
 *
 * @since 0.4.0
 * @category sharing
 */
export const PROMPT_FIELDS: ReadonlyArray<string> = ["request"]

/**
 * A batch's observations: one per user prompt, one for the files edited, one for the commands
 * run, one for the failures, one for the files read (each only when there is something to say).
 *
 * @since 0.1.0
 * @category observing
 */
export const observe = (project: string, events: ReadonlyArray<PromptEvent>): Array<Observation> => {
  const gathered = gather(project, events)
  const out: Array<Observation> = gathered.prompts.map((prompt) =>
    observation({
      type: "other",
      title: `User asked: ${firstLine(prompt, 100)}`,
      narrative: prompt.length > 2000 ? `${prompt.slice(0, 1999)}…` : prompt,
      concepts: ["prompt"]
    })
  )
  if (gathered.filesEdited.length > 0) {
    out.push(observation({
      type: "change",
      title: `Edited ${plural(gathered.filesEdited.length, "file")}: ${listed(gathered.filesEdited, 3)}`,
      narrative: `Files edited: ${listed(gathered.filesEdited, 50)}.`,
      filesModified: gathered.filesEdited,
      concepts: ["edit"]
    }))
  }
  if (gathered.commands.length > 0) {
    const failed = gathered.commands.filter((command) => command.failed).length
    out.push(observation({
      type: "change",
      title: `Ran ${plural(gathered.commands.length, "command")}${failed > 0 ? ` (${failed} failed)` : ""}: ${
        firstLine(gathered.commands[0]!.command, 60)
      }`,
      narrative: `Commands run: ${
        gathered.commands.map((command) => `\`${command.command}\`${command.failed ? " (failed)" : ""}`).join("; ")
      }.`,
      facts: gathered.commands.map((command) => `${command.failed ? "failed" : "ran"}: ${command.command}`),
      concepts: ["command"]
    }))
  }
  if (gathered.errors.length > 0) {
    out.push(observation({
      type: "discovery",
      title: `${plural(gathered.errors.length, "tool call")} failed: ${firstLine(gathered.errors[0]!, 80)}`,
      narrative: `Errors seen: ${gathered.errors.join("; ")}.`,
      facts: gathered.errors,
      concepts: ["error"]
    }))
  }
  if (gathered.filesRead.length > 0) {
    out.push(observation({
      type: "discovery",
      title: `Read ${plural(gathered.filesRead.length, "file")}: ${listed(gathered.filesRead, 3)}`,
      narrative: `Files read: ${listed(gathered.filesRead, 50)}.`,
      filesRead: gathered.filesRead,
      concepts: ["read"]
    }))
  }
  return out
}

/**
 * A session's summary from its events (`undefined` when they hold nothing to summarise);
 * `reason` says why no model wrote it.
 *
 * @since 0.1.0
 * @category summarising
 */
export const summarise = (
  project: string,
  events: ReadonlyArray<PromptEvent>,
  reason: string
): Summary | undefined => {
  const gathered = gather(project, events)
  const nothing = gathered.prompts.length + gathered.filesRead.length + gathered.filesEdited.length +
      gathered.commands.length + gathered.errors.length === 0
  if (nothing) return undefined
  const failedCommands = gathered.commands.filter((command) => command.failed)
  return {
    request: gathered.prompts.map((prompt) => firstLine(prompt, 300)).join(" / "),
    investigated: gathered.filesRead.length > 0 ? `Read ${listed(gathered.filesRead, 20)}` : "",
    learned: gathered.errors.length > 0 ? `Errors seen: ${gathered.errors.join("; ")}` : "",
    completed: [
      ...(gathered.filesEdited.length > 0 ? [`Edited ${listed(gathered.filesEdited, 20)}`] : []),
      ...(gathered.commands.length > 0
        ? [
          `ran ${plural(gathered.commands.length, "command")}${
            failedCommands.length > 0 ? `, ${failedCommands.length} failed` : ""
          }`
        ]
        : [])
    ].join("; "),
    nextSteps: "",
    filesRead: gathered.filesRead,
    filesEdited: gathered.filesEdited,
    notes: `Recorded without a model (${reason}).`
  }
}
