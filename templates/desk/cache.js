// The order desk's offline copy: once the page has loaded, it opens with no
// network. Pyodide's release files (fixed by version) come from the cache
// first; the page, its script and the rules' modules from the site first, so
// a new turn's rules reach the player, and from the cache when offline.
const CACHE = "turnproc-order-desk";
// The desk's own files, kept at once. Pyodide's (13 MB) are kept as they pass
// through: the page waits for this worker before it loads them, so they are
// downloaded once.
const FILES = {{ files }};

self.addEventListener("install", (event) => {
  self.skipWaiting();
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)));
});
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    if (new URL(request.url).pathname.includes("/pyodide/")) {
      const kept = await cache.match(request);
      if (kept) return kept;
    }
    try {
      const response = await fetch(request);
      if (response.ok) await cache.put(request, response.clone());
      return response;
    } catch (error) {
      const kept = await cache.match(request);
      if (kept) return kept;
      throw error;
    }
  })());
});
