// Injected by `tracebook serve` only (never into `tracebook build` output): waits for the next
// rebuild and reloads the page, or shows the build's errors over it.
(function () {
  "use strict";
  var state = TRACEBOOK_LIVE_STATE;
  var overlay = null;
  function show(error) {
    if (!overlay) {
      overlay = document.createElement("div");
      overlay.id = "tracebook-build-error";
      overlay.setAttribute("role", "alert");
      overlay.style.cssText = "position:fixed;inset:0;z-index:2147483647;overflow:auto;margin:0;" +
        "padding:1.5rem;background:rgba(20,20,24,0.94);color:#f4f1ec;font:14px/1.5 ui-monospace,monospace;";
      var close = document.createElement("button");
      close.textContent = "Hide";
      close.style.cssText = "float:right;font:inherit;";
      close.onclick = function () { overlay.style.display = "none"; };
      var title = document.createElement("p");
      title.textContent = "tracebook: the last build failed; the page shows the previous build. Fix the file and save: the page reloads by itself.";
      title.style.cssText = "font-weight:bold;color:#ff8a80;";
      var pre = document.createElement("pre");
      // Reset what the site's theme gives <pre>, so that the text stays readable.
      pre.style.cssText = "white-space:pre-wrap;margin:0;padding:0;border:0;background:none;" +
        "color:inherit;font:inherit;";
      overlay.appendChild(close);
      overlay.appendChild(title);
      overlay.appendChild(pre);
      document.body.appendChild(overlay);
    }
    overlay.lastChild.textContent = error;
    overlay.style.display = "block";
  }
  function wait() {
    fetch("/__tracebook/live?since=" + state.version, { cache: "no-store" })
      .then(function (response) { return response.json(); })
      .then(function (next) {
        if (next.version !== state.version && !next.error) {
          location.reload();
          return;
        }
        if (next.error) { show(next.error); }
        state = next;
        wait();
      })
      .catch(function () { setTimeout(wait, 1000); });
  }
  if (state.error) { show(state.error); }
  wait();
})();
