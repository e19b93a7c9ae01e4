// Cards of the askbridge web inbox: one open question with its controls,
// or one resolved question in the history. Every text an agent wrote goes
// in with textContent, never as markup. The words of every control come
// from the server's view (the question's card); every control posts the
// step the server rendered for it, with the options ticked and the text
// typed beside it, and the server turns that into the command. The
// page's own words come from strings.js.
import { live, replyRegion, teller } from './replies.js';
import { t } from './strings.js';

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

// touched marks a control the person changed, so that a card built
// again keeps what they gave there (see carry).
function touched(e) {
  if (e.target.id) e.target.dataset.touched = '1';
}

// carry moves the person's unsent input from a card to the card built
// to replace it: every control they changed (ticked options, a note, a
// typed field, chosen files, a message) goes to the control with the
// same id in the new card. Controls they left alone show what the
// bridge says now; a prompt answered meanwhile has no controls to take
// anything.
export function carry(from, to) {
  from.querySelectorAll('input[data-touched], textarea[data-touched]').forEach((o) => {
    // A radio button changed its group: the whole group goes over.
    const group = o.type === 'radio'
      ? Array.from(from.querySelectorAll('input[type=radio]')).filter((r) => r.name === o.name)
      : [o];
    group.forEach((c) => {
      const n = to.querySelector('#' + CSS.escape(c.id));
      if (!n || n.type !== c.type) return;
      n.dataset.touched = '1';
      if (c.type === 'radio' || c.type === 'checkbox') {
        n.checked = c.checked;
      } else if (c.type === 'file') {
        if (!c.files.length) return;
        n.files = c.files;
        n.dispatchEvent(new Event('change'));
      } else {
        n.value = c.value;
        const fold = n.closest('.fold');
        if (fold && fold.hidden) reveal(fold);
      }
    });
  });
}

