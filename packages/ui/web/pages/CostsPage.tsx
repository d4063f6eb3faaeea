// Costs: the bill of a date range as pictures. The range lives in the hash query
// (#/costs?since=…&until=…; #/costs?range=all for every day; plain #/costs is the last 30 days,
// what a reader asks first); the figures are those of `acx stats --by day --json` for it (one
// document from the server), drawn as dollars and tokens per day stacked by model, with the
// projects and the sessions that cost most below.
import { useEffect, useState } from "preact/hooks"
import type { CostsResponse, OriginCost } from "../../src/CostsView.js"
import { dollars, tokenCount } from "../../src/CostsView.js"
import { getJson } from "../api.js"
import { DayTable } from "../components/DayTable.js"
import { NowPanel } from "../components/NowPanel.js"
import { lastDays, RangePicker } from "../components/RangePicker.js"
import { StackedBars } from "../components/StackedBars.js"
import * as format from "../format.js"
import { href, type Route } from "../router.js"

// an axis label: `$12.5`, `$0.05`, `$1.2K` (the splits are round numbers, with float noise)
const axisDollars = (value: number): string =>
  value >= 1000 ? `$${format.count(Math.round(value))}` : `$${String(Number(value.toPrecision(4)))}`

// The range the page opens on.
const DEFAULT_DAYS = 30

const rangeText = (since: string | null, until: string | null): string =>
  since === null && until === null
    ? "all days"
    : since === null
    ? `up to ${until}`
    : until === null
    ? `from ${since}`
    : since === until
    ? since
    : `${since} to ${until}`

const Totals = ({ body }: { readonly body: CostsResponse }) => {
  const total = body.day.total
  const items: ReadonlyArray<readonly [string, string, string]> = [
    ["usd", "Cost", dollars(total.costUSD)],
    ["input", "Input tokens", tokenCount(total.tokens.input)],
    ["output", "Output tokens", tokenCount(total.tokens.output)],
    ["cacheWrite", "Cache write", tokenCount(total.tokens.cacheWrite)],
    ["cacheRead", "Cache read", tokenCount(total.tokens.cacheRead)],
    ["total", "All tokens", tokenCount(total.tokens.total)],
    ["sessions", "Sessions", String(total.sessions)]
  ]
  return (
    <dl class="totals">
      {items.map(([key, label, value]) => (
        <div key={key} data-total={key}>
          <dt>{label}</dt>
          <dd>
            {value}
            {key === "usd" && total.unpriced.length > 0 && <small class="muted">{" + unpriced"}</small>}
          </dd>
        </div>
      ))}
    </dl>
  )
}

// A row per project, machine or user: its sessions, tokens and dollars, and a bar for its share
// of the most expensive one; its name links to the sessions list filtered by it.
interface ShareRow {
  readonly key: string
  readonly name: string
  readonly title: string | undefined
  readonly link: string
  readonly sessions: number
  readonly tokens: number
  readonly costUSD: number
  readonly unpriced: boolean
}

