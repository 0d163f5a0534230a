// Small progressive enhancements for every page (served from our origin: the CSP forbids inline
// scripts). Every page works without it.
(function () {
  'use strict';

  // Destructive forms ask first: <form data-confirm="Sign out every other session?">.
  document.addEventListener('submit', function (event) {
    var form = event.target;
    var question = form && form.getAttribute && form.getAttribute('data-confirm');
    if (question && !window.confirm(question)) event.preventDefault();
  });

  // Copy buttons: <button data-copy="element-id">.
  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('[data-copy]');
    if (!button) return;
    var source = document.getElementById(button.getAttribute('data-copy'));
    if (!source || !navigator.clipboard) return;
    navigator.clipboard.writeText(source.textContent.trim()).then(function () {
      button.textContent = 'Copied';
    });
  });

  // After an error, focus the first field that has one (else the error message), so keyboard and
  // screen-reader users start where the problem is.
  document.addEventListener('DOMContentLoaded', function () {
    var target = document.querySelector('[aria-invalid="true"]') || document.querySelector('[role="alert"]');
    if (!target) return;
    if (!target.matches('input, select, textarea, button, a')) target.setAttribute('tabindex', '-1');
    target.focus();
  });
})();
