// 2D vectors and polygons; object literals with getters, setters and methods.

function vec(x, y) {
  return {
    x: x,
    y: y,
    get length() {
      return Math.sqrt(this.x * this.x + this.y * this.y);
    },
    set length(len) {
      var k = len / this.length;
      this.x *= k;
      this.y *= k;
    },
    get angle() { return Math.atan2(this.y, this.x); },
    add(o) { return vec(this.x + o.x, this.y + o.y); },
    sub(o) { return vec(this.x - o.x, this.y - o.y); },
    scale(k) { return vec(this.x * k, this.y * k); },
    dot(o) { return this.x * o.x + this.y * o.y; },
    cross(o) { return this.x * o.y - this.y * o.x; },
    rotate(theta) {
      var c = Math.cos(theta), s = Math.sin(theta);
      return vec(this.x * c - this.y * s, this.x * s + this.y * c);
    },
    toString() { return '(' + this.x.toFixed(2) + ', ' + this.y.toFixed(2) + ')'; },
  };
}

var Polygon = {
  area: function (points) {
    var a = 0;
    for (var i = 0, j = points.length - 1; i < points.length; j = i++) {
      a += points[j].cross(points[i]);
    }
    return Math.abs(a) / 2;
  },
  perimeter: function (points) {
    var p = 0;
    for (var i = 0; i < points.length; i++) {
      p += points[(i + 1) % points.length].sub(points[i]).length;
    }
    return p;
  },
  centroid: function (points) {
    var sum = points.reduce(function (acc, pt) { return acc.add(pt); }, vec(0, 0));
    return sum.scale(1 / points.length);
  },
  contains: function (points, pt) {
    var inside = false;
    for (var i = 0, j = points.length - 1; i < points.length; j = i++) {
      var a = points[i], b = points[j];
      if ((a.y > pt.y) !== (b.y > pt.y) &&
          pt.x < (b.x - a.x) * (pt.y - a.y) / (b.y - a.y) + a.x) {
        inside = !inside;
      }
    }
    return inside;
  },
  'convex?': function (points) {
    var sign = 0;
    for (var i = 0; i < points.length; i++) {
      var a = points[i], b = points[(i + 1) % points.length], c = points[(i + 2) % points.length];
      var z = b.sub(a).cross(c.sub(b));
      if (z !== 0) {
        if (sign === 0) sign = z > 0 ? 1 : -1;
        else if (sign * z < 0) return false;
      }
    }
    return true;
  }
};

var square = [vec(0, 0), vec(4, 0), vec(4, 4), vec(0, 4)];
var v = vec(3, 4);
console.log(v.length, v.angle.toFixed(3), v.rotate(Math.PI / 2).toString());
v.length = 10;
console.log(v.toString(), v.dot(vec(1, 0)));
console.log(Polygon.area(square), Polygon.perimeter(square), Polygon.centroid(square).toString());
console.log(Polygon.contains(square, vec(2, 2)), Polygon.contains(square, vec(5, 1)), Polygon['convex?'](square));
