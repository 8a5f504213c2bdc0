// The recorder's service worker (scope /record, served as /record/sw.js): a reload
// without a connection still opens the recorder. The page and its files are fetched
// from the network first (so a new version is taken at once) and kept; without a
// connection the kept copies answer. The API is never answered from here: entries made
// offline wait in the page's own queue (record.js) until the connection returns.
// ASSETS (the page's static files) is written above by the server.
"use strict";
const CACHE = "yaniv-audit-record-1";
const PAGE = "/record";

self.addEventListener("install", (event) => {
  self.skipWaiting();
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll([PAGE].concat(ASSETS))).catch(() => {}));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  const key = url.pathname === PAGE ? PAGE : ASSETS.includes(url.pathname) ? url.pathname : null;
  if (!key) return;
  event.respondWith(fetch(request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(key, copy));
    }
    return response;
  }).catch(() => caches.match(key).then((kept) => kept || Response.error())));
});
