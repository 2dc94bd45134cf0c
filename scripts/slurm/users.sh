#!/usr/bin/env bash
# Creates (or reuses) a pool of cluster accounts as real Linux users, named and numbered the way a center's
# static pool in config/centers.yaml maps them: account n (1-based) is `${PREFIX}$(printf %04d n)` with
# uid = gid = UIDSTART + n - 1. Prints the account names, space-separated.
#
#   scripts/slurm/users.sh PREFIX UIDSTART COUNT
#
# Idempotent and safe to run concurrently: an existing user with the expected uid is reused; a name or uid
# taken by something else is an error (never reassigned). The users stay after the run (cheap, and a second
# run or a parallel one reuses them); they have no password and no login shell.
set -euo pipefail
PREFIX=${1:?usage: users.sh PREFIX UIDSTART COUNT}
UIDSTART=${2:?}
COUNT=${3:?}
USERADD_LOCK=/run/lock/suanli-useradd.lock
names=()
for n in $(seq 1 "$COUNT"); do
  name="$PREFIX$(printf %04d "$n")"
  uid=$((UIDSTART + n - 1))
  for attempt in 1 2 3; do
    if have=$(id -u "$name" 2>/dev/null); then
      [ "$have" = "$uid" ] || { echo "users.sh: user $name exists with uid $have, expected $uid" >&2; exit 1; }
      break
    fi
    if other=$(getent passwd "$uid" | cut -d: -f1) && [ -n "$other" ]; then
      echo "users.sh: uid $uid is taken by $other (wanted for $name)" >&2
      exit 1
    fi
    # Serialised with every other test's useradd (apps/server/test/posix-users.ts): shadow's own lock on
    # /etc/passwd fails at once instead of waiting, so concurrent tiers would lose users.
    getent group "$name" >/dev/null || flock "$USERADD_LOCK" groupadd -g "$uid" "$name" 2>/dev/null || true
    # -M: the home is the account's directory on the center's storage, made by whoever provisions it.
    flock "$USERADD_LOCK" useradd -u "$uid" -g "$name" -M -d "/nonexistent/$name" -s /usr/sbin/nologin "$name" 2>/dev/null || true
    # A concurrent run may have won the race: loop and check again.
  done
  id -u "$name" >/dev/null 2>&1 || { echo "users.sh: could not create user $name (uid $uid)" >&2; exit 1; }
  names+=("$name")
done
echo "${names[@]}"
