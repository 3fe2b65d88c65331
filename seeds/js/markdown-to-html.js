// A tiny markdown-to-HTML converter built on regular expressions.

var ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

function escapeHtml(text) {
  return text.replace(/[&<>"]/g, function (ch) { return ESCAPES[ch]; });
}

function inline(text) {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/\*([^*]+)\*/g, '<em>$1</em>')
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, '<a href="$2">$1</a>')
    .replace(/~~(.+?)~~/g, '<del>$1</del>');
}

function convert(markdown) {
  var lines = markdown.split(/\r?\n/);
  var html = [];
  var inList = false, inCode = false;
  var paragraph = [];

  function flushParagraph() {
    if (paragraph.length) {
      html.push('<p>' + inline(paragraph.join(' ')) + '</p>');
      paragraph = [];
    }
  }

  function closeList() {
    if (inList) {
      html.push('</ul>');
      inList = false;
    }
  }

  for (var i = 0; i < lines.length; i++) {
    var line = lines[i];
    var m;
    if (/^```/.test(line)) {
      flushParagraph();
      closeList();
      html.push(inCode ? '</code></pre>' : '<pre><code>');
      inCode = !inCode;
      continue;
    }
    if (inCode) {
      html.push(escapeHtml(line));
      continue;
    }
    if ((m = /^(#{1,6})\s+(.*?)\s*#*$/.exec(line))) {
      flushParagraph();
      closeList();
      var level = m[1].length;
      html.push('<h' + level + '>' + inline(m[2]) + '</h' + level + '>');
    } else if ((m = /^\s*[-*+]\s+(.*)$/.exec(line))) {
      flushParagraph();
      if (!inList) {
        html.push('<ul>');
        inList = true;
      }
      html.push('<li>' + inline(m[1]) + '</li>');
    } else if (/^\s*$/.test(line)) {
      flushParagraph();
      closeList();
    } else if (/^(-{3,}|\*{3,})$/.test(line)) {
      flushParagraph();
      closeList();
      html.push('<hr/>');
    } else {
      closeList();
      paragraph.push(line.replace(/^\s+|\s+$/g, ''));
    }
  }
  flushParagraph();
  closeList();
  if (inCode) {
    html.push('</code></pre>');
  }
  return html.join('\n');
}

var source = [
  '# Release notes',
  '',
  'This is **important** and *new*: see [the docs](http://example.com/docs).',
  '',
  '- fixed `a < b` handling',
  '- removed ~~old~~ stuff',
  '',
  '---',
  '```',
  'var x = 1 / 2;',
  '```'
].join('\n');

console.log(convert(source));
