#!/usr/bin/env bash
# deploy/local-up.sh [WORKDIR] — docs/operations/deploy.md followed on THIS machine from a clean state, on
# loopback: nginx in front of two gateways and one file service per center, a PostgreSQL database of its own
# (dropped and created fresh), Redis. deploy/local-down.sh WORKDIR takes it all down again. Used by
# e2e/deploy.e2e.ts; handy by hand too (prints the console's address at the end).
#
# What differs from the document, and why:
# - No systemd here (PID 1 is not systemd): each unit's ExecStart line is run as a plain process, with the
#   unit's WorkingDirectory, EnvironmentFile(s) and Environment read from deploy/systemd/*.service, as the
#   invoking user (the document's `suanli` user would need the repository readable by it).
# - The paths of the document are under WORKDIR: /etc/suanli → WORKDIR/etc/suanli, /var/lib/suanli →
#   WORKDIR/var/lib/suanli, /share/<center> → WORKDIR/share/<center>; /opt/suanli is this repository.
# - nginx runs from its own main configuration in WORKDIR (the system's /etc/nginx is left alone), plain HTTP.
# - The centers are the embedded default's two local-executor centers (config/centers.yaml) with a file
#   service each: Slurm centers need the clusters of slurm-center.md (scripts/slurm/up.sh), which a deployment
#   check does not start. Mail goes to the outbox (WORKDIR/var/lib/suanli/outbox) instead of SMTP.
#
# Environment (all optional): SUANLI_LOCAL_PORT (nginx, 18080), SUANLI_LOCAL_GATEWAY_PORTS ("18101 18102"),
# SUANLI_LOCAL_FS_PORT_BASE (18201: one port per center from there), SUANLI_LOCAL_DB (suanli_deploy),
# PG_ADMIN_URL (postgres://postgres@127.0.0.1:5432/postgres), SUANLI_LOCAL_REDIS (redis://127.0.0.1:6379),
# SUANLI_LOCAL_CENTERS (a centers file to deploy instead of config/centers.yaml — e.g. the Slurm harness's
# clusters, whose absolute storageRoot is kept: the clusters' nodes see that storage), SUANLI_LOCAL_GATEWAY_ENV
# (a file of KEY=VALUE lines set in gateway.env after the example's, e.g. shorter poll periods for a test).
# SUANLI_LOCAL_CONSOLE=0 (API only: the console is not built and its two checks are skipped — for a test that
# never loads it while `npm test` builds it beside). deploy/local-start.sh WORKDIR NAME starts one process of the deployment again (after a crash, or a kill).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
W="$(realpath -m "${1:-/tmp/suanli-deploy}")"
PORT="${SUANLI_LOCAL_PORT:-18080}"
GATEWAY_PORTS="${SUANLI_LOCAL_GATEWAY_PORTS:-18101 18102}"
FS_PORT_BASE="${SUANLI_LOCAL_FS_PORT_BASE:-18201}"
DB="${SUANLI_LOCAL_DB:-suanli_deploy}"
CENTERS_SRC="$(realpath -m "${SUANLI_LOCAL_CENTERS:-$repo/config/centers.yaml}")"
GATEWAY_ENV_EXTRA="${SUANLI_LOCAL_GATEWAY_ENV:-}"
WITH_CONSOLE="${SUANLI_LOCAL_CONSOLE:-1}"
PG_ADMIN="${PG_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
REDIS="${SUANLI_LOCAL_REDIS:-redis://127.0.0.1:6379}"
URL="http://127.0.0.1:$PORT"
ETC="$W/etc/suanli" VAR="$W/var/lib/suanli" SHARE="$W/share"

say() { printf '\n━━ %s\n' "$*"; }
# shellcheck source=deploy/local-lib.sh
. "$repo/deploy/local-lib.sh"
[[ "$DB" =~ ^[a-z_][a-z0-9_]*$ ]] || die "SUANLI_LOCAL_DB must be a plain lower-case name (got $DB)"

say "1. packages"
command -v nginx >/dev/null || die "nginx is missing: run scripts/provision.sh (Debian package nginx)"
for b in node npm psql envsubst curl setsid; do command -v "$b" >/dev/null || die "$b is missing"; done
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' || die "Node.js ≥ 20.19 is needed (got $(node -v))"
psql "$PG_ADMIN" -tAc 'select 1' >/dev/null || die "PostgreSQL is not reachable at $PG_ADMIN"
[ "$(redis-cli -u "$REDIS" ping 2>/dev/null)" = PONG ] || die "Redis is not reachable at $REDIS"

