// Binary heap priority queue and Dijkstra's shortest paths on top of it.

class PriorityQueue {
  constructor(compare = (a, b) => a - b) {
    this.heap = [];
    this.compare = compare;
  }

  get length() {
    return this.heap.length;
  }

  peek() {
    return this.heap[0];
  }

  push(...values) {
    for (const v of values) {
      this.heap.push(v);
      this.siftUp(this.heap.length - 1);
    }
    return this.heap.length;
  }

  pop() {
    const heap = this.heap;
    if (heap.length === 0) return undefined;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0) {
      heap[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  siftUp(i) {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(heap[i], heap[parent]) >= 0) break;
      const swap = heap[i];
      heap[i] = heap[parent];
      heap[parent] = swap;
      i = parent;
    }
  }

  siftDown(i) {
    const heap = this.heap, n = heap.length;
    for (;;) {
      let smallest = i;
      const l = 2 * i + 1, r = l + 1;
      if (l < n && this.compare(heap[l], heap[smallest]) < 0) smallest = l;
      if (r < n && this.compare(heap[r], heap[smallest]) < 0) smallest = r;
      if (smallest === i) return;
      const tmp = heap[i];
      heap[i] = heap[smallest];
      heap[smallest] = tmp;
      i = smallest;
    }
  }
}

function dijkstra(graph, source) {
  const dist = {}, prev = {};
  for (const node in graph) {
    dist[node] = Infinity;
    prev[node] = null;
  }
  dist[source] = 0;
  const queue = new PriorityQueue((a, b) => a[0] - b[0]);
  queue.push([0, source]);
  while (queue.length) {
    const item = queue.pop();
    const d = item[0], u = item[1];
    if (d > dist[u]) continue;
    for (const v in graph[u]) {
      const alt = d + graph[u][v];
      if (alt < dist[v]) {
        dist[v] = alt;
        prev[v] = u;
        queue.push([alt, v]);
      }
    }
  }
  return { dist, prev };
}

function pathTo(prev, target) {
  const path = [];
  for (let at = target; at !== null; at = prev[at]) path.unshift(at);
  return path;
}

const pq = new PriorityQueue();
pq.push(5, 1, 8, 3, 9, 2);
const sorted = [];
while (pq.length > 0) sorted.push(pq.pop());
console.log(sorted.join(' '));

const roads = {
  A: { B: 7, C: 9, F: 14 },
  B: { A: 7, C: 10, D: 15 },
  C: { A: 9, B: 10, D: 11, F: 2 },
  D: { B: 15, C: 11, E: 6 },
  E: { D: 6, F: 9 },
  F: { A: 14, C: 2, E: 9 },
};
const result = dijkstra(roads, 'A');
console.log(result.dist.E, pathTo(result.prev, 'E').join(' -> '));
