# deploy/local-lib.sh — sourced by local-up.sh and local-start.sh (not run on its own). Needs `repo` (this
# repository), `W` (the work dir), `ETC` and `VAR` (its /etc/suanli and /var/lib/suanli) set by the caller.

die() { echo "local-up: $*" >&2; exit 1; }

# The document's paths, here under WORKDIR (see the top of local-up.sh).
remap() { sed -e "s|/etc/suanli|$ETC|g" -e "s|/var/lib/suanli|$VAR|g" -e "s|/opt/suanli|$repo|g"; }

# Runs a unit's ExecStart as a process the way systemd would: its WorkingDirectory, a clean environment from
# its EnvironmentFile(s) and Environment lines, %i replaced by the instance. Pid in run/<name>.pid, output
# appended to log/<name>.log (a restart keeps what the killed process wrote); setsid gives it a process group
# of its own (local-down.sh ends the group; the fault test SIGKILLs it).
start_unit() { # unit-file instance name
  local unit="$1" inst="$2" name="$3" wd="" exec="" line key value
  local vars=(PATH="$PATH" HOME="$HOME" LANG="${LANG:-C.UTF-8}")
  while IFS= read -r line; do
    line="${line//%i/$inst}"
    line="$(remap <<<"$line")"
    case "$line" in
      WorkingDirectory=*) wd="${line#WorkingDirectory=}" ;;
      ExecStart=*) exec="${line#ExecStart=}" ;;
      Environment=*) vars+=("${line#Environment=}") ;;
      EnvironmentFile=*)
        while IFS= read -r kv; do
          [[ "$kv" =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] && vars+=("${BASH_REMATCH[1]}=${BASH_REMATCH[2]}")
        done <"${line#EnvironmentFile=}" ;;
    esac
  done <"$unit"
  local argv
  read -ra argv <<<"$exec"
  (cd "$wd" && exec env -i "${vars[@]}" setsid "${argv[@]}") >>"$W/log/$name.log" 2>&1 &
  echo $! >"$W/run/$name.pid"
}

wait_http() { # url name
  local pid deadline=$((SECONDS + 90))
  pid="$(cat "$W/run/$2.pid")"
  until [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$1" || true)" != 000 ]; do
    if ! kill -0 "$pid" 2>/dev/null; then tail -20 "$W/log/$2.log" >&2; die "$2 exited during start (log: $W/log/$2.log)"; fi
    [ $SECONDS -lt $deadline ] || die "$2 did not answer at $1 within 90 s (log: $W/log/$2.log)"
    sleep 0.3
  done
  echo "  $2 up (pid $pid)"
}
