/**
 * Plain checks of parsed JSON, without Effect: what a reader that starts without Effect (the
 * CLI's config-directory reads, `TranscriptEnvelope`) and the `Json` schemas share.
 *
 * @since 0.5.0
 */

/**
 * Whether a value is a plain object (a JSON object: not null, not an array).
 *
 * @since 0.1.0
 * @category guards
 */
export const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)
