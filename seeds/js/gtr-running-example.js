if (!c) { var a = 5; } else { isNaN(2); }
