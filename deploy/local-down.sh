#!/usr/bin/env bash
# deploy/local-down.sh [WORKDIR] — takes down what deploy/local-up.sh WORKDIR brought up: nginx, the gateways
# and file services (each process group, SIGTERM then SIGKILL after 15 s), the database, and WORKDIR itself.
set -euo pipefail
W="$(realpath -m "${1:-/tmp/suanli-deploy}")"
[ -e "$W" ] || exit 0
[ -f "$W/.suanli-local-deployment" ] || { echo "local-down: $W is not a deployment of deploy/local-up.sh" >&2; exit 1; }

if [ -f "$W/run/nginx.pid" ]; then nginx -c "$W/nginx/nginx.conf" -p "$W/nginx" -s quit 2>/dev/null || true; fi
pids=()
for f in "$W"/run/*.pid; do
  [ -f "$f" ] || continue
  # nginx removes its own pid file as it quits (asked just above): a file gone between the glob and the read
  # is a process already on its way out, not an error.
  pid="$(cat "$f" 2>/dev/null)" || continue
  [[ "$pid" =~ ^[0-9]+$ ]] || continue
  # Only a process of this deployment (its environment or command line names WORKDIR): a pid file left by a
  # run that died long ago may name a pid since reused by something else.
  cat "/proc/$pid/environ" "/proc/$pid/cmdline" 2>/dev/null | grep -qaF "$W" || continue
  # The gateways and file services lead process groups of their own (setsid); nginx's master is alone.
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  pids+=("$pid")
done
deadline=$((SECONDS + 15))
for pid in "${pids[@]}"; do
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
done

if [ -f "$W/run/database" ]; then
  db="$(cat "$W/run/database")"
  psql "$(cat "$W/run/pg-admin-url")" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null
fi
rm -rf "$W"
echo "local-down: $W removed"
