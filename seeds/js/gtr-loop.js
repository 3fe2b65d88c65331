for (var i = 0; i < 10; i++) {
  if (cond1 || cond2) {
    partOfBug();
  }
  if (cond3) {
    otherPartOfBug();
  }
}
