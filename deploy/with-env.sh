#!/usr/bin/env bash
# deploy/with-env.sh ENVFILE COMMAND… — runs COMMAND with the variables of a systemd EnvironmentFile added:
# KEY=VALUE lines taken literally, as systemd reads unquoted values (no shell: `SMTP_FROM=算力平台 <a@b.cn>`
# stays one value); comments and blank lines skipped. For the admin command with the gateways' environment
# (docs/operations/deploy.md steps 5 and 8).
set -euo pipefail
file="${1:?usage: with-env.sh ENVFILE COMMAND…}"
shift
while IFS= read -r line || [ -n "$line" ]; do
  if [[ "$line" =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]]; then export "${BASH_REMATCH[1]}=${BASH_REMATCH[2]}"; fi
done <"$file"
exec "$@"
