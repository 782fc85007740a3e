#!/usr/bin/env bash
# Rebuild models/tracebook-tiny-en-fr from scratch: the French gettext catalogs of 55 Debian
# bookworm packages (the versions below) -> pairs.tsv (English msgid <TAB> French msgstr, by
# make_pairs.py) -> `tracebook train --pairs` -> config.json, model.safetensors (f16),
# tokenizer.json, training_log.json.
#
# Needs: Debian bookworm's apt sources (apt-get download runs as any user), python3 (standard
# library only), the Rust toolchain. Training is deterministic for a seed on the same code and
# machine (float sums may round differently on other CPUs). About 100 minutes on two cores.
# A package version that bookworm's archive has since replaced by a point release: try the
# current one; the sha256 check below says whether the pairs are still the same (they were
# when seven of these were replaced, on 2026-11-27).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${WORK:-$(mktemp -d)}
echo "working in $work"
cd "$work"

packages=(
  adduser=3.134
  appstream=0.16.1-2
  apt=2.6.1
  at-spi2-common=2.46.0-5
  bash=5.2.15-2+b13
  binutils-common=2.40-2
  coreutils=9.1-1
  cups-pk-helper=0.2.6-1+b1
  diffutils=1:3.8-4
  dpkg=1.21.23
  findutils=4.9.0-4
  gettext-base=0.21-12
  gettext=0.21-12
  git=1:2.39.5-0+deb12u3
  gnupg-l10n=2.2.40-1.1+deb12u2
  grep=3.8-5
  gsettings-desktop-schemas=43.0-1
  libapt-pkg6.0=2.6.1
  libavahi-common-data=0.8-10+deb12u1
  libc-l10n=2.36-9+deb12u14
  libdpkg-perl=1.21.23
  libgdk-pixbuf2.0-common=2.42.10+dfsg-1+deb12u4
  libglib2.0-data=2.74.6-2+deb12u9
  libgnutls30=3.7.9-2+deb12u6
  libgstreamer1.0-0=1.22.0-2+deb12u1
  libgtk-3-common=3.24.38-2~deb12u3
  libgtk2.0-common=2.24.33-2+deb12u1
  libhandy-1-0=1.8.1-1
  libidn2-0=2.3.3-1+b1
  libpam-runtime=1.5.2-6+deb12u2
  libpopt0=1.19+dfsg-1
  libpq5=15.18-0+deb12u1
  libsecret-common=0.20.5-3
  login=1:4.13+dfsg1-1+deb12u2
  make=4.3-4.1
  man-db=2.11.2-2
  net-tools=2.10-0.1+deb12u2
  notification-daemon=3.20.0-4+b1
  packagekit=1.2.6-5+deb12u1
  postgresql-15=15.18-0+deb12u1
  postgresql-client-15=15.18-0+deb12u1
  procps=2:4.0.2-3
  psmisc=23.6-1
  python-apt-common=2.6.0
  sed=4.9-1+deb12u1
  shared-mime-info=2.2-1
  software-properties-common=0.99.30-4.1~deb12u1
  system-config-printer-common=1.5.18-1
  systemd=252.39-1~deb12u2
  tar=1.34+dfsg-1.2+deb12u1
  upower=0.99.20-2
  wget=1.21.3-1+deb12u1
  xdg-user-dirs=0.18-1
  xkb-data=2.35.1-1
  xz-utils=5.4.1-1
)
mkdir -p debs tree
(cd debs && apt-get download "${packages[@]}")
for deb in debs/*.deb; do dpkg-deb -x "$deb" tree; done
python3 "$here/make_pairs.py" tree pairs.tsv
echo "333a3ce2b512c8eb8ba265d783313474de18d912ee9d1fa436199468d511a32f  pairs.tsv" | sha256sum -c

(cd "$root" && cargo build --release --quiet)
"$root/target/release/tracebook" train --pairs pairs.tsv --out run \
  --layers 3 --heads 4 --width 128 --context 40 --vocab 4096 \
  --steps 6000 --batch-size 32 --lr 1e-3 --warmup 300 --seed 0 \
  --eval-every 500 --checkpoint-every 500 --dtype f16 \
  --sample "File not found" --sample "cannot open file %s" --sample "Permission denied" \
  --sample "invalid option" --sample "Do you want to continue?" --sample "The file already exists"

cp run/config.json run/model.safetensors run/tokenizer.json run/training_log.json "$here/"
echo "wrote $here"
