use std::future::Future;
use std::pin::Pin;

/// Reads a value through a raw pointer.
///
/// # Safety
/// `ptr` must be valid and aligned.
pub unsafe fn read_raw(ptr: *const i32) -> i32 {
    *ptr
}

pub fn first_byte(data: &[u8]) -> Option<u8> {
    if data.is_empty() {
        return None;
    }
    let p = data.as_ptr();
    Some(unsafe { *p })
}

pub async fn double(x: u32) -> u32 {
    x * 2
}

pub async fn twice(x: u32) -> u32 {
    let once = double(x).await;
    double(once).await
}

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

pub trait Service {
    fn call(&self, input: String) -> BoxFuture<'_, String>;
}

extern "C" {
    fn abs(x: i32) -> i32;
}

pub fn c_abs(x: i32) -> i32 {
    unsafe { abs(x) }
}
