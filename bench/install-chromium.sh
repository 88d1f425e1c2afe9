#!/usr/bin/env bash
# Installs headless Chromium (Debian package `chromium`) for the HTML report test
# (crates/searchbench/tests/results_html.rs). Idempotent; needs root (apt-get).
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
    echo "chromium already installed: $(chromium --version 2>/dev/null || echo unknown version)"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
echo "installed: $(chromium --version 2>/dev/null || echo chromium)"
