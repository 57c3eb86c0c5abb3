#!/bin/bash
# The part of the official postgres image's entrypoint that docker-compose.yml relies on.
set -euo pipefail
: "${PGDATA:=/var/lib/postgresql/data}"
if [ "${1:-}" != postgres ]; then exec "$@"; fi

# As root: own the data directory (a fresh volume is root's), then run the rest as postgres.
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

POSTGRES_USER=${POSTGRES_USER:-postgres}
POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "error: the database is uninitialized and POSTGRES_PASSWORD is not set" >&2
    exit 1
  fi
  echo "initdb: first start, creating the cluster in $PGDATA for user $POSTGRES_USER"
  pwfile=$(mktemp)
  printf '%s' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" --username="$POSTGRES_USER" --pwfile="$pwfile" --encoding=UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  # Other containers connect over the network with the password, as with the official image.
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    # A server on the socket only, so nothing connects before the database exists.
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres -q \
      -c "CREATE DATABASE \"$POSTGRES_DB\""
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
  echo "initdb: done"
fi
exec postgres -D "$PGDATA" "${@:2}"
