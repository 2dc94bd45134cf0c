#!/usr/bin/env bash
# Starts two real Slurm clusters with accounting on loopback, for tests: the two sub-centers of the test
# harness (apps/server/test/slurm-harness.ts). Every daemon, config, state dir, log and key lives in WORKDIR;
# the only things outside it are the MariaDB databases/user it creates (dropped by down.sh) and the cluster
# accounts, which are real Linux users (reused when present, see users.sh).
#
#   scripts/slurm/up.sh WORKDIR        → writes WORKDIR/harness.json once both clusters answer
#   scripts/slurm/down.sh WORKDIR      → stops everything, drops the databases, removes WORKDIR
#
# The cluster configs follow docs/operations/slurm-center.md (what an operator sets up on a production
# cluster); only the parts that fake hardware (mknod GPUs, one host for all nodes) are test-only.
#
# Knobs (env): SUANLI_SLURM_DB_HOST/PORT/ADMIN (MariaDB with a password-less admin; default
# 127.0.0.1:3306 root), SUANLI_SLURM_POOL (accounts per cluster, default 3), SUANLI_SLURM_CLUSTERS (which of
# the two to start, by harness id: default "a b"; a test that needs one cluster starts one),
# SUANLI_SLURM_PREFIX_A/B and SUANLI_SLURM_UID_A/B (each cluster's account pool: harnesses running at the same
# time need pools of their own, since an account's home is its harness's), SUANLI_SLURM_PORTS (10 free
# loopback ports to use, space-separated: a caller starting several harnesses at once picks them all in one
# go so no two harnesses get the same port; default: picked here).
set -euo pipefail

