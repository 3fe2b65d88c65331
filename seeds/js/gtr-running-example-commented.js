if(!c) {
  var a = 5; // root cause of failure
} else {
  isNaN(2);
}
