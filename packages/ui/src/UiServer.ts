/**
 * `acx ui`'s server: an `@effect/platform` HTTP server on Node that serves the page's built
 * assets and its JSON, on loopback by default, behind a random token. Every request must name a
 * `Host` the server answers for (no DNS rebinding) and carry the token (the printed URL's
 * `?token=` once, then an HttpOnly SameSite=Strict cookie); a write must also come from the page
 * itself (`Origin`). Every response carries a Content Security Policy with no inline script and
 * no remote origin, and no CORS header. Transcripts are only read: a config directory's files,
 * or a session store's entries (`store`: `acx ui --from`).
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as AcxHome from "@acx/environment/AcxHome"
import type * as SessionStore from "@acx/session-store/SessionStore"
import type * as StoreCatalog from "@acx/session-store/StoreCatalog"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import * as path from "node:path"
import { appRoutes } from "./internal/appRoutes.js"
import { guarded, onClientError } from "./internal/boundary.js"
import type { UiContext } from "./internal/context.js"
import { fileSource } from "./internal/fileTranscripts.js"
import * as LiveTranscripts from "./internal/liveTranscripts.js"
import * as MemoryDb from "./internal/memoryDb.js"
import * as SearchIndex from "./internal/searchIndex.js"
import { sessionFigure } from "./internal/sessionFigure.js"
import * as SessionsList from "./internal/sessionsList.js"
import { storeSource } from "./internal/storeTranscripts.js"
import type { TranscriptSource } from "./internal/transcriptSource.js"
import * as UiAssets from "./UiAssets.js"
import { UiError } from "./UiError.js"
import * as UiSecurity from "./UiSecurity.js"

/**
 * The port `acx ui` tries first.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_PORT = 7317

/**
 * How many ports after the first one are tried when it is taken.
 *
 * @since 0.1.0
 * @category constants
 */
export const PORT_ATTEMPTS = 20

/**
 * @since 0.1.0
 * @category models
 */
export interface UiServerOptions {
  /**
   * The Claude Code config directory to show (absolute, or relative to the working directory);
   * ignored when `store` is given.
   */
  readonly configDir?: string | undefined
  /** A session store to show instead of a config directory (`acx ui --from`), opened by the caller. */
  readonly store?: UiStore | undefined
  /** acx's home (memory database, caches); default `$ACX_HOME`, else `~/.acx`. */
  readonly acxHome?: string | undefined
  /** Default {@link DEFAULT_PORT}, then the next free ones; `0`: any free port. */
  readonly port?: number | undefined
  /** The address to bind; default `127.0.0.1`. */
  readonly host?: string | undefined
  /** Default: 32 random bytes, base64url. */
  readonly token?: string | undefined
  /** Where the built assets are (default: {@link UiAssets.defaultDirs}). */
  readonly assetsDirs?: ReadonlyArray<string> | undefined
  /** Read transcripts behind symbolic links that leave the config directory. */
  readonly followSymlinks?: boolean | undefined
}

/**
 * A session store the page reads (its lifetime is the caller's).
 *
 * @since 0.3.0
 * @category models
 */
export interface UiStore {
  readonly store: SessionStore.SessionStore & StoreCatalog.WithCatalog
  /** How it is named to the user, without a password (`DatabaseSpec.display`). */
  readonly location: string
  /** The SQLite file under it: watched for appends. None (Postgres): its clock is polled. */
  readonly file?: string | undefined
}

/**
 * The running server.
 *
 * @since 0.1.0
 * @category models
 */
export interface UiServer {
  /** The URL to open, token included: `http://127.0.0.1:PORT/?token=…`. */
  readonly url: string
  readonly host: string
  readonly port: number
  readonly token: string
  /** The port asked for, when it was taken and a later one was used. */
  readonly portTaken: number | undefined
  /** Every route the server answers, read from its router (a test requests each one). */
  readonly routes: ReadonlyArray<UiRoute>
}

/**
 * One route of the server: its method and its path pattern (`/api/session/:id`).
 *
 * @since 0.1.0
 * @category models
 */
export interface UiRoute {
  readonly method: string
  readonly path: string
}

/**
 * The running server, as a service.
 *
 * @since 0.1.0
 * @category tags
 */
export class UiServerTag extends Context.Tag("@acx/ui/UiServer")<UiServerTag, UiServer>() {}

const urlHost = (host: string): string => (host.includes(":") && !host.startsWith("[") ? `[${host}]` : host)

