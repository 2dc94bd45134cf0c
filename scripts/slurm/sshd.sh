#!/usr/bin/env bash
# The login node of a harness cluster: a real OpenSSH sshd on a loopback port with its own host key, public
# keys only, reading each account's ~/.ssh/authorized_keys (what the key pairs module installs). The cluster
# accounts get a login shell and their home on the cluster's storage (`usermod`: an account's home is
# machine-wide, so harnesses running at the same time need account pools of their own — the test tier's
# harnesses each have one, see apps/server/test/slurm-harness.ts; of two harnesses on the same pool, the last
# one started decides where its accounts' homes are).
#
#   scripts/slurm/sshd.sh DIR PORT HOMEROOT ACCOUNT...    → starts sshd, writes DIR/sshd.pid and DIR/ssh.port
set -euo pipefail
DIR=${1:?usage: sshd.sh DIR PORT HOMEROOT ACCOUNT...}
PORT=${2:?}
HOMEROOT=${3:?}
shift 3
SSHD=${SSHD_PATH:-$(command -v sshd || echo /usr/sbin/sshd)}
[ -x "$SSHD" ] || { echo "sshd.sh: sshd not found (apt-get install openssh-server; scripts/provision.sh does)" >&2; exit 1; }
mkdir -p "$DIR" /run/sshd
chmod 755 /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$DIR/ssh_host_ed25519_key" <<<y >/dev/null
for acct in "$@"; do
  # --prefix / skips usermod's "user is currently used by a process" refusal (jobs of another run).
  # -p "*": no password, but not locked ("!"), which sshd without PAM refuses even for keys.
  # Under the lock every useradd of the tests takes (scripts/slurm/users.sh, apps/server/test/posix-users.ts):
  # shadow's own lock on /etc/passwd fails at once instead of waiting, and harnesses start side by side.
  flock /run/lock/suanli-useradd.lock usermod -P / -p "*" -d "$HOMEROOT/$acct" -s /bin/bash "$acct" 2>&1 | grep -v "no changes" >&2 || true
done
# Homes are reached through the harness work dir (mkdtemp: 0700); the accounts must traverse it.
d=$HOMEROOT
while [ "$d" != / ] && [ "$d" != /tmp ]; do
  chmod o+x "$d" 2>/dev/null || true
  d=$(dirname "$d")
done
cat >"$DIR/sshd_config" <<CFG
Port $PORT
ListenAddress 127.0.0.1
HostKey $DIR/ssh_host_ed25519_key
PidFile $DIR/sshd.pid
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin no
AuthorizedKeysFile .ssh/authorized_keys
StrictModes yes
AllowUsers $*
X11Forwarding no
PrintMotd no
Subsystem sftp internal-sftp
# A real login node has /etc/slurm/slurm.conf; this one's cluster configuration is beside its sshd directory,
# so sessions get it in the environment (srun/squeue work as on a login node: the develop task's SSH command).
SetEnv SLURM_CONF=$(dirname "$DIR")/slurm.conf
CFG
"$SSHD" -t -f "$DIR/sshd_config"
"$SSHD" -f "$DIR/sshd_config" -E "$DIR/sshd.log"
for _ in $(seq 1 50); do
  [ -s "$DIR/sshd.pid" ] && (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.1
done
[ -s "$DIR/sshd.pid" ] || { echo "sshd.sh: sshd did not start: $(tail -5 "$DIR/sshd.log")" >&2; exit 1; }
echo "$PORT" >"$DIR/ssh.port"
