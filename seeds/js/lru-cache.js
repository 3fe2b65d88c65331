// LRU cache built from a hash map and a doubly linked list.

class ListNode {
  constructor(key, value) {
    this.key = key;
    this.value = value;
    this.prev = null;
    this.next = null;
  }
}

class LRUCache {
  constructor(capacity = 100, onEvict = null) {
    if (!(capacity > 0)) {
      throw new RangeError(`capacity must be positive, got ${capacity}`);
    }
    this.capacity = capacity;
    this.onEvict = onEvict;
    this.map = new Map();
    this.head = new ListNode(null, null);
    this.tail = new ListNode(null, null);
    this.head.next = this.tail;
    this.tail.prev = this.head;
    this.hits = this.misses = 0;
  }

  get size() {
    return this.map.size;
  }

  unlink(node) {
    node.prev.next = node.next;
    node.next.prev = node.prev;
  }

  pushFront(node) {
    node.next = this.head.next;
    node.prev = this.head;
    this.head.next.prev = node;
    this.head.next = node;
  }

  get(key) {
    const node = this.map.get(key);
    if (node === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.unlink(node);
    this.pushFront(node);
    return node.value;
  }

  set(key, value) {
    let node = this.map.get(key);
    if (node) {
      node.value = value;
      this.unlink(node);
    } else {
      node = new ListNode(key, value);
      this.map.set(key, node);
      if (this.map.size > this.capacity) {
        const lru = this.tail.prev;
        this.unlink(lru);
        this.map.delete(lru.key);
        if (this.onEvict) this.onEvict(lru.key, lru.value);
      }
    }
    this.pushFront(node);
    return this;
  }

  keys() {
    const out = [];
    for (let n = this.head.next; n !== this.tail; n = n.next) {
      out.push(n.key);
    }
    return out;
  }

  get hitRate() {
    const total = this.hits + this.misses;
    return total === 0 ? 0 : this.hits / total;
  }
}

const evicted = [];
const cache = new LRUCache(3, (k, v) => evicted.push(`${k}=${v}`));
cache.set('a', 1).set('b', 2).set('c', 3);
cache.get('a');
cache.set('d', 4);
cache.get('b');
cache.set('e', 5);
console.log(cache.keys(), evicted, cache.size, cache.hitRate.toFixed(2));
