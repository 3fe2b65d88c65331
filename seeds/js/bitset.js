// A fixed-size bit set on Uint32Array words, with bitwise tricks.

function BitSet(size) {
  this.size = size;
  this.words = new Uint32Array((size + 31) >>> 5);
}

BitSet.prototype.set = function (i) {
  this.words[i >>> 5] |= 1 << (i & 31);
  return this;
};

BitSet.prototype.clear = function (i) {
  this.words[i >>> 5] &= ~(1 << (i & 31));
  return this;
};

BitSet.prototype.toggle = function (i) {
  this.words[i >>> 5] ^= 1 << (i & 31);
  return this;
};

BitSet.prototype.has = function (i) {
  return (this.words[i >>> 5] & (1 << (i & 31))) !== 0;
};

function popcount(x) {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return (x * 0x01010101) >>> 24;
}

BitSet.prototype.count = function () {
  var n = 0;
  for (var w = 0; w < this.words.length; w++) {
    n += popcount(this.words[w]);
  }
  return n;
};

BitSet.prototype.union = function (other) {
  var out = new BitSet(Math.max(this.size, other.size));
  for (var w = 0; w < out.words.length; w++) {
    out.words[w] = (this.words[w] | 0) | (other.words[w] | 0);
  }
  return out;
};

BitSet.prototype.intersect = function (other) {
  var out = new BitSet(Math.min(this.size, other.size));
  for (var w = 0; w < out.words.length; w++) {
    out.words[w] = this.words[w] & other.words[w];
  }
  return out;
};

BitSet.prototype.toArray = function () {
  var out = [];
  for (var w = 0; w < this.words.length; w++) {
    var word = this.words[w];
    while (word !== 0) {
      var t = word & -word;
      var bit = 31 - Math.clz32(t);
      out.push((w << 5) + bit);
      word ^= t;
    }
  }
  return out;
};

function sieve(limit) {
  var composite = new BitSet(limit + 1);
  composite.set(0).set(1);
  for (var p = 2; p * p <= limit; p++) {
    if (composite.has(p)) continue;
    for (var m = p * p; m <= limit; m += p) composite.set(m);
  }
  var primes = [];
  for (var k = 2; k <= limit; k++) {
    if (!composite.has(k)) primes.push(k);
  }
  return primes;
}

var a = new BitSet(100), b = new BitSet(100);
[1, 5, 33, 64, 99].forEach(function (i) { a.set(i); });
[5, 6, 64, 70].forEach(function (i) { b.set(i); });
a.toggle(2).clear(1);
console.log(a.toArray(), a.union(b).count(), a.intersect(b).toArray());
console.log(popcount(0xffffffff), popcount(0x80000001), -1 >>> 28, 1 << 31 >> 31, 2 ** 10 ^ 0x3ff);
console.log(sieve(60).join(' '));
var flags = 0;
flags |= 4; flags <<= 2; flags >>= 1; flags >>>= 0; flags %= 7; flags **= 2;
console.log(flags, ~~3.7, !!flags, typeof flags === 'number' && flags === flags);
