/**
 * The team memory's side in Postgres: the schema (created idempotently, under an advisory lock so
 * two machines creating it at once do not collide), and the statements of a sync — insert entries
 * by uid (a second insert of one is nothing), set forgotten states, and read a project's entries
 * changed since a watermark.
 *
 * Every row carries the transaction that last wrote it (`txid`, `xid8`). A pull reads rows in
 * `(txid, uid)` order and only those written by transactions older than every one still running
 * (`pg_snapshot_xmin`): a transaction that commits later has a larger `txid` than any read, so a
 * watermark never skips a row (a plain sequence would: a lower number can commit after a higher
 * one was read). Every table has a `project` column (the git remote) so that row-level security
 * by project can apply.
 */
import type * as Pg from "pg"
import type { TeamShape, Wire } from "./teamShapes.js"
import { shapes, wireColumns } from "./teamShapes.js"

/** A schema name, quoted (the caller checked it is a plain identifier). */
export const quoted = (schema: string): string => `"${schema}"`

const table = (schema: string, shape: TeamShape): string => `${quoted(schema)}.${shape.remote}`

const ddlOf = (schema: string, shape: TeamShape): ReadonlyArray<string> => {
  const name = table(schema, shape)
  const texts = shape.texts.map((text) => `${text.name} text${text.nullable ? "" : " NOT NULL"}`)
  const lists = shape.lists.map((list) => `${list} jsonb NOT NULL DEFAULT '[]'`)
  const searched = [
    ...shape.texts.map((text) => text.nullable ? `coalesce(${text.name}, '')` : text.name),
    ...shape.lists.map((list) => `${list}::text`)
  ].join(" || ' ' || ")
  return [
    `CREATE TABLE IF NOT EXISTS ${name} (
  uid text PRIMARY KEY,
  project text NOT NULL,
  author text NOT NULL,
  machine text NOT NULL,
  session_id text NOT NULL,
  source text NOT NULL,
  created_at bigint NOT NULL,
  ${[...texts, ...lists].join(",\n  ")},
  forgotten_at bigint,
  forgotten_by text,
  pushed_at timestamptz NOT NULL DEFAULT now(),
  txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  search tsvector GENERATED ALWAYS AS (to_tsvector('english', ${searched})) STORED
)`,
    `CREATE INDEX IF NOT EXISTS ${shape.remote}_changes ON ${name} (project, txid, uid)`,
    `CREATE INDEX IF NOT EXISTS ${shape.remote}_search ON ${name} USING gin (search)`
  ]
}

// read from the catalog, which every role may read: whether the tables are there is one
// question, whether this role may use them another (`checkAccess`)
const present = async (client: Pg.Client, schema: string): Promise<boolean> =>
  (await client.query<{ present: boolean }>(
    `SELECT count(*) = $2 AS present FROM pg_catalog.pg_class c
     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND c.relname = ANY($3)`,
    [schema, shapes.length, shapes.map((shape) => shape.remote)]
  )).rows[0]?.present === true

/**
 * Fails as Postgres does (SQLSTATE 42501, naming the table) when this role may not read and
 * insert the team's tables: a sync can then say so before it has anything to push.
 */
export const checkAccess = async (client: Pg.Client, schema: string): Promise<void> => {
  const { rows } = await client.query<{ table: string; privilege: string }>(
    `SELECT t AS table, p AS privilege FROM unnest($1::text[]) AS t, unnest(ARRAY['SELECT', 'INSERT']) AS p
     WHERE NOT has_table_privilege(t, p)`,
    [shapes.map((shape) => table(schema, shape))]
  )
  const refused = rows[0]
  if (refused !== undefined) {
    const name = refused.table.slice(refused.table.lastIndexOf(".") + 1)
    throw Object.assign(new Error(`permission denied for table ${name} (${refused.privilege})`), { code: "42501" })
  }
}

/**
 * Creates the schema and its tables when missing, inside the caller's transaction (`hub init
 * --team` sets the rest up in the same one).
 */
