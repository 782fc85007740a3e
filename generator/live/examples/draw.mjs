// The browser module run by node: load a model folder into `Live` (from its files' bytes),
// trace a prompt, print one figure's SVG and how long the trace and a bare traced forward took. `draw.rs` does the
// same natively; diffing the two checks the module against the native build.
//
//     node generator/live/examples/draw.mjs MODEL_DIR PROMPT KIND [TOML]

import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { initSync, Live } from "../dist/tracebook_live.js";

const [dir, text, kind, ...rest] = process.argv.slice(2);
if (!kind) {
  console.error("usage: draw.mjs MODEL_DIR PROMPT KIND [TOML]");
  process.exit(2);
}
let start = performance.now();
const wasm = new URL("../dist/tracebook_live_bg.wasm", import.meta.url);
initSync({ module: readFileSync(wasm) });
const instantiated = performance.now() - start;

const config = readFileSync(join(dir, "config.json"), "utf8");
const weights = readFileSync(join(dir, "model.safetensors"));
const tokenizerFile = join(dir, "tokenizer.json");
const tokenizer = existsSync(tokenizerFile) ? readFileSync(tokenizerFile, "utf8") : undefined;
start = performance.now();
const live = new Live("model", config, weights, tokenizer);
const loaded = performance.now() - start;
live.set_trace_options(JSON.stringify({ precision: "f32", top_k: 20 }));

const ms = [];
for (let i = 0; i < 7; i++) {
  start = performance.now();
  live.trace("mine", text, "");
  ms.push(performance.now() - start);
}
ms.sort((a, b) => a - b);
const ids = live.tokenize(text, false);
const forward = [];
for (let i = 0; i < 21; i++) {
  start = performance.now();
  live.forward(ids);
  forward.push(performance.now() - start);
}
forward.sort((a, b) => a - b);
console.error(
  `module ${instantiated.toFixed(0)} ms, model ${loaded.toFixed(0)} ms, ` +
    `${ids.length} tokens: trace median ${ms[3].toFixed(1)} ms, ` +
    `traced forward median ${forward[10].toFixed(1)} ms`,
);
process.stdout.write(live.figure(kind, `prompt = "mine"\n${rest.join("\n")}`));
