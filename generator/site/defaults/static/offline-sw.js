// tracebook's offline reader (written as sw.js when tracebook.toml says `offline = true`):
// on first visit it stores every file of the series, so every page, figure and script opens
// without a network; a new build is a new version, whose install replaces the old copy.
const VERSION = "__VERSION__";
const FILES = __FILES__;
const CACHE = "tracebook-" + VERSION;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(FILES.map((f) => new URL(f, self.registration.scope).href)))
      .then(() => self.skipWaiting())
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names
        .filter((n) => n.startsWith("tracebook-") && !n.startsWith("tracebook-live-") && n !== CACHE)
        .map((n) => caches.delete(n))))
      .then(() => self.clients.claim())
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(self.registration.scope)) return;
  // A folder's address is its index.html, as static hosts serve it.
  const url = new URL(request.url);
  url.hash = "";
  if (url.pathname.endsWith("/")) url.pathname += "index.html";
  event.respondWith(
    caches.open(CACHE).then((cache) =>
      cache.match(url.href, { ignoreSearch: true }).then((hit) => hit || fetch(request).catch(() =>
        // A page the copy lacks (a mistyped address) while offline: the site's 404 page.
        cache.match(new URL("404.html", self.registration.scope).href).then((page) =>
          page || Response.error()))))
  );
});
