// tracebook-live-worker.js: the reader's live session, in a Web Worker, so that loading the
// model and tracing a prompt never freeze the page (GPT-2 small takes seconds to load).
// tracebook-live.js starts it as a module worker and talks to it with messages
// { id, op, args }: `start` (the glue's URL, the module's and the model's bytes, the model's
// config and tokenizer, the site's trace options) and `draw` (trace a prompt, then draw the
// page's figures of it: Live.draw_page's JSON), `claims` (ask the page's claims about a
// prompt of the reader's trace of it: Live.check_claims's JSON). Every answer is { id, result } or
// { id, error } with the session's message.
let session = null;

self.onmessage = async (event) => {
  const { id, op, args } = event.data;
  try {
    let result = null;
    if (op === 'start') {
      const glue = await import(args.glue);
      await glue.default({ module_or_path: args.module });
      session = new glue.Live(args.modelId, args.config, new Uint8Array(args.weights), args.tokenizer);
      session.set_trace_options(args.traceOptions);
      if (args.training) session.set_training(args.training);
    } else if (op === 'draw') {
      session.trace(args.prompt, args.text, args.options);
      result = session.draw_page(args.figures);
    } else if (op === 'claims') {
      result = session.check_claims(args.prompt, args.claims);
    } else {
      throw new Error('unknown request ' + op);
    }
    self.postMessage({ id, result });
  } catch (e) {
    self.postMessage({ id, error: (e && e.message) || String(e) });
  }
};
