// Binary search tree with insert, delete, traversal and balancing check.

function Node(key, value) {
  this.key = key;
  this.value = value;
  this.left = null;
  this.right = null;
}

function BST(compare) {
  this.root = null;
  this.size = 0;
  this.compare = compare || function (a, b) { return a < b ? -1 : a > b ? 1 : 0; };
}

BST.prototype.insert = function (key, value) {
  var node = new Node(key, value);
  if (this.root === null) {
    this.root = node;
    this.size++;
    return this;
  }
  var current = this.root;
  while (true) {
    var c = this.compare(key, current.key);
    if (c === 0) {
      current.value = value;
      return this;
    } else if (c < 0) {
      if (current.left === null) { current.left = node; break; }
      current = current.left;
    } else {
      if (current.right === null) { current.right = node; break; }
      current = current.right;
    }
  }
  this.size++;
  return this;
};

BST.prototype.get = function (key) {
  var node = this.root;
  while (node) {
    var c = this.compare(key, node.key);
    if (c === 0) return node.value;
    node = c < 0 ? node.left : node.right;
  }
  return undefined;
};

BST.prototype.remove = function (key) {
  var self = this;
  var removed = false;
  function removeNode(node, key) {
    if (node === null) return null;
    var c = self.compare(key, node.key);
    if (c < 0) {
      node.left = removeNode(node.left, key);
      return node;
    }
    if (c > 0) {
      node.right = removeNode(node.right, key);
      return node;
    }
    removed = true;
    if (node.left === null) return node.right;
    if (node.right === null) return node.left;
    var successor = node.right;
    while (successor.left !== null) successor = successor.left;
    node.key = successor.key;
    node.value = successor.value;
    node.right = removeNode(node.right, successor.key);
    return node;
  }
  this.root = removeNode(this.root, key);
  if (removed) this.size--;
  return removed;
};

BST.prototype.inOrder = function (visit) {
  var stack = [], node = this.root;
  while (stack.length > 0 || node !== null) {
    if (node !== null) {
      stack.push(node);
      node = node.left;
    } else {
      node = stack.pop();
      visit(node.key, node.value);
      node = node.right;
    }
  }
};

BST.prototype.height = function () {
  function h(node) {
    return node === null ? 0 : 1 + Math.max(h(node.left), h(node.right));
  }
  return h(this.root);
};

BST.prototype.isBalanced = function () {
  function check(node) {
    if (!node) return 0;
    var l = check(node.left), r = check(node.right);
    if (l < 0 || r < 0 || Math.abs(l - r) > 1) return -1;
    return Math.max(l, r) + 1;
  }
  return check(this.root) >= 0;
};

var tree = new BST();
[50, 30, 70, 20, 40, 60, 80, 35].forEach(function (k) { tree.insert(k, 'v' + k); });
tree.remove(30);
var keys = [];
tree.inOrder(function (k) { keys.push(k); });
console.log(keys.join(','), tree.size, tree.height(), tree.isBalanced(), tree.get(35));
