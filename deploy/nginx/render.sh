#!/usr/bin/env bash
# Renders deploy/nginx/suanli.conf.template to stdout (docs/operations/deploy.md "nginx"):
#
#   SUANLI_SERVER_NAME     the console's host name                      (required, e.g. suanli.example.cn)
#   SUANLI_IDE_DOMAIN      parent of the IDE origins, *.<this>          (required, e.g. ide.example.cn; IDE_ORIGIN
#                          of the gateways is https://{task}.<this>)
#   SUANLI_GATEWAYS        gateway addresses, space-separated           (default 127.0.0.1:8101 127.0.0.1:8102)
#   SUANLI_FILE_SERVICES   <center id>=<address> per center, space-separated (required, e.g.
#                          "sz-a100=10.0.1.10:8081 gz-ascend=10.0.2.10:8081")
#   SUANLI_APP_DIR         the release (built console under apps/console/dist)  (default /opt/suanli)
#   SUANLI_LISTEN          nginx `listen` arguments                     (default "443 ssl")
#   SUANLI_TLS_CERT/_KEY   certificate of SUANLI_SERVER_NAME            (required when SUANLI_LISTEN has ssl)
#   SUANLI_IDE_TLS_CERT/_KEY  wildcard certificate of *.SUANLI_IDE_DOMAIN (required when SUANLI_LISTEN has ssl)
#
# deploy/local-up.sh renders the same template with loopback values and no TLS.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
fail() { echo "render.sh: $*" >&2; exit 2; }

: "${SUANLI_SERVER_NAME:?render.sh: SUANLI_SERVER_NAME is required}"
: "${SUANLI_IDE_DOMAIN:?render.sh: SUANLI_IDE_DOMAIN is required}"
: "${SUANLI_FILE_SERVICES:?render.sh: SUANLI_FILE_SERVICES is required (<center id>=<host:port> ...)}"
export SUANLI_SERVER_NAME SUANLI_IDE_DOMAIN
export SUANLI_APP_DIR="${SUANLI_APP_DIR:-/opt/suanli}"
export SUANLI_LISTEN="${SUANLI_LISTEN:-443 ssl}"
gateways="${SUANLI_GATEWAYS:-127.0.0.1:8101 127.0.0.1:8102}"

tls_lines() { # cert key
  [ -n "$1" ] && [ -n "$2" ] || fail "SUANLI_LISTEN has ssl: set the certificate and key variables"
  printf '  ssl_certificate     %s;\n  ssl_certificate_key %s;' "$1" "$2"
}
if [[ " $SUANLI_LISTEN " == *" ssl "* ]]; then
  SUANLI_TLS="$(tls_lines "${SUANLI_TLS_CERT:-}" "${SUANLI_TLS_KEY:-}")"
  SUANLI_IDE_TLS="$(tls_lines "${SUANLI_IDE_TLS_CERT:-}" "${SUANLI_IDE_TLS_KEY:-}")"
else
  SUANLI_TLS='  # plain HTTP (SUANLI_LISTEN without ssl): loopback or behind another TLS terminator only'
  SUANLI_IDE_TLS="$SUANLI_TLS"
fi
export SUANLI_TLS SUANLI_IDE_TLS

SUANLI_GATEWAY_SERVERS=""
for g in $gateways; do SUANLI_GATEWAY_SERVERS+="  server ${g};"$'\n'; done
[ -n "$SUANLI_GATEWAY_SERVERS" ] || fail "SUANLI_GATEWAYS names no gateway"
export SUANLI_GATEWAY_SERVERS="${SUANLI_GATEWAY_SERVERS%$'\n'}"

SUANLI_FILE_SERVICE_UPSTREAMS=""
SUANLI_FILE_SERVICE_LOCATIONS=""
for pair in $SUANLI_FILE_SERVICES; do
  id="${pair%%=*}" addr="${pair#*=}"
  [[ "$id" =~ ^[a-z0-9][a-z0-9-]*$ && "$addr" != "$pair" && -n "$addr" ]] || fail "SUANLI_FILE_SERVICES: \"$pair\" is not <center id>=<host:port>"
  up="suanli_fs_${id//-/_}"
  SUANLI_FILE_SERVICE_UPSTREAMS+="upstream ${up} {
  server ${addr};
  keepalive 8;
}
"
  SUANLI_FILE_SERVICE_LOCATIONS+="  location ^~ /fs/${id}/ {
    proxy_pass http://${up}/;
    proxy_http_version 1.1;
    proxy_set_header Host \$host;
    proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
    proxy_set_header X-Forwarded-Proto \$scheme;
    proxy_set_header Connection '';
    client_max_body_size 0;
    proxy_request_buffering off;
    proxy_buffering off;
    proxy_read_timeout 1h;
    proxy_send_timeout 1h;
  }
"
done
export SUANLI_FILE_SERVICE_UPSTREAMS="${SUANLI_FILE_SERVICE_UPSTREAMS%$'\n'}"
export SUANLI_FILE_SERVICE_LOCATIONS="${SUANLI_FILE_SERVICE_LOCATIONS%$'\n'}"

# Only our variables: nginx's own ($host, $http_upgrade, …) stay as they are.
vars='${SUANLI_SERVER_NAME} ${SUANLI_IDE_DOMAIN} ${SUANLI_APP_DIR} ${SUANLI_LISTEN} ${SUANLI_TLS} ${SUANLI_IDE_TLS} ${SUANLI_GATEWAY_SERVERS} ${SUANLI_FILE_SERVICE_UPSTREAMS} ${SUANLI_FILE_SERVICE_LOCATIONS}'
envsubst "$vars" <"$here/suanli.conf.template"
