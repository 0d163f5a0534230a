// The front page's live updates: the newest posts follow the API's live route (Server-Sent
// Events) without a reload. Served from our origin (the CSP forbids inline scripts); the page works
// without it. Every value from the API lands in the page as text (textContent), never as markup.
(function () {
  'use strict';

  var list = document.querySelector('ul.post-list[data-live]');
  if (!list || typeof EventSource !== 'function') return;
  // Under a mount prefix (`/auth/assets/blog-live.js`), the page's paths carry it too.
  var script = document.currentScript;
  var prefix = script ? new URL(script.src).pathname.replace(/\/assets\/blog-live\.js$/, '') : '';
  var api = prefix + list.getAttribute('data-live');
  var limit = Number(list.getAttribute('data-limit')) || 10;
  var empty = document.querySelector('[data-live-empty]');
  var status = document.querySelector('[data-live-status]');
  var EXCERPT = 100;
  // The texts come from the page, in the reader's language ({author}, {title}: the values).
  function phrase(name, values) {
    var template = (status && status.getAttribute('data-' + name)) || '';
    return template.replace(/\{(\w+)\}/g, function (whole, key) {
      return Object.prototype.hasOwnProperty.call(values, key) ? values[key] : whole;
    });
  }
  // Dates as the server writes them (the page's language, UTC).
  var dates = new Intl.DateTimeFormat(document.documentElement.lang || undefined, {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'UTC',
  });

  function say(text) {
    if (status) status.textContent = text;
  }

  function itemOf(id) {
    for (var i = 0; i < list.children.length; i += 1) {
      if (list.children[i].getAttribute('data-id') === id) return list.children[i];
    }
    return null;
  }

  /** The same markup as the server's list item (pages.ts, frontPage). */
  function render(post) {
    var item = document.createElement('li');
    item.setAttribute('data-id', post.id);
    var heading = document.createElement('h2');
    var link = document.createElement('a');
    link.href = prefix + '/posts/' + encodeURIComponent(post.id);
    heading.appendChild(link);
    var meta = document.createElement('p');
    meta.className = 'meta';
    var excerpt = document.createElement('p');
    item.append(heading, meta, excerpt);
    fill(item, post);
    return item;
  }

  /** Title, author, date and excerpt of an item from a record (fields absent are left as they are). */
  function fill(item, post) {
    if (typeof post.title === 'string') item.querySelector('h2 a').textContent = post.title;
    if (typeof post.created_at === 'string') {
      var meta = item.querySelector('.meta');
      var author = post.author && post.author.username ? post.author.username : phrase('someone', {});
      var time = document.createElement('time');
      time.setAttribute('datetime', post.created_at);
      var at = new Date(post.created_at);
      time.textContent = (isNaN(at.getTime()) ? post.created_at : dates.format(at)) + ' UTC';
      meta.replaceChildren(phrase('by', { author: author }) + ' · ', time);
    }
    if (typeof post.body === 'string') {
      var text = post.body.slice(0, EXCERPT);
      item.querySelector('p:last-child').textContent =
        post.body.length > text.length ? text.trimEnd() + '…' : text;
    }
  }

  function showEmpty() {
    if (empty) empty.hidden = list.children.length > 0;
  }

  function read(path) {
    return fetch(path, { headers: { accept: 'application/json' }, credentials: 'same-origin' }).then(
      function (response) {
        return response.ok ? response.json() : null;
      },
    );
  }

  // A new post: read it with its author (the event's record has the post's own fields only).
  function created(id) {
    read(api + '/' + encodeURIComponent(id) + '?derive=author').then(function (body) {
      if (!body || !body.data || itemOf(id)) return;
      list.insertBefore(render(body.data), list.firstChild);
      while (list.children.length > limit) list.removeChild(list.lastChild);
      showEmpty();
      say(phrase('new-post', { title: body.data.title }));
    });
  }

  // The stream could not resume: draw the newest posts again.
  function reload() {
    read(api + '?sort=-created_at&status=published&derive=author&count=none&limit=' + limit).then(
      function (body) {
        if (!body || !Array.isArray(body.data)) return;
        list.replaceChildren.apply(list, body.data.map(render));
        showEmpty();
      },
    );
  }

  function handle(kind) {
    return function (event) {
      var change;
      try {
        change = JSON.parse(event.data);
      } catch {
        return;
      }
      var item = change && typeof change.id === 'string' ? itemOf(change.id) : null;
      if (kind === 'created') {
        created(change.id);
      } else if (kind === 'updated' && item) {
        fill(item, change.record || {});
      } else if (kind === 'deleted' && item) {
        list.removeChild(item);
        showEmpty();
        say(phrase('removed', {}));
      }
    };
  }

  // Published posts only (a signed-in author's stream would also carry their drafts).
  var url = api + '/live?status=published&fields=title,body,created_at';
  var source = null;
  var pause = 15000;

  // The browser reconnects by itself (with Last-Event-ID) after a dropped connection, but gives up
  // on a refusal (429 while the server restarts, say): then a new stream, a while later, which
  // cannot resume, so the list is drawn again once it is open.
  function connect(again) {
    source = new EventSource(url);
    source.addEventListener('created', handle('created'));
    source.addEventListener('updated', handle('updated'));
    source.addEventListener('deleted', handle('deleted'));
    source.addEventListener('reset', reload);
    // The stream's state, for styles and tests: open, or closed while waiting to try again.
    source.addEventListener('open', function () {
      list.setAttribute('data-live-state', 'open');
      pause = 15000;
      if (again) reload();
      again = false;
    });
    source.addEventListener('error', function () {
      if (source.readyState !== EventSource.CLOSED) return;
      list.setAttribute('data-live-state', 'closed');
      setTimeout(function () {
        connect(true);
      }, pause);
      pause = Math.min(pause * 2, 120000);
    });
  }

  connect(false);
  window.addEventListener('pagehide', function () {
    source.close();
  });
})();
