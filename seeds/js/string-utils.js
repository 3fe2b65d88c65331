// Assorted string utilities: case conversion, wrapping, edit distance.

var StringUtils = {};

StringUtils.camelCase = function (s) {
  return s.toLowerCase().replace(/[-_\s]+(.)?/g, function (_, c) {
    return c ? c.toUpperCase() : '';
  });
};

StringUtils.kebabCase = function (s) {
  return s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').replace(/[\s_]+/g, '-').toLowerCase();
};

StringUtils.reverse = function (s) {
  var out = '', i = s.length;
  while (i--) {
    out += s.charAt(i);
  }
  return out;
};

StringUtils.isPalindrome = function (s) {
  var clean = s.toLowerCase().replace(/[^a-z0-9]/g, '');
  var i = 0, j = clean.length - 1;
  while (i < j) {
    if (clean[i++] !== clean[j--]) return false;
  }
  return true;
};

StringUtils.wrap = function (text, width) {
  var words = text.split(/\s+/), lines = [], line = '';
  for (var i = 0; i < words.length; i++) {
    var w = words[i];
    if (!w) continue;
    if (line.length + w.length + (line ? 1 : 0) > width && line) {
      lines.push(line);
      line = w;
    } else {
      line += (line ? ' ' : '') + w;
    }
  }
  if (line) lines.push(line);
  return lines.join('\n');
};

StringUtils.levenshtein = function (a, b) {
  if (a === b) return 0;
  if (!a.length) return b.length;
  if (!b.length) return a.length;
  var prev = [], cur = [], i, j;
  for (j = 0; j <= b.length; j++) prev[j] = j;
  for (i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (j = 1; j <= b.length; j++) {
      var cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
    }
    var t = prev; prev = cur; cur = t;
  }
  return prev[b.length];
};

StringUtils.commonPrefix = function (strings) {
  if (strings.length === 0) return '';
  var prefix = '', k = 0;
  scan: do {
    var ch = strings[0].charAt(k);
    if (ch === '') break;
    for (var s = 1; s < strings.length; s++) {
      if (strings[s].charAt(k) !== ch) break scan;
    }
    prefix += ch;
    k++;
  } while (true);
  return prefix;
};

StringUtils.count = function (haystack, needle) {
  var n = 0, pos = -1;
  while ((pos = haystack.indexOf(needle, pos + 1)) !== -1) ++n;
  return n;
};

console.log(StringUtils.camelCase('hello-big_wide world'), StringUtils.kebabCase('fooBarBaz qux'));
console.log(StringUtils.reverse('stressed'), StringUtils.isPalindrome('A man, a plan, a canal: Panama'));
console.log(StringUtils.wrap('the quick brown fox jumps over the lazy dog again and again', 16));
console.log(StringUtils.levenshtein('kitten', 'sitting'), StringUtils.commonPrefix(['interview', 'internet', 'interval']));
console.log(StringUtils.count('abababa', 'aba'));