const listen = (host: string, port: number) =>
  Effect.suspend(() => {
    const node = createServer()
    // a request Node cannot parse never reaches the app: answered with the same headers
    node.on("clientError", onClientError)
    return NodeHttpServer.make(() => node, { host, port }).pipe(
      // runs before the server's close (finalizers run last first): an open event stream
      // (the session page's live updates) would otherwise keep the close waiting forever
      Effect.tap(() => Effect.addFinalizer(() => Effect.sync(() => node.closeAllConnections())))
    )
  }).pipe(
    Effect.mapError((error) => error.cause as NodeJS.ErrnoException | undefined)
  )

// The first port that is free: `port` itself when it is 0 or an explicit choice fails for any
// reason but "taken", else the next ones.
const listenFrom = (host: string, first: number) =>
  Effect.gen(function*() {
    const attempts = first === 0 ? 1 : PORT_ATTEMPTS
    let lastError: NodeJS.ErrnoException | undefined
    for (let i = 0; i < attempts && first + i <= 65535; i++) {
      const result = yield* Effect.either(listen(host, first + i))
      if (Either.isRight(result)) return result.right
      lastError = result.left
      if (lastError?.code !== "EADDRINUSE") break
    }
    return yield* new UiError({
      reason: "Listen",
      description: lastError?.code === "EADDRINUSE"
        ? `ports ${first} to ${first + attempts - 1} on ${host} are all taken: choose one with --port`
        : `cannot listen on ${host}:${first}: ${lastError?.message ?? "unknown error"}`,
      cause: lastError
    })
  })

// The transcripts shown: the store given, else the config directory's files.
const sourceOf = (options: UiServerOptions, acxHome: string): Effect.Effect<TranscriptSource, UiError, Scope.Scope> =>
  options.store !== undefined
    ? storeSource({ ...options.store, acxHome })
    : Effect.gen(function*() {
      if (options.configDir === undefined) {
        return yield* new UiError({ reason: "InvalidOption", description: "a config directory or a store is needed" })
      }
      const projects = yield* ClaudeProjects.make({
        configDir: path.resolve(options.configDir),
        followSymlinks: options.followSymlinks === true,
        cacheDir: AcxHome.paths(acxHome).cache
      }).pipe(Effect.provide(NodeContext.layer))
      return fileSource(projects, { acxHome, followSymlinks: options.followSymlinks === true })
    })

/**
 * Starts the server; it stops when the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: UiServerOptions): Effect.Effect<UiServer, UiError, Scope.Scope> =>
  Effect.gen(function*() {
    const host = options.host ?? "127.0.0.1"
    const first = options.port ?? DEFAULT_PORT
    if (!Number.isInteger(first) || first < 0 || first > 65535) {
      return yield* new UiError({ reason: "InvalidOption", description: `port ${first} is not a port (0 to 65535)` })
    }
    const token = options.token ?? randomBytes(32).toString("base64url")
    const assets = yield* UiAssets.load(options.assetsDirs)
    const acxHome = options.acxHome ?? AcxHome.acxHome()
    const source = yield* sourceOf(options, acxHome)
    const projects = source.projects
    const search = options.store === undefined
      ? yield* SearchIndex.defaultSyncStore(acxHome)
      : SearchIndex.ofStore(options.store.store.catalog, options.store.location)
    const server = yield* listenFrom(host, first)
    const address = server.address
    const port = address._tag === "TcpAddress" ? address.port : first
    const allowedHosts = UiSecurity.allowedHosts(port, host)
    const memory = yield* MemoryDb.make(acxHome)
    const live = yield* LiveTranscripts.make(source, {
      // the header's figure, live: the fold acx stats and the list use
      figure: (session, pricing) => sessionFigure(source, session, pricing)
    })
    const context: UiContext = {
      source,
      sessions: SessionsList.make(source.listing),
      projects,
      configDir: source.location,
      search,
      acxHome,
      allowedHosts,
      memory,
      live
    }
    const router = appRoutes(context, assets)
    const app = yield* HttpRouter.toHttpApp(router)
    // the boundary wraps the app itself, not as the server's middleware: see internal/boundary.ts
    yield* server.serve(guarded(app, token, allowedHosts)).pipe(Effect.provide(NodeContext.layer))
    return {
      url: `http://${urlHost(host === "localhost" ? "127.0.0.1" : host)}:${port}/?${UiSecurity.TOKEN_PARAM}=${token}`,
      host,
      port,
      token,
      portTaken: first !== 0 && port !== first ? first : undefined,
      routes: Chunk.toReadonlyArray(router.routes).map((route) => ({ method: route.method, path: route.path }))
    } satisfies UiServer
  }).pipe(Effect.withSpan("UiServer.make"))

/**
 * The server as a layer (started when the layer is built, stopped when it is released).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: UiServerOptions): Layer.Layer<UiServerTag, UiError> =>
  Layer.scoped(UiServerTag, make(options))