// reveal opens a folded box and marks its toggle open.
function reveal(fold) {
  fold.hidden = false;
  const root = fold.closest('li') || document;
  const t = root.querySelector('[aria-controls="' + fold.id + '"]');
  if (t) t.setAttribute('aria-expanded', 'true');
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

// fileInput is the "Attach files" picker of a prompt: the native input,
// hidden, behind a button that opens it, and the names of the files
// chosen. A picture pasted into the text field joins the chosen files.
function fileInput(id, textField, act, tell) {
  const row = el('div', 'files');
  const input = document.createElement('input');
  input.type = 'file';
  input.id = id;
  input.multiple = true;
  input.accept = accepted;
  input.className = 'visually-hidden';
  input.tabIndex = -1;
  const pickBtn = button(t('inbox.file.attach'), 'attach', () => live(input).click());
  pickBtn.id = id + '-button';
  const list = text('span', 'chosen', '');
  list.id = id + '-chosen';
  list.setAttribute('aria-live', 'polite');
  pickBtn.setAttribute('aria-describedby', list.id);
  input.setAttribute('aria-labelledby', pickBtn.id);
  const show = () => {
    const names = Array.from(input.files).map((f) => f.name);
    list.textContent = names.length ? t('inbox.file.attached', names.join(', ')) : '';
  };
  input.addEventListener('change', show);
  if (textField) {
    textField.addEventListener('paste', (e) => {
      const pasted = Array.from(e.clipboardData ? e.clipboardData.files : []).filter((f) => f.type.startsWith('image/'));
      if (!pasted.length) return;
      e.preventDefault();
      const dt = new DataTransfer();
      Array.from(input.files).forEach((f) => dt.items.add(f));
      pasted.forEach((f) => dt.items.add(f));
      input.files = dt.files;
      show();
      const msg = pasted.length === 1 ? t('inbox.file.pasted_one') : t('inbox.file.pasted_many', pasted.length);
      act.notice(msg, true, true);
      tell(msg, true);
    });
  }
  row.append(input, pickBtn, list);
  return {
    row,
    input,
    clear() {
      const now = live(input);
      now.value = '';
      now.dispatchEvent(new Event('change'));
    },
  };
}

// control returns the control of kind in a view's or a prompt's
// controls, or null.
function control(x, kind) {
  return (x.controls || []).find((c) => c.kind === kind) || null;
}

// boxLabel is the words of a control that opens a text box, for the box
// itself, which the page shows open: "Other or note…" labels it "Other
// or note".
function boxLabel(c) {
  return c.label.replace(/…$/, '');
}

function button(label, cls, onClick) {
  const b = text('button', cls, label);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}

// choiceRow is one option as a radio button (one answer) or a checkbox
// (several), with its label, the Recommended badge and its description.
function choiceRow(p, o, k, base) {
  const lab = el('label', 'choice');
  const box = document.createElement('input');
  box.type = p.multi_select ? 'checkbox' : 'radio';
  box.name = base;
  box.id = base + '-' + k;
  box.value = String(o.number);
  box.checked = !!o.selected;
  const words = el('span', 'words');
  const head = el('span', 'head');
  head.append(text('span', 'label', o.label));
  if (o.recommended) head.append(text('span', 'badge', t('inbox.recommended')));
  words.append(head);
  if (o.description) words.append(text('span', 'desc', o.description));
  lab.append(box, words);
  return { lab, box };
}

// fillOnPick puts an option's text to edit into the note box when the
// option is picked, unless the person has typed something of their own
// there; picking another option takes a text it put back out.
function fillOnPick(p, boxes, input, lab) {
  let filled = null;
  const said = lab.textContent;
  boxes.forEach((box, k) => {
    box.addEventListener('change', () => {
      const o = p.options[k];
      const untouched = input.value === '' || input.value === filled;
      if (!untouched) return;
      input.dataset.touched = '1';
      if (box.checked && o.edit) {
        const fold = input.closest('.fold');
        if (fold && fold.hidden) reveal(fold);
        input.value = o.edit;
        filled = o.edit;
        lab.textContent = t('inbox.edit_then', p.submit);
        input.focus();
      } else {
        input.value = '';
        filled = null;
        lab.textContent = said;
      }
    });
  });
}

// typedInput is the native input of a typed prompt (p.input): a number
// with its range and step, an email, a URL, a date, a date and time, or
// text with its lengths.
function typedInput(p, id) {
  const input = document.createElement('input');
  input.type = p.input.type;
  input.id = id;
  input.autocomplete = 'off';
  if (p.input.min !== undefined) input.min = String(p.input.min);
  if (p.input.max !== undefined) input.max = String(p.input.max);
  if (p.input.step) input.step = p.input.step;
  if (p.input.minlength !== undefined) input.minLength = p.input.minlength;
  if (p.input.maxlength !== undefined) input.maxLength = p.input.maxlength;
  return input;
}

// typedValue is what a typed input sends: a date and time as the
// bridge reads it, with the browser's time zone (RFC 3339, UTC).
function typedValue(p, input) {
  const v = input.value.trim();
  if (p.input && p.input.type === 'datetime-local' && v) {
    const d = new Date(v);
    if (!isNaN(d)) return d.toISOString();
  }
  return v;
}

// promptBlock is one prompt as one form: the options (radio buttons or
// checkboxes), the Other box, which is the answer on its own or a note
// beside the picked options, one Submit, and Skip. A typed prompt's box
// is its native input, with what it takes above it and the bridge's
// refusal beside it. In a dialog of several prompts a note beside the
// options opens on demand, behind the Other control, so that every
// prompt stays a few lines high. The bridge's reply to Submit and Skip
// shows beside them.
function promptBlock(v, p, i, card, act) {
  const fs = el('fieldset', 'prompt');
  const legend = el('legend');
  if (p.header) legend.append(text('span', 'chip', p.header));
  legend.append(text('span', 'prompt-text', p.question));
  fs.append(legend);
  if (p.answer) {
    fs.append(text('p', 'given', t('inbox.answered', p.answer)));
    return fs;
  }
  const base = 'q-' + v.id + '-' + i;
  const form = el('form', 'answer');
  const boxes = [];
  const hasOptions = !!(p.options && p.options.length);
  const other = control(p, 'other');
  const skip = control(p, 'skip');
  const region = replyRegion(base + '-said');
  const tell = teller(region, 'q-' + v.id + '-said');
  if (hasOptions) {
    const opts = el('div', 'options');
    p.options.forEach((o, k) => {
      const { lab, box } = choiceRow(p, o, k, base);
      boxes.push(box);
      opts.append(lab);
    });
    form.append(opts);
    if (p.hint) form.append(text('p', 'hint recommended-hint', p.hint));
  }
  let input = null;
  let files = null;
  let said = null;
  let toggle = null;
  if (p.expect) {
    const expect = text('p', 'hint expect', p.expect);
    expect.id = base + '-expect';
    form.append(expect);
  }
  if (p.input && other) {
    // The bridge's words say what is wrong, beside the field: the
    // browser's own checks would stop the answer before it.
    form.noValidate = true;
    const box = el('div', 'other typed');
    const lab = text('label', '', boxLabel(other));
    lab.htmlFor = base + '-other';
    input = typedInput(p, base + '-other');
    said = text('p', 'field-reply', '');
    said.id = base + '-reply';
    said.setAttribute('aria-live', 'polite');
    input.setAttribute('aria-describedby', (p.expect ? base + '-expect ' : '') + said.id);
    box.append(lab, input, said);
    form.append(box);
    if (p.input.type === 'text') files = fileInput(base + '-files', input, act, tell);
  } else if (other) {
    const box = el('div', 'other');
    const lab = text('label', '', boxLabel(other));
    lab.htmlFor = base + '-other';
    // An option with a text to edit (a command, a path) makes the box
    // one that keeps lines.
    const editable = hasOptions && p.options.some((o) => o.edit);
    input = document.createElement(editable ? 'textarea' : 'input');
    if (editable) input.rows = 3;
    else input.type = 'text';
    input.id = base + '-other';
    input.autocomplete = 'off';
    box.append(lab, input);
    form.append(box);
    files = fileInput(base + '-files', input, act, tell);
    if (hasOptions && v.prompts.length > 1) {
      box.classList.add('fold');
      box.id = base + '-note';
      box.hidden = true;
      toggle = button(other.label, 'toggle', () => {
        const now = live(box);
        if (now.hidden) {
          reveal(now);
          live(input).focus();
        } else {
          now.hidden = true;
          live(toggle).setAttribute('aria-expanded', 'false');
        }
      });
      toggle.id = base + '-note-toggle';
      toggle.setAttribute('aria-expanded', 'false');
      toggle.setAttribute('aria-controls', box.id);
    } else {
      box.append(files.row);
    }
    if (editable) fillOnPick(p, boxes, input, lab);
  }
  if (files && p.input) input.parentNode.append(files.row);
  const actions = el('div', 'actions');
  if (p.pick) {
    const submit = text('button', 'primary submit', p.submit);
    submit.type = 'submit';
    actions.append(submit);
  }
  if (skip) actions.append(button(skip.label, 'skip', () => act.tap({ step: skip.step }, card, tell)));
  if (toggle) actions.append(toggle, files.row);
  form.append(actions, region);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!p.pick) return;
    const picked = boxes.filter((b) => b.checked).map((b) => Number(b.value));
    const typedText = input ? typedValue(p, input) : '';
    const chosen = files ? Array.from(live(files.input).files) : [];
    if (!picked.length && !typedText && !chosen.length) {
      const msg = hasOptions ? t(other ? 'inbox.choose_other_then' : 'inbox.choose_then', p.submit) : t('inbox.type_first');
      act.notice(msg, false, true);
      tell(msg, false);
      (boxes[0] || input).focus();
      return;
    }
    // A typed field's refusal stands beside the field; the rest beside
    // Submit.
    const show = (reply, ok) => {
      if (said) {
        live(said).textContent = ok ? '' : reply;
        live(input).setAttribute('aria-invalid', ok ? 'false' : 'true');
        if (!ok) return;
      }
      tell(reply, ok);
    };
    const step = { step: p.pick, options: picked, text: typedText };
    const done = chosen.length
      ? await act.upload(step, chosen, card, tell)
      : await act.tap(step, card, show);
    if (done) {
      if (input) live(input).value = '';
      if (files) files.clear();
    }
  });
  fs.append(form);
  return fs;
}

