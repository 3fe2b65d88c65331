// Conway's game of life on a torus.

function parse(rows) {
  return rows.map(function (row) {
    return row.split('').map(function (ch) { return ch === '#' ? 1 : 0; });
  });
}

function neighbours(grid, r, c) {
  var h = grid.length, w = grid[0].length, n = 0;
  for (var dr = -1; dr <= 1; dr++) {
    for (var dc = -1; dc <= 1; dc++) {
      if (dr === 0 && dc === 0) continue;
      n += grid[(r + dr + h) % h][(c + dc + w) % w];
    }
  }
  return n;
}

function step(grid) {
  var next = [];
  for (var r = 0; r < grid.length; r++) {
    next[r] = [];
    for (var c = 0; c < grid[r].length; c++) {
      var n = neighbours(grid, r, c);
      var alive = grid[r][c] === 1;
      next[r][c] = (alive && (n === 2 || n === 3)) || (!alive && n === 3) ? 1 : 0;
    }
  }
  return next;
}

function render(grid) {
  return grid.map(function (row) {
    return row.map(function (x) { return x ? '#' : '.'; }).join('');
  }).join('\n');
}

function population(grid) {
  return grid.reduce(function (sum, row) {
    return sum + row.reduce(function (a, b) { return a + b; }, 0);
  }, 0);
}

var glider = parse([
  '.#......',
  '..#.....',
  '###.....',
  '........',
  '........',
  '........'
]);

var gen = 0, grid = glider;
do {
  console.log('generation ' + gen + ' (population ' + population(grid) + ')');
  console.log(render(grid));
  grid = step(grid);
  gen++;
} while (gen < 4);
