use std::collections::HashMap;
use std::hash::Hash;

pub fn frequencies<T, I>(items: I) -> HashMap<T, usize>
where
    T: Eq + Hash,
    I: IntoIterator<Item = T>,
{
    let mut counts = HashMap::new();
    for item in items {
        *counts.entry(item).or_insert(0) += 1;
    }
    counts
}

pub fn max_by_key<T, K: Ord, F: Fn(&T) -> K>(items: &[T], key: F) -> Option<&T> {
    let mut best: Option<&T> = None;
    for item in items {
        best = match best {
            Some(b) if key(b) >= key(item) => Some(b),
            _ => Some(item),
        };
    }
    best
}

pub struct Pair<A, B>(pub A, pub B);

impl<A: Clone, B: Clone> Pair<A, B> {
    pub fn swap(&self) -> Pair<B, A> {
        Pair(self.1.clone(), self.0.clone())
    }
}
