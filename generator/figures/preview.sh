#!/bin/sh
# Renders every figure kind into HTML pages, one per kind, and screenshots each in
# headless Chromium: light and dark at desktop width (the phone-width column, 358 px, is
# on the same page), plus a phone-sized window at device scale 2.
# Usage: generator/figures/preview.sh [OUT_DIR [KIND...]]   (default /tmp/tracebook-figures)
# TBF_TRACES=DIR adds every DIR/NAME.json as prompt NAME; TBF_PROMPT=NAME draws the
# "robots" blocks from that prompt instead (e.g. a real trace); TBF_LAYER=N draws the
# layer-5 blocks from layer N (for models with fewer layers).
set -eu
out="${1:-/tmp/tracebook-figures}"
[ $# -gt 0 ] && shift
mkdir -p "$out"
cargo run --release -q -p tracebook-figures --features preview --example preview -- "$out" | grep 'bytes$'
shoot() {
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "$@" 2>/dev/null
}
while read -r kind height; do
    if [ $# -gt 0 ] && ! echo " $* " | grep -q " $kind "; then continue; fi
    page="file://$out/$kind.html"
    shoot --screenshot="$out/$kind-light.png" --window-size=1120,"$height" "$page"
    shoot --screenshot="$out/$kind-dark.png" --window-size=1120,"$height" --force-dark-mode "$page"
    shoot --screenshot="$out/$kind-phone.png" --window-size=390,"$height" --force-device-scale-factor=2 "$page"
done < "$out/heights.txt"
echo "wrote $out/figs.html and KIND-{light,dark,phone}.png"
