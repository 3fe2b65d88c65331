// A JSON pretty printer that does not rely on JSON.stringify's indentation.

function quote(str) {
  return '"' + str.replace(/[\\"\u0000-\u001f]/g, function (ch) {
    switch (ch) {
      case '"': return '\\"';
      case '\\': return '\\\\';
      case '\n': return '\\n';
      case '\r': return '\\r';
      case '\t': return '\\t';
      default:
        return '\\u' + ('0000' + ch.charCodeAt(0).toString(16)).slice(-4);
    }
  }) + '"';
}

function pretty(value, indent, depth) {
  indent = indent === undefined ? '  ' : indent;
  depth = depth || 0;
  var pad = new Array(depth + 1).join(indent);
  var inner = pad + indent;

  if (value === null) {
    return 'null';
  }
  switch (typeof value) {
    case 'number':
      return isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return quote(value);
    case 'undefined':
    case 'function':
      return undefined;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) {
      return '[]';
    }
    var items = [];
    for (var i = 0; i < value.length; i++) {
      var item = pretty(value[i], indent, depth + 1);
      items.push(inner + (item === undefined ? 'null' : item));
    }
    return '[\n' + items.join(',\n') + '\n' + pad + ']';
  }
  if (typeof value.toJSON === 'function') {
    return pretty(value.toJSON(), indent, depth);
  }
  var keys = Object.keys(value).sort();
  var parts = [];
  for (var k = 0; k < keys.length; k++) {
    var rendered = pretty(value[keys[k]], indent, depth + 1);
    if (rendered !== undefined) {
      parts.push(inner + quote(keys[k]) + ': ' + rendered);
    }
  }
  if (parts.length === 0) {
    return '{}';
  }
  return '{\n' + parts.join(',\n') + '\n' + pad + '}';
}

var doc = {
  name: 'hellfuzz',
  version: 1.5,
  tags: ['fuzz', "parse", 'reduce'],
  nested: { empty: {}, list: [], when: new Date(0), skip: undefined },
  weird: 'tab\there "quoted" \\ back',
  ok: true,
  nothing: null,
  big: 1e21,
};

console.log(pretty(doc));
console.log(pretty([1, [2, [3]]], '\t'));
console.log(pretty(doc) === JSON.stringify(doc, Object.keys(doc).sort(), 2));
