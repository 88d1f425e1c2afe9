#!/usr/bin/env bash
# Installs Vega and Vega-Lite as Kibana 8 and OpenSearch Dashboards 2.5+ ship them (npm
# aliases pinned in crates/searchbench/tests/fixtures/vega/package-lock.json), for the test
# that draws the exported dashboards' charts (crates/searchbench/tests/it/dashboards.rs).
# Needs Node.js and npm (taken from Debian's packages when missing) and the npm registry.
# Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../crates/searchbench/tests/fixtures/vega"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  # Node.js from Debian's packages, as install-chromium.sh takes Chromium (needs root).
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
if [ -d node_modules/vega-kibana ] && [ -d node_modules/vega-lite-osd ]; then
  echo "vega already installed in $(pwd)/node_modules"
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
echo "installed: vega and vega-lite for Kibana and OpenSearch Dashboards in $(pwd)/node_modules"
