/**
 * A seeded pseudo-random source for tests and generated data (mulberry32: small, fast, and good
 * enough to vary synthetic text or pick kill points; never for anything secret). The same seed
 * gives the same sequence, so a failure names the seed that reproduces it.
 *
 * @since 0.4.0
 */

/**
 * A function returning the next number in [0, 1) of the sequence `seed` starts.
 *
 * @since 0.4.0
 * @category constructors
 */
export const random = (seed: number): () => number => {
  let state = seed >>> 0
  return (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
