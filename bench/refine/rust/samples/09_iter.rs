/// Counts up to a limit, in steps.
pub struct Steps {
    current: u64,
    step: u64,
    limit: u64,
}

impl Steps {
    pub fn new(step: u64, limit: u64) -> Steps {
        Steps { current: 0, step, limit }
    }
}

impl Iterator for Steps {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if self.current >= self.limit {
            None
        } else {
            let value = self.current;
            self.current += self.step;
            Some(value)
        }
    }
}

pub fn evens_below(n: u64) -> Vec<u64> {
    Steps::new(2, n).collect()
}

pub fn pairs() -> Vec<(u64, char)> {
    Steps::new(3, 12).zip("abcd".chars()).collect()
}
