# Sourced by the bench scripts that load into the bulk sink (examples/bulk_sink.rs): builds
# it, makes OUT (a scratch folder removed on exit), starts the sink pinned to SINK_CORE
# (default 1) and sets SINK (its pid) and URL.
#
#   . bench/sink.sh; start_sink [SINK ARGS...]
start_sink() {
  cargo build --release -q -p searchbench --example bulk_sink
  OUT=$(mktemp -d)
  taskset -c "${SINK_CORE:-1}" target/release/examples/bulk_sink "$@" >"$OUT/sink.log" 2>&1 &
  SINK=$!
  trap 'kill $SINK 2>/dev/null || true; rm -rf "$OUT"' EXIT
  for _ in $(seq 50); do grep -q listening "$OUT/sink.log" && break; sleep 0.1; done
  URL=$(sed -n 's/^listening on //p' "$OUT/sink.log")
}
