/// A stack with a fixed capacity.
pub struct Stack<T> {
    items: Vec<T>,
    capacity: usize,
}

#[derive(Debug, PartialEq, Eq)]
pub enum StackError {
    Full,
    Empty,
}

impl<T: Clone> Stack<T> {
    pub fn with_capacity(capacity: usize) -> Self {
        Stack { items: Vec::with_capacity(capacity), capacity }
    }

    pub fn push(&mut self, item: T) -> Result<(), StackError> {
        if self.items.len() >= self.capacity {
            return Err(StackError::Full);
        }
        self.items.push(item);
        Ok(())
    }

    pub fn pop(&mut self) -> Result<T, StackError> {
        self.items.pop().ok_or(StackError::Empty)
    }

    pub fn peek(&self) -> Option<&T> {
        self.items.last()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}
