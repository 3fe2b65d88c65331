// Prototype-based inheritance the ES5 way.

function inherits(Child, Parent) {
  Child.prototype = Object.create(Parent.prototype, {
    constructor: { value: Child, enumerable: false, writable: true, configurable: true }
  });
  Child.super_ = Parent;
}

function Shape(name) {
  if (!(this instanceof Shape)) {
    return new Shape(name);
  }
  this.name = name || 'shape';
}

Shape.prototype.area = function () {
  return 0;
};

Shape.prototype.describe = function () {
  return this.name + ' with area ' + this.area().toFixed(2);
};

function Rectangle(width, height) {
  Shape.call(this, 'rectangle');
  this.width = width;
  this.height = height;
}
inherits(Rectangle, Shape);

Rectangle.prototype.area = function () {
  return this.width * this.height;
};

function Square(side) {
  Rectangle.call(this, side, side);
  this.name = 'square';
}
inherits(Square, Rectangle);

function Circle(radius) {
  Shape.call(this, 'circle');
  this.radius = radius;
}
inherits(Circle, Shape);

Circle.prototype.area = function () {
  return Math.PI * this.radius * this.radius;
};

Circle.prototype.describe = function () {
  var base = Shape.prototype.describe.call(this);
  return base + ' (r=' + this.radius + ')';
};

Object.defineProperty(Circle.prototype, 'diameter', {
  get: function () { return this.radius * 2; },
  set: function (d) { this.radius = d / 2; }
});

var shapes = [new Rectangle(2, 3), new Square(4), new Circle(1), Shape()];
for (var i = 0; i < shapes.length; i++) {
  var s = shapes[i];
  console.log(s.describe(), s instanceof Rectangle, s instanceof Shape,
    Object.getPrototypeOf(s) === s.constructor.prototype);
}
var c = shapes[2];
c.diameter = 10;
console.log(c.radius, 'area' in c, c.hasOwnProperty('area'), typeof Square.super_);
