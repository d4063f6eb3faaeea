// The Costs page.
import type { Route } from "../router.js"

export const CostsPage = ({ route }: { readonly route: Route }) => (
  <section class="page">
    <h1>Costs</h1>
    <p>{route.id}</p>
  </section>
)