// footerForm is a disclosure named after control c ("Not ready…") with
// an optional text and c's button, which posts c's step with the text.
function footerForm(v, c, cls, field, label, li, act) {
  const d = el('details', cls);
  d.append(text('summary', '', c.label + '…'));
  const { form, input } = textForm('', 'q-' + v.id + '-' + field, t(label), cls + '-button', c.label);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act.tap({ step: c.step, text: input.value.trim() }, li, teller(li.querySelector('.card-reply.foot')));
  });
  d.append(form);
  return d;
}

// footers are how the page shows the question-wide controls that take a
// text: the class and field of the disclosure, and the field's label.
const footers = {
  not_ready: ['discuss', 'message', 'inbox.discuss_label'],
  decline: ['decline', 'reason', 'inbox.reason_label'],
};

// copiesLine lists where else the question was posted and how each copy
// stands ("Slack C0OPS: posted · Telegram -100…: retrying"), or is null.
function copiesLine(v) {
  if (!v.copies || !v.copies.length) return null;
  const p = el('p', 'copies');
  v.copies.forEach((c, i) => {
    if (i) p.append(document.createTextNode(' · '));
    const s = text('span', 'copy ' + c.state.replace(' ', '-'), c.text);
    s.dataset.target = c.target;
    p.append(s);
  });
  return p;
}

