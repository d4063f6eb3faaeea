# Sourced by .ci/run (and usable by hand, as root): starts the machine's PostgreSQL cluster,
# creates role/database acx and exports ACX_PG_URL for the tests that need a real server.
if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ ! -d /usr/lib/postgresql ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
PGVER=$(ls /usr/lib/postgresql | sort -n | tail -1)
pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "$PGVER main" || pg_createcluster "$PGVER" main
pg_ctlcluster "$PGVER" main start 2>/dev/null || pg_ctlcluster "$PGVER" main status >/dev/null
for _ in $(seq 1 60); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 0.5; done
runuser -u postgres -- psql -q -v ON_ERROR_STOP=1 <<'SQL'
SELECT 'CREATE ROLE acx LOGIN PASSWORD ''acx''' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'acx')\gexec
DROP DATABASE IF EXISTS acx_test;
CREATE DATABASE acx_test OWNER acx;
SQL
export ACX_PG_URL=postgres://acx:acx@127.0.0.1:5432/acx_test
