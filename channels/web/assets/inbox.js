// askbridge web inbox. Every text an agent wrote goes into the page with
// textContent, never as markup. Every button sends the exact command string
// the server rendered for it.
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);

  // model holds every question the page knows, by id; seen[id] is the
  // event counter when an event last changed it.
  const model = new Map();
  const seen = new Map();
  const cards = new Map(); // id -> {key, node}
  let events = 0;
  let historyLimit = 50;
  let source = null;
  let poller = null;
  let retry = null;

  // text makes an element holding s as plain text.
  function text(tag, cls, s) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    e.textContent = s;
    return e;
  }

  function el(tag, cls) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    return e;
  }

  function button(label, cls, onClick) {
    const b = text('button', cls, label);
    b.type = 'button';
    b.addEventListener('click', onClick);
    return b;
  }

  function setConn(state, label) {
    const c = $('conn');
    c.className = 'conn ' + state;
    c.textContent = label;
  }

  function notice(msg, ok) {
    const n = $('notice');
    n.hidden = false;
    n.className = 'notice ' + (ok ? 'ok' : 'bad');
    n.textContent = msg;
  }

  // send posts one command and shows the bridge's reply.
  async function send(command, card) {
    if (card) card.setAttribute('aria-busy', 'true');
    const buttons = card ? Array.from(card.querySelectorAll('button')) : [];
    buttons.forEach((b) => { b.disabled = true; });
    let res;
    let body = {};
    try {
      res = await fetch('/inbox/command', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: command }),
      });
      body = await res.json().catch(() => ({}));
    } catch (e) {
      notice('Could not reach the bridge: check the connection and try again.', false);
      buttons.forEach((b) => { b.disabled = false; });
      if (card) card.removeAttribute('aria-busy');
      return false;
    }
    buttons.forEach((b) => { b.disabled = false; });
    if (card) card.removeAttribute('aria-busy');
    if (res.status === 401) {
      showLogin(body.reply || 'Sign in again.');
      return false;
    }
    notice(body.reply || ('The bridge answered ' + res.status), !!body.ok);
    loadState();
    return !!body.ok;
  }

  // ---- rendering ----

  function promptBlock(v, p, i, card) {
    const fs = el('fieldset', 'prompt');
    const legend = el('legend');
    if (p.header) legend.append(text('span', 'chip', p.header));
    legend.append(text('span', 'prompt-text', p.question));
    fs.append(legend);
    if (p.answer) {
      fs.append(text('p', 'given', 'Answered: ' + p.answer));
      return fs;
    }
    const base = 'q-' + v.id + '-' + i;
    if (p.options && p.options.length && !p.multi_select) {
      const opts = el('div', 'options');
      p.options.forEach((o) => {
        const b = el('button', 'option' + (o.recommended ? ' primary' : ''));
        b.type = 'button';
        b.dataset.command = o.command;
        b.append(text('span', 'label', o.label));
        if (o.description) b.append(text('span', 'desc', o.description));
        b.addEventListener('click', () => send(o.command, card));
        opts.append(b);
      });
      fs.append(opts);
    }
    if (p.options && p.options.length && p.multi_select) {
      const opts = el('div', 'options');
      const boxes = [];
      p.options.forEach((o, k) => {
        const lab = el('label', 'check' + (o.recommended ? ' recommended' : ''));
        const box = document.createElement('input');
        box.type = 'checkbox';
        box.id = base + '-' + k;
        box.value = String(k + 1);
        box.checked = !!o.selected;
        boxes.push(box);
        const words = el('span');
        words.append(text('span', 'label', o.label));
        if (o.description) words.append(text('span', 'desc', o.description));
        lab.append(box, words);
        opts.append(lab);
      });
      fs.append(opts);
      const actions = el('div', 'actions');
      actions.append(button('Submit', 'primary submit', () => {
        const picked = boxes.filter((b) => b.checked).map((b) => b.value);
        if (!picked.length) {
          notice('Choose at least one option, then Submit.', false);
          return;
        }
        send(p.choose + picked.join(','), card);
      }));
      fs.append(actions);
    }
    if (p.other) {
      const form = el('form', 'other');
      const id = base + '-other';
      const lab = text('label', '', p.options && p.options.length ? 'Other answer' : 'Your answer');
      lab.htmlFor = id;
      const row = el('div', 'row');
      const input = document.createElement('input');
      input.type = 'text';
      input.id = id;
      input.autocomplete = 'off';
      const go = text('button', '', 'Send');
      go.type = 'submit';
      row.append(input, go);
      form.append(lab, row);
      form.addEventListener('submit', async (e) => {
        e.preventDefault();
        const t = input.value.trim();
        if (!t) {
          notice('Type an answer first.', false);
          input.focus();
          return;
        }
        if (await send(p.other + t, card)) input.value = '';
      });
      fs.append(form);
    }
    if (p.skip) {
      const actions = el('div', 'actions');
      actions.append(button('Skip this question', 'skip', () => send(p.skip, card)));
      fs.append(actions);
    }
    return fs;
  }

  function openCard(v) {
    const li = el('li', 'card' + (v.reminder ? ' reminded' : ''));
    li.id = 'q-' + v.id;
    li.dataset.id = v.id;
    const meta = el('div', 'meta');
    meta.append(text('span', 'qid', v.id));
    if (v.progress) meta.append(text('span', 'progress', v.progress));
    meta.append(text('span', 'deadline', v.deadline));
    li.append(meta);
    if (v.reminder) li.append(text('p', 'reminder', v.reminder));
    if (v.context) li.append(text('p', 'context', v.context));
    v.prompts.forEach((p, i) => li.append(promptBlock(v, p, i, li)));
    if (v.decline) {
      const d = el('details', 'decline');
      d.append(text('summary', '', 'Decline…'));
      const form = el('form');
      const id = 'q-' + v.id + '-reason';
      const lab = text('label', '', 'Reason (optional)');
      lab.htmlFor = id;
      const row = el('div', 'row');
      const input = document.createElement('input');
      input.type = 'text';
      input.id = id;
      input.autocomplete = 'off';
      const go = text('button', 'decline-button', 'Decline');
      go.type = 'submit';
      row.append(input, go);
      form.append(lab, row);
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        const r = input.value.trim();
        send(r ? v.decline + ' ' + r : v.decline, li);
      });
      d.append(form);
      li.append(d);
    }
    return li;
  }

  function pastItem(v) {
    const li = el('li', 'past ' + v.status);
    li.id = 'h-' + v.id;
    li.dataset.id = v.id;
    const meta = el('div', 'meta');
    meta.append(text('span', 'qid', v.id));
    meta.append(text('span', 'status', v.status.replace('_', ' ')));
    if (v.answered_by) meta.append(text('span', 'who', 'by ' + v.answered_by));
    if (v.resolved_at) {
      const t = text('time', '', new Date(v.resolved_at).toLocaleString());
      t.dateTime = v.resolved_at;
      meta.append(t);
    }
    li.append(meta);
    v.prompts.forEach((p) => li.append(text('p', 'prompt-text', p.question)));
    li.append(text('p', 'outcome', v.outcome));
    return li;
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
    cards.set(v.id, { key, node });
    return node;
  }

  function render() {
    const all = Array.from(model.values());
    const open = all.filter((v) => v.status === 'pending')
      .sort((a, b) => b.created_at.localeCompare(a.created_at));
    const past = all.filter((v) => v.status !== 'pending')
      .sort((a, b) => (b.resolved_at || '').localeCompare(a.resolved_at || ''))
      .slice(0, historyLimit);
    place($('open'), open.map((v) => nodeFor(v, openCard)));
    place($('history'), past.map((v) => nodeFor(v, pastItem)));
    const keep = new Set(open.concat(past).map((v) => v.id));
    for (const id of Array.from(model.keys())) {
      if (!keep.has(id)) { model.delete(id); cards.delete(id); seen.delete(id); }
    }
    $('empty').hidden = open.length > 0;
    $('history-empty').hidden = past.length > 0;
    $('open-count').textContent = open.length ? '(' + open.length + ')' : '';
    document.title = (open.length ? '(' + open.length + ') ' : '') + 'askbridge inbox';
  }

  // apply takes a newer version of a question, never an older one.
  function apply(v) {
    const cur = model.get(v.id);
    if (!cur || v.rank >= cur.rank) model.set(v.id, v);
    seen.set(v.id, ++events);
  }

  // ---- state and live updates ----

  // loadState reads the whole state from the server and replaces what the
  // page shows with it. It returns 'ok', 'login' or 'error'.
  async function loadState() {
    const mark = events;
    let res;
    try {
      res = await fetch('/inbox/state', { credentials: 'same-origin', cache: 'no-store' });
    } catch (e) {
      setConn('down', 'offline');
      return 'error';
    }
    if (res.status === 401) {
      showLogin('');
      return 'login';
    }
    if (!res.ok) {
      setConn('down', 'store unavailable');
      return 'error';
    }
    const st = await res.json();
    historyLimit = st.history_limit || 50;
    $('user').textContent = 'answering as ' + st.user;
    $('signout').hidden = !st.signout;
    const fresh = new Map();
    st.open.concat(st.history).forEach((v) => fresh.set(v.id, v));
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
      setConn('', 'refreshing every 5 s');
      poller = setInterval(loadState, 5000);
      loadState();
      return;
    }
    source = new EventSource('/inbox/events');
    source.onopen = () => {
      setConn('live', 'live');
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
      setConn('down', 'reconnecting…');
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
    setConn('down', 'signed out');
    $('inbox').hidden = true;
    $('login').hidden = false;
    $('login-error').textContent = msg || '';
    $('token').focus();
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
      $('login-error').textContent = 'Could not reach the bridge.';
      return;
    }
    if (!res.ok) {
      $('login-error').textContent = body.reply || ('Sign-in failed (' + res.status + ')');
      return;
    }
    $('token').value = '';
    $('login-error').textContent = '';
    start();
  }

  async function signout() {
    await fetch('/inbox/logout', {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' }, body: '{}',
    }).catch(() => {});
    model.clear();
    cards.clear();
    render();
    showLogin('Signed out.');
  }

  async function typed(e) {
    e.preventDefault();
    const input = $('cmd');
    const t = input.value.trim();
    if (!t) {
      notice('Type a command, such as /answer k7m2qx 2', false);
      return;
    }
    if (await send(t, null)) input.value = '';
  }

  $('login-form').addEventListener('submit', login);
  $('cmd-form').addEventListener('submit', typed);
  $('signout').addEventListener('click', signout);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && $('login').hidden) loadState();
  });
  start();
})();
