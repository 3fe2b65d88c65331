pub fn primes(limit: usize) -> Vec<usize> {
    let mut sieve = vec![true; limit + 1];
    let mut result = Vec::new();
    for n in 2..=limit {
        if !sieve[n] {
            continue;
        }
        result.push(n);
        let mut m = n * n;
        while m <= limit {
            sieve[m] = false;
            m += n;
        }
    }
    result
}

pub fn find_pair(values: &[i32], target: i32) -> Option<(usize, usize)> {
    'outer: for i in 0..values.len() {
        for j in (i + 1)..values.len() {
            if values[i] + values[j] > target {
                continue 'outer;
            }
            if values[i] + values[j] == target {
                return Some((i, j));
            }
        }
    }
    None
}

pub fn collatz(mut n: u64) -> u32 {
    let mut steps = 0;
    loop {
        if n == 1 {
            break steps;
        }
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
}
