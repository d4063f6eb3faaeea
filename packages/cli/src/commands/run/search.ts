/**
 * What `acx search` does (its options: `../args/search.ts`): opens the store to read (`--from`,
 * else the one `acx sync` keeps; creating nothing), runs `SessionSearch.search` (the catalog's
 * ranked hits, secrets masked) and prints them, or one JSON document (`SessionSearch.SearchResult`).
 *
 * @since 0.3.0
 */
import { plural } from "@acx/convert/Plural"
import * as StatsReport from "@acx/convert/StatsReport"
import * as SessionSearch from "@acx/session-store/SessionSearch"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as StoreCatalog from "@acx/session-store/StoreCatalog"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as CliError from "../../CliError.js"
import { CurrentIo } from "../../internal/currentIo.js"
import * as format from "../../internal/format.js"
import { useColor } from "../../internal/help.js"
import { projectLabel } from "../../internal/options.js"
import { readTarget } from "../../internal/target.js"
import type { SearchOptions } from "../args/search.js"

// Where the snippet marks a match, until the line is made printable: private-use characters,
// which no control-character filter touches, then bold (a terminal) or `**` (anything else).
const OPEN = "\uE000"
const CLOSE = "\uE001"
const BOLD = "\u001b[1m"
const NORMAL = "\u001b[22m"

/**
 * A snippet on one printable line: whitespace runs as one space, control characters (a
 * transcript's terminal escapes) as `?`, matches between `open` and `close`.
 *
 * @since 0.3.0
 * @category rendering
 */
export const snippetLine = (snippet: string, open: string, close: string): string =>
  CliError.printable(snippet.replace(/\s+/g, " ").trim()).replaceAll(OPEN, open).replaceAll(CLOSE, close)

const sessionOf = (hit: SessionSearch.Hit): string =>
  hit.subpath === ""
    ? hit.sessionId.slice(0, 8)
    : `${hit.sessionId.slice(0, 8)} ${hit.subpath.replace(/^subagents\//, "")}`

/**
 * The hits as text: per hit a heading (session, project, local time, role, the turn's uuid) and
 * its snippet, then how to open one.
 *
 * @since 0.3.0
 * @category rendering
 */
export const hitsText = (
  result: SessionSearch.SearchResult,
  marks: { readonly open: string; readonly close: string }
): string => {
  const lines: Array<string> = []
  for (const hit of result.hits) {
    const time = hit.timeMs === undefined ? "-" : format.date(hit.timeMs)
    const turn = hit.uuid === undefined ? "" : `  turn ${hit.uuid}`
    lines.push(`${sessionOf(hit)}  ${format.clip(hit.projectKey, 40)}  ${time}  ${hit.role}${turn}`)
    lines.push(`    ${snippetLine(hit.snippet, marks.open, marks.close)}`)
  }
  const first = result.hits[0]!
  const page = `#/session/${first.sessionId}${first.uuid === undefined ? "" : `?turn=${first.uuid}`}`
  lines.push(
    "",
    `${plural(result.hits.length, "hit")} in ${result.target}. Open one: acx show ${
      first.sessionId.slice(0, 8)
    }, or in acx ui at ${page}`
  )
  return lines.join("\n")
}

const sinceOf = (since: string | undefined): Effect.Effect<number | undefined, CliError.CliError> => {
  if (since === undefined) return Effect.succeed(undefined)
  const start = StatsReport.localDayStart(since)
  return start === undefined
    ? Effect.fail(
      CliError.invalidArgument(
        StatsReport.dayRangeMessage({ _tag: "NotADate", bound: "since", value: since }, () => "--since")
      )
    )
    : Effect.succeed(start)
}

const limitOf = (limit: number | undefined): Effect.Effect<number | undefined, CliError.CliError> =>
  limit === undefined || (limit >= 1 && limit <= StoreCatalog.MAX_LIMIT)
    ? Effect.succeed(limit)
    : Effect.fail(CliError.invalidArgument(`--limit: expected 1 to ${StoreCatalog.MAX_LIMIT}, got ${limit}`))

/**
 * @since 0.3.0
 * @category handlers
 */
export const run = ({ from, json, limit, project, query, role, since }: SearchOptions) =>
  Effect.gen(function*() {
    const text = query.join(" ")
    const options = {
      projectKey: project,
      since: yield* sinceOf(since),
      role,
      limit: yield* limitOf(limit),
      open: json ? "**" : OPEN,
      close: json ? "**" : CLOSE
    }
    const target = yield* readTarget(from)
    const hits = yield* Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const catalog = StoreCatalog.catalogOf(store)
      // every store a spec names keeps a catalog; one that did not could not be searched
      if (catalog === undefined) return yield* CliError.conflict(`${target.display} keeps no search index`)
      return yield* SessionSearch.search(catalog, text, options)
    }).pipe(Effect.provide(target.layer))
    const result: SessionSearch.SearchResult = { query: text, target: target.display, hits }
    if (json) return yield* Console.log(format.json(Schema.encodeSync(SessionSearch.SearchResult)(result)))
    if (hits.length === 0) {
      const where = options.projectKey === undefined ? "" : ` in project ${projectLabel(options.projectKey)}`
      return yield* Console.log(`no match for ${JSON.stringify(text)}${where} in ${target.display}`)
    }
    const io = yield* CurrentIo
    const color = useColor(io.env, io.isTTY)
    yield* Console.log(hitsText(result, color ? { open: BOLD, close: NORMAL } : { open: "**", close: "**" }))
  })
