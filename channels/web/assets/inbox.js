// askbridge web inbox: reads the state, follows live updates, sends
// commands and shows the bridge's replies. The cards themselves are built
// in cards.js; the replies on them and the focus are kept by replies.js.
import { carry, openCard, pastItem } from './cards.js';
import { focused, follow, keepInView, keepReply, refocus } from './replies.js';
import { load, t } from './strings.js';

(function () {
  const $ = (id) => document.getElementById(id);

  // model holds every question the page knows, by id; seen[id] is the
  // event counter when an event last changed it.
  const model = new Map();
  const seen = new Map();
  const cards = new Map(); // id -> {key, node}
  // acted is the question whose card the person last sent something
  // from; moved, while render runs, that question's new node when it
  // kept the bridge's reply.
  let acted = null;
  let moved = null;
  let events = 0;
  let historyLimit = 50;
  // The open questions come in pages, newest first: openMore follow the
  // loaded ones (at least that many when openCapped), openCursor reads
  // the next page, and pages is how many pages the person opened.
  let openMore = 0;
  let openCursor = '';
  let openCapped = false;
  let pages = 1;
  let source = null;
  let poller = null;
  let retry = null;
  // signin says how the sign-in page may sign in, as the bridge last
  // told: with a token, and with single sign-on ('', 'available' or
  // 'unavailable').
  let signin = { tokens: true, sso: '' };
  // zone is the browser's time zone, sent with every read: the bridge
  // writes the page's times in it unless the person has one of their own.
  const zone = (() => {
    try {
      return Intl.DateTimeFormat().resolvedOptions().timeZone || '';
    } catch (e) {
      return '';
    }
  })();
  const tz = 'tz=' + encodeURIComponent(zone);

  function setConn(state, label) {
    const c = $('conn');
    c.className = 'conn ' + state;
    c.textContent = label;
  }

  // notice shows msg at the top of the page. quiet, when the reply is
  // shown on a card too (where screen readers hear it), keeps the top
  // line from being read out a second time.
  function notice(msg, ok, quiet) {
    const n = $('notice');
    n.setAttribute('aria-live', quiet ? 'off' : 'polite');
    n.hidden = false;
    n.className = 'notice ' + (ok ? 'ok' : 'bad');
    n.textContent = msg;
  }

  // send posts one typed command and shows the bridge's reply.
  function send(command, card) {
    return post('/inbox/command', { text: command }, card);
  }

  // tap posts what a card's control does: its step, with the options
  // ticked and the text typed beside it ({step, options, text}); said,
  // when given, gets the reply too, to show it beside the field it is
  // about.
  function tap(step, card, said) {
    return post('/inbox/command', step, card, said);
  }

  // say sends a message to the agent's session under question id.
  function say(id, text, card) {
    return post('/inbox/say', { question: id, text }, card);
  }

  // post sends a JSON body to path and shows the bridge's reply, at the
  // top of the page and, through said, on the card beside the control.
  async function post(path, payload, card, said) {
    const tell = (msg, ok) => {
      notice(msg, ok, !!said);
      if (said) said(msg, ok);
    };
    if (card) {
      card.setAttribute('aria-busy', 'true');
      acted = card.dataset.id || null;
    }
    const buttons = card ? Array.from(card.querySelectorAll('button')) : [];
    buttons.forEach((b) => { b.disabled = true; });
    let res;
    let body = {};
    try {
      res = await fetch(path, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(payload),
      });
      body = await res.json().catch(() => ({}));
    } catch (e) {
      tell(t('inbox.unreachable'), false);
      buttons.forEach((b) => { b.disabled = false; });
      if (card) card.removeAttribute('aria-busy');
      return false;
    }
    buttons.forEach((b) => { b.disabled = false; });
    if (card) card.removeAttribute('aria-busy');
    if (res.status === 401) {
      showLogin(body.reply || t('inbox.login.again'));
      return false;
    }
    tell(body.reply || t('inbox.bridge_status', res.status), !!body.ok);
    loadState();
    return !!body.ok;
  }

  // The limits the bridge enforces on files; checked here first so that
  // nobody waits for an upload the bridge will refuse.
  const maxFile = 10 << 20;
  const maxFiles = 25 << 20;

  function mib(n) {
    return (n / (1 << 20)).toFixed(1).replace(/\.0$/, '') + ' MiB';
  }

  // base64 reads a file as base64, for the JSON of an answer.
  function base64(file) {
    return new Promise((resolve, reject) => {
      const r = new FileReader();
      r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ''));
      r.onerror = () => reject(r.error);
      r.readAsDataURL(file);
    });
  }

  // upload sends an answer with files: step is what the prompt's form
  // would post without them ({step, options, text}); with nothing
  // chosen nor typed the files go alone.
  async function upload(step, files, card, said) {
    const refuse = (msg) => {
      notice(msg, false, !!said);
      if (said) said(msg, false);
      return false;
    };
    const big = files.find((f) => f.size > maxFile);
    if (big) return refuse(t('inbox.file.too_big', big.name, mib(big.size)));
    if (files.reduce((s, f) => s + f.size, 0) > maxFiles) {
      return refuse(t('inbox.file.too_much'));
    }
    let payload;
    try {
      payload = await Promise.all(files.map(async (f) => ({ name: f.name, type: f.type, data: await base64(f) })));
    } catch (e) {
      return refuse(t('inbox.file.unreadable', e));
    }
    return post('/inbox/answer', Object.assign({}, step, { files: payload }), card, said);
  }

  // place puts nodes into list in order, moving only what must move, so
  // that a focused input on an unchanged card keeps its focus.
  function place(list, nodes) {
    nodes.forEach((n, i) => {
      if (list.children[i] !== n) list.insertBefore(n, list.children[i] || null);
    });
    while (list.children.length > nodes.length) list.lastElementChild.remove();
  }

  function nodeFor(v, build) {
    const key = JSON.stringify(v);
    const c = cards.get(v.id);
    if (c && c.key === key) return c.node;
    const node = build(v);
    // What the person gave and has not sent stays in the new card, and
    // so does the bridge's last reply to them.
    if (c) {
      carry(c.node, node);
      if (keepReply(c.node, node) && v.id === acted) moved = node;
    }
    cards.set(v.id, { key, node });
    return node;
  }

  // newest orders open questions as the server pages them: newest first,
  // by creation time, then by id.
  function newest(a, b) {
    const d = Date.parse(b.created_at) - Date.parse(a.created_at);
    if (d !== 0) return d;
    return a.id < b.id ? 1 : (a.id > b.id ? -1 : 0);
  }

  function render() {
    const all = Array.from(model.values());
    const open = all.filter((v) => v.status === 'pending').sort(newest);
    const past = all.filter((v) => v.status !== 'pending')
      .sort((a, b) => (b.resolved_at || '').localeCompare(a.resolved_at || ''))
      .slice(0, historyLimit);
    const f = focused();
    moved = null;
    place($('open'), open.map((v) => nodeFor(v, (x) => openCard(x, { tap, upload, notice }))));
    place($('history'), past.map((v) => nodeFor(v, (x) => pastItem(x, { say, notice }))));
    refocus(f);
    // The person answered on a card that has now left the open list:
    // the focus follows the question to its history item, where the
    // reply to their answer stands.
    const a = document.activeElement;
    if (moved && moved.classList.contains('past') && (!a || a === document.body || !a.isConnected)) {
      const foot = moved.querySelector('.card-reply.foot');
      if (foot) follow(foot);
      acted = null;
    }
    keepInView();
    const kept = new Set(open.concat(past).map((v) => v.id));
    for (const id of Array.from(model.keys())) {
      if (!kept.has(id)) { model.delete(id); cards.delete(id); seen.delete(id); }
    }
    const more = $('open-more');
    more.hidden = openMore <= 0;
    more.textContent = t('inbox.open.more', openMore + (openCapped ? '+' : ''));
    $('empty').hidden = open.length > 0;
    $('history-empty').hidden = past.length > 0;
    const total = open.length + openMore;
    const shown = total + (openCapped ? '+' : '');
    $('open-count').textContent = total ? '(' + shown + ')' : '';
    document.title = (total ? '(' + shown + ') ' : '') + t('inbox.title');
  }

  // unloaded tells whether an open question belongs to a page not loaded
  // yet: it is older than every open question the page shows.
  function unloaded(v) {
    if (openMore <= 0 || v.status !== 'pending' || model.has(v.id)) return false;
    const open = Array.from(model.values()).filter((x) => x.status === 'pending');
    return open.length > 0 && open.every((x) => newest(x, v) < 0);
  }

  // apply takes an event's version of a question. An open question on a
  // page not loaded yet stays counted in "more" instead.
  function apply(v) {
    if (!unloaded(v)) keep(v);
  }

  // keep takes a newer version of a question, never an older one.
  function keep(v) {
    const cur = model.get(v.id);
    // Live events carry no copies: keep the ones the state read gave.
    if (cur && !v.copies && cur.copies) v.copies = cur.copies;
    if (!cur || v.rank >= cur.rank) model.set(v.id, v);
    seen.set(v.id, ++events);
  }

  // ---- state and live updates ----

  // fetchPage reads the page of open questions after cursor, or returns
  // null when it cannot.
  async function fetchPage(cursor) {
    try {
      const res = await fetch('/inbox/state?before=' + encodeURIComponent(cursor) + '&' + tz,
        { credentials: 'same-origin', cache: 'no-store' });
      return res.ok ? await res.json() : null;
    } catch (e) {
      return null;
    }
  }

  // loadMore shows the next page of open questions.
  async function loadMore() {
    if (!openCursor) return;
    const button = $('open-more');
    button.disabled = true;
    const page = await fetchPage(openCursor);
    button.disabled = false;
    if (!page) {
      notice(t('inbox.open.more_failed'), false);
      return;
    }
    pages++;
    page.open.forEach(keep);
    openMore = page.open_more || 0;
    openCursor = page.open_cursor || '';
    openCapped = !!page.open_more_capped;
    render();
  }

  // loadState reads the whole state from the server, with as many pages
  // of open questions as the person opened, and replaces what the page
  // shows with it. It returns 'ok', 'login' or 'error'.
  async function loadState() {
    const mark = events;
    const want = pages;
    let res;
    try {
      res = await fetch('/inbox/state?' + tz, { credentials: 'same-origin', cache: 'no-store' });
    } catch (e) {
      setConn('down', t('inbox.conn.offline'));
      return 'error';
    }
    if (res.status === 401) {
      const st = await res.json().catch(() => ({}));
      signin = { tokens: !!st.tokens, sso: st.sso || '' };
      showLogin('');
      return 'login';
    }
    if (!res.ok) {
      setConn('down', t('inbox.conn.store'));
      return 'error';
    }
    const st = await res.json();
    historyLimit = st.history_limit || 50;
    $('user').textContent = t(st.signout ? 'inbox.signed_in_as' : 'inbox.answering_as', st.user);
    $('signout').hidden = !st.signout;
    const fresh = new Map();
    st.open.concat(st.history).forEach((v) => fresh.set(v.id, v));
    let more = st.open_more || 0;
    let cursor = st.open_cursor || '';
    let capped = !!st.open_more_capped;
    for (let p = 1; p < want && more > 0; p++) {
      const page = await fetchPage(cursor);
      if (!page) break;
      page.open.forEach((v) => fresh.set(v.id, v));
      more = page.open_more || 0;
      cursor = page.open_cursor || '';
      capped = !!page.open_more_capped;
    }
    // "Show more" was clicked while this read was under way: read again
    // with that page too, or the count of the rest would be a page stale.
    if (pages !== want) return loadState();
    openMore = more;
    openCursor = cursor;
    openCapped = capped;
    // Keep what events brought while this request was under way.
    for (const [id, v] of model) {
      if ((seen.get(id) || 0) > mark) {
        const f = fresh.get(id);
        if (!f || f.rank < v.rank) fresh.set(id, v);
      }
    }
    model.clear();
    fresh.forEach((v, id) => model.set(id, v));
    showInbox();
    render();
    return 'ok';
  }

  // start shows the state, then follows changes live once signed in.
  async function start() {
    if (await loadState() !== 'login') connect();
  }

  function stop() {
    if (source) source.close();
    source = null;
    clearInterval(poller);
    clearTimeout(retry);
  }

  function connect() {
    stop();
    if (!window.EventSource) {
      // start has just read the state: the next read is the poller's.
      setConn('', t('inbox.conn.polling'));
      poller = setInterval(loadState, 5000);
      return;
    }
    source = new EventSource('/inbox/events?' + tz);
    source.onopen = () => {
      setConn('live', t('inbox.conn.live'));
      loadState();
    };
    source.addEventListener('question', (e) => {
      try {
        apply(JSON.parse(e.data));
        render();
      } catch (err) {
        loadState();
      }
    });
    source.onerror = () => {
      setConn('down', t('inbox.conn.reconnecting'));
      if (source && source.readyState === EventSource.CLOSED) {
        source = null;
        retry = setTimeout(start, 3000);
      }
    };
    // A safety net for changes made on another bridge instance.
    poller = setInterval(loadState, 30000);
  }

  function showInbox() {
    $('login').hidden = true;
    $('inbox').hidden = false;
  }

  function showLogin(msg) {
    stop();
    setConn('down', t('inbox.conn.signed_out'));
    $('inbox').hidden = true;
    $('login').hidden = false;
    $('login-error').textContent = msg || '';
    $('login-form').hidden = !signin.tokens;
    $('sso').hidden = !signin.sso;
    const note = $('sso-note');
    note.hidden = signin.sso !== 'unavailable';
    note.textContent = note.hidden ? '' : t('inbox.sso.unavailable') + ' '
      + t(signin.tokens ? 'inbox.sso.use_token' : 'inbox.sso.retry');
    if (signin.tokens) $('token').focus();
    else $('sso-button').focus();
  }

  async function login(e) {
    e.preventDefault();
    const token = $('token').value;
    let res;
    let body = {};
    try {
      res = await fetch('/inbox/login', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      body = await res.json().catch(() => ({}));
    } catch (err) {
      $('login-error').textContent = t('inbox.login.unreachable');
      return;
    }
    if (!res.ok) {
      $('login-error').textContent = body.reply || t('inbox.login.failed', res.status);
      return;
    }
    $('token').value = '';
    $('login-error').textContent = '';
    await load(true);
    start();
  }

  async function signout() {
    await fetch('/inbox/logout', {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' }, body: '{}',
    }).catch(() => {});
    model.clear();
    cards.clear();
    pages = 1;
    openMore = 0;
    openCursor = '';
    openCapped = false;
    render();
    showLogin(t('inbox.signed_out'));
  }

  async function typed(e) {
    e.preventDefault();
    const input = $('cmd');
    const command = input.value.trim();
    if (!command) {
      notice(t('inbox.cmd.empty', '/answer k7m2qx 2'), false);
      return;
    }
    if (await send(command, null)) input.value = '';
  }

  $('login-form').addEventListener('submit', login);
  $('cmd-form').addEventListener('submit', typed);
  $('signout').addEventListener('click', signout);
  // Single sign-on leaves for the identity provider, which sends the
  // browser back signed in (or to a page that says why not).
  $('sso-button').addEventListener('click', () => { location.assign('/inbox/oidc/login'); });
  $('open-more').addEventListener('click', loadMore);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && $('login').hidden) loadState();
  });
  load().then(start);
})();
