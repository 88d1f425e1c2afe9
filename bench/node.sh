# Sourced by the bench scripts that need one real node: `start_node ENGINE HEAP` starts it
# with `$SB engine start`, sets URL and PORT, and stops it by its port when the script exits
# (the EXIT trap is the script's: a script that needs more in it sets its own after).
start_node() {
  local started
  started=$("$SB" engine start "$1" --heap "$2" --json)
  URL=$(python3 -c 'import json,sys; n=json.loads(sys.argv[1]); n=n[0] if isinstance(n,list) else n; print(n["url"])' "$started")
  PORT=${URL##*:}
  PORT=${PORT%%/*}
  trap '"$SB" engine stop --port "$PORT" >/dev/null 2>&1 || true' EXIT
}
