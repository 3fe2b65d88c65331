// Debounce and throttle helpers, with a fake clock for testing.

function debounce(fn, wait, immediate) {
  var timer = null;
  return function () {
    var context = this, args = arguments;
    var callNow = immediate && !timer;
    clearTimeout(timer);
    timer = setTimeout(function () {
      timer = null;
      if (!immediate) {
        fn.apply(context, args);
      }
    }, wait);
    if (callNow) {
      fn.apply(context, args);
    }
  };
}

function throttle(fn, limit) {
  let last = 0;
  let pending = null;
  return function (...args) {
    const now = Date.now();
    const remaining = limit - (now - last);
    if (remaining <= 0) {
      if (pending) {
        clearTimeout(pending);
        pending = null;
      }
      last = now;
      return fn.apply(this, args);
    } else if (!pending) {
      pending = setTimeout(() => {
        last = Date.now();
        pending = null;
        fn.apply(this, args);
      }, remaining);
    }
    return undefined;
  };
}

const once = (fn) => {
  let called = false, result;
  return function () {
    if (!called) {
      called = true;
      result = fn.apply(this, arguments);
    }
    return result;
  };
};

function memoize(fn, keyFn = (x) => String(x)) {
  const cache = new Map();
  const wrapped = function (arg) {
    const key = keyFn(arg);
    if (cache.has(key)) {
      return cache.get(key);
    }
    const value = fn.call(this, arg);
    cache.set(key, value);
    return value;
  };
  wrapped.clear = () => cache.clear();
  return wrapped;
}

var calls = 0;
var onResize = debounce(function () { calls += 1; }, 50);
for (var i = 0; i < 5; i++) {
  onResize();
}
setTimeout(function () {
  console.log('debounced calls:', calls);
}, 100);

const scroll = throttle((y) => console.log('scroll', y), 20);
scroll(1);
scroll(2);
const init = once(() => Math.random());
console.log(init() === init());
const slowSquare = memoize(n => n * n);
console.log(slowSquare(12), slowSquare(12));
