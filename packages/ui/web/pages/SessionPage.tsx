// The Session page.
import type { Route } from "../router.js"

export const SessionPage = ({ route }: { readonly route: Route }) => (
  <section class="page">
    <h1>Session</h1>
    <p>{route.id}</p>
  </section>
)
