// A small matrix module: creation, arithmetic, transpose, determinant, inverse.

var Matrix = {
  create: function (rows, cols, fill) {
    var m = [];
    for (var r = 0; r < rows; r++) {
      m[r] = [];
      for (var c = 0; c < cols; c++) {
        m[r][c] = typeof fill === 'function' ? fill(r, c) : (fill || 0);
      }
    }
    return m;
  },

  identity: function (n) {
    return Matrix.create(n, n, function (r, c) { return r === c ? 1 : 0; });
  },

  rows: function (m) { return m.length; },
  cols: function (m) { return m.length ? m[0].length : 0; },

  add: function (a, b) {
    return Matrix.create(a.length, a[0].length, function (r, c) { return a[r][c] + b[r][c]; });
  },

  scale: function (m, k) {
    return m.map(function (row) { return row.map(function (x) { return x * k; }); });
  },

  multiply: function (a, b) {
    if (Matrix.cols(a) !== Matrix.rows(b)) {
      throw new Error('dimension mismatch: ' + Matrix.cols(a) + ' vs ' + Matrix.rows(b));
    }
    var out = Matrix.create(a.length, b[0].length, 0);
    for (var i = 0; i < a.length; i++) {
      for (var j = 0; j < b[0].length; j++) {
        var s = 0;
        for (var k = 0; k < b.length; k++) {
          s += a[i][k] * b[k][j];
        }
        out[i][j] = s;
      }
    }
    return out;
  },

  transpose: function (m) {
    return Matrix.create(Matrix.cols(m), Matrix.rows(m), function (r, c) { return m[c][r]; });
  },

  determinant: function (m) {
    var n = m.length;
    if (n === 1) return m[0][0];
    if (n === 2) return m[0][0] * m[1][1] - m[0][1] * m[1][0];
    var det = 0;
    for (var c = 0; c < n; c++) {
      var minor = m.slice(1).map(function (row) {
        return row.filter(function (_, j) { return j !== c; });
      });
      det += (c % 2 === 0 ? 1 : -1) * m[0][c] * Matrix.determinant(minor);
    }
    return det;
  },

  inverse: function (m) {
    var n = m.length, i, j, k;
    var a = m.map(function (row, r) { return row.concat(Matrix.identity(n)[r]); });
    for (i = 0; i < n; i++) {
      var pivot = i;
      for (j = i + 1; j < n; j++) {
        if (Math.abs(a[j][i]) > Math.abs(a[pivot][i])) pivot = j;
      }
      if (Math.abs(a[pivot][i]) < 1e-12) {
        return null;
      }
      var tmp = a[i]; a[i] = a[pivot]; a[pivot] = tmp;
      var p = a[i][i];
      for (k = 0; k < 2 * n; k++) a[i][k] /= p;
      for (j = 0; j < n; j++) {
        if (j === i) continue;
        var f = a[j][i];
        for (k = 0; k < 2 * n; k++) a[j][k] -= f * a[i][k];
      }
    }
    return a.map(function (row) { return row.slice(n); });
  },

  toString: function (m) {
    return m.map(function (row) {
      return row.map(function (x) { return (Math.round(x * 1000) / 1000).toString(); }).join('\t');
    }).join('\n');
  }
};

var A = [[4, 7], [2, 6]];
var B = [[1, 2, 3], [4, 5, 6], [7, 8, 10]];
console.log(Matrix.toString(Matrix.multiply(A, Matrix.inverse(A))));
console.log(Matrix.determinant(B), Matrix.determinant(Matrix.transpose(B)));
console.log(Matrix.toString(Matrix.add(Matrix.scale(Matrix.identity(3), 2), B)));
console.log(Matrix.inverse([[1, 2], [2, 4]]));