export function openCard(v, act) {
  const li = el('li', 'card' + (v.reminder ? ' reminded' : ''));
  li.addEventListener('input', touched);
  li.addEventListener('change', touched);
  li.id = 'q-' + v.id;
  li.dataset.id = v.id;
  const meta = el('div', 'meta');
  meta.append(text('span', 'qid', v.id));
  if (v.progress) meta.append(text('span', 'progress', v.progress));
  meta.append(text('span', 'deadline', v.deadline));
  li.append(meta);
  if (v.title) li.append(text('p', 'title', v.title));
  if (v.reminder) li.append(text('p', 'reminder', v.reminder));
  if (v.context) li.append(text('p', 'context', v.context));
  const copies = copiesLine(v);
  if (copies) li.append(copies);
  v.prompts.forEach((p, i) => li.append(promptBlock(v, p, i, li, act)));
  const footer = el('div', 'card-actions');
  (v.controls || []).forEach((c) => {
    const f = footers[c.kind];
    if (c.text && f) footer.append(footerForm(v, c, f[0], f[1], f[2], li, act));
    else footer.append(button(c.label, c.kind.replace('_', '-'), () => act.tap({ step: c.step }, li, teller(li.querySelector('.card-reply.foot')))));
  });
  if (footer.children.length) li.append(footer);
  li.append(replyRegion('q-' + v.id + '-said', 'foot'));
  return li;
}

// conversationBlock is what was said on an ended conversation question
// since it ended (people's messages, the agent's replies) and the box
// whose text goes to the agent's session.
function conversationBlock(v, li, act) {
  const box = el('div', 'conversation');
  if (v.conversation && v.conversation.length) {
    const lines = el('ol', 'lines');
    v.conversation.forEach((l) => {
      const line = el('li', 'line ' + l.from);
      line.append(text('span', 'who', l.who || t('inbox.say.agent')), text('span', 'said', l.text));
      lines.append(line);
    });
    box.append(lines);
  }
  const { form, input } = textForm('say', 'h-' + v.id + '-say', t('inbox.say.label'), 'say-button', t('inbox.say.send'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const msg = input.value.trim();
    if (!msg) {
      act.notice(t('inbox.say.empty'), false);
      input.focus();
      return;
    }
    if (await act.say(v.id, msg, li)) live(input).value = '';
  });
  box.append(form);
  return box;
}

export function pastItem(v, act) {
  const li = el('li', 'past ' + v.status);
  li.addEventListener('input', touched);
  li.id = 'h-' + v.id;
  li.dataset.id = v.id;
  const meta = el('div', 'meta');
  meta.append(text('span', 'qid', v.id));
  meta.append(text('span', 'status', t('inbox.status.' + v.status)));
  if (v.answered_by) meta.append(text('span', 'who', t('inbox.history.by', v.answered_by)));
  if (v.resolved_at) {
    const t = text('time', '', v.resolved || new Date(v.resolved_at).toLocaleString());
    t.dateTime = v.resolved_at;
    meta.append(t);
  }
  li.append(meta);
  v.prompts.forEach((p) => li.append(text('p', 'prompt-text', p.question)));
  li.append(text('p', 'outcome', v.outcome));
  const copies = copiesLine(v);
  if (copies) li.append(copies);
  if (v.say && act) li.append(conversationBlock(v, li, act));
  // The reply to an answer given on the open card shows here once the
  // question has moved to history (keepReply); focus can rest on it.
  const foot = replyRegion('h-' + v.id + '-said', 'foot');
  foot.tabIndex = -1;
  li.append(foot);
  return li;
}
