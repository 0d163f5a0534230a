// "Sign in with a passkey" and passkey autofill (conditional mediation) on the sign-in page.
// Needs /assets/simplewebauthn.js first. JSON requests need no CSRF token (see passkeys.js).
(function () {
  'use strict';
  var lib = window.SimpleWebAuthnBrowser;
  // Citadel may be mounted under a path (`/auth`): this script's own URL says where.
  var base = document.currentScript
    ? new URL(document.currentScript.src).pathname.replace(/\/assets\/[^/]*$/, '')
    : '';
  var status = document.getElementById('passkey-login-status');

  function say(text) {
    if (status) status.textContent = text;
  }

  // The sign-in page writes these texts in the reader's language on the status line
  // (data-checking, data-rejected, data-not-used); English when it leaves one out.
  function word(name, english) {
    return (status && status.dataset[name]) || english;
  }

  function post(url, body) {
    return fetch(base + url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { accept: 'application/json', 'content-type': 'application/json', 'x-spa': 'true' },
      body: JSON.stringify(body || {}),
    }).then(function (response) {
      return response.json();
    });
  }

  function remember() {
    var box = document.querySelector('input[name="remember"]');
    return !!(box && box.checked);
  }

  // Ask for options, let the browser pick a passkey (modal, or from the autofill list), sign in.
  function signIn(autofill) {
    return post('/passkey/login/options')
      .then(function (answer) {
        return lib.startAuthentication({ optionsJSON: answer.data.options, useBrowserAutofill: autofill });
      })
      .then(function (response) {
        say(word('checking', 'Checking your passkey…'));
        return post('/passkey/login', { response: response, remember: remember() });
      })
      .then(function (answer) {
        if (answer.redirect_to && answer.status !== 'error') {
          window.location.href = answer.redirect_to;
          return;
        }
        var errors = answer.errors || {};
        say(errors.passkey || answer.message || word('rejected', 'That passkey could not sign you in.'));
      });
  }

  function failed(error) {
    // An abort means another request replaced this one (the button interrupts autofill): not an error.
    if (error && error.name === 'AbortError') return;
    say(word('notUsed', 'No passkey was used. You can try again or sign in with your password.'));
  }

  var button = document.getElementById('passkey-login');
  if (!lib || !lib.browserSupportsWebAuthn()) {
    if (button) button.hidden = true;
    return;
  }
  if (button)
    button.addEventListener('click', function () {
      say('');
      signIn(false).catch(failed);
    });
  lib.browserSupportsWebAuthnAutofill().then(function (supported) {
    if (supported) signIn(true).catch(failed);
  });
})();
