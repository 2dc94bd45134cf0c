#!/usr/bin/env bash
# Installs the system packages the test tiers need (Debian). Idempotent: skips what is already there.
#   chromium + fonts-noto-cjk  e2e tier (real browser; CJK fonts or Chinese renders as boxes)
#   openssl                    RSA interop test (openssl pkeyutl)
#   slurm-wlm slurmdbd slurmrestd munge mariadb-client
#                              two real Slurm clusters with accounting (scripts/slurm/up.sh)
# PostgreSQL, Redis and MariaDB are expected to be running already (127.0.0.1:5432 trust, 127.0.0.1:6379,
# 127.0.0.1:3306 root without password).
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || need+=(fonts-noto-cjk)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v slurmctld >/dev/null 2>&1 || need+=(slurm-wlm)
command -v slurmdbd >/dev/null 2>&1 || need+=(slurmdbd)
command -v slurmrestd >/dev/null 2>&1 || need+=(slurmrestd)
command -v munged >/dev/null 2>&1 || need+=(munge)
command -v mysql >/dev/null 2>&1 || need+=(mariadb-client)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
echo "provision: ok (chromium $(chromium --version 2>/dev/null | awk '{print $2}'), $(slurmctld -V))"
