/**
 * The review desk's keyboard path: a small static script (served at `GET /judgment/desk/desk-keys.js`, allowed by the
 * page's `script-src 'self'`; no inline script anywhere). Progressive enhancement: every action is a plain form or
 * link that works without it. On a record page:
 *   c claim · 1–9 pick an Outcome · Enter confirm · Esc cancel · u undo (4 s) · r renew · j / → next · k / ← back · ? help
 * A confirmed Resolution is sent after 4 seconds unless undone, then the desk opens the next unclaimed case (`advance`).
 */
export const DESK_KEYS_SCRIPT = `(function () {
  'use strict';
  var main = document.getElementById('case');
  if (!main) return;
  var help = document.getElementById('keys-help');
  var confirmBar = document.getElementById('keys-confirm');
  var select = document.getElementById('resolution');
  var resolveForm = select ? select.form : null;
  /** What Enter sends: a Resolution, one vote of several (N-of-M), or an adjudication. */
  var kind = resolveForm ? resolveForm.getAttribute('data-kind') || 'resolve' : 'resolve';
  var pending = null;
  var UNDO_MS = 4000;
  if (help) help.hidden = true;
  var hint = document.getElementById('keys-hint');
  if (hint) hint.hidden = false;

  function submit(name) {
    var form = document.querySelector('form[data-action="' + name + '"]');
    if (form) form.submit();
  }
  function say(text) {
    confirmBar.textContent = text;
    confirmBar.hidden = text === '';
  }
  function pick(index) {
    if (!select || index >= select.options.length) return;
    select.selectedIndex = index;
    pending = select.options[index].value;
    var record = 'record #' + main.getAttribute('data-record');
    var ask = kind === 'vote' ? 'Vote ' + pending + ' on ' + record : (kind === 'adjudicate' ? 'Adjudicate ' : 'Resolve ') + record + ' as ' + pending;
    say(ask + '? Enter to confirm, Esc to cancel.');
  }
  var timer = null;
  /** Confirmed: sent after UNDO_MS unless u or Esc takes it back. */
  function resolve() {
    var outcome = pending;
    var left = Math.round(UNDO_MS / 1000);
    var doing = kind === 'vote' ? 'Voting ' : kind === 'adjudicate' ? 'Adjudicating as ' : 'Resolving as ';
    say(doing + outcome + ' in ' + left + ' s. Press u to undo.');
    timer = window.setTimeout(function () {
      timer = null;
      say(doing + outcome + '…');
      var advance = resolveForm.querySelector('input[name="advance"]');
      if (advance) advance.value = '1';
      resolveForm.submit();
    }, UNDO_MS);
  }
  function undo() {
    if (timer === null) return false;
    window.clearTimeout(timer);
    timer = null;
    pending = null;
    if (select) select.selectedIndex = 0;
    say('Undone: nothing was resolved.');
    return true;
  }
  document.addEventListener('keydown', function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var target = event.target;
    var typing = target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName);
    var key = event.key;
    if (key === 'u' || (key === 'Escape' && timer !== null)) {
      if (undo()) event.preventDefault();
      return;
    }
    if (timer !== null) return;
    if (key === 'Escape') {
      pending = null;
      say('');
      if (help) help.hidden = true;
      return;
    }
    if (typing && key !== 'Enter') return;
    if (key === 'Enter' && pending !== null && resolveForm) {
      event.preventDefault();
      resolve();
    } else if (key === '?') {
      if (help) help.hidden = !help.hidden;
    } else if (/^[1-9]$/.test(key) && select) {
      pick(Number(key));
    } else if (key === 'c') {
      submit('claim');
    } else if (key === 'r') {
      submit('renew');
    } else if (key === 'j' || key === 'ArrowRight') {
      window.location.assign(main.getAttribute('data-next'));
    } else if (key === 'k' || key === 'ArrowLeft') {
      window.history.back();
    } else {
      return;
    }
    event.preventDefault();
  });
})();
`;
