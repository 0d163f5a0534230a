// Passkey buttons on the two-factor settings page, the sudo page and the two-factor sign-in step.
// Served from our origin (the CSP forbids inline scripts); needs assets/simplewebauthn.js first.
(function () {
  'use strict';
  var lib = window.SimpleWebAuthnBrowser;
  // Citadel may be mounted under a path (`/auth`): this script's own URL says where.
  var base = document.currentScript
    ? new URL(document.currentScript.src).pathname.replace(/\/assets\/[^/]*$/, '')
    : '';

  function status(text) {
    var el = document.getElementById('passkey-status');
    if (el) el.textContent = text;
  }

  // The page writes this script's texts in the reader's language on the status line
  // (data-waiting, data-failed, ...); English when a page leaves one out.
  function word(name, english) {
    var el = document.getElementById('passkey-status');
    return (el && el.dataset[name]) || english;
  }

  // The browser's own reason (often English), after ours.
  function withReason(text, error) {
    return error && error.message ? text + ' (' + error.message + ')' : text;
  }

  // JSON requests need no CSRF token: a cross-site page cannot send Content-Type application/json.
  function call(method, url, body) {
    return fetch(base + url, {
      method: method,
      credentials: 'same-origin',
      headers: { accept: 'application/json', 'content-type': 'application/json', 'x-spa': 'true' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(function (response) {
      return response.json().then(function (json) {
        return { status: response.status, body: json };
      });
    });
  }

  function failed(result) {
    if (result.body && result.body.action === 'sudo.required') {
      // `next` is a path inside Citadel: without the mount path, which the redirect adds back.
      var here = window.location.pathname;
      if (base && here.indexOf(base + '/') === 0) here = here.slice(base.length);
      window.location.href = base + '/sudo?next=' + encodeURIComponent(here);
      return;
    }
    var errors = (result.body && result.body.errors) || {};
    var first = Object.keys(errors)[0];
    status(
      (first && errors[first]) ||
        (result.body && result.body.message) ||
        word('failed', 'Something went wrong.'),
    );
  }

  function showCodes(codes) {
    var box = document.getElementById('passkey-result');
    if (!box) return;
    var heading = document.createElement('h2');
    heading.textContent = word('codesTitle', 'Your recovery codes (shown once)');
    var list = document.createElement('ul');
    list.id = 'recovery-codes';
    codes.forEach(function (code) {
      var item = document.createElement('li');
      var c = document.createElement('code');
      c.className = 'recovery-code';
      c.textContent = code;
      item.appendChild(c);
      list.appendChild(item);
    });
    var done = document.createElement('a');
    done.href = base + '/two-factor';
    done.textContent = word('codesSaved', 'I saved them');
    box.replaceChildren(heading, list, done);
  }

  async function register() {
    var nameInput = document.getElementById('passkey-name');
    var name = nameInput ? nameInput.value : '';
    status(word('waiting', 'Waiting for your passkey…'));
    var start = await call('POST', '/two-factor/enroll/start', { factor: 'passkey', name: name });
    if (start.status !== 200) return failed(start);
    var attestation;
    try {
      attestation = await lib.startRegistration({ optionsJSON: start.body.data.options });
    } catch (error) {
      return status(withReason(word('notCreated', 'The passkey was not created.'), error));
    }
    var done = await call('POST', '/two-factor/enroll/confirm', {
      factor: 'passkey',
      proof: attestation,
      name: name,
    });
    if (done.status !== 200) return failed(done);
    if (done.body.data && done.body.data.recovery_codes) {
      status(done.body.message);
      return showCodes(done.body.data.recovery_codes);
    }
    window.location.reload();
  }

  async function authenticate(button) {
    var kind = button.getAttribute('data-passkey-auth');
    status(word('waiting', 'Waiting for your passkey…'));
    // Options: sudo asks /sudo/challenge; the sign-in step's options come with GET /action/show.
    var options =
      kind === 'sudo'
        ? await call('POST', '/sudo/challenge', { factor: 'passkey' })
        : await call('GET', '/action/show');
    if (options.status !== 200) return failed(options);
    var data = options.body.data || {};
    var optionsJSON = kind === 'sudo' ? data.options : data.passkey && data.passkey.options;
    if (!optionsJSON) return status(word('unavailable', 'No passkey is available.'));
    var assertion;
    try {
      assertion = await lib.startAuthentication({ optionsJSON: optionsJSON });
    } catch (error) {
      return status(withReason(word('notUsed', 'The passkey was not used.'), error));
    }
    var result =
      kind === 'sudo'
        ? await call('POST', '/sudo/verify', {
            factor: 'passkey',
            proof: assertion,
            next: button.getAttribute('data-next') || undefined,
          })
        : await call('POST', '/action/handle', { factor: 'passkey', proof: assertion });
    if (result.status !== 200) return failed(result);
    window.location.href = result.body.redirect_to || base + '/';
  }

  function guard(fn, arg) {
    return function () {
      fn(arg).catch(function (error) {
        status(withReason(word('failed', 'Something went wrong.'), error));
      });
    };
  }

  document.querySelectorAll('[data-passkey-register]').forEach(function (button) {
    button.addEventListener('click', guard(register));
  });
  document.querySelectorAll('[data-passkey-auth]').forEach(function (button) {
    button.addEventListener('click', guard(authenticate, button));
  });
})();
