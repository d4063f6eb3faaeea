// The Memory page.
import type { Route } from "../router.js"

export const MemoryPage = ({ route }: { readonly route: Route }) => (
  <section class="page">
    <h1>Memory</h1>
    <p>{route.id}</p>
  </section>
)
