/**
 * The worker thread of `configListing.ts`: lists the config directory named by its `workerData`
 * and posts the listing back (or the error's message), once.
 */
import { parentPort, workerData } from "node:worker_threads"
import { configListing, type ConfigListingOptions } from "./configListing.js"

try {
  parentPort?.postMessage({ listing: configListing(workerData as ConfigListingOptions) })
} catch (cause) {
  parentPort?.postMessage({ error: cause instanceof Error ? cause.message : String(cause) })
}
