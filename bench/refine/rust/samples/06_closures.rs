pub fn apply<F>(f: F, times: usize) -> Vec<i32>
where
    F: Fn(usize) -> i32,
{
    (0..times).map(|i| f(i)).collect()
}

pub fn make_adder(n: i32) -> impl Fn(i32) -> i32 {
    move |x| x + n
}

pub fn compose<A, B, C>(f: impl Fn(A) -> B, g: impl Fn(B) -> C) -> impl Fn(A) -> C {
    move |x| g(f(x))
}

pub fn counter() -> impl FnMut() -> u32 {
    let mut count = 0;
    move || {
        count += 1;
        count
    }
}

pub fn sum_of_squares(values: &[i32]) -> i32 {
    values.iter().filter(|&&v| v > 0).map(|v| v * v).sum()
}
