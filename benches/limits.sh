#!/usr/bin/env bash
# Limits of the site code (issue 8): a prompt as long as the context (1,024 tokens) with
# figures of every kind that draws from a long trace, one 5 MB article, and 1,000 articles;
# each at two sizes, so a quadratic cost would show as a 4x step where the input doubles.
# Prints wall time and peak memory (max RSS) of `tracebook build` for each; results are in
# docs/BENCHMARKS.md.
#
#   cargo build --release
#   bash benches/limits.sh
#
# The traces come from the random tiny test model (2 layers, 4 heads, 64 wide, 1,024
# positions): the site code's costs depend on the token count, not on the weights.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
bin="$repo/target/release/tracebook"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 1; }
export XDG_CACHE_HOME="$work/cache"
"$bin" dev test-model "$work/tiny" >/dev/null

# site DIR: an empty site using the test model.
site() {
  mkdir -p "$1/content" "$1/traces"
  printf 'title = "Limits"\n[model]\nid = "%s"\n' "$work/tiny" >"$1/tracebook.toml"
}

# measure LABEL DIR: time and peak memory of one build (after a warm-up build).
measure() {
  "$bin" --root "$2" build >/dev/null
  /usr/bin/time -f "%e %M" -o "$work/time" "$bin" --root "$2" build >/dev/null
  read -r secs kb <"$work/time"
  local bytes
  bytes=$(du -sb "$2/public" | cut -f1)
  printf '%-34s %7.2f s %8d MB peak   output %6d KB\n' "$1" "$secs" $((kb / 1024)) $((bytes / 1024))
}

# 1. A prompt of N tokens (" robots" is one token in GPT-2's vocabulary) and every figure
#    kind that reads the whole trace.
long_prompt() {
  local n=$1 dir="$work/long-$1"
  site "$dir"
  local text
  text=$(python3 -c "print('The' + ' robots' * ($n - 1), end='')")
  cat >"$dir/content/index.md" <<EOF
+++
title = "A long prompt"

[prompts]
long = { text = "$text" }
+++
The prompt has {{ count long }} tokens; the last is "{{ token long -1 }}".

\`\`\`figure tokens
prompt = "long"
\`\`\`

\`\`\`figure attention
prompt = "long"
layer = 1
head = 0
\`\`\`

\`\`\`figure attention-grid
prompt = "long"
\`\`\`

\`\`\`figure attention-steps
prompt = "long"
layer = 1
head = 0
\`\`\`

\`\`\`figure residual
prompt = "long"
\`\`\`

\`\`\`figure loss
prompt = "long"
\`\`\`

\`\`\`figure logit-lens
prompt = "long"
\`\`\`

\`\`\`figure next-token
prompt = "long"
\`\`\`

\`\`\`figure embedding
prompt = "long"
\`\`\`

\`\`\`figure mlp
prompt = "long"
layer = 1
\`\`\`
EOF
  "$bin" --root "$dir" trace >/dev/null 2>&1
  local trace_kb
  trace_kb=$(( $(stat -c %s "$dir/traces/long.json") / 1024 ))
  measure "prompt of $n tokens (trace ${trace_kb} KB)" "$dir"
}

# 2. One article of about MB megabytes: paragraphs with inline values, a heading every 50.
big_article() {
  local mb=$1 dir="$work/article-$1"
  site "$dir"
  printf '[prompts]\nrobots = "The robots will bring"\n' >>"$dir/tracebook.toml"
  python3 - "$dir/content/index.md" "$mb" <<'EOF'
import sys
path, mb = sys.argv[1], float(sys.argv[2])
para = ("The prompt has {{ count robots }} tokens and the model gives \"{{ top robots 1 }}\" "
        "a probability of {{ top_prob robots 1 }}. Attention is *soft* lookup: `q·k`, then "
        "[softmax](#part-1), then a weighted sum of values. ")
out = ['+++\ntitle = "A very long article"\n+++\n']
size, i = 0, 0
while size < mb * 1_000_000:
    if i % 50 == 0:
        out.append(f"\n## Part {i // 50}\n\n")
    out.append(para * 3 + "\n\n")
    size += len(out[-1])
    i += 1
out.append("```figure next-token\nprompt = \"robots\"\n```\n")
open(path, "w").write("".join(out))
EOF
  "$bin" --root "$dir" trace >/dev/null 2>&1
  measure "one article of $mb MB" "$dir"
}

# 3. N articles, each with inline values, a figure and a link to the next.
many_articles() {
  local n=$1 dir="$work/many-$1"
  site "$dir"
  printf '[prompts]\nrobots = "The robots will bring"\n' >>"$dir/tracebook.toml"
  printf '+++\ntitle = "Many"\n+++\nThe first article is [here](a0.md).\n' >"$dir/content/index.md"
  for ((i = 0; i < n; i++)); do
    cat >"$dir/content/a$i.md" <<EOF
+++
title = "Article $i"
weight = $i
+++
## Tokens

"{{ token robots -1 }}" is token {{ count robots }}; next comes "{{ top robots 1 }}".
See [the next one](a$(( (i + 1) % n )).md#tokens).

\`\`\`figure next-token
prompt = "robots"
k = 5
\`\`\`
EOF
  done
  "$bin" --root "$dir" trace >/dev/null 2>&1
  measure "$n articles" "$dir"
}

echo "machine: $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
long_prompt 512
long_prompt 1024
big_article 2.5
big_article 5
many_articles 500
many_articles 1000
