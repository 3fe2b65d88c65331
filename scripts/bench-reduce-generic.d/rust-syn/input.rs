//! A fixed-capacity ring buffer that overwrites its oldest element when full.

use std::fmt;
use std::iter::FromIterator;

/// Keeps the last `N` values pushed into it.
#[derive(Clone, PartialEq, Eq)]
pub struct RingBuffer<T, const N: usize> {
    items: [Option<T>; N],
    head: usize,
    len: usize,
}

impl<T: Copy, const N: usize> RingBuffer<T, N> {
    /// An empty buffer.
    pub const fn new() -> Self {
        RingBuffer { items: [None; N], head: 0, len: 0 }
    }

    /// Appends `value`, dropping the oldest value when the buffer is full.
    pub fn push(&mut self, value: T) {
        let tail = (self.head + self.len) % N;
        self.items[tail] = Some(value);
        if self.len == N {
            self.head = (self.head + 1) % N;
        } else {
            self.len += 1;
        }
    }

    /// The values from oldest to newest.
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        (0..self.len).filter_map(move |i| self.items[(self.head + i) % N])
    }
}

impl<T: Copy + fmt::Debug, const N: usize> fmt::Debug for RingBuffer<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Copy, const N: usize> <RingBuffer<T, N> as IntoIterator>::IntoIter for RingBuffer<T, N> {
    fn next(&mut self) -> Option<T> {
        let value = self.items[self.head].take()?;
        self.head = (self.head + 1) % N;
        self.len -= 1;
        Some(value)
    }
}

impl<T: Copy, const N: usize> FromIterator<T> for RingBuffer<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut buffer = RingBuffer::new();
        for value in iter {
            buffer.push(value);
        }
        buffer
    }
}

#[cfg(test)]
mod tests {
    use super::RingBuffer;

    #[test]
    fn keeps_the_newest_values() {
        let buffer: RingBuffer<u8, 3> = (1..=5).collect();
        assert_eq!(buffer.iter().collect::<Vec<_>>(), [3, 4, 5]);
    }
}
