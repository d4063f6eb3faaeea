/**
 * acx's Acontext client, for the commands that talk to Acontext (`push`, `demo`): a module of its
 * own because Node's undici HTTP client is a megabyte that no other command should load.
 */
import * as AcontextClient from "@acx/storage/AcontextClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Layer from "effect/Layer"

/** acx's Acontext client on Node's undici HTTP client. */
export const acontextLayer = (
  options: AcontextClient.AcontextClientOptions
): Layer.Layer<AcontextClient.AcontextClient> =>
  AcontextClient.layer(options).pipe(Layer.provide(NodeHttpClient.layerUndici))
