pub trait Animal {
    fn name(&self) -> String;
    fn sound(&self) -> &'static str;

    fn speak(&self) -> String {
        format!("{} says {}", self.name(), self.sound())
    }
}

pub struct Dog;
pub struct Cat {
    lives: u8,
}

impl Animal for Dog {
    fn name(&self) -> String {
        "Dog".to_string()
    }
    fn sound(&self) -> &'static str {
        "woof"
    }
}

impl Animal for Cat {
    fn name(&self) -> String {
        format!("Cat with {} lives", self.lives)
    }
    fn sound(&self) -> &'static str {
        "meow"
    }
}

pub fn chorus(animals: &[Box<dyn Animal>]) -> Vec<String> {
    animals.iter().map(|a| a.speak()).collect()
}
