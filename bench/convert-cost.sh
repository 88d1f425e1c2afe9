#!/usr/bin/env bash
# What `ingest --convert-dates` costs on the client: the logs generator alone vs with its two
# date fields converted to epoch millis (isodate parse + in-place byte rewrite).
# Usage: bench/convert-cost.sh [DOCS] [ROUNDS]   (defaults 1000000 5)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release -q -p searchbench --example convert_cost -- "${1:-1000000}" "${2:-5}"
