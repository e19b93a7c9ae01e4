// askbridge Rules page: Revoke asks for confirmation in the page itself,
// without loading it again. Without this script the same buttons load
// the page with the confirmation open; the revocation is the same form
// post either way.
(function () {
  // open shows the confirmation of one rule and hides the others'.
  function open(rule) {
    document.querySelectorAll('.rule').forEach((r) => { if (r !== rule) close(r, false); });
    rule.querySelector('form.ask').hidden = true;
    const confirm = rule.querySelector('form.confirm');
    confirm.hidden = false;
    confirm.querySelector('button[type="submit"]').focus();
  }

  // close hides a rule's confirmation, giving the focus back to Revoke
  // when asked.
  function close(rule, focus) {
    const ask = rule.querySelector('form.ask');
    const confirm = rule.querySelector('form.confirm');
    if (!ask || !confirm || confirm.hidden) return;
    confirm.hidden = true;
    ask.hidden = false;
    if (focus) ask.querySelector('button').focus();
  }

  document.querySelectorAll('#rules > .rule').forEach((rule) => {
    rule.querySelector('form.ask').addEventListener('submit', (e) => {
      e.preventDefault();
      open(rule);
    });
    const confirm = rule.querySelector('form.confirm');
    confirm.querySelector('.cancel').addEventListener('click', (e) => {
      e.preventDefault();
      close(rule, true);
    });
    confirm.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') close(rule, true);
    });
    // One post per confirmation: a second click while the first is on
    // its way would only be told the rule is already revoked.
    confirm.addEventListener('submit', () => {
      confirm.querySelector('button[type="submit"]').disabled = true;
    });
  });
})();
