#!/usr/bin/env bash
# Stops what scripts/slurm/up.sh started in WORKDIR, drops its MariaDB databases and user, removes WORKDIR.
# Safe to run twice and on a half-started WORKDIR (up.sh failed midway). Only processes named in WORKDIR's
# pid files are signalled, and only if they still run a Slurm/munge binary (a stale pid may be reused).
#
#   scripts/slurm/down.sh WORKDIR
set -uo pipefail
WORK=${1:?usage: down.sh WORKDIR}
[ -d "$WORK" ] || exit 0
WORK=$(cd "$WORK" && pwd)
unset SLURM_CONF # the environment match below must not hit this script's own children
DB_HOST=${SUANLI_SLURM_DB_HOST:-127.0.0.1}
DB_PORT=${SUANLI_SLURM_DB_PORT:-3306}
DB_ADMIN=${SUANLI_SLURM_DB_ADMIN:-root}

ours() { # pid → true when it is one of our daemons
  local exe
  exe=$(readlink "/proc/$1/exe" 2>/dev/null) || return 1
  case "$exe" in */slurmctld | */slurmd | */slurmdbd | */slurmrestd | */munged | */sshd) return 0 ;; *) return 1 ;; esac
}

pids=()
if [ -f "$WORK/pidfiles" ]; then
  # Reverse start order: restd, slurmd, slurmctld, slurmdbd, munged last (the others talk to it on exit).
  while read -r f; do
    pid=$(cat "$f" 2>/dev/null) || continue
    [ -n "$pid" ] && ours "$pid" && pids+=("$pid")
  done < <(tac "$WORK/pidfiles")
fi
[ ${#pids[@]} -gt 0 ] && kill -TERM "${pids[@]}" 2>/dev/null
for _ in $(seq 1 50); do
  alive=()
  for p in "${pids[@]}"; do ours "$p" && alive+=("$p"); done
  [ ${#alive[@]} -eq 0 ] && break
  sleep 0.1
done
for p in "${pids[@]}"; do ours "$p" && kill -KILL "$p" 2>/dev/null; done
# Job steps (slurmstepd) and the jobs' own processes outlive a SIGTERMed slurmd: end every process whose
# environment points at this WORKDIR's configs (slurmd passes SLURM_CONF on to steps and jobs).
for f in $(grep -lzs "^SLURM_CONF=$WORK/" /proc/[0-9]*/environ); do
  p=${f#/proc/}
  p=${p%/environ}
  [ "$p" != "$PPID" ] && kill -KILL "$p" 2>/dev/null
done

if [ -f "$WORK/databases" ] || [ -f "$WORK/dbuser" ]; then
  sql=""
  while read -r db; do sql+="DROP DATABASE IF EXISTS \`$db\`;"; done <"$WORK/databases" 2>/dev/null
  [ -f "$WORK/dbuser" ] && sql+="DROP USER IF EXISTS '$(cat "$WORK/dbuser")'@'%';"
  mysql -h "$DB_HOST" -P "$DB_PORT" -u "$DB_ADMIN" -e "$sql" || echo "down.sh: could not drop the databases of $WORK" >&2
fi
rm -rf "$WORK"
