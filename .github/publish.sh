#!/usr/bin/env bash
# Publishes every crate of the workspace to crates.io, each after the crates it depends on, and
# skips a crate whose version the registry already has, so a release that failed halfway is
# finished by running it again. The release workflow runs it on a tag (README: "Releases").
#
#   CARGO_REGISTRY_TOKEN=... bash .github/publish.sh
#
# Environment: CARGO_REGISTRY_TOKEN (crates.io > Account Settings > API Tokens, scope
# publish-update; a repository secret of the same name in the workflow), TRACEBOOK_INDEX (the
# registry's sparse index, default https://index.crates.io, which the test replaces with a
# local one), CARGO (default cargo).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo=${CARGO:-cargo}
index=${TRACEBOOK_INDEX:-https://index.crates.io}

# The workspace's crates as "name version", dependencies first (a depth-first walk over the
# path dependencies that `cargo metadata` lists).
order=$("$cargo" metadata --no-deps --format-version 1 --locked | python3 -c '
import json, sys
meta = json.load(sys.stdin)
members = {p["name"]: p for p in meta["packages"]}
done, order = set(), []
def visit(name, path):
    if name in done:
        return
    if name in path:
        sys.exit("a dependency cycle: " + " -> ".join(path + [name]))
    for dep in members[name]["dependencies"]:
        if dep["name"] in members and dep.get("path"):
            visit(dep["name"], path + [name])
    done.add(name)
    order.append(name)
for name in sorted(members):
    visit(name, [])
for name in order:
    print(name, members[name]["version"])
')

# The path of a crate in the sparse index: 1/a, 2/ab, 3/a/abc, ab/cd/abcd...
index_path() {
  local n=${1,,}
  case ${#n} in
  1) echo "1/$n" ;;
  2) echo "2/$n" ;;
  3) echo "3/${n:0:1}/$n" ;;
  *) echo "${n:0:2}/${n:2:2}/$n" ;;
  esac
}

while read -r name version; do
  if curl -fsS "$index/$(index_path "$name")" 2>/dev/null |
    grep -q "\"vers\":\"$version\""; then
    echo "$name $version: already published"
    continue
  fi
  echo "$name $version: publishing"
  "$cargo" publish -p "$name" --locked
done <<<"$order"
