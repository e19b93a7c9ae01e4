// The page's own words, in the reader's language: GET /inbox/strings
// answers them by message id. t(id, ...args) fills each %s or %d in
// order; an id without text (the words not loaded) shows as the id, so a
// missing message shows instead of hiding. Elements of the page carry
// data-i18n (their text) or data-i18n-aria (their aria-label) with an
// id; the English in the HTML is what shows before the words load.
let words = {};
let lang = '';

// load reads the words once; later calls return the same promise, unless
// again is set (after a sign-in, whose person may read another language).
let loading = null;
export function load(again) {
  if (!loading || again) {
    loading = fetch('/inbox/strings', { credentials: 'same-origin', cache: 'no-store' })
      .then((res) => (res.ok ? res.json() : { strings: {} }))
      .catch(() => ({ strings: {} }))
      .then((body) => {
        words = body.strings || {};
        lang = body.locale || '';
        apply(document);
      });
  }
  return loading;
}

export function t(id, ...args) {
  const s = words[id];
  if (s === undefined) return id;
  let i = 0;
  return s.replace(/%[sd]/g, () => String(args[i++]));
}

// apply puts the words on every marked element under root.
export function apply(root) {
  if (lang) document.documentElement.lang = lang;
  for (const e of root.querySelectorAll('[data-i18n]')) {
    const s = words[e.dataset.i18n];
    if (s !== undefined) e.textContent = s;
  }
  for (const e of root.querySelectorAll('[data-i18n-aria]')) {
    const s = words[e.dataset.i18nAria];
    if (s !== undefined) e.setAttribute('aria-label', s);
  }
}
