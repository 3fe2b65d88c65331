// The classic ES5 revealing module pattern (IIFE), with a private store.
var ShoppingCart = (function (global) {
  'use strict';

  var items = {};
  var discountRate = 0;
  var VAT = 0.2;

  function round(value) {
    return Math.round(value * 100) / 100;
  }

  function validate(sku, qty) {
    if (typeof sku !== 'string' || !sku.length) {
      throw new TypeError('sku must be a non-empty string');
    }
    if (typeof qty !== 'number' || qty !== qty || qty < 0) {
      throw new RangeError('bad quantity for ' + sku);
    }
  }

  function add(sku, price, qty) {
    qty = qty === void 0 ? 1 : qty;
    validate(sku, qty);
    if (items.hasOwnProperty(sku)) {
      items[sku].qty += qty;
    } else {
      items[sku] = { price: price, qty: qty };
    }
    return api;
  }

  function remove(sku) {
    if (!(sku in items)) {
      return false;
    }
    delete items[sku];
    return true;
  }

  function setDiscount(rate) {
    discountRate = Math.max(0, Math.min(rate, 0.5));
  }

  function subtotal() {
    var total = 0;
    for (var sku in items) {
      if (Object.prototype.hasOwnProperty.call(items, sku)) {
        total += items[sku].price * items[sku].qty;
      }
    }
    return round(total);
  }

  function total() {
    var net = subtotal() * (1 - discountRate);
    return round(net * (1 + VAT));
  }

  function count() {
    var n = 0, sku;
    for (sku in items) n += items[sku].qty;
    return n;
  }

  var api = {
    add: add,
    remove: remove,
    setDiscount: setDiscount,
    subtotal: subtotal,
    total: total,
    count: count,
    version: '1.0.3'
  };

  global.__cartLoaded = true;
  return api;
})(typeof globalThis !== 'undefined' ? globalThis : this);

ShoppingCart.add('apple', 0.5, 6).add('bread', 2.25).add('apple', 0.5, 2);
ShoppingCart.setDiscount(0.1);
console.log(ShoppingCart.count(), ShoppingCart.subtotal(), ShoppingCart.total());
console.log(ShoppingCart.remove('bread'), ShoppingCart.remove('milk'), ShoppingCart.count());
try {
  ShoppingCart.add('', 1);
} catch (e) {
  console.log(e.constructor.name, e.message);
}
