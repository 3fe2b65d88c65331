//! Capturing a child's stdout/stderr: each pipe drained on its own thread into a buffer that keeps
//! the first and last [`KEPT_OUTPUT`]/2 bytes, so chatty or hanging programs cannot block or bloat us.

use std::io::Read;
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::Instant;

/// How much of stdout and of stderr a [`Run`](super::Run) keeps: the first and the last half of this many
/// bytes (a panic report sits near the start, a sanitizer summary at the end).
pub const KEPT_OUTPUT: usize = 64 * 1024;

/// One output pipe being read on its own thread into a [`Capped`] buffer.
pub(super) struct Drain {
    buffer: Arc<Mutex<Capped>>,
    finished: mpsc::Receiver<()>,
}

impl Drain {
    pub(super) fn start(mut pipe: impl Read + Send + 'static) -> Drain {
        let buffer = Arc::new(Mutex::new(Capped::default()));
        let (tx, finished) = mpsc::channel();
        let shared = Arc::clone(&buffer);
        thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => shared.lock().unwrap_or_else(|p| p.into_inner()).push(&chunk[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                }
            }
            let _ = tx.send(());
        });
        Drain { buffer, finished }
    }

    /// True when the pipe reached its end before `deadline`.
    pub(super) fn wait_until(&self, deadline: Instant) -> bool {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.finished.recv_timeout(left) {
            Ok(()) => true,
            // The reader thread ended without sending: it cannot (it always sends), but then the
            // buffer is final anyway.
            Err(mpsc::RecvTimeoutError::Disconnected) => true,
            Err(mpsc::RecvTimeoutError::Timeout) => false,
        }
    }

    pub(super) fn text(&self) -> String {
        self.buffer.lock().unwrap_or_else(|p| p.into_inner()).text()
    }
}

/// The first and the last `KEPT_OUTPUT / 2` bytes of a stream, and how long it was.
#[derive(Default)]
struct Capped {
    head: Vec<u8>,
    tail: Vec<u8>,
    total: usize,
}

impl Capped {
    const HALF: usize = KEPT_OUTPUT / 2;

    fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len();
        if self.head.len() < Self::HALF {
            let take = bytes.len().min(Self::HALF - self.head.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        self.tail.extend_from_slice(bytes);
        // Trim in batches so that a long stream costs amortized linear time.
        if self.tail.len() >= 2 * Self::HALF {
            let excess = self.tail.len() - Self::HALF;
            self.tail.drain(..excess);
        }
    }

    fn text(&self) -> String {
        let tail = &self.tail[self.tail.len().saturating_sub(Self::HALF)..];
        let omitted = self.total - self.head.len() - tail.len();
        let mut out = String::from_utf8_lossy(&self.head).into_owned();
        if omitted > 0 {
            out.push_str(&format!("\n[… {omitted} bytes omitted …]\n"));
        }
        out.push_str(&String::from_utf8_lossy(tail));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_keeps_head_and_tail() {
        let mut c = Capped::default();
        for _ in 0..10_000 {
            c.push(b"0123456789");
        }
        c.push(b"THE END");
        let text = c.text();
        assert!(text.starts_with("0123456789"));
        assert!(text.ends_with("THE END"));
        let marker = format!("[… {} bytes omitted …]", 100_007 - KEPT_OUTPUT);
        assert!(text.contains(&marker), "{}", &text[32760..32830]);
        let mut small = Capped::default();
        small.push(b"short");
        assert_eq!(small.text(), "short");
    }
}
