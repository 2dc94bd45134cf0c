#!/usr/bin/env bash
# Logs in with nothing but curl and openssl: fetch the served RSA key, encrypt the password with PKCS#1 v1.5
# (`openssl pkeyutl`), base64 it, POST it. Prints the login answer (the envelope; data.token on success).
#   scripts/curl-login.sh [base-url] [account] [password]
set -euo pipefail
base=${1:-http://localhost:8080}
account=${2:-demo}
password=${3:-Demo@123456}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
curl -sf "$base/gateway/user/api/v1/user/rsa-key" \
  | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).data.publicKey))' > "$tmp/key.pem"
enc=$(printf %s "$password" | openssl pkeyutl -encrypt -pubin -inkey "$tmp/key.pem" -pkeyopt rsa_padding_mode:pkcs1 | base64 -w0)
curl -s -X POST -H 'content-type: application/json' \
  -d "{\"account\":\"$account\",\"password\":\"$enc\"}" \
  "$base/gateway/user/api/v1/user/login"
echo
