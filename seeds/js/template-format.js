// String formatting with template literals.

const pad = (s, width, ch = ' ') => {
  s = String(s);
  while (s.length < width) {
    s = ch + s;
  }
  return s;
};

const money = (cents, currency = 'EUR') => `${(cents / 100).toFixed(2)} ${currency}`;

function table(rows, columns) {
  const widths = columns.map(c => Math.max(c.title.length, ...rows.map(r => String(r[c.key]).length)));
  const line = `+${widths.map(w => '-'.repeat(w + 2)).join('+')}+`;
  const header = `| ${columns.map((c, i) => c.title.padEnd(widths[i])).join(' | ')} |`;
  const body = rows.map(r => `| ${columns.map((c, i) => pad(r[c.key], widths[i])).join(' | ')} |`);
  return [line, header, line, ...body, line].join('\n');
}

function html(strings, ...values) {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) {
    const v = String(values[i]).replace(/</g, '&lt;').replace(/>/g, '&gt;');
    out += v + strings[i + 1];
  }
  return out;
}

function plural(n, word, suffix = 's') {
  return `${n} ${word}${n === 1 ? '' : suffix}`;
}

const invoice = {
  number: 1042,
  customer: 'ACME <Corp>',
  items: [
    { name: 'Widget', qty: 3, price: 1999 },
    { name: 'Gadget', qty: 1, price: 24950 },
    { name: 'Gizmo', qty: 12, price: 75 },
  ],
};

const total = invoice.items.reduce((sum, it) => sum + it.qty * it.price, 0);
const summary = `Invoice #${pad(invoice.number, 6, '0')} for ${invoice.customer}
  ${plural(invoice.items.length, 'line')}, total ${money(total)}
  average ${money(Math.round(total / invoice.items.length))} per line`;

console.log(summary);
console.log(table(invoice.items.map(it => ({
  name: it.name,
  qty: it.qty,
  total: money(it.qty * it.price),
})), [
  { key: 'name', title: 'Item' },
  { key: 'qty', title: 'Qty' },
  { key: 'total', title: 'Total' },
]));
console.log(html`<p>Dear ${invoice.customer}, you owe ${money(total)}.</p>`);
console.log(`nested: ${`inner ${1 + 1} ${`deep ${[1, 2].map(x => `<${x}>`).join('')}`}`} done, cost $${5}`);
