// Array utilities: map/filter/reduce, spread, grouping and chunking.

const range = (start, end, step = 1) => {
  const out = [];
  for (let i = start; step > 0 ? i < end : i > end; i += step) {
    out.push(i);
  }
  return out;
};

const sum = xs => xs.reduce((acc, x) => acc + x, 0);
const mean = xs => xs.length === 0 ? NaN : sum(xs) / xs.length;
const unique = xs => xs.filter((x, i) => xs.indexOf(x) === i);
const flatten = xs => xs.reduce((acc, x) => Array.isArray(x) ? [...acc, ...flatten(x)] : [...acc, x], []);

function chunk(xs, size) {
  if (size <= 0) {
    throw new RangeError('size must be positive');
  }
  const chunks = [];
  for (let i = 0; i < xs.length; i += size) {
    chunks.push(xs.slice(i, i + size));
  }
  return chunks;
}

function zip(...arrays) {
  const length = Math.min(...arrays.map(a => a.length));
  return range(0, length).map(i => arrays.map(a => a[i]));
}

function groupBy(xs, keyFn) {
  return xs.reduce((groups, x) => {
    const key = keyFn(x);
    (groups[key] = groups[key] || []).push(x);
    return groups;
  }, {});
}

function partition(xs, pred) {
  const yes = [], no = [];
  xs.forEach(x => (pred(x) ? yes : no).push(x));
  return [yes, no];
}

function sortBy(xs, ...keys) {
  return [...xs].sort((a, b) => {
    for (const key of keys) {
      const desc = key[0] === '-';
      const k = desc ? key.slice(1) : key;
      if (a[k] < b[k]) return desc ? 1 : -1;
      if (a[k] > b[k]) return desc ? -1 : 1;
    }
    return 0;
  });
}

const people = [
  { name: 'Ada', age: 36, team: 'core' },
  { name: 'Linus', age: 28, team: 'kernel' },
  { name: 'Grace', age: 45, team: 'core' },
  { name: 'Ken', age: 28, team: 'kernel' },
];

console.log(range(0, 10, 3), range(5, 0, -2));
console.log(sum([1, 2, 3]), mean([2, 4, 9]));
console.log(unique([1, 1, 2, 3, 2]), flatten([1, [2, [3, [4]]], 5]));
console.log(chunk(range(0, 7), 3));
console.log(zip([1, 2, 3], ['a', 'b', 'c'], [true, false]));
console.log(groupBy(people, p => p.team));
console.log(partition(range(0, 10), n => n % 2 === 0));
console.log(sortBy(people, 'age', '-name').map(p => p.name));
const ages = people.map(p => p.age).filter(a => a > 30);
console.log(Math.max(...ages), [...'hello'].reverse().join(''));
