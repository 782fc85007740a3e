#!/usr/bin/env python3
"""Rewrites the "## Claims" section of docs/coverage.md from the example site's claims.

    target/release/tracebook check --claims list --format json | python3 benches/coverage_claims.py

The two tables (claims per article, counted and "any model"; and which carry over to a reader's
sentence) and the per-article listing come from the JSON; the claims that hold for any
GPT-2-shaped model are the ones the section marks *(any model)* now, found again by their text,
so that judgement stays the author's and survives a re-run.
"""
import json
import re
import sys
from pathlib import Path

doc = Path(__file__).resolve().parent.parent / "docs" / "coverage.md"
text = doc.read_text()
start = text.index("| article | counted | any model |")
end = text.index("\n## Prompts")
old = text[start:end]
any_model = set(re.findall(r"`\{\{ claim (.*?) \}\}` \*\(any model\)\*", old))

claims = json.load(sys.stdin)["claims"]
order, by_file = [], {}
for c in claims:
    name = Path(c["file"]).name
    if name not in by_file:
        order.append(name)
        by_file[name] = []
    by_file[name].append(c)


def link(name):
    return f"[{name}](../content/{name})"


def key(c):
    return f"{c['prompt']} {c['claim']}"


rows = ["| article | counted | any model |", "| --- | --- | --- |"]
total = [0, 0]
for name in order:
    anys = sum(key(c) in any_model for c in by_file[name])
    counted = len(by_file[name]) - anys
    total[0] += counted
    total[1] += anys
    rows.append(f"| {link(name)} | {counted} | {anys} |")
rows.append(f"| **all** | **{total[0]}** | {total[1]} |")

carry = ["| article | always | if-present | author |", "| --- | --- | --- | --- |"]
sums = [0, 0, 0]
for name in order:
    n = [sum(c["carries"] == k for c in by_file[name]) for k in ("always", "if-present", "author")]
    sums = [a + b for a, b in zip(sums, n)]
    carry.append(f"| {link(name)} | {n[0]} | {n[1]} | {n[2]} |")
carry.append(f"| **all** | **{sums[0]}** | **{sums[1]}** | **{sums[2]}** |")

listing = []
for name in order:
    listing.append(f"\n### {name}\n")
    for c in by_file[name]:
        mark = " *(any model)*" if key(c) in any_model else ""
        listing.append(f"- line {c['line']}: `{{{{ claim {key(c)} }}}}`{mark}")

between = old[old.index("\nWhich of them") : old.index("| article | always |")]
new = "\n".join(rows) + "\n" + between + "\n".join(carry) + "\n" + "\n".join(listing) + "\n"
doc.write_text(text[:start] + new + text[end:])
print(f"{len(claims)} claims: {total[0]} counted, {total[1]} any model; carry {sums}")
