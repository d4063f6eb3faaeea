/**
 * The two kinds of entries the team shares, observations and summaries, described once: their
 * local and team tables and their columns. The push, the pull and the Postgres DDL all read
 * these, so a column is named in one place.
 */

/** One kind of shared entry. */
export interface TeamShape {
  readonly kind: "observation" | "summary"
  /** The local SQLite table. */
  readonly local: string
  /** The team table (in the team's schema). */
  readonly remote: string
  /** Text columns (`nullable`: may be NULL). */
  readonly texts: ReadonlyArray<{ readonly name: string; readonly nullable: boolean }>
  /** JSON lists of strings (TEXT locally, `jsonb` in Postgres). */
  readonly lists: ReadonlyArray<string>
  /** The lists of file paths (shared named from the repository's root, never withheld). */
  readonly paths: ReadonlyArray<string>
}

/** Observations. */
export const observation: TeamShape = {
  kind: "observation",
  local: "memory_observations",
  remote: "memory_observations",
  texts: [
    { name: "type", nullable: false },
    { name: "title", nullable: false },
    { name: "subtitle", nullable: true },
    { name: "narrative", nullable: false }
  ],
  lists: ["facts", "concepts", "files_read", "files_modified"],
  paths: ["files_read", "files_modified"]
}

/** Session summaries. */
export const summary: TeamShape = {
  kind: "summary",
  local: "memory_summaries",
  remote: "memory_summaries",
  texts: [
    { name: "request", nullable: false },
    { name: "investigated", nullable: false },
    { name: "learned", nullable: false },
    { name: "completed", nullable: false },
    { name: "next_steps", nullable: false },
    { name: "notes", nullable: false }
  ],
  lists: ["files_read", "files_edited"],
  paths: ["files_read", "files_edited"]
}

/** Both, in the order they are synced. */
export const shapes: ReadonlyArray<TeamShape> = [observation, summary]

/** The shape of a kind. */
export const shapeOf = (kind: string): TeamShape | undefined => shapes.find((shape) => shape.kind === kind)

/** The columns every shared entry has besides its texts and lists. */
export const commonColumns = ["uid", "project", "author", "machine", "session_id", "source", "created_at"] as const

/** An entry as it travels: column name to value (lists as JSON text). */
export type Wire = Record<string, string | number | null>

/** Every column of a shape that travels, in order. */
export const wireColumns = (shape: TeamShape): ReadonlyArray<string> => [
  ...commonColumns,
  ...shape.texts.map((text) => text.name),
  ...shape.lists,
  "forgotten_at"
]