export const createMissing = async (client: Pg.Client, schema: string): Promise<void> => {
  if (await present(client, schema)) return
  await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`acx team schema ${schema}`])
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted(schema)}`)
  for (const shape of shapes) {
    for (const statement of ddlOf(schema, shape)) await client.query(statement)
  }
}

/**
 * Creates the schema and its tables when missing. A role that may not create them (a sync role
 * of a hub an administrator set up) only needs them to exist.
 */
export const ensureSchema = async (client: Pg.Client, schema: string): Promise<void> => {
  if (await present(client, schema)) return
  await client.query("BEGIN")
  try {
    await createMissing(client, schema)
    await client.query("COMMIT")
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined)
    throw error
  }
}

const recordType = (shape: TeamShape): string =>
  wireColumns(shape).filter((column) => column !== "forgotten_at").map((column) =>
    `${column} ${column === "created_at" ? "bigint" : shape.lists.includes(column) ? "jsonb" : "text"}`
  ).join(", ")

/** Inserts entries; one already there (by uid) is left as it is. How many were new. */
export const insert = async (
  client: Pg.Client,
  schema: string,
  shape: TeamShape,
  rows: ReadonlyArray<Wire>
): Promise<number> => {
  if (rows.length === 0) return 0
  const columns = wireColumns(shape).filter((column) => column !== "forgotten_at")
  // one parameter for the whole batch: a JSON array read back into typed records
  const result = await client.query(
    `INSERT INTO ${table(schema, shape)} (${columns.join(", ")})
     SELECT ${columns.join(", ")} FROM jsonb_to_recordset($1::jsonb) AS r(${recordType(shape)})
     ON CONFLICT (uid) DO NOTHING`,
    [JSON.stringify(rows.map((row) => ({ ...row, ...listsAsJson(shape, row) })))]
  )
  return result.rowCount ?? 0
}

const listsAsJson = (shape: TeamShape, row: Wire): Record<string, unknown> =>
  Object.fromEntries(shape.lists.map((list) => [list, JSON.parse(String(row[list] ?? "[]")) as unknown]))

/** Sets an entry's forgotten state (a time, or `null`: remembered again); whether it changed. */
export const setForgotten = async (
  client: Pg.Client,
  schema: string,
  shape: TeamShape,
  change: { readonly uid: string; readonly forgottenAt: number | null; readonly by: string }
): Promise<boolean> => {
  const result = await client.query(
    `UPDATE ${table(schema, shape)}
     SET forgotten_at = $2, forgotten_by = $3, txid = pg_current_xact_id()
     WHERE uid = $1 AND forgotten_at IS DISTINCT FROM $2`,
    // who changed the state last (a restore too): a pull skips one's own entries nobody changed
    [change.uid, change.forgottenAt, change.by]
  )
  return (result.rowCount ?? 0) > 0
}

/** How far a project's entries were read: the last row's transaction and uid. */
export interface Watermark {
  readonly txid: string
  readonly uid: string
}

/** The watermark of nothing read yet. */
export const START: Watermark = { txid: "0", uid: "" }

/**
 * A project's entries written after `after`, oldest transaction first, at most `limit`; one's
 * own (`self`) only when someone changed its forgotten state (the rest are here already).
 */
export const changedSince = async (
  client: Pg.Client,
  schema: string,
  shape: TeamShape,
  project: string,
  after: Watermark,
  limit: number,
  self: { readonly author: string; readonly machine: string }
): Promise<ReadonlyArray<{ readonly wire: Wire; readonly mark: Watermark }>> => {
  const columns = wireColumns(shape).map((column) =>
    shape.lists.includes(column) ? `${column}::text AS ${column}` : column
  )
  const result = await client.query<Record<string, string | null>>(
    `SELECT ${columns.join(", ")}, txid::text AS txid FROM ${table(schema, shape)}
     WHERE project = $1 AND (txid, uid) > ($2::xid8, $3)
       AND txid < pg_snapshot_xmin(pg_current_snapshot())
       AND NOT (author = $5 AND machine = $6 AND forgotten_by IS NULL)
     ORDER BY txid, uid LIMIT $4`,
    [project, after.txid, after.uid, limit, self.author, self.machine]
  )
  return result.rows.map((row) => ({
    wire: {
      ...row,
      // bigint columns come back as text
      created_at: Number(row["created_at"]),
      forgotten_at: row["forgotten_at"] === null ? null : Number(row["forgotten_at"])
    },
    mark: { txid: row["txid"]!, uid: row["uid"]! }
  }))
}
