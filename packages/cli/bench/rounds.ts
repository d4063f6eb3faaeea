/**
 * Interleaved rounds of process runs for the start-up benches (`startup.bench.ts`,
 * `statusline.bench.ts`): each round runs every candidate once, the order reversed every other
 * round, so a change in the machine's load falls on all of them alike.
 */

/** The median (p50) of samples. */
export const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** The wall-clock samples (ms) of `rounds` runs of each candidate, in the candidates' order. */
export const runRounds = <A>(
  candidates: ReadonlyArray<A>,
  rounds: number,
  run: (candidate: A) => unknown
): Array<Array<number>> => {
  const samples = candidates.map((): Array<number> => [])
  for (let round = 0; round < rounds; round++) {
    const order = candidates.map((_, i) => i)
    if (round % 2 === 1) order.reverse()
    for (const i of order) {
      const start = performance.now()
      run(candidates[i]!)
      samples[i]!.push(performance.now() - start)
    }
  }
  return samples
}
