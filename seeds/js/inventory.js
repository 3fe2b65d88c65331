// Inventory tracking: class setters, computed keys, numeric keys, sparse arrays.

const PREFIX = 'sku:';
const STATUS_TEXT = { 200: 'OK', 201: 'Created', 404: 'Not Found', 409: 'Conflict', 0x1F4: 'Server Error' };
// Index 0 is intentionally a hole so that month numbers start at 1.
const MONTH_NAMES = [, 'Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec',];
const SIZES = ['S', 'M', , 'XL', ];

class Item {
  constructor(sku, name, price) {
    this.sku = sku;
    this.name = name;
    this._price = 0;
    this.price = price;
    this.history = new Map;
  }

  get price() {
    return this._price;
  }

  set price(value) {
    if (typeof value !== 'number' || value < 0) {
      throw new RangeError(`invalid price for ${this.sku}: ${value}`);
    }
    this._price = Math.round(value * 100) / 100;
  }

  get key() {
    return PREFIX + this.sku;
  }

  record(month, qty) {
    const label = MONTH_NAMES[month] || '???';
    this.history.set(label, (this.history.get(label) || 0) + qty);
  }
}

class Inventory {
  constructor() {
    this.items = {};
    this.stock = {};
  }

  add(item, qty = 0) {
    if (item.key in this.items) {
      return { status: 409, text: STATUS_TEXT[409] };
    }
    this.items[item.key] = item;
    this.stock[item.key] = qty;
    return { status: 201, text: STATUS_TEXT[201] };
  }

  adjust(sku, delta, month) {
    const key = PREFIX + sku;
    if (!(key in this.stock)) {
      return { status: 404, text: STATUS_TEXT[404] };
    }
    this.stock[key] += delta;
    if (delta < 0) this.items[key].record(month, -delta);
    return { status: 200, text: STATUS_TEXT[200], [key]: this.stock[key] };
  }

  value(taxRate = .5 / 2) {
    let total = 0;
    for (const key in this.stock) {
      total += this.stock[key] * this.items[key].price;
    }
    return +(total * (1 + taxRate)).toFixed(2);
  }

  report() {
    return Object.keys(this.items).sort().map(key => {
      const item = this.items[key];
      const sold = [...item.history.entries()].map(e => e[0] + '=' + e[1]).join(' ');
      return `${key.split(/[:/]/)[1]} ${item.name} x${this.stock[key]} @ ${item.price}${sold ? ' sold ' + sold : ''}`;
    });
  }
}

const inv = new Inventory();
inv.add(new Item('A-1', 'Anvil', 120.456), 3);
inv.add(new Item('B/2', 'Bucket', 4.5), 40);
console.log(inv.add(new Item('A-1', 'Duplicate', 1)).text);
console.log(inv.adjust('B/2', -5, 3), inv.adjust('B/2', -2, 3).status, inv.adjust('Z', 1).text);
inv.adjust('A-1', -1, 12);
try {
  inv.items[PREFIX + 'A-1'].price = -1;
} catch (e) {
  console.log(e.message);
}
console.log(inv.value(), inv.value(0), SIZES.length, 2 in SIZES, MONTH_NAMES.length);
console.log(inv.report().join('\n'));
console.log('a/b\\c'.split(/[/\\]/), /[/]/.test('x/y'), STATUS_TEXT[500]);
