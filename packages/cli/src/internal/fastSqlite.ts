/**
 * How the fast path of an unchanged `acx sync` (`fastSync.ts`) opens a SQLite store: as the store
 * reads do (`storeReads.ts`: read-only, the file must exist, acx's addon where it has one).
 */
export { openReadOnly } from "./storeReads.js"
