// The embedded configuration page's script (spec 4.3, 6.3). Plain browser JavaScript, no build step,
// loaded as a file so the page's Content-Security-Policy can forbid inline script.
'use strict';

(function () {
  var root = document.getElementById('app');
  if (!root) return;

  // --- Talking to the dashboard -------------------------------------------------------------------
  // Only the dashboard origin may be told anything or be listened to (spec 6.3). The server renders the
  // allowed origins; the one that framed us is read from document.referrer (or ancestorOrigins where
  // the browser has it) and used only when it is on that list. Opened on its own, the page posts nothing.
  var allowed = (root.getAttribute('data-dashboard-origins') || '').split(' ').filter(Boolean);
  var parentOrigin = (function () {
    if (window.parent === window) return null;
    var candidates = [];
    try {
      if (document.referrer) candidates.push(new URL(document.referrer).origin);
    } catch {
      /* an unparsable referrer names no origin */
    }
    if (location.ancestorOrigins && location.ancestorOrigins.length) candidates.push(location.ancestorOrigins[0]);
    for (var i = 0; i < candidates.length; i++) if (allowed.indexOf(candidates[i]) !== -1) return candidates[i];
    return null;
  })();

  function post(message) {
    if (parentOrigin) window.parent.postMessage(message, parentOrigin);
  }

  // rl:resize on load and whenever the content height changes. <main> is measured rather than the
  // document, whose height never drops below the iframe's own (so it could never shrink).
  var lastHeight = 0;
  function reportHeight() {
    var height = Math.ceil(root.getBoundingClientRect().height);
    if (height === lastHeight) return;
    lastHeight = height;
    post({ type: 'rl:resize', height: height });
  }
  if (typeof ResizeObserver === 'function') new ResizeObserver(reportHeight).observe(root);
  window.addEventListener('load', reportHeight);
  reportHeight();

  function toast(message, kind) {
    post({ type: 'rl:toast', message: message, kind: kind || 'error' });
  }

  var form = document.getElementById('editor');
  if (!form) return; // the refusal page: sized, nothing else to do

  // --- Calls to the plugin ------------------------------------------------------------------------
  // The page's own rl_token authenticates them; relative URLs keep working behind a path prefix.
  var token = new URLSearchParams(location.search).get('rl_token') || '';

  function call(method, path, body) {
    var init = { method: method, headers: { Authorization: 'Bearer ' + token, Accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(new URL(path, location.href), init).then(
      function (res) {
        return res.json().then(
          function (json) {
            return res.ok
              ? { ok: true, body: json }
              : { ok: false, error: (json && (json.error || json.message)) || 'HTTP ' + res.status };
          },
          function () {
            return { ok: false, error: 'The plugin answered HTTP ' + res.status };
          },
        );
      },
      function () {
        return { ok: false, error: 'The plugin could not be reached' };
      },
    );
  }

  // --- The editor and its saved values --------------------------------------------------------------
  var countInput = document.getElementById('member_count');
  var labelInput = document.getElementById('label');
  var saveButton = document.getElementById('save');
  var dirtyMark = document.getElementById('dirty');
  var statusLine = document.getElementById('status');
  var summary = document.getElementById('saved-summary');
  var refreshedLine = document.getElementById('refreshed');

  var saved = { member_count: Number(countInput.defaultValue), label: labelInput.defaultValue };
  var lastDirty = false;

  function isDirty() {
    return countInput.value !== String(saved.member_count) || labelInput.value !== saved.label;
  }

  // rl:dirty only when the state flips, so the dashboard's close prompt follows the editor exactly.
  function updateDirty() {
    var dirty = isDirty();
    dirtyMark.hidden = !dirty;
    if (dirty === lastDirty) return;
    lastDirty = dirty;
    post({ type: 'rl:dirty', dirty: dirty });
  }

  function showSaved() {
    summary.textContent =
      saved.member_count + ' members' + (saved.label ? ', label “' + saved.label + '”' : ', no label');
  }

  function fillEditor() {
    countInput.value = String(saved.member_count);
    labelInput.value = saved.label;
  }

  function setStatus(text, kind) {
    statusLine.textContent = text;
    statusLine.className = kind || '';
  }

  showSaved();
  form.addEventListener('input', updateDirty);

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var count = Number(countInput.value);
    if (countInput.value === '' || !Number.isInteger(count) || count < 0 || count > Number(countInput.max)) {
      var problem = 'The member count must be a whole number from 0 to ' + countInput.max;
      setStatus(problem, 'error');
      toast(problem, 'error');
      return;
    }
    saveButton.disabled = true;
    call('POST', 'embed/config', { member_count: count, label: labelInput.value }).then(function (r) {
      saveButton.disabled = false;
      if (!r.ok) {
        setStatus(r.error, 'error');
        toast(r.error, 'error');
        return;
      }
      saved = r.body.saved;
      showSaved();
      fillEditor();
      updateDirty();
      setStatus(r.body.message, 'success');
      post({ type: 'rl:saved' });
    });
  });

  // --- Back to the form ---------------------------------------------------------------------------
  document.getElementById('use-form').addEventListener('click', function (event) {
    var button = event.currentTarget;
    button.disabled = true;
    call('POST', 'embed/config', { ui_mode: 'schema' }).then(function (r) {
      if (!r.ok) {
        button.disabled = false;
        setStatus(r.error, 'error');
        toast(r.error, 'error');
        return;
      }
      // This frame is now stale: the dashboard shows the form once it refetches the configuration.
      setStatus(r.body.message, 'success');
      toast('Switched back to the form — reload the configuration tab', 'success');
      saveButton.disabled = true;
    });
  });

  // --- A block that changes the page height (rl:resize) --------------------------------------------
  var details = document.getElementById('details');
  document.getElementById('toggle-details').addEventListener('click', function (event) {
    var button = event.currentTarget;
    details.hidden = !details.hidden;
    button.setAttribute('aria-expanded', String(!details.hidden));
    button.textContent = details.hidden ? 'Expand details' : 'Collapse details';
  });

  // --- rl:visible: the dashboard tab is visible again ---------------------------------------------
  // Spec 6.3: always refresh external data (what is saved on the plugin), and the edit buffer only
  // when it holds no unsaved changes, so nothing the admin typed is thrown away.
  function refresh() {
    call('GET', 'embed/state').then(function (r) {
      if (!r.ok) {
        toast(r.error, 'error');
        return;
      }
      var keepEdits = isDirty();
      saved = r.body.saved;
      showSaved();
      if (!keepEdits) fillEditor();
      updateDirty();
      var time = new Date().toLocaleTimeString('en-GB', { hour12: false });
      refreshedLine.textContent = 'Refreshed at ' + time + (keepEdits ? ' (your unsaved changes were kept)' : '');
      refreshedLine.hidden = false;
    });
  }

  window.addEventListener('message', function (event) {
    if (!parentOrigin || event.origin !== parentOrigin || event.source !== window.parent) return;
    if (event.data && event.data.type === 'rl:visible') refresh();
  });
})();
