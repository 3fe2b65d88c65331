pub const MAX_USERS: usize = 1_000;
pub static VERSION: &str = "1.4.2";
const MASK: u32 = 0xFF_00_FF;
const FLAGS: u8 = 0b1010_0101;
const PERMS: u16 = 0o755;
const RATIO: f32 = 2.5e-3;

#[repr(u8)]
#[derive(Clone, Copy)]
pub enum Level {
    Low = 1,
    Medium = 5,
    High = 10,
}

pub type Callback = fn(u32) -> bool;

pub fn masked(x: u32) -> u32 {
    (x & MASK) | (FLAGS as u32) << 8 | PERMS as u32
}

pub fn scaled(x: f32) -> f32 {
    x * RATIO
}

pub fn check(cb: Callback, level: Level) -> bool {
    cb(level as u32)
}
