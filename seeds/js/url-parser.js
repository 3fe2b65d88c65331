// URL and query-string parsing with regular expressions.

var URL_RE = /^([a-z][a-z0-9+.\-]*):\/\/(?:([^:@\/]*)(?::([^@\/]*))?@)?([^:\/?#]+)(?::(\d+))?(\/[^?#]*)?(?:\?([^#]*))?(?:#(.*))?$/i;
var DEFAULT_PORTS = { http: 80, https: 443, ftp: 21, ws: 80, wss: 443 };

function decode(s) {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch (e) {
    return s;
  }
}

function parseQuery(query) {
  var result = {};
  if (!query) {
    return result;
  }
  var pairs = query.split(/[&;]/);
  for (var i = 0; i < pairs.length; i++) {
    if (pairs[i] === '') continue;
    var eq = pairs[i].indexOf('=');
    var key = decode(eq < 0 ? pairs[i] : pairs[i].slice(0, eq));
    var value = eq < 0 ? '' : decode(pairs[i].slice(eq + 1));
    if (/\[\]$/.test(key)) {
      key = key.slice(0, -2);
      (result[key] = result[key] || []).push(value);
    } else if (result.hasOwnProperty(key)) {
      result[key] = [].concat(result[key], value);
    } else {
      result[key] = value;
    }
  }
  return result;
}

function stringifyQuery(obj) {
  return Object.keys(obj).map(function (k) {
    var v = obj[k];
    if (Array.isArray(v)) {
      return v.map(function (x) { return encodeURIComponent(k) + '[]=' + encodeURIComponent(x); }).join('&');
    }
    return encodeURIComponent(k) + '=' + encodeURIComponent(v);
  }).join('&');
}

function parseUrl(url) {
  var m = URL_RE.exec(url);
  if (m === null) {
    throw new URIError('not a URL: ' + url);
  }
  var scheme = m[1].toLowerCase();
  return {
    scheme: scheme,
    user: m[2] ? decode(m[2]) : null,
    password: m[3] !== undefined ? decode(m[3]) : null,
    host: m[4].toLowerCase(),
    port: m[5] ? parseInt(m[5], 10) : DEFAULT_PORTS[scheme] || null,
    path: (m[6] || '/').replace(/\/{2,}/g, '/'),
    query: parseQuery(m[7]),
    fragment: m[8] === undefined ? null : decode(m[8])
  };
}

var samples = [
  'https://user:p%40ss@Example.COM:8443/a//b/c.html?x=1&y=two+words&tag[]=a&tag[]=b#top',
  'ftp://files.example.org/pub/',
  'http://localhost?debug'
];
samples.forEach(function (s) {
  var u = parseUrl(s);
  console.log(u.scheme, u.host, u.port, u.path, JSON.stringify(u.query), u.fragment);
});
console.log(stringifyQuery({ q: 'a b&c', tags: ['x', 'y/z'] }));
try {
  parseUrl('not a url');
} catch (e) {
  console.log(e.name, e.message);
}
