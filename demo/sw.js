// Service worker: the whole playground works offline after the first visit.
// On install it stores every file of the site (the app and the bytepair bundle listed in
// bytepair/manifest.json) under a cache named after this build; afterwards every request of the
// site is answered from that cache first, so a reload works with the server stopped. The open-model
// tokenizers (bytepair/tokenizers/, megabytes each) are not stored on install: each is stored when
// it is first picked, and works offline from then on.
// `make demo` writes the real values below (build/site.py).
const VERSION = "__SITE_VERSION__";
const APP_FILES = __APP_FILES__;
const CACHE = `bytepair-playground-${VERSION}`;

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      const manifest = await (await fetch("./bytepair/manifest.json", { cache: "no-cache" })).json();
      const files = Object.keys(manifest.files).filter((f) => !f.startsWith("tokenizers/"));
      const bundle = ["bytepair/manifest.json", ...files.map((f) => `bytepair/${f}`)];
      await cache.addAll([...APP_FILES, ...bundle].map((f) => new Request(f, { cache: "no-cache" })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("bytepair-playground-") && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      const hit = await cache.match(event.request, { ignoreSearch: true });
      if (hit) return hit;
      const response = await fetch(event.request);
      if (response.ok && url.pathname.startsWith(new URL("./", self.location).pathname)) {
        cache.put(event.request, response.clone());
      }
      return response;
    })(),
  );
});
