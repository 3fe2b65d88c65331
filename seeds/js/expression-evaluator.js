// A recursive-descent calculator with variables and functions.

function Parser(text) {
  this.text = text;
  this.pos = 0;
}

Parser.prototype.peek = function () {
  while (this.text.charAt(this.pos) === ' ') this.pos++;
  return this.text.charAt(this.pos);
};

Parser.prototype.expect = function (ch) {
  if (this.peek() !== ch) {
    throw new SyntaxError("expected '" + ch + "' at " + this.pos + ", found '" + this.peek() + "'");
  }
  this.pos++;
};

Parser.prototype.parseExpression = function () {
  var left = this.parseTerm();
  for (;;) {
    var op = this.peek();
    if (op !== '+' && op !== '-') return left;
    this.pos++;
    left = { type: 'binary', op: op, left: left, right: this.parseTerm() };
  }
};

Parser.prototype.parseTerm = function () {
  var left = this.parseFactor();
  while (this.peek() === '*' || this.peek() === '/' || this.peek() === '%') {
    var op = this.text.charAt(this.pos++);
    left = { type: 'binary', op: op, left: left, right: this.parseFactor() };
  }
  return left;
};

Parser.prototype.parseFactor = function () {
  var base = this.parseUnary();
  if (this.peek() === '^') {
    this.pos++;
    return { type: 'binary', op: '^', left: base, right: this.parseFactor() };
  }
  return base;
};

Parser.prototype.parseUnary = function () {
  if (this.peek() === '-') {
    this.pos++;
    return { type: 'neg', arg: this.parseUnary() };
  }
  return this.parsePrimary();
};

Parser.prototype.parsePrimary = function () {
  var ch = this.peek(), m;
  if (ch === '(') {
    this.pos++;
    var inner = this.parseExpression();
    this.expect(')');
    return inner;
  }
  var rest = this.text.slice(this.pos);
  if ((m = /^(\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?/i.exec(rest))) {
    this.pos += m[0].length;
    return { type: 'num', value: parseFloat(m[0]) };
  }
  if ((m = /^[a-z_]\w*/i.exec(rest))) {
    this.pos += m[0].length;
    if (this.peek() === '(') {
      this.pos++;
      var args = [];
      if (this.peek() !== ')') {
        do {
          args.push(this.parseExpression());
        } while (this.peek() === ',' && ++this.pos);
      }
      this.expect(')');
      return { type: 'call', name: m[0], args: args };
    }
    return { type: 'var', name: m[0] };
  }
  throw new SyntaxError('unexpected ' + (ch ? "'" + ch + "'" : 'end of input') + ' at ' + this.pos);
};

var FUNCTIONS = {
  sqrt: Math.sqrt, sin: Math.sin, cos: Math.cos, abs: Math.abs,
  max: Math.max, min: Math.min,
  hypot: function (a, b) { return Math.sqrt(a * a + b * b); }
};

function evaluate(node, env) {
  switch (node.type) {
    case 'num': return node.value;
    case 'neg': return -evaluate(node.arg, env);
    case 'var':
      if (!(node.name in env)) throw new ReferenceError(node.name + ' is not defined');
      return env[node.name];
    case 'call':
      var fn = FUNCTIONS[node.name];
      if (typeof fn !== 'function') throw new TypeError(node.name + ' is not a function');
      return fn.apply(null, node.args.map(function (a) { return evaluate(a, env); }));
    case 'binary':
      var l = evaluate(node.left, env), r = evaluate(node.right, env);
      switch (node.op) {
        case '+': return l + r;
        case '-': return l - r;
        case '*': return l * r;
        case '/': return l / r;
        case '%': return l % r;
        case '^': return Math.pow(l, r);
      }
  }
  throw new Error('bad node ' + JSON.stringify(node));
}

function calc(text, env) {
  var p = new Parser(text);
  var tree = p.parseExpression();
  if (p.peek() !== '') throw new SyntaxError('trailing input at ' + p.pos);
  return evaluate(tree, env || {});
}

var env = { pi: Math.PI, x: 3, y: 4 };
['1 + 2 * 3', '(1 + 2) * 3', '-2 ^ 2', '2 ^ 3 ^ 2', 'hypot(x, y) / 5', 'max(1, 7, x * y) % 5',
 'sin(pi / 2) + .5e1', 'z + 1', '3 +', 'sqrt(16'].forEach(function (src) {
  try {
    console.log(src + ' = ' + calc(src, env));
  } catch (e) {
    console.log(src + ' -> ' + e.name + ': ' + e.message);
  }
});
