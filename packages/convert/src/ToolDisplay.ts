/**
 * What a tool call's input means, for the tools whose raw JSON hides it: `Edit` and `MultiEdit`
 * as unified diffs of their old and new strings (`TextDiff`), `Write` as the new file's content
 * with its language guessed from the extension, `TodoWrite` as a checklist with each item's
 * state. Both the session page and `acx show` render these. Any other tool, and any input not of
 * the tool's shape (a field missing or of another type), has no display: its raw JSON is shown
 * as before. Every string goes through `mask` first (the page's secret masking) and every part is
 * capped, so a huge input gives a small display. Pure and total.
 *
 * @since 0.1.0
 */
import { getOwn as get, isObj } from "./internal/json.js"
import * as TextDiff from "./TextDiff.js"

/**
 * One edit's diff; `replaceAll` when the edit replaced every occurrence of its old string.
 *
 * @since 0.1.0
 * @category models
 */
export interface EditDiff {
  readonly replaceAll: boolean
  readonly hunks: ReadonlyArray<TextDiff.Hunk>
  readonly cut: TextDiff.Cut | undefined
}

/**
 * A todo's state, as `TodoWrite` writes it.
 *
 * @since 0.1.0
 * @category models
 */
export type TodoStatus = "pending" | "in_progress" | "completed"

/**
 * One item of a checklist (`content` cut at {@link MAX_CHECKLIST_ITEM_CHARS} characters).
 *
 * @since 0.1.0
 * @category models
 */
export interface Todo {
  readonly content: string
  readonly status: TodoStatus
}

/**
 * A tool call's input as shown:
 * - `diff`: an `Edit` (one edit) or `MultiEdit` (several), each with its hunks; `hiddenEdits`
 *   edits past the shared line budget are not diffed;
 * - `write`: a `Write`'s content, its first lines (`shownLines` of `lines`, `size` characters in
 *   all) and the language its extension suggests;
 * - `todos`: a `TodoWrite`'s checklist, its first {@link MAX_CHECKLIST_ITEMS} items (`hidden`: the rest;
 *   `completed`: how many of all are done).
 *
 * @since 0.1.0
 * @category models
 */
export type ToolDisplay =
  | {
    readonly kind: "diff"
    readonly path: string
    readonly edits: ReadonlyArray<EditDiff>
    readonly hiddenEdits: number
  }
  | {
    readonly kind: "write"
    readonly path: string
    readonly language: string | undefined
    readonly content: string
    readonly size: number
    readonly lines: number
    readonly shownLines: number
  }
  | {
    readonly kind: "todos"
    readonly todos: ReadonlyArray<Todo>
    readonly hidden: number
    readonly completed: number
  }

/**
 * A `Write`'s content shows at most this many lines…
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_WRITE_LINES = 200

/**
 * …and at most this many characters.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_WRITE_CHARS = 4_000

/**
 * A checklist shows at most this many todos.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_CHECKLIST_ITEMS = 100

/**
 * A todo's text is cut at this many characters.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_CHECKLIST_ITEM_CHARS = 500

const STATUSES: ReadonlySet<string> = new Set(["pending", "in_progress", "completed"])

const cutAt = TextDiff.cutChars

// A path on one line: control characters (a newline would start a fake diff line) as escapes.
const onePath = (path: string): string =>
  cutAt(path, 1_000).replace(
    /[\u0000-\u001f\u007f\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`
  )

const optionalBoolean = (value: unknown): value is boolean | undefined =>
  value === undefined || typeof value === "boolean"

interface EditInput {
  readonly old: string
  readonly new: string
  readonly replaceAll: boolean
}

// One edit of `Edit`'s or `MultiEdit`'s shape, else undefined.
const editOf = (value: unknown): EditInput | undefined => {
  const before = get(value, "old_string")
  const after = get(value, "new_string")
  const replaceAll = get(value, "replace_all")
  if (typeof before !== "string" || typeof after !== "string" || !optionalBoolean(replaceAll)) return undefined
  return { old: before, new: after, replaceAll: replaceAll === true }
}

// Edits diffed within one budget of TextDiff.MAX_SHOWN_LINES lines: what an edit shows is taken
// from what the next may show, and edits past the budget are counted, not diffed.
const diffDisplay = (
  path: string,
  edits: ReadonlyArray<EditInput>,
  mask: (text: string) => string
): ToolDisplay => {
  const shown: Array<EditDiff> = []
  let room = TextDiff.MAX_SHOWN_LINES
  for (const edit of edits) {
    if (room <= 0) break
    let before = mask(edit.old)
    let after = mask(edit.new)
    // a fragment ending with a line break on both sides: no empty last line on show
    if (before.endsWith("\n") && after.endsWith("\n")) {
      before = before.slice(0, -1)
      after = after.slice(0, -1)
    }
    const { cut, hunks } = TextDiff.diff(before, after, room)
    room -= hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0)
    shown.push({ replaceAll: edit.replaceAll, hunks, cut })
  }
  return { kind: "diff", path: onePath(mask(path)), edits: shown, hiddenEdits: edits.length - shown.length }
}

const writeDisplay = (path: string, content: string, mask: (text: string) => string): ToolDisplay => {
  const masked = mask(content)
  const all = masked.split("\n")
  const head = cutAt(all.slice(0, MAX_WRITE_LINES).join("\n"), MAX_WRITE_CHARS)
  const shownPath = onePath(mask(path))
  return {
    kind: "write",
    path: shownPath,
    language: languageOf(shownPath),
    content: head,
    size: masked.length,
    lines: all.length,
    shownLines: head === "" && masked !== "" ? 0 : head.split("\n").length
  }
}

const todosDisplay = (todos: ReadonlyArray<unknown>, mask: (text: string) => string): ToolDisplay | undefined => {
  const shown: Array<Todo> = []
  let completed = 0
  for (const todo of todos) {
    const content = get(todo, "content")
    const status = get(todo, "status")
    const activeForm = get(todo, "activeForm")
    if (
      typeof content !== "string" || typeof status !== "string" || !STATUSES.has(status) ||
      (activeForm !== undefined && typeof activeForm !== "string")
    ) return undefined
    if (status === "completed") completed++
    if (shown.length < MAX_CHECKLIST_ITEMS) {
      shown.push({ content: cutAt(mask(content), MAX_CHECKLIST_ITEM_CHARS), status: status as TodoStatus })
    }
  }
  return { kind: "todos", todos: shown, hidden: todos.length - shown.length, completed }
}

/**
 * How a tool call's input is shown, or `undefined` to show its raw JSON: a tool this module does
 * not know, or an input not of its shape.
 *
 * @since 0.1.0
 * @category displays
 */