say "clean state: $W, database $DB"
if [ -e "$W" ]; then "$repo/deploy/local-down.sh" "$W"; fi
[ ! -e "$W" ] || die "$W exists and is not a deployment of this script: remove it first"
busy=()
for p in "$PORT" $GATEWAY_PORTS; do (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && busy+=("$p"); done
[ ${#busy[@]} -eq 0 ] || die "ports in use: ${busy[*]}"
PGOPTIONS="-c client_min_messages=warning" psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null

say "2. directories"
mkdir -p "$ETC" "$VAR" "$SHARE" "$W/log" "$W/run" "$W/nginx/sites-enabled" "$W/nginx/tmp"
touch "$W/.suanli-local-deployment"
echo "$DB" >"$W/run/database"
echo "$PG_ADMIN" >"$W/run/pg-admin-url"

say "3. build"
if [ "$WITH_CONSOLE" != 0 ] && [ ! -f "$repo/apps/console/dist/index.html" ]; then (cd "$repo" && npm run build -w apps/console); fi
[ -d "$repo/node_modules/tsx" ] || die "node_modules is missing: npm ci"

say "4. configuration"
set_env() { # file key value: replaces the key's line or appends one
  if grep -q "^$2=" "$1"; then sed -i "s|^$2=.*|$2=$3|" "$1"; else echo "$2=$3" >>"$1"; fi
}
remap <"$repo/deploy/etc/gateway.env.example" | grep -v '^SMTP_' >"$ETC/gateway.env"
set_env "$ETC/gateway.env" PUBLIC_URL "$URL"
set_env "$ETC/gateway.env" ALLOWED_ORIGINS "$URL"
set_env "$ETC/gateway.env" IDE_ORIGIN "http://{task}.ide.localhost:$PORT"
set_env "$ETC/gateway.env" DATABASE_URL "postgres://postgres@127.0.0.1:5432/$DB"
set_env "$ETC/gateway.env" REDIS_URL "$REDIS"
# Its own channel: other gateways on this machine's Redis (tests) must not see this deployment's events.
set_env "$ETC/gateway.env" REDIS_CHANNEL "suanli-deploy:$DB:events"
if [ -n "$GATEWAY_ENV_EXTRA" ]; then
  while IFS= read -r kv; do
    [[ "$kv" =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] && set_env "$ETC/gateway.env" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
  done <"$GATEWAY_ENV_EXTRA"
fi

remap <"$repo/deploy/etc/file-service.env.example" >"$ETC/file-service.env"
set_env "$ETC/file-service.env" GATEWAY_URL "$URL"
set_env "$ETC/file-service.env" HOST 127.0.0.1

centers="$(cd "$repo" && node --input-type=module -e '
  import fs from "node:fs"; import YAML from "yaml";
  const doc = YAML.parseDocument(fs.readFileSync(process.argv[4], "utf8"));
  for (const c of doc.get("centers").items) {
    const id = c.get("id");
    // A relative root is the embedded default'"'"'s (under DATA_DIR): here the center'"'"'s own share instead.
    if (!String(c.get("storageRoot") ?? "").startsWith("/")) c.set("storageRoot", `${process.argv[1]}/${id}`);
    c.set("fileServiceUrl", `${process.argv[2]}/fs/${id}`);
  }
  fs.writeFileSync(process.argv[3], String(doc));
  console.log(doc.get("centers").items.map((c) => c.get("id")).join(" "));
' "$SHARE" "$URL" "$ETC/centers.yaml" "$CENTERS_SRC")"
fs_pairs=""
n=0
for id in $centers; do
  port=$((FS_PORT_BASE + n)); n=$((n + 1))
  mkdir -p "$SHARE/$id"
  printf 'CENTER_ID=%s\nPORT=%s\n' "$id" "$port" >"$ETC/file-service-$id.env"
  fs_pairs+="$id=127.0.0.1:$port "
done

gateway_addrs=""
for p in $GATEWAY_PORTS; do gateway_addrs+="127.0.0.1:$p "; done
SUANLI_LISTEN="127.0.0.1:$PORT" SUANLI_SERVER_NAME="127.0.0.1 localhost" SUANLI_IDE_DOMAIN="ide.localhost" \
  SUANLI_APP_DIR="$repo" SUANLI_GATEWAYS="$gateway_addrs" SUANLI_FILE_SERVICES="$fs_pairs" \
  "$repo/deploy/nginx/render.sh" >"$W/nginx/sites-enabled/suanli"
# Debian's /etc/nginx/nginx.conf, reduced to what a second nginx beside it needs (own pid, logs, temp dirs).
cat >"$W/nginx/nginx.conf" <<CONF
worker_processes 2;
pid $W/run/nginx.pid;
error_log $W/log/nginx-error.log;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  sendfile on;
  access_log $W/log/nginx-access.log;
  client_body_temp_path $W/nginx/tmp/body;
  proxy_temp_path $W/nginx/tmp/proxy;
  fastcgi_temp_path $W/nginx/tmp/fastcgi;
  uwsgi_temp_path $W/nginx/tmp/uwsgi;
  scgi_temp_path $W/nginx/tmp/scgi;
  include $W/nginx/sites-enabled/*;
}
CONF
# Workers run as nobody when nginx is started by root: they write the temp dirs.
[ "$(id -u)" -ne 0 ] || chown nobody "$W/nginx/tmp"
nginx -t -q -c "$W/nginx/nginx.conf" -p "$W/nginx" || die "nginx -t failed"

say "5. migrate"
(cd "$repo" && env -i PATH="$PATH" HOME="$HOME" deploy/with-env.sh "$ETC/gateway.env" npm run admin -- operator list)

say "6. start"
for id in $centers; do start_unit "$repo/deploy/systemd/suanli-file-service@.service" "$id" "file-service-$id"; done
# The first gateway alone (step 5 left it nothing to migrate; after an upgrade it would run the release's
# migrations here, under the migration lock), then the others.
read -r first_gw rest_gw <<<"$GATEWAY_PORTS"
start_unit "$repo/deploy/systemd/suanli-gateway@.service" "$first_gw" "gateway-$first_gw"
wait_http "http://127.0.0.1:$first_gw/" "gateway-$first_gw"
for p in $rest_gw; do start_unit "$repo/deploy/systemd/suanli-gateway@.service" "$p" "gateway-$p"; done
for p in $rest_gw; do wait_http "http://127.0.0.1:$p/" "gateway-$p"; done
n=0
for id in $centers; do wait_http "http://127.0.0.1:$((FS_PORT_BASE + n))/" "file-service-$id"; n=$((n + 1)); done
nginx -c "$W/nginx/nginx.conf" -p "$W/nginx"
wait_http "$URL/console/" nginx

say "7. check"
check() { # what url expect-in-output [curl args…]
  local what="$1" url="$2" expect="$3"; shift 3
  local out
  out="$(curl -sS -i --max-time 10 "$@" "$url")" || die "check failed: $what ($url)"
  grep -q -- "$expect" <<<"$out" || { echo "$out" | head -20 >&2; die "check failed: $what — expected \"$expect\" ($url)"; }
  echo "  ✓ $what"
}
if [ "$WITH_CONSOLE" != 0 ]; then
  check "console page through nginx, with the gateway's CSP" "$URL/console/" "content-security-policy:"
  asset="$(grep -o '/console/assets/[^"]*\.js' "$repo/apps/console/dist/index.html" | head -1)"
  check "console bundle from disk, immutable" "$URL$asset" "immutable"
fi
check "gateway API" "$URL/gateway/user/api/v1/user/rsa-key" '"code":0'
for id in $centers; do
  check "file service of $id (refuses a call without a session)" "$URL/fs/$id/api/v1/directory?path=/" '"code":10133' -X POST
done

cat >"$W/deployment.json" <<JSON
{ "url": "$URL", "database": "$DB", "databaseUrl": "postgres://postgres@127.0.0.1:5432/$DB", "etc": "$ETC", "dataDir": "$VAR", "share": "$SHARE",
  "gateways": [$(printf '%s\n' $GATEWAY_PORTS | sed 's/.*/"127.0.0.1:&"/' | paste -sd,)], "centers": [$(printf '%s\n' $centers | sed 's/.*/"&"/' | paste -sd,)],
  "fileServices": { $(printf '%s\n' $fs_pairs | sed 's/^\([^=]*\)=\(.*\)$/"\1": "\2"/' | paste -sd,) } }
JSON
say "up: $URL/console  (down: deploy/local-down.sh $W)"
