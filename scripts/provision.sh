#!/usr/bin/env bash
# Installs the system packages the test tiers need (Debian). Idempotent: skips what is already there.
#   chromium-headless-shell + fonts-noto-cjk
#                              e2e tier (real browser: Chromium's headless shell; CJK fonts or Chinese renders as
#                              boxes)
#   chromium                   bench/bundle (and a person's own look at the console)
#   openssl                    RSA interop test (openssl pkeyutl)
#   slurm-wlm slurmdbd slurmrestd munge mariadb-client
#                              two real Slurm clusters with accounting (scripts/slurm/up.sh)
#   python3-numpy openmpi-bin libopenmpi-dev lammps
#                              what the platform Slurm templates run (config/slurm-templates/)
#   openssh-server openssh-client python3
#                              web shell and key pairs: real sshd for the SSH transport tests and the clusters'
#                              login nodes (scripts/slurm/sshd.sh), ssh-keygen checks; the local shell's pty bridge
#   rsync                      bench/sync's baseline: `rsync -a -e ssh` between two storage roots (issue 26)
#   jupyter-notebook python3-ipykernel
#                              develop tasks' default IDE (ide-jupyter.api.test.ts)
#   docker-registry skopeo     the platform's OCI registry (CNCF distribution) and an independent client for
#                              the image tests (issue 11)
#   acl                        setfacl/getfacl: each private dataset/model folder in a center's asset area is
#                              readable only by the accounts it is granted to (ADR 0013); the gateway runs setfacl
#   nginx                      the reverse proxy of a deployment (deploy/nginx/); e2e/deploy.e2e.ts brings one up
#                              on loopback with deploy/local-up.sh
# PostgreSQL, Redis and MariaDB are expected to be running already (127.0.0.1:5432 trust, 127.0.0.1:6379,
# 127.0.0.1:3306 root without password).
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromium-headless-shell >/dev/null 2>&1 || need+=(chromium-headless-shell)
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || need+=(fonts-noto-cjk)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v slurmctld >/dev/null 2>&1 || need+=(slurm-wlm)
command -v slurmdbd >/dev/null 2>&1 || need+=(slurmdbd)
command -v slurmrestd >/dev/null 2>&1 || need+=(slurmrestd)
command -v munged >/dev/null 2>&1 || need+=(munge)
command -v mysql >/dev/null 2>&1 || need+=(mariadb-client)
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || need+=(python3-numpy)
command -v mpirun >/dev/null 2>&1 || need+=(openmpi-bin)
command -v mpicc >/dev/null 2>&1 || need+=(libopenmpi-dev)
command -v lmp >/dev/null 2>&1 || need+=(lammps)
[ -x /usr/sbin/sshd ] || need+=(openssh-server)
[ -x /usr/bin/python3 ] || need+=(python3)
command -v ssh >/dev/null 2>&1 || need+=(openssh-client)
command -v rsync >/dev/null 2>&1 || need+=(rsync)
command -v jupyter-notebook >/dev/null 2>&1 || need+=(jupyter-notebook)
/usr/bin/python3 -c 'import ipykernel' >/dev/null 2>&1 || need+=(python3-ipykernel)
command -v docker-registry >/dev/null 2>&1 || need+=(docker-registry)
command -v skopeo >/dev/null 2>&1 || need+=(skopeo)
command -v setfacl >/dev/null 2>&1 || need+=(acl)
command -v nginx >/dev/null 2>&1 || need+=(nginx)
# GNU time: scripts/test.mjs and .ci/run record each tier's CPU seconds with it (scripts/test-times.mjs prints them).
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
echo "provision: ok (chromium $(chromium --version 2>/dev/null | awk '{print $2}'), $(slurmctld -V))"
