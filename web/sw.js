// Service worker: the whole site, versioned by the content hash of its
// files, served from the cache so that a repeat visit costs only the
// browser's check for a new version of this script, and works offline.
// The build prepends VERSION and FILES (paths relative to this script).

const CACHE = `calc-${VERSION}`;

self.addEventListener("install", (event) => {
  // Every file is revalidated with the server ("no-cache"), so that a new
  // version never caches an old build's copy from the HTTP cache; a file
  // the page has just loaded costs a 304, not a second download.
  const requests = FILES.map((file) => new Request(file, { cache: "no-cache" }));
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(requests)));
});

self.addEventListener("activate", (event) => {
  // A new version is only activated once no page uses the old one, so a
  // page never mixes files of two builds; then the old cache goes.
  event.waitUntil(
    caches.keys().then((names) =>
      Promise.all(names.filter((name) => name.startsWith("calc-") && name !== CACHE).map((name) => caches.delete(name))),
    ),
  );
});

self.addEventListener("fetch", (event) => {
  if (event.request.method !== "GET") return;
  event.respondWith(
    caches.open(CACHE).then(async (cache) => {
      const cached = await cache.match(event.request, { ignoreSearch: true });
      if (cached) return cached;
      const response = await fetch(event.request);
      // A file of the site fetched only when needed (the fallback boot's standard library) is kept for
      // the next visit, offline too; an address with values is the page's own file, already cached.
      const url = new URL(event.request.url);
      if (response.ok && url.origin === location.origin && !url.search) await cache.put(event.request, response.clone());
      return response;
    }),
  );
});
