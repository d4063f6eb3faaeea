// What a tool call's input means, for the tools `@acx/convert/ToolDisplay` knows: an edit as a
// unified diff (deleted and inserted lines coloured), a write as the file's first lines, a
// TodoWrite as a checklist. The display arrives built, masked and capped by the server's fold;
// every string is rendered as text (escaped by Preact). The raw input stays one click away (in
// SessionItems' ToolView).
import { cutNote, hunkHeader } from "@acx/convert/TextDiff"
import type { EditDiff, Todo, ToolDisplay } from "@acx/convert/ToolDisplay"

const LINE_CLASS = { " ": "ctx", "-": "del", "+": "ins" } as const

const EditView = (
  { edit, index, total }: { readonly edit: EditDiff; readonly index: number; readonly total: number }
) => {
  const note = cutNote(edit.cut)
  return (
    <div class="diff-edit">
      {(total > 1 || edit.replaceAll) && (
        <div class="label">
          Edit {index + 1} of {total}
          {edit.replaceAll ? " (every occurrence)" : ""}
        </div>
      )}
      {edit.hunks.length === 0 && note === undefined
        ? <p class="muted">No change.</p>
        : (
          <pre class="diff-lines">
            {edit.hunks.map((hunk, h) => (
              <span key={h}>
                <span class="hunk">{hunkHeader(hunk)}{"\n"}</span>
                {hunk.lines.map((line, i) => <span key={i} class={LINE_CLASS[line.op]}>{line.op}{line.text}{"\n"}</span>)}
              </span>
            ))}
          </pre>
        )}
      {note !== undefined && <p class="muted cut-note">{note}</p>}
    </div>
  )
}

const MARK: Readonly<Record<Todo["status"], string>> = { pending: "☐", in_progress: "◐", completed: "☑" }
const STATE: Readonly<Record<Todo["status"], string>> = {
  pending: "pending",
  in_progress: "in progress",
  completed: "completed"
}

/** A tool call's display: a diff, a written file, a checklist. */
export const ToolDisplayView = ({ display }: { readonly display: ToolDisplay }) => {
  switch (display.kind) {
    case "diff": {
      const total = display.edits.length + display.hiddenEdits
      return (
        <div class="diff">
          <div class="label mono clip-path">{display.path}</div>
          {display.edits.map((edit, i) => <EditView key={i} edit={edit} index={i} total={total} />)}
          {display.hiddenEdits > 0 && <p class="muted cut-note">diff cut: {display.hiddenEdits} more edits not shown
          </p>}
        </div>
      )
    }
    case "write":
      return (
        <div class="write">
          <div class="label mono clip-path">
            {display.path}
            {display.language !== undefined && <span class="badge">{display.language}</span>}
          </div>
          <pre class="text">{display.content}</pre>
          {display.content.length < display.size && (
            <p class="muted cut-note">
              content cut: {display.shownLines} of {display.lines} lines shown ({display.size} characters in all)
            </p>
          )}
        </div>
      )
    case "todos":
      return (
        <div class="todos">
          {display.todos.length === 0 && <p class="muted">No todos.</p>}
          <ul class="checklist">
            {display.todos.map((todo, i) => (
              <li key={i} class={`todo ${todo.status}`}>
                <span class="todo-mark" title={STATE[todo.status]} aria-label={STATE[todo.status]}>
                  {MARK[todo.status]}
                </span>{" "}
                {todo.content}
              </li>
            ))}
          </ul>
          {display.hidden > 0 && <p class="muted cut-note">… {display.hidden} more todos not shown</p>}
        </div>
      )
  }
}

/** A one-line hint of a display: the file, or how far the checklist got. */
export const displayHint = (display: ToolDisplay): string => {
  if (display.kind !== "todos") return display.path.slice(0, 120)
  const active = display.todos.find((todo) => todo.status === "in_progress")
  return `${display.completed} of ${display.todos.length + display.hidden} done${
    active === undefined ? "" : ` · ${active.content.split("\n")[0]!.slice(0, 100)}`
  }`
}
