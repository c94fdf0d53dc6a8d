#!/usr/bin/env bash
# Render a validation report's index.html in headless Chromium and save screenshots to look at.
#   scripts/report_screenshot.sh [REPORT_DIR] [OUT_DIR] [WIDTH] [HEIGHT]
#   defaults: reports/validation  reports/screenshots  1280  4000
# Needs Debian's chromium (apt-get install -y chromium). Nothing is fetched from the network: the
# report is self-contained (figures inlined as PNG) and every background service is switched off.
set -euo pipefail
cd "$(dirname "$0")/.."
REPORT="${1:-reports/validation}"
OUT="${2:-reports/screenshots}"
WIDTH="${3:-1280}"
HEIGHT="${4:-4000}"
if [ ! -f "$REPORT/index.html" ]; then
    echo "report_screenshot: $REPORT/index.html not found; run 'make report' (or iclr26sci validate --out $REPORT) first" >&2
    exit 1
fi
BROWSER="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
if [ -z "$BROWSER" ]; then
    echo "report_screenshot: no chromium found; install it with: sudo apt-get install -y chromium" >&2
    exit 1
fi
mkdir -p "$OUT"
profile_dir="$(mktemp -d)"
trap 'rm -rf "$profile_dir"' EXIT
url="file://$(cd "$REPORT" && pwd)/index.html"
shoot() {  # shoot NAME WIDTH HEIGHT
    timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile_dir" \
        --screenshot="$OUT/$1" --window-size="$2,$3" "$url" >/dev/null 2>&1 || {
        echo "report_screenshot: chromium failed on $url" >&2; exit 1; }
    echo "report_screenshot: $OUT/$1 (${2}x$3)"
}
shoot report.png "$WIDTH" "$HEIGHT"
shoot report-narrow.png 800 2000   # a laptop-width window: wide tables must scroll inside the page
