// askbridge inbox, installable app and notifications: registers the
// service worker (sw.js), opens the card a notification names, and offers
// to turn on notifications for this device, with the person's devices
// listed and removable. The inbox itself (inbox.js) knows nothing of it.

import { load, t } from './strings.js';

const $ = (id) => document.getElementById(id);

// toKey turns the base64url VAPID key into the bytes subscribe takes.
function toKey(b64) {
  const s = atob(b64.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - b64.length % 4) % 4));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

// deviceLabel names this browser for the list of devices.
function deviceLabel() {
  const ua = navigator.userAgent;
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox'
    : /Chrome\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : 'Browser';
  const os = /Android/.test(ua) ? 'Android' : /iPhone|iPad/.test(ua) ? 'iOS' : /Mac OS X/.test(ua) ? 'macOS'
    : /Windows/.test(ua) ? 'Windows' : /Linux/.test(ua) ? 'Linux' : '';
  return os ? browser + ' on ' + os : browser;
}

async function call(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data = {};
  try { data = await res.json(); } catch (e) { /* no JSON */ }
  return { status: res.status, data };
}

// openFromHash brings the card the address names (#q-<id>) into view and
// focus once the inbox has drawn it.
function openFromHash() {
  const id = decodeURIComponent(location.hash.slice(1));
  if (!id.startsWith('q-')) return;
  const show = () => {
    const card = document.getElementById(id);
    if (!card) return false;
    if (!card.hasAttribute('tabindex')) card.tabIndex = -1;
    card.scrollIntoView({ block: 'start' });
    card.focus({ preventScroll: true });
    return true;
  };
  if (show()) return;
  const watch = new MutationObserver(() => { if (show()) watch.disconnect(); });
  watch.observe(document.body, { childList: true, subtree: true });
}

// panel is the Notifications section, added to the inbox.
function panel() {
  const sec = document.createElement('section');
  sec.id = 'push';
  sec.className = 'push';
  sec.setAttribute('aria-labelledby', 'push-title');
  sec.hidden = true;
  const h = document.createElement('h2');
  h.id = 'push-title';
  h.dataset.i18n = 'inbox.push.title';
  h.textContent = t('inbox.push.title');
  const p = document.createElement('p');
  p.id = 'push-status';
  p.className = 'hint';
  p.setAttribute('role', 'status');
  const on = document.createElement('button');
  on.id = 'push-on';
  on.type = 'button';
  on.dataset.i18n = 'inbox.push.on';
  on.textContent = t('inbox.push.on');
  const list = document.createElement('ul');
  list.id = 'push-devices';
  list.className = 'push-devices';
  sec.append(h, p, on, list);
  return sec;
}

async function currentSubscription() {
  const reg = await navigator.serviceWorker.ready;
  return reg.pushManager.getSubscription();
}

async function refresh() {
  const { status, data } = await call('GET', '/inbox/push/subscriptions');
  const sec = $('push');
  if (status === 404) { sec.hidden = true; return; }
  if (status !== 200) return;
  sec.hidden = false;
  const mine = await currentSubscription().catch(() => null);
  const list = $('push-devices');
  list.replaceChildren();
  for (const d of data.subscriptions || []) {
    const li = document.createElement('li');
    const here = mine && mine.endpoint === d.endpoint;
    const since = new Date(d.created_at).toLocaleDateString();
    li.textContent = t(here ? 'inbox.push.this_device' : 'inbox.push.other_device', d.device || t('inbox.push.device'), since) + ' ';
    const rm = document.createElement('button');
    rm.type = 'button';
    rm.className = 'link';
    rm.textContent = t('inbox.push.remove');
    rm.addEventListener('click', async () => {
      await call('DELETE', '/inbox/push/subscriptions', { endpoint: d.endpoint });
      if (here) await mine.unsubscribe().catch(() => undefined);
      refresh();
    });
    li.append(rm);
    list.append(li);
  }
  const denied = 'Notification' in window && Notification.permission === 'denied';
  $('push-on').hidden = !!(mine && (data.subscriptions || []).some((d) => d.endpoint === mine.endpoint));
  $('push-status').textContent = denied
    ? t('inbox.push.blocked')
    : (data.subscriptions || []).length ? '' : t('inbox.push.offer');
}

async function turnOn() {
  const status = $('push-status');
  const perm = await Notification.requestPermission();
  if (perm !== 'granted') {
    status.textContent = t('inbox.push.denied');
    return;
  }
  const { status: code, data } = await call('GET', '/inbox/push/key');
  if (code !== 200) { status.textContent = data.reply || t('inbox.push.unavailable'); return; }
  try {
    const reg = await navigator.serviceWorker.ready;
    const sub = await reg.pushManager.getSubscription() ||
      await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: toKey(data.public_key) });
    const res = await call('POST', '/inbox/push/subscriptions', Object.assign(sub.toJSON(), { device: deviceLabel() }));
    status.textContent = res.data.reply || '';
  } catch (e) {
    status.textContent = t('inbox.push.failed', e.message);
  }
  refresh();
}

function start() {
  window.addEventListener('hashchange', openFromHash);
  openFromHash();
  if (!('serviceWorker' in navigator)) return; // not https, nor localhost
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => undefined);
  navigator.serviceWorker.addEventListener('message', (e) => {
    if (!e.data || typeof e.data.open !== 'string') return;
    const url = new URL(e.data.open, location.origin);
    if (url.origin !== location.origin) return;
    if (url.pathname === location.pathname) location.hash = url.hash;
    else location.assign(url.href);
  });
  if (!('PushManager' in window) || !('Notification' in window)) return;
  const inbox = $('inbox');
  const sec = panel();
  inbox.append(sec);
  $('push-on').addEventListener('click', turnOn);
  // The inbox shows once signed in: list the devices then.
  const shown = () => { if (!inbox.hidden) refresh(); };
  new MutationObserver(shown).observe(inbox, { attributes: true, attributeFilter: ['hidden'] });
  shown();
}

load().then(start);
