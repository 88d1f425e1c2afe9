#!/usr/bin/env bash
# Records again the answers the fast tier replays (crates/searchbench/tests/fixtures/answers/):
# starts a real node of ENGINE (the test engine, opensearch-2.19.1, by default) from Maven
# Central, runs the offline tests with SEARCHBENCH_RECORD_ANSWERS naming it (each recorded
# double forwards there and writes what the node said when its test passes), stops the node.
# Usage: bench/record-answers.sh [ENGINE]
set -euo pipefail
cd "$(dirname "$0")/.."
engine=${1:-opensearch-2.19.1}
cargo build -q -p searchbench
bin=target/debug/searchbench
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" engine start "$engine" --heap 512m --port "$port" --json >/dev/null
trap '"$bin" engine stop --port "$port" >/dev/null' EXIT
SEARCHBENCH_RECORD_ANSWERS="http://127.0.0.1:$port" \
  cargo test -q -p searchbench --test offline -- --test-threads 1
git status --short crates/searchbench/tests/fixtures/answers
