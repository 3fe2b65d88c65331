use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

#[derive(Debug)]
pub struct Node {
    pub value: i32,
    pub children: Vec<Rc<RefCell<Node>>>,
}

impl Node {
    pub fn new(value: i32) -> Rc<RefCell<Node>> {
        Rc::new(RefCell::new(Node { value, children: vec![] }))
    }
}

pub fn sum(node: &Rc<RefCell<Node>>) -> i32 {
    let n = node.borrow();
    n.value + n.children.iter().map(sum).sum::<i32>()
}

pub fn shared_counter() -> Arc<Mutex<u64>> {
    let counter = Arc::new(Mutex::new(0u64));
    {
        let mut guard = counter.lock().unwrap();
        *guard += 1;
    }
    counter
}
