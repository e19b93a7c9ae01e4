// askbridge inbox service worker, served at /sw.js so that its scope is
// the whole inbox. It keeps the page's files and its last state, so that
// the inbox opens without a network and shows what it last knew, and it
// shows each question the bridge pushes as a notification whose click
// opens the question's card.

const CACHE = 'askbridge-inbox-v1';
// SHELL is cached at install; everything else the page reads is cached as
// it is read.
const SHELL = ['/', '/assets/inbox.css', '/assets/inbox.js', '/assets/cards.js', '/assets/replies.js', '/assets/strings.js', '/assets/push.js',
  '/assets/push.css', '/assets/icon.svg', '/assets/icon-192.png', '/manifest.webmanifest'];

self.addEventListener('install', (event) => {
  // One file missing must not keep the worker from installing.
  event.waitUntil(caches.open(CACHE)
    .then((c) => Promise.all(SHELL.map((u) => c.add(u).catch(() => undefined))))
    .then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

// fresh reads the network first and keeps what it got; without a network
// it answers what it kept.
async function fresh(request) {
  const cache = await caches.open(CACHE);
  try {
    const res = await fetch(request);
    if (res.ok) await cache.put(request, res.clone());
    return res;
  } catch (err) {
    const kept = await cache.match(request, { ignoreVary: true });
    if (kept) return kept;
    throw err;
  }
}

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.method === 'POST' && url.pathname === '/inbox/logout') {
    // Signed out: what the inbox showed is not kept for the next person.
    event.respondWith(fetch(req).then(async (res) => { await caches.delete(CACHE); return res; }));
    return;
  }
  if (req.method !== 'GET' || url.pathname === '/inbox/events' || url.pathname === '/sw.js' ||
      url.pathname.startsWith('/inbox/push/') || url.pathname.startsWith('/inbox/oidc/')) return;
  event.respondWith(fresh(req));
});

// A push carries {id, title, body, url, actions: [{action, title, url}]}
// (the bridge's pushMessage).
self.addEventListener('push', (event) => {
  let m = {};
  try {
    m = event.data ? event.data.json() : {};
  } catch (e) {
    m = { title: event.data.text() };
  }
  const actions = Array.isArray(m.actions) ? m.actions.slice(0, 2) : [];
  const links = {};
  for (const a of actions) links[a.action] = a.url;
  event.waitUntil((m.title ? Promise.resolve(m.title) : untitled()).then((title) => self.registration.showNotification(title, {
    body: m.body || '',
    tag: m.id ? 'q-' + m.id : '',
    icon: '/assets/icon-192.png',
    badge: '/assets/icon-192.png',
    actions: actions.map((a) => ({ action: a.action, title: a.title })),
    data: { id: m.id || '', url: m.url || '/', links },
  })));
});

// untitled is the title of a push that brings none, in the words the page
// last read (GET /inbox/strings, kept by fresh), else English.
async function untitled() {
  try {
    const kept = await caches.match('/inbox/strings', { ignoreSearch: true, ignoreVary: true });
    const words = kept ? (await kept.json()).strings : null;
    if (words && words['inbox.push.new_question']) return words['inbox.push.new_question'];
  } catch (e) {
    // Words kept unreadable: the English title does.
  }
  return 'New question';
}

self.addEventListener('notificationclick', (event) => {
  const n = event.notification;
  const data = n.data || {};
  const path = (event.action && data.links && data.links[event.action]) || data.url || '/';
  n.close();
  const done = openCard(new URL(path, self.location.origin).href);
  try {
    event.waitUntil(done);
  } catch (e) {
    // Only the browser's own events can be extended; the card opens anyway.
  }
});

// openCard shows url in an inbox window that is open (the page moves to
// the card), or opens a new one.
async function openCard(url) {
  const wins = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const win = wins.find((w) => new URL(w.url).origin === self.location.origin);
  if (!win) return self.clients.openWindow(url);
  win.postMessage({ open: url });
  try {
    await win.focus();
  } catch (e) {
    // Focusing needs the person's click; the page has moved all the same.
  }
  return win;
}
