#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum State {
    Idle,
    Running { since: u64 },
    Stopped(i32),
}

#[derive(Debug)]
pub enum Event {
    Start(u64),
    Stop(i32),
    Reset,
}

pub fn step(state: State, event: &Event) -> State {
    use State::*;
    match (state, event) {
        (Idle, Event::Start(t)) => Running { since: *t },
        (Running { .. }, Event::Stop(code)) => Stopped(*code),
        (Stopped(_), Event::Reset) | (Idle, Event::Reset) => Idle,
        (s @ Running { since }, Event::Start(t)) if *t < since => s,
        (s, _) => s,
    }
}

pub fn describe(state: &State) -> &'static str {
    match state {
        State::Idle => "idle",
        State::Running { since: 0..=9 } => "just started",
        State::Running { .. } => "running",
        State::Stopped(code) if *code != 0 => "failed",
        State::Stopped(_) => "done",
    }
}
