// The page: a header with the four pages, and the page of the current hash route.
import { render } from "preact"
import { CostsPage } from "./pages/CostsPage.js"
import { MemoryPage } from "./pages/MemoryPage.js"
import { SessionPage } from "./pages/SessionPage.js"
import { SessionsPage } from "./pages/SessionsPage.js"
import { href, useRoute } from "./router.js"

const App = () => {
  const route = useRoute()
  const tab = route.page === "session" ? "sessions" : route.page
  return (
    <>
      <header class="top">
        <a class="brand" href={href("sessions")}>acx</a>
        <nav aria-label="Pages">
          {(["sessions", "costs", "memory"] as const).map((page) => (
            <a href={href(page)} aria-current={tab === page ? "page" : undefined} key={page}>
              {page[0]!.toUpperCase() + page.slice(1)}
            </a>
          ))}
        </nav>
      </header>
      <main id="main">
        {route.page === "sessions" && <SessionsPage route={route} />}
        {route.page === "session" && <SessionPage key={route.id} route={route} />}
        {route.page === "costs" && <CostsPage route={route} />}
        {route.page === "memory" && <MemoryPage route={route} />}
      </main>
    </>
  )
}

const root = document.getElementById("app")!
// the static "Loading…" goes: render appends to what the container holds
root.textContent = ""
render(<App />, root)
