# Sourced by the bench scripts that need one real node: `start_node ENGINE HEAP [FLAG...]`
# starts it with `$SB engine start` (the flags passed on, e.g. --knn), sets URL and PORT, and
# stops it by its port when the script exits (the EXIT trap is the script's: a script that
# needs more in it sets its own after); `stop_node` stops it before then.
start_node() {
  local started engine=$1 heap=$2
  shift 2
  started=$("$SB" engine start "$engine" --heap "$heap" "$@" --json)
  URL=$(python3 -c 'import json,sys; n=json.loads(sys.argv[1]); n=n[0] if isinstance(n,list) else n; print(n["url"])' "$started")
  PORT=${URL##*:}
  PORT=${PORT%%/*}
  trap '"$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true' EXIT
}

stop_node() {
  "$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true
  trap - EXIT
}
