// Cards of the askbridge web inbox: one open question with its controls,
// or one resolved question in the history. Every text an agent wrote goes
// in with textContent, never as markup; every control sends the exact
// command string the server rendered for it.

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

// textForm is a labelled one-line text field with its submit button.
function textForm(cls, id, label, buttonCls, buttonText) {
  const form = el('form', cls);
  const lab = text('label', '', label);
  lab.htmlFor = id;
  const row = el('div', 'row');
  const input = document.createElement('input');
  input.type = 'text';
  input.id = id;
  input.autocomplete = 'off';
  const go = text('button', buttonCls, buttonText);
  go.type = 'submit';
  row.append(input, go);
  form.append(lab, row);
  return { form, input };
}

// accepted lists the files a person may attach: pictures, text and logs,
// PDFs. The bridge checks the bytes again; this only guides the picker.
const accepted = 'image/png,image/jpeg,image/gif,image/webp,text/plain,.txt,.log,application/pdf,.pdf';

// fileInput is the "Attach files" picker under an Other box. A picture
// pasted into the text field joins the chosen files.
function fileInput(id, textField, act) {
  const row = el('div', 'files');
  const lab = text('label', '', 'Attach files');
  lab.htmlFor = id;
  const input = document.createElement('input');
  input.type = 'file';
  input.id = id;
  input.multiple = true;
  input.accept = accepted;
  const list = text('span', 'chosen', '');
  const show = () => {
    list.textContent = Array.from(input.files).map((f) => f.name).join(', ');
  };
  input.addEventListener('change', show);
  textField.addEventListener('paste', (e) => {
    const pasted = Array.from(e.clipboardData ? e.clipboardData.files : []).filter((f) => f.type.startsWith('image/'));
    if (!pasted.length) return;
    e.preventDefault();
    const dt = new DataTransfer();
    Array.from(input.files).forEach((f) => dt.items.add(f));
    pasted.forEach((f) => dt.items.add(f));
    input.files = dt.files;
    show();
    act.notice(pasted.length === 1 ? 'Picture attached: send it with your answer.' : pasted.length + ' pictures attached.', true);
  });
  row.append(lab, input, list);
  return {
    row,
    input,
    clear() {
      input.value = '';
      show();
    },
  };
}

function button(label, cls, onClick) {
  const b = text('button', cls, label);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}

function promptBlock(v, p, i, card, act) {
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
      b.addEventListener('click', () => act.send(o.command, card));
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
        act.notice('Choose at least one option, then Submit.', false);
        return;
      }
      act.send(p.choose + picked.join(','), card);
    }));
    fs.append(actions);
  }
  if (p.other) {
    const { form, input } = textForm('other', base + '-other',
      p.options && p.options.length ? 'Other answer' : 'Your answer', '', 'Send');
    const files = fileInput(base + '-files', input, act);
    form.append(files.row);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const t = input.value.trim();
      const chosen = Array.from(files.input.files);
      if (!t && !chosen.length) {
        act.notice('Type an answer or attach a file first.', false);
        input.focus();
        return;
      }
      const done = chosen.length
        ? await act.upload(t ? p.other + t : '', v.id, i + 1, chosen, card)
        : await act.send(p.other + t, card);
      if (done) {
        input.value = '';
        files.clear();
      }
    });
    fs.append(form);
  }
  if (p.skip) {
    const actions = el('div', 'actions');
    actions.append(button('Skip this question', 'skip', () => act.send(p.skip, card)));
    fs.append(actions);
  }
  return fs;
}

export function openCard(v, act) {
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
  v.prompts.forEach((p, i) => li.append(promptBlock(v, p, i, li, act)));
  if (v.decline) {
    const d = el('details', 'decline');
    d.append(text('summary', '', 'Decline…'));
    const { form, input } = textForm('', 'q-' + v.id + '-reason', 'Reason (optional)', 'decline-button', 'Decline');
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const r = input.value.trim();
      act.send(r ? v.decline + ' ' + r : v.decline, li);
    });
    d.append(form);
    li.append(d);
  }
  return li;
}

export function pastItem(v) {
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

