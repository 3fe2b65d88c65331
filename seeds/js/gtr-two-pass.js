a = b = 0; if (a) crash(b);
