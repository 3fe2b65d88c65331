// RFC 4180-ish CSV parser and writer with quoted fields.

function parseCsv(text, options) {
  var sep = (options && options.separator) || ',';
  var rows = [], row = [], field = '';
  var i = 0, inQuotes = false;
  while (i < text.length) {
    var ch = text.charAt(i);
    if (inQuotes) {
      if (ch === '"') {
        if (text.charAt(i + 1) === '"') {
          field += '"';
          i += 2;
          continue;
        }
        inQuotes = false;
      } else {
        field += ch;
      }
      i++;
      continue;
    }
    if (ch === '"' && field === '') {
      inQuotes = true;
    } else if (ch === sep) {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      if (ch === '\r' && text.charAt(i + 1) === '\n') i++;
    } else {
      field += ch;
    }
    i++;
  }
  if (inQuotes) {
    throw new SyntaxError('unterminated quoted field');
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

function toObjects(rows) {
  var header = rows[0];
  return rows.slice(1).map(function (r) {
    var obj = {};
    for (var c = 0; c < header.length; c++) {
      var v = r[c];
      obj[header[c]] = v !== undefined && v !== '' && !isNaN(v) ? Number(v) : v;
    }
    return obj;
  });
}

function writeCsv(rows, sep) {
  sep = sep || ',';
  return rows.map(function (r) {
    return r.map(function (v) {
      var s = v === null || v === undefined ? '' : String(v);
      return /[",\n\r]/.test(s) || s.indexOf(sep) >= 0 ? '"' + s.replace(/"/g, '""') + '"' : s;
    }).join(sep);
  }).join('\r\n');
}

var input = 'name,age,quote\r\nAda,36,"Said ""hi"", then left"\r\nBob,,"multi\nline"\nEve,29,plain\n';
var rows = parseCsv(input);
console.log(rows.length, rows[1][2], JSON.stringify(rows[2]));
console.log(toObjects(rows));
console.log(writeCsv(rows) === input.replace(/\r?\n/g, '\r\n').replace(/\r\n$/, '') ? 'round trip ok' : writeCsv(rows));
console.log(parseCsv('a;b;c\n1;2;3', { separator: ';' }));
