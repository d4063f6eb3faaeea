/** Every route of the page's server: the page, its assets, and each page's JSON. */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import type * as UiAssets from "../UiAssets.js"
import type { UiContext } from "./context.js"
import { costsRoutes } from "./costsRoutes.js"
import { exportRoutes } from "./exportRoutes.js"
import { notFound } from "./http.js"
import { memoryRoutes } from "./memoryRoutes.js"
import { searchRoutes } from "./searchRoutes.js"
import { sessionRoutes } from "./sessionRoutes.js"
import { sessionsRoutes } from "./sessionsRoutes.js"

const assetResponse = (asset: UiAssets.Asset) =>
  HttpServerResponse.uint8Array(asset.body, { contentType: asset.contentType })

const pageRoutes = (assets: ReadonlyMap<string, UiAssets.Asset>) =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/", Effect.sync(() => assetResponse(assets.get("index.html")!))),
    HttpRouter.get(
      "/assets/:name",
      Effect.map(HttpRouter.params, (params) => {
        // only the names read at start-up: a request never names a path
        const asset = params["name"] === undefined ? undefined : assets.get(params["name"])
        return asset === undefined ? notFound() : assetResponse(asset)
      })
    )
  )

/** The whole router. */
export const appRoutes = (context: UiContext, assets: ReadonlyMap<string, UiAssets.Asset>) =>
  HttpRouter.concatAll(
    pageRoutes(assets),
    sessionsRoutes(context),
    exportRoutes(context),
    costsRoutes(context),
    sessionRoutes(context),
    searchRoutes(context),
    memoryRoutes(context)
  )