WORK=${1:?usage: up.sh WORKDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
DB_HOST=${SUANLI_SLURM_DB_HOST:-127.0.0.1}
DB_PORT=${SUANLI_SLURM_DB_PORT:-3306}
DB_ADMIN=${SUANLI_SLURM_DB_ADMIN:-root}
POOL=${SUANLI_SLURM_POOL:-3}
ONLY=" ${SUANLI_SLURM_CLUSTERS:-a b} "
T0=$(date +%s%N)

die() { echo "slurm-harness: $*" >&2; exit 1; }
log() { echo "slurm-harness: [$(( ($(date +%s%N) - T0) / 1000000 )) ms] $*" >&2; }

[ "$(id -u)" -eq 0 ] || die "must run as root (it starts slurmd and creates the cluster accounts with useradd)"
for bin in munged slurmctld slurmd slurmdbd slurmrestd sacctmgr scontrol sinfo mysql; do
  command -v "$bin" >/dev/null 2>&1 || die "$bin is missing: run scripts/provision.sh (Debian packages slurm-wlm slurmdbd slurmrestd munge mariadb-client)"
done
mysql_admin() { mysql -h "$DB_HOST" -P "$DB_PORT" -u "$DB_ADMIN" --batch --skip-column-names "$@"; }
mysql_admin -e 'select 1' >/dev/null 2>&1 || die "MariaDB is not reachable as $DB_ADMIN@$DB_HOST:$DB_PORT (slurmdbd stores accounting there)"

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
# Jobs run as the cluster accounts and must reach their homes inside WORKDIR.
chmod 755 "$WORK"
HOST=$(hostname -s)
SLURM_USER=slurm
getent passwd "$SLURM_USER" >/dev/null || SLURM_USER=root
RESTD_USER=nobody
DB_PASS=$(head -c 18 /dev/urandom | base64 | tr -dc 'a-zA-Z0-9')
TAG=$(basename "$WORK" | tr -c 'a-zA-Z0-9\n' '_' | tr 'A-Z' 'a-z' | tail -c 13)
echo "$TAG" >"$WORK/tag"

# Free loopback ports, all at once (node is there anyway: the harness is driven by vitest).
if [ -n "${SUANLI_SLURM_PORTS:-}" ]; then
  read -r -a PORTS <<<"$SUANLI_SLURM_PORTS"
  [ ${#PORTS[@]} -eq 10 ] || die "SUANLI_SLURM_PORTS must name 10 ports, not ${#PORTS[@]}"
else
  read -r -a PORTS <<<"$(node -e '
  const net = require("node:net");
  const n = Number(process.argv[1]); const servers = []; const ports = [];
  (async () => {
    for (let i = 0; i < n; i++) {
      const s = net.createServer(); await new Promise((r) => s.listen(0, "127.0.0.1", r));
      servers.push(s); ports.push(s.address().port);
    }
    servers.forEach((s) => s.close());
    console.log(ports.join(" "));
  })();' 10)"
fi

# ── munge: one daemon with its own key and socket, shared by both clusters ──
M="$WORK/munge"
mkdir -p "$M"
chmod 700 "$M"
dd if=/dev/urandom of="$M/munge.key" bs=1024 count=1 status=none
chmod 400 "$M/munge.key"
munged --force --num-threads=10 --key-file="$M/munge.key" --socket="$M/munge.sock" --pid-file="$M/munged.pid" \
  --log-file="$M/munged.log" --seed-file="$M/munged.seed" </dev/null >/dev/null 2>&1 ||
  die "munged did not start: $(tail -5 "$M/munged.log" 2>/dev/null)"
# The socket directory must be reachable by every process that authenticates (slurmrestd runs as nobody).
chmod 755 "$M"
echo "$M/munged.pid" >>"$WORK/pidfiles"

# ── the clusters (both unless SUANLI_SLURM_CLUSTERS names one) ──
# harness id, gres type, partition, account prefix, first uid (overridable for sites with those uids taken)
CLUSTERS=(
  "a a100 gpu-a100 ${SUANLI_SLURM_PREFIX_A:-sla} ${SUANLI_SLURM_UID_A:-61001}"
  "b ascend npu-910b ${SUANLI_SLURM_PREFIX_B:-slb} ${SUANLI_SLURM_UID_B:-62001}"
)

i=0
for spec in "${CLUSTERS[@]}"; do
  read -r NAME GRES PART PREFIX UIDSTART <<<"$spec"
  [[ "$ONLY" == *" $NAME "* ]] || continue
  C="$WORK/$NAME"
  CLUSTER="sl${TAG}${NAME}" # unique per harness run: Slurm lower-cases cluster names
  CLUSTER=${CLUSTER:0:30}
  DBD_PORT=${PORTS[$((i * 4))]}
  CTLD_PORT=${PORTS[$((i * 4 + 1))]}
  SLURMD_PORT=${PORTS[$((i * 4 + 2))]}
  RESTD_PORT=${PORTS[$((i * 4 + 3))]}
  NODE="${NAME}-node1"
  DB="slurm_acct_${TAG}_${NAME}"
  DB_USER="sl_${TAG}"
  mkdir -p "$C"/{state,spool,dev,log}
  head -c 32 /dev/urandom >"$C/jwt.key"
  for n in 0 1; do mknod "$C/dev/gpu$n" c 1 3; done
  chown -R "$SLURM_USER:" "$C/state" "$C/log" "$C/jwt.key"
  chmod 600 "$C/jwt.key"

  # Accounts: a pool of real Linux users, named and numbered the way config/centers.yaml pools are.
  ACCOUNTS=$("$HERE/users.sh" "$PREFIX" "$UIDSTART" "$POOL")
  mkdir -p "$WORK/storage/$NAME/home"
  for acct in $ACCOUNTS; do
    install -d -m 700 -o "$acct" -g "$acct" "$WORK/storage/$NAME/home/$acct"
  done
  # The cluster's login node (web shell, key pairs): sshd on its own port.
  # shellcheck disable=SC2086
  "$HERE/sshd.sh" "$C/sshd" "${PORTS[$((8 + i))]}" "$WORK/storage/$NAME/home" $ACCOUNTS || die "sshd of cluster $NAME did not start"
  echo "$C/sshd/sshd.pid" >>"$WORK/pidfiles"

  mysql_admin -e "CREATE USER IF NOT EXISTS '$DB_USER'@'%' IDENTIFIED BY '$DB_PASS';
    ALTER USER '$DB_USER'@'%' IDENTIFIED BY '$DB_PASS';
    GRANT ALL ON \`$DB\`.* TO '$DB_USER'@'%';"
  echo "$DB" >>"$WORK/databases"
  echo "$DB_USER" >"$WORK/dbuser"

  cat >"$C/slurmdbd.conf" <<EOF
# Accounting daemon of cluster $CLUSTER (see docs/operations/slurm-center.md, "Accounting").
AuthType=auth/munge
AuthInfo=socket=$M/munge.sock
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$C/jwt.key
DbdAddr=127.0.0.1
DbdHost=localhost
DbdPort=$DBD_PORT
SlurmUser=$SLURM_USER
LogFile=$C/log/slurmdbd.log
PidFile=$C/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=$DB_HOST
StoragePort=$DB_PORT
StorageUser=$DB_USER
StoragePass=$DB_PASS
StorageLoc=$DB
EOF
  chown "$SLURM_USER:" "$C/slurmdbd.conf"
  chmod 600 "$C/slurmdbd.conf"

  cat >"$C/gres.conf" <<EOF
# Fake cards: character devices Slurm binds like GPUs (test-only; production lists /dev/nvidia* etc.).
AutoDetect=off
NodeName=$NODE Name=gpu Type=$GRES File=$C/dev/gpu[0-1]
EOF

  cat >"$C/slurm.conf" <<EOF
# Cluster $CLUSTER of the test harness (see docs/operations/slurm-center.md).
ClusterName=$CLUSTER
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=$SLURM_USER
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$M/munge.sock
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$C/jwt.key
CredType=cred/munge
StateSaveLocation=$C/state
SlurmdSpoolDir=$C/spool/%n
SlurmctldPidFile=$C/slurmctld.pid
SlurmdPidFile=$C/slurmd-%n.pid
SlurmctldLogFile=$C/log/slurmctld.log
SlurmdLogFile=$C/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=100
GresTypes=gpu
# Accounting: needed to settle jobs that left slurmctld's memory; the comment carries the task id.
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$DBD_PORT
# With slurmdbd, this names the munge socket used to talk to it (ours is not the default one).
AccountingStoragePass=$M/munge.sock
# limits/qos/safe: the platform holds a cluster account's jobs when its owner's compute power is gone (a
# GrpTRES limit on the association, issue 25); with no limit set, nothing changes for a job.
AccountingStorageEnforce=associations,limits,qos,safe
AccountingStorageTRES=gres/gpu
AccountingStoreFlags=job_comment
JobAcctGatherType=jobacct_gather/linux
# Memory is enforced the way a cgroup-less site can (TaskPlugin=task/none here): every sample, a step whose
# processes together hold more than the job's memory is killed (issue 23's memory diagnosis). That sum covers
# every process of the step — for the batch step of a platform training job the script's bash and its srun,
# ~12 MiB RSS before the user's command starts — so a card type's memoryGBPerCard must leave room for it
# (tests use ≥ 0.05; docs/plan/23.md). Sampled every second so a test job is caught quickly and MaxRSS
# (sacct) sees short jobs too.
JobAcctGatherParams=OverMemoryKill
JobAcctGatherFrequency=task=1
JobCompType=jobcomp/none
# Short timers: tests watch jobs finish within seconds.
MinJobAge=30
KillWait=5
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=60
MessageTimeout=10
SchedulerParameters=bf_interval=2,sched_min_interval=100000
# 2000 MB: room for a 1 GiB job (what 按建议重新提交 suggests after a small job ran out of memory, issue 23).
NodeName=$NODE NodeHostname=$HOST NodeAddr=127.0.0.1 CPUs=2 RealMemory=2000 Gres=gpu:$GRES:2 State=UNKNOWN
PartitionName=$PART Nodes=$NODE Default=YES MaxTime=60 DefaultTime=10 State=UP
# CPU-only jobs on oversubscribed cores (test-only): the metering fault test runs 20 jobs at once on this
# one 2-CPU node. Cards (gres) are never shared, so the cards partition above behaves as before.
PartitionName=$PART-share Nodes=$NODE Default=NO MaxTime=60 DefaultTime=10 OverSubscribe=FORCE:25 State=UP
EOF
  chmod 644 "$C/slurm.conf" "$C/gres.conf"

  echo "$NAME $CLUSTER $PART $GRES $NODE $RESTD_PORT $PREFIX $UIDSTART $ACCOUNTS" >>"$WORK/clusters"
  i=$((i + 1))
done
[ -s "$WORK/clusters" ] || die "SUANLI_SLURM_CLUSTERS names no cluster of the harness (a, b):$ONLY"

# ── accounting daemons (both start in parallel; the first start creates the tables) ──
while read -r NAME _; do
  C="$WORK/$NAME"
  SLURM_CONF="$C/slurm.conf" slurmdbd </dev/null >"$C/log/slurmdbd.out" 2>&1 ||
    die "slurmdbd of cluster $NAME did not start: $(tail -5 "$C/log/slurmdbd.log" 2>/dev/null)"
  echo "$C/slurmdbd.pid" >>"$WORK/pidfiles"
done <"$WORK/clusters"

wait_for() { # seconds description command...
  local secs=$1 what=$2 deadline
  shift 2
  deadline=$(($(date +%s) + secs))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

while read -r NAME CLUSTER PART GRES NODE RESTD_PORT PREFIX UIDSTART ACCOUNTS; do
  C="$WORK/$NAME"
  export SLURM_CONF="$C/slurm.conf"
  wait_for 40 "slurmdbd $NAME" sacctmgr -n list cluster ||
    die "slurmdbd of cluster $NAME does not answer: $(tail -5 "$C/log/slurmdbd.log" 2>/dev/null)"
  log "slurmdbd $NAME up"
  sacctmgr -i -Q add cluster "$CLUSTER" >/dev/null
  sacctmgr -i -Q add account suanli Cluster="$CLUSTER" Description="suanli platform" Organization=suanli >/dev/null
  # shellcheck disable=SC2086
  sacctmgr -i -Q add user $(echo $ACCOUNTS | tr ' ' ',') Account=suanli Cluster="$CLUSTER" >/dev/null
  slurmctld -c </dev/null >"$C/log/slurmctld.out" 2>&1 ||
    die "slurmctld of cluster $NAME did not start: $(tail -5 "$C/log/slurmctld.log" 2>/dev/null)"
  echo "$C/slurmctld.pid" >>"$WORK/pidfiles"
done <"$WORK/clusters"

while read -r NAME CLUSTER PART GRES NODE RESTD_PORT _; do
  C="$WORK/$NAME"
  export SLURM_CONF="$C/slurm.conf"
  wait_for 30 "slurmctld $NAME" scontrol ping ||
    die "slurmctld of cluster $NAME does not answer: $(tail -5 "$C/log/slurmctld.log" 2>/dev/null)"
  slurmd -N "$NODE" </dev/null >"$C/log/slurmd.out" 2>&1 ||
    die "slurmd of cluster $NAME did not start: $(tail -5 "$C/log/slurmd-$NODE.log" 2>/dev/null)"
  echo "$C/slurmd-$NODE.pid" >>"$WORK/pidfiles"
  # slurmrestd refuses to run as root or SlurmUser; SLURM_JWT=daemon makes it forward each client's token.
  setsid env SLURM_JWT=daemon SLURM_CONF="$C/slurm.conf" \
    setpriv --reuid="$RESTD_USER" --regid="$(id -g "$RESTD_USER")" --clear-groups \
    slurmrestd -a rest_auth/jwt -s openapi/v0.0.38,openapi/dbv0.0.38 "127.0.0.1:$RESTD_PORT" \
    </dev/null >"$C/log/slurmrestd.log" 2>&1 &
  echo $! >"$C/slurmrestd.pid"
  echo "$C/slurmrestd.pid" >>"$WORK/pidfiles"
done <"$WORK/clusters"

while read -r NAME CLUSTER PART GRES NODE RESTD_PORT _; do
  C="$WORK/$NAME"
  export SLURM_CONF="$C/slurm.conf"
  node_idle() { [ "$(sinfo -h -n "$NODE" -o %t)" = idle ]; }
  wait_for 30 "node $NAME" node_idle ||
    die "node $NODE of cluster $NAME is not idle ($(sinfo -h -n "$NODE" -o '%t %E' 2>&1)): $(tail -5 "$C/log/slurmd-$NODE.log" 2>/dev/null)"
  restd_up() { (exec 3<>"/dev/tcp/127.0.0.1/$RESTD_PORT") 2>/dev/null; }
  wait_for 15 "slurmrestd $NAME" restd_up ||
    die "slurmrestd of cluster $NAME does not listen on $RESTD_PORT: $(tail -5 "$C/log/slurmrestd.log" 2>/dev/null)"
  log "cluster $NAME ($CLUSTER) ready"
done <"$WORK/clusters"

# ── harness.json: what the tests need to reach each cluster ──
{
  echo '{ "clusters": ['
  sep=''
  while read -r NAME CLUSTER PART GRES NODE RESTD_PORT PREFIX UIDSTART ACCOUNTS; do
    accts=$(for a in $ACCOUNTS; do printf '"%s",' "$a"; done)
    cat <<EOF
$sep{ "id": "$NAME", "cluster": "$CLUSTER", "restUrl": "http://127.0.0.1:$RESTD_PORT",
  "jwtKeyFile": "$WORK/$NAME/jwt.key", "slurmConf": "$WORK/$NAME/slurm.conf",
  "partitions": ["$PART"], "gres": [{ "name": "gpu", "type": "$GRES", "perNode": 2 }], "nodes": ["$NODE"],
  "account": "suanli", "accounts": { "prefix": "$PREFIX", "uidStart": $UIDSTART, "names": [${accts%,}] },
  "storageRoot": "$WORK/storage/$NAME", "sshPort": $(cat "$WORK/$NAME/sshd/ssh.port") }
EOF
    sep=','
  done <"$WORK/clusters"
  echo '] }'
} >"$WORK/harness.json"
log "clusters ready"
