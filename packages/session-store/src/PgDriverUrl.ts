/**
 * The connection string every Postgres connection of acx gives the `pg` driver: `sslmode` read as
 * libpq reads it (`uselibpqcompat=true`), and the password libpq would take from the password file
 * (`PGPASSFILE`, else `~/.pgpass`, mode 0600) when the URL and `PGPASSWORD` hold none. `pg` reads
 * the file too, but prints a `DeprecationWarning` on stderr each time; given the password, it
 * never does. No Effect on its path: the CLI's fast read loads it.
 *
 * @since 0.4.0
 */
import { driverUrl as make, matchPassFile as match, type PassKey } from "./internal/pgUrl.js"

/**
 * `url` as the driver is to be given it (see the module's comment); the password it may add is
 * for the driver only: never print the result.
 *
 * @since 0.4.0
 * @category constructors
 */
export const driverUrl: (url: string) => string = make

/**
 * The password of the first line of a password file's `text` matching `key`, by libpq's rules
 * (`host:port:database:user:password`, `*` wildcards, `\:` and `\\` escapes, `#` comments).
 *
 * @since 0.4.0
 * @category parsing
 */
export const matchPassFile: (text: string, key: PassKey) => string | undefined = match
