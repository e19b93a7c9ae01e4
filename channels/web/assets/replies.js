// The bridge's replies on the askbridge web inbox's cards, and the focus:
// the region beside a control where its reply shows, which screen readers
// read out; the reply kept when a card is built again or its question
// moves to the history; the focus and caret kept on a card built again,
// and the focus that follows the question the person answered.

// live is the control on the page now with el's id: a card built again
// since el was made has a new one.
export function live(el) {
  return (el.id && document.getElementById(el.id)) || el;
}

// replyRegion is where the bridge's reply to a control of a card is
// shown, beside that control; screen readers read it out when it
// changes (an error at once, as an alert).
export function replyRegion(id, cls) {
  const r = document.createElement('p');
  r.className = 'card-reply' + (cls ? ' ' + cls : '');
  r.id = id;
  r.setAttribute('aria-live', 'polite');
  return r;
}

// teller returns what shows a reply in region (the one on the page now,
// the card may have been built again since, or the card's foot when the
// control is gone): a function of the reply and whether it is good news.
export function teller(region, foot) {
  return (reply, ok) => {
    let r = live(region);
    if (!r.isConnected && foot) r = document.getElementById(foot) || r;
    let moved = false;
    if (!r.isConnected) {
      // The question left the open list before the reply came (a live
      // update was faster): the reply goes to its history item, and so
      // does the focus the card lost.
      const card = region.closest('li.card');
      const past = card && document.getElementById('h-' + card.dataset.id + '-said');
      if (past) {
        r = past;
        moved = true;
      }
    }
    // Only the latest reply stands on a card.
    const li = r.closest('li');
    if (li) {
      li.querySelectorAll('.card-reply').forEach((o) => {
        if (o !== r) o.textContent = '';
      });
    }
    if (ok) r.removeAttribute('role');
    else r.setAttribute('role', 'alert');
    r.className = r.className.replace(/ (ok|bad)\b/g, '') + (ok ? ' ok' : ' bad');
    r.textContent = reply;
    const a = document.activeElement;
    if (moved && (!a || a === document.body)) follow(r);
  };
}

// follow puts the focus on a history item's reply region, for the
// question the person just answered, and marks when: the page keeps it
// in view while updates settle (keepInView).
export function follow(region) {
  region.dataset.followed = String(Date.now());
  region.focus();
}

// keepInView scrolls the region that took the focus back into view when
// an update moved it within 3 s of its taking it.
export function keepInView() {
  const a = document.activeElement;
  if (!a || !a.dataset || !a.dataset.followed) return;
  if (Date.now() - Number(a.dataset.followed) > 3000) return;
  a.scrollIntoView({ block: 'nearest' });
}

// keepReply shows on to, a question's new node, the reply its old node
// from showed last: in the region of the same id when the card was built
// again, else in to's foot, as when the card just answered became a
// history item. It returns the region it filled, or null.
export function keepReply(from, to) {
  const shown = Array.from(from.querySelectorAll('.card-reply')).find((r) => r.textContent);
  if (!shown) return null;
  const same = shown.id ? to.querySelector('#' + CSS.escape(shown.id)) : null;
  const target = same || to.querySelector('.card-reply.foot');
  if (!target || target.textContent) return null;
  target.className = shown.className.replace(/\bfoot\b/, '').trim() + (target.classList.contains('foot') ? ' foot' : '');
  const role = shown.getAttribute('role');
  if (role) target.setAttribute('role', role);
  target.textContent = shown.textContent;
  return target;
}

// focused says which control has the focus and where its caret is, to
// put them back on the control that replaces it.
export function focused() {
  const a = document.activeElement;
  if (!a || !a.id || !a.closest('#open, #history')) return null;
  let at = null;
  try {
    if (typeof a.selectionStart === 'number') at = [a.selectionStart, a.selectionEnd, a.selectionDirection];
  } catch (e) {
    at = null; // inputs such as numbers and dates have no caret to read
  }
  return { node: a, id: a.id, at };
}

// refocus puts the focus and caret focused found back, on the control
// with the same id, when the one that had them was replaced.
export function refocus(f) {
  if (!f || f.node.isConnected) return;
  const n = document.getElementById(f.id);
  if (!n) return;
  n.focus({ preventScroll: true });
  if (f.at) {
    try {
      n.setSelectionRange(f.at[0], f.at[1], f.at[2]);
    } catch (e) {
      // the new control takes no caret
    }
  }
}