export const displayOf = (
  name: unknown,
  input: unknown,
  mask: (text: string) => string = (text) => text
): ToolDisplay | undefined => {
  if (!isObj(input)) return undefined
  const path = get(input, "file_path")
  switch (name) {
    case "Edit": {
      const edit = editOf(input)
      return typeof path === "string" && edit !== undefined ? diffDisplay(path, [edit], mask) : undefined
    }
    case "MultiEdit": {
      const list = get(input, "edits")
      if (typeof path !== "string" || !Array.isArray(list) || list.length === 0) return undefined
      const edits = list.map(editOf)
      return edits.every((edit) => edit !== undefined) ? diffDisplay(path, edits, mask) : undefined
    }
    case "Write": {
      const content = get(input, "content")
      return typeof path === "string" && typeof content === "string" ? writeDisplay(path, content, mask) : undefined
    }
    case "TodoWrite": {
      const todos = get(input, "todos")
      return Array.isArray(todos) ? todosDisplay(todos, mask) : undefined
    }
  }
  return undefined
}

const LANGUAGES: Readonly<Record<string, string>> = {
  ts: "typescript",
  tsx: "tsx",
  mts: "typescript",
  cts: "typescript",
  js: "javascript",
  jsx: "jsx",
  mjs: "javascript",
  cjs: "javascript",
  json: "json",
  jsonl: "json",
  md: "markdown",
  mdx: "markdown",
  py: "python",
  rb: "ruby",
  rs: "rust",
  go: "go",
  java: "java",
  kt: "kotlin",
  swift: "swift",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  hpp: "cpp",
  cs: "csharp",
  php: "php",
  sh: "bash",
  bash: "bash",
  zsh: "bash",
  fish: "fish",
  ps1: "powershell",
  sql: "sql",
  html: "html",
  htm: "html",
  xml: "xml",
  svg: "xml",
  css: "css",
  scss: "scss",
  yml: "yaml",
  yaml: "yaml",
  toml: "toml",
  ini: "ini",
  vue: "vue",
  svelte: "svelte",
  lua: "lua",
  dockerfile: "dockerfile",
  makefile: "makefile"
}

/**
 * The language a file's name suggests (its extension, or the names `Dockerfile` and
 * `Makefile`), as a Markdown fence names it; `undefined` when none.
 *
 * @since 0.1.0
 * @category displays
 */
export const languageOf = (path: string): string | undefined => {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase()
  const dot = name.lastIndexOf(".")
  const key = dot === -1 ? name : name.slice(dot + 1)
  return Object.hasOwn(LANGUAGES, key) ? LANGUAGES[key] : undefined
}

// "a/src/x.ts" for a relative path, "a/Users/me/x.ts" for an absolute one, as git writes them.
const side = (prefix: "a" | "b", path: string): string => `${prefix}/${path.replace(/^\/+/, "")}`

/**
 * A diff display as unified-diff text: `--- a/path`, `+++ b/path`, then each edit's hunks (line
 * numbers count within the edit's old and new strings: an edit names a string, not a line),
 * and a line saying what was cut.
 *
 * @since 0.1.0
 * @category rendering
 */
export const unifiedDiff = (display: Extract<ToolDisplay, { kind: "diff" }>): string => {
  const out = [`--- ${side("a", display.path)}`, `+++ ${side("b", display.path)}`]
  display.edits.forEach((edit, index) => {
    if (display.edits.length > 1 || edit.replaceAll) {
      out.push(
        `# edit ${index + 1} of ${display.edits.length + display.hiddenEdits}${
          edit.replaceAll ? " (every occurrence)" : ""
        }`
      )
    }
    if (edit.hunks.length === 0 && edit.cut === undefined) out.push("# (no change)")
    for (const hunk of edit.hunks) {
      out.push(TextDiff.hunkHeader(hunk))
      for (const line of hunk.lines) out.push(line.op + line.text)
    }
    const note = TextDiff.cutNote(edit.cut)
    if (note !== undefined) out.push(`# ${note}`)
  })
  if (display.hiddenEdits > 0) out.push(`# diff cut: ${display.hiddenEdits} more edits not shown`)
  return out.join("\n")
}

/**
 * What a write display left out, in words ("… 1 200 more lines not shown (48 000 characters
 * in all)"), or `undefined` when it shows the whole content.
 *
 * @since 0.1.0
 * @category rendering
 */
export const writeCutNote = (display: Extract<ToolDisplay, { kind: "write" }>): string | undefined =>
  display.content.length === display.size
    ? undefined
    : `content cut: ${display.shownLines} of ${display.lines} lines shown (${display.size} characters in all)`
