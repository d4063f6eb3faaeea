/**
 * A minimal throughput harness: candidates run in interleaved rounds over the same inputs, so
 * machine noise hits them alike; each reports the median messages/s over its rounds.
 */
export interface Candidate<A> {
  readonly name: string
  /** Processes one input; returns a number folded into a checksum so the work is not elided. */
  readonly run: (input: A) => number
}

export interface Measurement {
  readonly name: string
  readonly medianPerSecond: number
  readonly minPerSecond: number
  readonly maxPerSecond: number
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const pass = <A>(candidate: Candidate<A>, inputs: ReadonlyArray<A>, repeat: number): number => {
  let checksum = 0
  for (let r = 0; r < repeat; r++) {
    for (let i = 0; i < inputs.length; i++) checksum += candidate.run(inputs[i]!)
  }
  return checksum
}

export const measure = <A>(
  candidates: ReadonlyArray<Candidate<A>>,
  inputs: ReadonlyArray<A>,
  options: { readonly rounds?: number; readonly targetMillisPerRound?: number } = {}
): Array<Measurement> => {
  const rounds = options.rounds ?? 15
  const target = options.targetMillisPerRound ?? 60
  // Warm up every candidate, then size a round so the slowest one takes about `target` ms.
  let repeat = 1
  for (const candidate of candidates) {
    for (let i = 0; i < 3; i++) pass(candidate, inputs, 1)
    const start = performance.now()
    pass(candidate, inputs, 1)
    const elapsed = Math.max(performance.now() - start, 0.01)
    repeat = Math.max(repeat, Math.ceil(target / elapsed))
  }
  const samples = candidates.map(() => [] as Array<number>)
  let sink = 0
  for (let round = 0; round < rounds; round++) {
    candidates.forEach((candidate, index) => {
      const start = performance.now()
      sink += pass(candidate, inputs, repeat)
      const seconds = (performance.now() - start) / 1000
      samples[index]!.push((inputs.length * repeat) / seconds)
    })
  }
  if (sink === Number.MIN_VALUE) console.log(sink)
  return candidates.map((candidate, index) => ({
    name: candidate.name,
    medianPerSecond: median(samples[index]!),
    minPerSecond: Math.min(...samples[index]!),
    maxPerSecond: Math.max(...samples[index]!)
  }))
}

export const formatRate = (perSecond: number): string =>
  perSecond >= 1e6 ? `${(perSecond / 1e6).toFixed(2)} M/s` : `${(perSecond / 1e3).toFixed(1)} k/s`