const ShareTable = (
  { className, heading, rows }: {
    readonly className: string
    readonly heading: string
    readonly rows: ReadonlyArray<ShareRow>
  }
) => {
  const most = Math.max(0, ...rows.map((row) => row.costUSD))
  return (
    <div class="table-wrap">
      <table class={className}>
        <thead>
          <tr>
            <th scope="col">{heading}</th>
            <th scope="col" class="num">Sessions</th>
            <th scope="col" class="num">Tokens</th>
            <th scope="col" class="num">Cost</th>
            <th scope="col" class="bar-col">
              <span class="visually-hidden">Share of the most</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key}>
              <td title={row.title}>
                <a href={row.link}>{row.name}</a>
              </td>
              <td class="num">{row.sessions}</td>
              <td class="num">{format.count(row.tokens)}</td>
              <td class="num">{dollars(row.costUSD)}{row.unpriced ? "+?" : ""}</td>
              <td class="bar-col" aria-hidden="true">
                <div class="bar" style={{ width: `${most > 0 ? (100 * row.costUSD) / most : 0}%` }} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

const Projects = ({ body }: { readonly body: CostsResponse }) => (
  <ShareTable
    className="projects-table"
    heading="Project"
    rows={body.projects.map((project) => ({
      key: project.projectKey,
      name: project.name,
      title: project.cwd ?? project.projectKey,
      // one path key: the list's project filter; several (clones of one remote): by identity
      link: href(
        "sessions",
        undefined,
        project.projectKeys.length === 1 ? { project: project.projectKeys[0] } : { projectId: project.projectKey }
      ),
      sessions: project.sessions,
      tokens: project.tokens.total,
      costUSD: project.costUSD,
      unpriced: project.unpriced.length > 0
    }))}
  />
)

// Costs per machine or per OS user, each linked to the sessions list filtered by it.
const Origins = (
  { filter, heading, rows }: {
    readonly rows: ReadonlyArray<OriginCost>
    readonly heading: string
    readonly filter: "machine" | "user"
  }
) => (
  <ShareTable
    className={`${filter}s-table`}
    heading={heading}
    rows={rows.map((row) => ({
      key: row.key,
      name: row.key,
      title: undefined,
      link: href("sessions", undefined, { [filter]: row.key }),
      sessions: row.sessions,
      tokens: row.tokens.total,
      costUSD: row.costUSD,
      unpriced: row.unpriced.length > 0
    }))}
  />
)

const TopSessions = ({ body }: { readonly body: CostsResponse }) => (
  <div class="table-wrap">
    <table class="top-sessions">
      <thead>
        <tr>
          <th scope="col">Session</th>
          <th scope="col">Project</th>
          <th scope="col">Started</th>
          <th scope="col" class="num">Messages</th>
          <th scope="col" class="num">Tokens</th>
          <th scope="col" class="num">Cost</th>
        </tr>
      </thead>
      <tbody>
        {body.sessions.map((session) => (
          <tr key={session.sessionId} class={session.outlier ? "outlier" : undefined}>
            <td class="title-cell">
              <a href={href("session", session.sessionId)}>{session.title ?? session.sessionId}</a>
              <div class="muted mono">{session.sessionId.slice(0, 8)}</div>
            </td>
            <td>{session.project}</td>
            <td>{format.dateTime(session.firstTimestamp)}</td>
            <td class="num">{session.messages}</td>
            <td class="num">{format.count(session.tokens)}</td>
            <td class="num">
              {dollars(session.costUSD)}
              {session.unpriced.length > 0 ? "+?" : ""}
              {session.outlier && (
                <span class="badge warn" title="Cost far more than this project's usual session">unusual</span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
)

export const CostsPage = ({ route }: { readonly route: Route }) => {
  // no range asked for: the last 30 days (every day, mostly empty, is one click away)
  const chosen = route.query.has("since") || route.query.has("until") || route.query.get("range") === "all"
  const fallback = chosen ? { since: "", until: "" } : lastDays(DEFAULT_DAYS)
  const since = route.query.get("since") ?? fallback.since
  const until = route.query.get("until") ?? fallback.until
  const [body, setBody] = useState<CostsResponse | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [loading, setLoading] = useState(true)

  useEffect(() => {
    const abort = new AbortController()
    setLoading(true)
    setError(undefined)
    const search = new URLSearchParams()
    if (since !== "") search.set("since", since)
    if (until !== "") search.set("until", until)
    getJson<CostsResponse>(`/api/costs?${search}`, abort.signal).then((next) => {
      setBody(next)
      setLoading(false)
    }, (e: Error) => {
      if (abort.signal.aborted) return
      setError(e.message)
      setLoading(false)
    })
    return () => abort.abort()
  }, [since, until])

  const go = (next: { readonly since: string; readonly until: string }) => {
    location.hash = href("costs", undefined, next.since === "" && next.until === "" ? { range: "all" } : next)
  }

  const shown = error === undefined ? body : undefined
  const total = shown?.day.total
  return (
    <section class="page costs" aria-busy={loading}>
      <h1>
        Costs {shown !== undefined && <span class="muted">{rangeText(shown.day.since, shown.day.until)}</span>}
      </h1>
      <NowPanel />
      <RangePicker since={since} until={until} onChange={go} />
      {error !== undefined && <p class="error" role="alert">{error}</p>}
      {shown === undefined && error === undefined && <p class="loading">Loading costs…</p>}
      {shown !== undefined && total !== undefined && (
        <>
          <Totals body={shown} />
          {total.unpriced.length > 0 && (
            <p class="warn-box" role="note">
              No price for{" "}
              {total.unpriced.join(", ")}: their tokens are counted, their dollars are not (no price: add it to
              $ACX_HOME/pricing.json).
            </p>
          )}
          {shown.day.rows.length === 0
            ? <p class="muted">No usage in this range.</p>
            : (
              <>
                <h2 id="usd-chart">Dollars per day, by model</h2>
                <StackedBars
                  days={shown.series.days}
                  models={shown.series.models}
                  values={shown.series.usd}
                  label={`Bar chart: US dollars per day from ${shown.series.days[0]} to ${
                    shown.series.days[shown.series.days.length - 1]
                  }, stacked by model (${shown.series.models.join(", ")}); the table below holds the same numbers.`}
                  format={axisDollars}
                />
                <DayTable body={shown} figure="usd" />
                <h2 id="tokens-chart">Tokens per day, by model</h2>
                <StackedBars
                  days={shown.series.days}
                  models={shown.series.models}
                  values={shown.series.tokens}
                  label={`Bar chart: tokens per day from ${shown.series.days[0]} to ${
                    shown.series.days[shown.series.days.length - 1]
                  }, stacked by model (${shown.series.models.join(", ")}); the table below holds the same numbers.`}
                  format={format.count}
                />
                <DayTable body={shown} figure="tokens" />
                <h2>Projects</h2>
                <Projects body={shown} />
                <h2>Machines</h2>
                <Origins rows={shown.machines} heading="Machine" filter="machine" />
                <h2>Users</h2>
                <Origins rows={shown.users} heading="User" filter="user" />
                <h2>
                  Sessions that cost most <span class="muted">(top {shown.sessions.length})</span>
                </h2>
                <TopSessions body={shown} />
              </>
            )}
          <p class="muted small">
            Prices: {shown.day.pricing.source},{" "}
            {shown.day.pricing.date}. Days are local days of the server ({shown.day.timeZone}); each API message is
            counted once. The same figures:{" "}
            <code>
              acx stats --by day{shown.day.since === null ? "" : ` --since ${shown.day.since}`}
              {shown.day.until === null ? "" : ` --until ${shown.day.until}`} --json
            </code>
          </p>
        </>
      )}
    </section>
  )
}
