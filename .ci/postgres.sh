#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server for the state tests and prints, on stdout only,
#
#   export CITEQ_TEST_POSTGRES=postgres://citeq:…@127.0.0.1:PORT/citeq?sslmode=disable
#
# so that CI (or you) can run:   eval "$(.ci/postgres.sh)" && go test ./state/
#
# Installs PostgreSQL from the Debian packages when no server binaries are found (needs root).
# The cluster lives in $CITEQ_PG_DIR (default /tmp/citeq-postgres): data/, the socket, the
# log (server.log), the chosen port and the role's password. It listens on 127.0.0.1 only, on
# a free port. Its role "citeq" may create databases (each test makes its own). Running the
# script again reuses the running server, or restarts a stopped one, and prints the same line.
# As root the server runs as the "postgres" user; otherwise as the caller.
#
# Stop it:           .ci/postgres.sh stop
# Stop and remove:   .ci/postgres.sh clean        (or: pg_ctl -D "$CITEQ_PG_DIR/data" stop -m fast
#                                                   as the owner, then rm -rf "$CITEQ_PG_DIR")
# Diagnostics go to stderr.
set -euo pipefail

dir=${CITEQ_PG_DIR:-/tmp/citeq-postgres}
data=$dir/data
role=citeq
database=citeq

log() { echo "postgres.sh: $*" >&2; }
die() { log "$*"; exit 1; }

# bindir finds the directory of the newest installed server's pg_ctl, initdb and postgres.
bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ] && [ -x "$d/postgres" ]; then
      echo "$d"
      return 0
    fi
  done
  if command -v pg_config >/dev/null 2>&1; then
    d=$(pg_config --bindir)
    if [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ]; then
      echo "$d"
      return 0
    fi
  fi
  if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v pg_ctl)"
    return 0
  fi
  return 1
}

# as_owner runs a command as the cluster's owner: postgres when we are root, else ourselves.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    if command -v runuser >/dev/null 2>&1; then
      (cd / && runuser -u postgres -- "$@")
    else
      local q
      q=$(printf '%q ' "$@")
      (cd / && su -s /bin/sh postgres -c "$q")
    fi
  else
    "$@"
  fi
}

running() { as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; }

stop() {
  if [ -d "$data" ] && running; then
    log "stopping the server in $data"
    as_owner "$bin/pg_ctl" -D "$data" stop -m fast -w >&2
  else
    log "no server running in $data"
  fi
}

# port_free reports whether nothing accepts connections on 127.0.0.1:$1.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pick_port() {
  local p i
  for i in $(seq 1 50); do
    p=$((20000 + RANDOM % 30000))
    if port_free "$p"; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

start() {
  local port i
  for i in 1 2 3; do
    port=$(cat "$dir/port" 2>/dev/null || true)
    if [ -z "$port" ] || ! port_free "$port"; then
      port=$(pick_port) || die "no free port found"
    fi
    echo "$port" >"$dir/port"
    log "starting PostgreSQL on 127.0.0.1:$port (log: $dir/server.log)"
    if as_owner "$bin/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -c max_connections=300 -p $port -k $dir" start >&2; then
      return 0
    fi
    log "start failed; last lines of $dir/server.log:"
    tail -n 20 "$dir/server.log" >&2 || true
    rm -f "$dir/port"
  done
  die "PostgreSQL would not start"
}

# tool finds a client program next to the server, else on PATH.
tool() {
  if [ -x "$bin/$1" ]; then echo "$bin/$1"; else command -v "$1" || die "$1 not found"; fi
}

psql_admin() {
  as_owner "$(tool psql)" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$(cat "$dir/port")" -U postgres -d postgres "$@"
}

bin=$(bindir || true)
case "${1:-start}" in
start) ;;
stop)
  [ -n "$bin" ] || die "no PostgreSQL binaries found"
  stop
  exit 0
  ;;
clean)
  if [ -n "$bin" ]; then stop; fi
  log "removing $dir"
  rm -rf "$dir"
  exit 0
  ;;
*) die "usage: $0 [start|stop|clean]" ;;
esac

if [ -z "$bin" ]; then
  [ "$(id -u)" -eq 0 ] || die "PostgreSQL is not installed; as root: apt-get install -y postgresql"
  log "installing PostgreSQL from the Debian packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >&2
  bin=$(bindir) || die "PostgreSQL installed but pg_ctl/initdb not found"
fi
log "using $bin"

if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || die "user postgres missing (the postgresql package creates it)"
  mkdir -p "$dir"
  chown postgres: "$dir"
else
  mkdir -p "$dir"
fi
chmod 700 "$dir"

if [ ! -s "$data/PG_VERSION" ]; then
  rm -rf "$data"
  log "initialising a cluster in $data"
  as_owner "$bin/initdb" -D "$data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    -E UTF8 --no-locale >&2 || die "initdb failed"
  rm -f "$dir/password" "$dir/port"
fi

if ! running; then
  start
else
  log "server already running in $data"
fi

# Wait until it accepts connections over TCP, as the tests will connect.
port=$(cat "$dir/port")
for i in $(seq 1 60); do
  if "$(tool pg_isready)" -q -h 127.0.0.1 -p "$port" -t 1 >/dev/null 2>&1; then
    break
  fi
  [ "$i" -lt 60 ] || die "server not accepting connections on 127.0.0.1:$port"
  sleep 1
done

if [ ! -s "$dir/password" ]; then
  (umask 077 && od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$dir/password.tmp")
  mv "$dir/password.tmp" "$dir/password"
fi
password=$(cat "$dir/password")

# The role and its database (idempotent; the password is reset to the saved one).
psql_admin -v role="$role" -v pw="$password" <<'SQL' >&2
SELECT format('CREATE ROLE %I LOGIN CREATEDB', :'role')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'role') \gexec
ALTER ROLE :"role" WITH LOGIN CREATEDB PASSWORD :'pw';
SQL
psql_admin -v role="$role" -v db="$database" <<'SQL' >&2
SELECT format('CREATE DATABASE %I OWNER %I', :'db', :'role')
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'db') \gexec
SQL

# Check the DSN we hand out really works.
PGPASSWORD=$password "$(tool psql)" -X -q -h 127.0.0.1 -p "$port" -U "$role" -d "$database" -c 'SELECT 1' >/dev/null ||
  die "cannot connect as $role over 127.0.0.1:$port"

log "ready on 127.0.0.1:$port"
echo "export CITEQ_TEST_POSTGRES=postgres://$role:$password@127.0.0.1:$port/$database?sslmode=disable"
