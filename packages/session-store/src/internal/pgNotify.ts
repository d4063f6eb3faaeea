/**
 * The Postgres store's clock, announced: migration 6 puts a trigger on `acx_clock` that
 * `pg_notify`s the schema's channel whenever the clock moves (every append and every delete,
 * whoever writes: `acx sync`, the SDK mirroring through acx's store, another program on the same
 * tables), and {@link clockChanges} listens on it.
 *
 * The listener holds a connection of its own (`pg.Client`, not the pool: a `LISTEN` lives as long
 * as its session, and a pooled connection is handed to other work). A notification is delivered
 * at the writer's commit. When the connection is lost (a Postgres restart, a network cut), the
 * stream says `lost` once and connects again, waiting 100 ms, then twice as long each time, at
 * most {@link MAX_BACKOFF_MS}. Each time it is listening (the first time too) it says `changed`:
 * notifications sent while nobody listened are gone, so the reader looks at the clock.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/** The longest wait between two connection attempts. */
export const MAX_BACKOFF_MS = 2000

const FIRST_BACKOFF_MS = 100

/**
 * The channel a schema's clock is announced on: `acx_clock_<schema>`, cut to Postgres' 63-byte
 * identifiers (a schema name is at most 63 ASCII characters); the payload is the schema itself,
 * so two long names sharing a cut channel are still told apart. The trigger computes the same
 * name in SQL (`left('acx_clock_' || TG_TABLE_SCHEMA, 63)`).
 */
export const clockChannel = (schema: string): string => `acx_clock_${schema}`.slice(0, 63)

/** What the listener says: the clock may have moved, or the connection was lost (it reconnects). */
export type ClockSignal = "changed" | "lost"

/** The part of `pg.Client` used here. */
interface ListenClient {
  connect(): Promise<unknown>
  query(text: string): Promise<unknown>
  end(): Promise<void>
  on(event: "notification", listener: (message: { channel: string; payload?: string }) => void): unknown
  on(event: "error" | "end", listener: (error?: Error) => void): unknown
  removeAllListeners(): unknown
}

export type ClientConstructor = new(config: {
  connectionString: string
  application_name: string
  keepAlive: boolean
  connectionTimeoutMillis: number
}) => ListenClient

/**
 * The clock's signals of `schema` on the server `url` names, while consumed (the connection
 * closes with the stream's scope). Never fails: a server that cannot be reached is `lost` and
 * tried again.
 */
export const clockChanges = (
  loadClient: () => Promise<ClientConstructor>,
  url: string,
  schema: string
): Stream.Stream<ClockSignal> =>
  Stream.asyncScoped<ClockSignal>((emit) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const channel = clockChannel(schema)
        let stopped = false
        let client: ListenClient | undefined
        let timer: ReturnType<typeof setTimeout> | undefined
        let backoff = FIRST_BACKOFF_MS
        let lostSaid = false

        const drop = (current: ListenClient) => {
          current.removeAllListeners()
          // a late error of a connection given up must not be unhandled
          current.on("error", () => {})
          current.end().catch(() => {})
        }
        const retry = () => {
          if (stopped) return
          if (!lostSaid) {
            lostSaid = true
            void emit.single("lost")
          }
          timer = setTimeout(connect, backoff)
          backoff = Math.min(backoff * 2, MAX_BACKOFF_MS)
        }
        const lose = (current: ListenClient) => {
          if (client !== current) return
          client = undefined
          drop(current)
          retry()
        }
        const connect = () => {
          timer = undefined
          if (stopped) return
          void loadClient().then(async (Client) => {
            const current = new Client({
              connectionString: url,
              application_name: "@acx/session-store/PostgresSessionStore listen",
              keepAlive: true,
              connectionTimeoutMillis: 5000
            })
            client = current
            current.on("error", () => lose(current))
            current.on("end", () => lose(current))
            current.on("notification", (message) => {
              if (message.channel === channel && message.payload === schema) void emit.single("changed")
            })
            try {
              await current.connect()
              // the channel is computed from a checked schema name: `[a-z0-9_]` only
              await current.query(`LISTEN "${channel}"`)
            } catch {
              return lose(current)
            }
            if (stopped || client !== current) return drop(current)
            backoff = FIRST_BACKOFF_MS
            lostSaid = false
            // what was written while nobody listened (before the first LISTEN too): the reader
            // looks at the clock
            void emit.single("changed")
          }).catch(() => retry())
        }
        connect()
        return () => {
          stopped = true
          if (timer !== undefined) clearTimeout(timer)
          if (client !== undefined) drop(client)
          client = undefined
        }
      }),
      (stop) => Effect.sync(stop)
    )
  )
