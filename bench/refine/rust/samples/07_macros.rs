macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}

macro_rules! hashmap {
    ($($key:expr => $value:expr),* $(,)?) => {{
        let mut map = ::std::collections::HashMap::new();
        $(map.insert($key, $value);)*
        map
    }};
}

pub fn demo() -> usize {
    let m = hashmap! {
        "one" => 1,
        "two" => 2,
    };
    let v = vec![1, 2, 3];
    assert_eq!(square!(3), 9);
    println!("{:?} {:?}", m, v);
    m.len() + v.len()
}
