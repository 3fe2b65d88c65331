// Dependency graph: topological sort, cycle detection and build ordering.

function Graph() {
  this.nodes = {};
}

Graph.prototype.addNode = function (name) {
  if (!this.nodes.hasOwnProperty(name)) {
    this.nodes[name] = { deps: [], dependents: [] };
  }
  return this.nodes[name];
};

Graph.prototype.addDependency = function (from, to) {
  var a = this.addNode(from), b = this.addNode(to);
  if (a.deps.indexOf(to) < 0) {
    a.deps.push(to);
    b.dependents.push(from);
  }
  return this;
};

Graph.prototype.topoSort = function () {
  var inDegree = {}, queue = [], order = [], name;
  for (name in this.nodes) {
    inDegree[name] = this.nodes[name].deps.length;
    if (inDegree[name] === 0) queue.push(name);
  }
  queue.sort();
  while (queue.length) {
    var current = queue.shift();
    order.push(current);
    var dependents = this.nodes[current].dependents;
    for (var i = 0; i < dependents.length; i++) {
      if (--inDegree[dependents[i]] === 0) {
        queue.push(dependents[i]);
      }
    }
  }
  if (order.length !== Object.keys(this.nodes).length) {
    throw new Error('cycle detected: ' + this.findCycle().join(' -> '));
  }
  return order;
};

Graph.prototype.findCycle = function () {
  var WHITE = 0, GREY = 1, BLACK = 2;
  var color = {}, stack = [], nodes = this.nodes, found = null;
  for (var n in nodes) color[n] = WHITE;

  function visit(name) {
    color[name] = GREY;
    stack.push(name);
    var deps = nodes[name].deps;
    for (var i = 0; i < deps.length && !found; i++) {
      var d = deps[i];
      if (color[d] === GREY) {
        found = stack.slice(stack.indexOf(d)).concat(d);
      } else if (color[d] === WHITE) {
        visit(d);
      }
    }
    stack.pop();
    color[name] = BLACK;
  }

  search: for (var start in nodes) {
    if (color[start] !== WHITE) continue search;
    visit(start);
    if (found) break search;
  }
  return found || [];
};

Graph.prototype.levels = function () {
  var order = this.topoSort(), level = {}, result = [];
  for (var i = 0; i < order.length; i++) {
    var name = order[i], deps = this.nodes[name].deps, lvl = 0;
    for (var j = 0; j < deps.length; j++) {
      lvl = Math.max(lvl, level[deps[j]] + 1);
    }
    level[name] = lvl;
    (result[lvl] || (result[lvl] = [])).push(name);
  }
  return result;
};

var g = new Graph();
g.addDependency('app', 'router').addDependency('app', 'store')
  .addDependency('router', 'utils').addDependency('store', 'utils')
  .addDependency('store', 'immutable').addDependency('tests', 'app');
console.log(g.topoSort().join(', '));
console.log(JSON.stringify(g.levels()));
g.addDependency('utils', 'app');
try {
  g.topoSort();
} catch (e) {
  console.log(e.message);
}
