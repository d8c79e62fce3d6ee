#!/usr/bin/env bash
# Sets up and runs the whole test suite on a fresh Debian machine:
#   bash tests/run.sh [pytest args...]
#   bash tests/run.sh -m "not slow"    # the fast tier, for developers
# As root it installs what the tests talk to (Dovecot, PostgreSQL, Chromium, npm);
# it makes a venv in .venv, installs turnproc with its test extras and the
# pinned Pyodide release (npm, for the order desk), starts a
# private PostgreSQL on loopback for the run, and stops it afterwards.
# The tests run in parallel, one pytest-xdist worker per CPU
# (TURNPROC_TEST_WORKERS=0 runs them in this one process; a later -n in the
# arguments wins too). Each worker has its own Dovecot, SMTP sinks, temporary
# folders and database templates; they share the PostgreSQL server. Unless
# TMPDIR is set, the temporary folders are made on /dev/shm (a tmpfs) when the
# machine has one, and removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends dovecot-imapd postgresql chromium fonts-dejavu-core >/dev/null
  # npm for the order desk's Pyodide files: a Node.js build that ships its own
  # npm conflicts with Debian's npm package, so only where there is none.
  if ! command -v npm >/dev/null; then
    apt-get install -y -qq --no-install-recommends npm >/dev/null
  fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'

# The order desk's checker: Pyodide's release files (the npm package, at the
# version the desk is written for) in an ignored folder (tests/desk.py).
PYODIDE=$(.venv/bin/python -c 'from turnproc.reports.desk import PYODIDE_VERSION; print(PYODIDE_VERSION)')
if ! grep -qs "\"version\": \"$PYODIDE\"" .cache/pyodide-npm/node_modules/pyodide/package.json; then
  mkdir -p .cache/pyodide-npm
  npm install --prefix .cache/pyodide-npm --no-save --no-audit --no-fund --loglevel=error "pyodide@$PYODIDE" >/dev/null
fi

# What the run started and made is undone at its end, in reverse order.
CLEANUP=()
cleanup() { for ((i = ${#CLEANUP[@]} - 1; i >= 0; i--)); do eval "${CLEANUP[i]}"; done; }
trap cleanup EXIT

# A private PostgreSQL for the run (the tests start their own when this is not set).
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "${TURNPROC_TEST_PG_URL:-}" ] && [ -n "$PGBIN" ] && [ -x "$PGBIN/initdb" ]; then
  PGDIR=$(mktemp -d /tmp/turnproc-ci-pg.XXXXXX)
  chmod 755 "$PGDIR"
  PGPORT=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$PGDIR"
  as_pg "$PGBIN/initdb" -D "$PGDIR/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 -N >/dev/null
  as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -w \
    -o "-p $PGPORT -k $PGDIR -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
  CLEANUP+=('as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$PGDIR"')
  export TURNPROC_TEST_PG_URL="postgresql+psycopg://postgres@127.0.0.1:$PGPORT/postgres"
fi

# Type checking is part of the suite: strict, over the whole package.
.venv/bin/python -m mypy turnproc

# The formatter's check and the linter ([tool.ruff] in pyproject.toml) over the
# whole tree, on every run: the tree is formatted and lint-clean, and CI fails a
# change that is not, so a local run says so first.
.venv/bin/ruff format --check .
.venv/bin/ruff check .

# Compiled modules are kept in __pycache__ (ignored by git), as in any
# developer's tree, even where the environment sets PYTHONDONTWRITEBYTECODE:
# without them each xdist worker compiles and assertion-rewrites every test
# module again (about 9 s of CPU each), and every interpreter a test starts
# compiles turnproc again.
unset PYTHONDONTWRITEBYTECODE

# The tests' files (each test's SQLite database, the maildirs, Dovecot's mail
# store) go to memory where the machine has a tmpfs and TMPDIR names no other
# place: SQLite and Dovecot wait for the disk at every commit, a durability no
# test measures, and half the fast tier's time went to it. Readable by the
# servers' own users, as /tmp is.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  TMPDIR=$(mktemp -d /dev/shm/turnproc-tests.XXXXXX)
  chmod 755 "$TMPDIR"
  export TMPDIR
  CLEANUP+=('rm -rf "$TMPDIR"')
fi

set +e
.venv/bin/python -m pytest -p no:cacheprovider -n "${TURNPROC_TEST_WORKERS:-auto}" --dist loadgroup "$@"
status=$?
set -e
if [ "$status" = 5 ]; then
  echo "pytest collected no tests: that is a failure" >&2
  exit 1
fi
exit "$status"
