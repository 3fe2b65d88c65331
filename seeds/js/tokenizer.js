// A hand-written tokenizer for a small expression language.

const KEYWORDS = new Set(['let', 'if', 'then', 'else', 'fn', 'true', 'false']);
const PUNCT = ['==', '!=', '<=', '>=', '->', '&&', '||', '+', '-', '*', '/', '%', '(', ')', '<', '>', '=', ',', ';'];

class Token {
  constructor(type, value, line, col) {
    this.type = type;
    this.value = value;
    this.line = line;
    this.col = col;
  }
  toString() {
    return `${this.type}(${JSON.stringify(this.value)})@${this.line}:${this.col}`;
  }
}

function isDigit(c) { return c >= '0' && c <= '9'; }
function isIdentStart(c) { return /[A-Za-z_]/.test(c); }
function isIdentPart(c) { return isIdentStart(c) || isDigit(c); }

function tokenize(src) {
  const tokens = [];
  let i = 0, line = 1, col = 1;

  function advance(n) {
    while (n-- > 0) {
      if (src[i] === '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
      i++;
    }
  }

  outer:
  while (i < src.length) {
    const c = src[i];
    const startLine = line, startCol = col;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      advance(1);
      continue;
    }
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') advance(1);
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(src[i + 1]))) {
      let j = i;
      while (j < src.length && (isDigit(src[j]) || src[j] === '.')) j++;
      const text = src.slice(i, j);
      if (text.split('.').length > 2) {
        throw new SyntaxError(`bad number ${text} at ${line}:${col}`);
      }
      tokens.push(new Token('num', parseFloat(text), startLine, startCol));
      advance(j - i);
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < src.length && isIdentPart(src[j])) j++;
      const word = src.slice(i, j);
      tokens.push(new Token(KEYWORDS.has(word) ? 'kw' : 'ident', word, startLine, startCol));
      advance(j - i);
      continue;
    }
    if (c === '"') {
      let j = i + 1, value = '';
      while (j < src.length && src[j] !== '"') {
        if (src[j] === '\\') {
          const next = src[j + 1];
          value += next === 'n' ? '\n' : next === 't' ? '\t' : next;
          j += 2;
        } else {
          value += src[j++];
        }
      }
      if (j >= src.length) {
        throw new SyntaxError('unterminated string at ' + startLine + ':' + startCol);
      }
      tokens.push(new Token('str', value, startLine, startCol));
      advance(j + 1 - i);
      continue;
    }
    for (let k = 0; k < PUNCT.length; k++) {
      const p = PUNCT[k];
      if (src.substr(i, p.length) === p) {
        tokens.push(new Token('punct', p, startLine, startCol));
        advance(p.length);
        continue outer;
      }
    }
    throw new SyntaxError(`unexpected character '${c}' at ${line}:${col}`);
  }
  tokens.push(new Token('eof', null, line, col));
  return tokens;
}

const program = 'let area = fn(w, h) -> w * h;\n# comment\nif area(2, .5) >= 1 then "big\\n" else "small";';
for (const tok of tokenize(program)) {
  console.log(String(tok));
}
try {
  tokenize('let x = 1.2.3;');
} catch (e) {
  console.log(e.name + ': ' + e.message);
}
