#!/usr/bin/env bash
# Make corpus.txt in the current folder from four Debian packages (bookworm), and check its
# sha256. Needs apt-get (download runs as any user) and python3 (standard library only).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
apt-get download wordnet-base=1:3.0-37 cfi-en=3.0-10.2 fortunes=1:1.99.1-7.3 fortunes-min=1:1.99.1-7.3
dpkg-deb -x wordnet-base_*.deb wordnet
dpkg-deb -x cfi-en_*.deb cfi
dpkg-deb -x fortunes_*.deb fortunes
dpkg-deb -x fortunes-min_*.deb fortunes
python3 "$here/make_corpus.py" wordnet cfi fortunes corpus.txt
echo "fa200cc56af53780e56c3c958d564af3a390680a07a1e9f3161146d77204b35e  corpus.txt" | sha256sum -c
