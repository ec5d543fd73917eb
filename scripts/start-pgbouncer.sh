#!/usr/bin/env bash
# Starts PgBouncer (Debian's package) in transaction mode on 127.0.0.1:${PGBOUNCER_PORT:-6432}, in front of the
# local PostgreSQL (127.0.0.1:5432, trust auth), for every database on it: what an operator puts in front of Portico
# with DATABASE_PREPARED_STATEMENTS=false and DATABASE_LISTEN_URL pointing past it (docs/deploy.md).
# .ci/run starts it and gives it to `npm test` (TEST_POOLER_URL), whose unit suite then runs through it as here:
#   DATABASE_URL=postgres://postgres@127.0.0.1:6432/postgres DATABASE_PREPARED_STATEMENTS=false \
#   DATABASE_LISTEN_URL=postgres://postgres@127.0.0.1:5432/postgres npx vitest run
# PgBouncer refuses to run as root: it runs as the postgres account, from a folder of its own.
set -euo pipefail
port="${PGBOUNCER_PORT:-6432}"
# PgBouncer forks before it binds its port: a leftover on the port would answer in its place, whatever its mode.
if pg_isready -q -h 127.0.0.1 -p "$port"; then
  echo "Port $port already answers (a PgBouncer left running?): stop it first." >&2
  exit 1
fi
folder="$(mktemp -d /tmp/portico-pgbouncer.XXXXXX)"
cat > "$folder/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=5432

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $folder/userlist.txt
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 60
max_db_connections = 40
# Scratch databases come and go by the dozen: their idle server connections close soon, not after 10 minutes.
server_idle_timeout = 5
server_reset_query =
ignore_startup_parameters = extra_float_digits,options
logfile = $folder/pgbouncer.log
pidfile = $folder/pgbouncer.pid
INI
echo '"postgres" ""' > "$folder/userlist.txt"
chown -R postgres "$folder"
if [ "$(id -u)" = 0 ]; then
  runuser -u postgres -- pgbouncer -d "$folder/pgbouncer.ini"
else
  pgbouncer -d "$folder/pgbouncer.ini"
fi
for _ in $(seq 1 50); do
  pg_isready -q -h 127.0.0.1 -p "$port" && break
  sleep 0.1
done
pg_isready -q -h 127.0.0.1 -p "$port" || { echo "PgBouncer did not start: $(cat "$folder/pgbouncer.log" 2>/dev/null)" >&2; exit 1; }
# Ours, and alive: its pidfile names a running process.
for _ in $(seq 1 50); do [ -s "$folder/pgbouncer.pid" ] && break; sleep 0.1; done
kill -0 "$(cat "$folder/pgbouncer.pid" 2>/dev/null)" 2>/dev/null || { echo "PgBouncer on port $port is not the one just started" >&2; exit 1; }
echo "$folder"
