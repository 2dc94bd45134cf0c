#!/usr/bin/env bash
# deploy/local-start.sh WORKDIR NAME — starts one process of a deployment of deploy/local-up.sh again, the way
# local-up.sh started it (the unit's ExecStart, its environment files): NAME is `gateway-<port>` or
# `file-service-<center>`, as in WORKDIR/run/*.pid. Waits until it answers on its port (90 s at most) — what
# systemd's Restart=on-failure does after a crash. Refuses when that process is still alive 10 s on.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
W="$(realpath -m "${1:?usage: local-start.sh WORKDIR NAME}")"
name="${2:?usage: local-start.sh WORKDIR NAME}"
ETC="$W/etc/suanli" VAR="$W/var/lib/suanli"
# shellcheck source=deploy/local-lib.sh
. "$repo/deploy/local-lib.sh"
[ -f "$W/.suanli-local-deployment" ] || die "$W is not a deployment of deploy/local-up.sh"
# A process just killed may take a moment to be gone (reaped): wait for that, never start a second one.
if [ -f "$W/run/$name.pid" ]; then
  old="$(cat "$W/run/$name.pid")" deadline=$((SECONDS + 10))
  while kill -0 "$old" 2>/dev/null && [ -z "$(grep -s '^State:.*Z' "/proc/$old/status")" ]; do
    [ $SECONDS -lt $deadline ] || die "$name is still running (pid $old)"
    sleep 0.1
  done
fi
case "$name" in
  gateway-*)
    port="${name#gateway-}"
    start_unit "$repo/deploy/systemd/suanli-gateway@.service" "$port" "$name" ;;
  file-service-*)
    center="${name#file-service-}"
    [ -f "$ETC/file-service-$center.env" ] || die "no center $center in $W"
    port="$(sed -n 's/^PORT=//p' "$ETC/file-service-$center.env")"
    start_unit "$repo/deploy/systemd/suanli-file-service@.service" "$center" "$name" ;;
  *) die "unknown process $name (gateway-<port> or file-service-<center>)" ;;
esac
wait_http "http://127.0.0.1:$port/" "$name"
